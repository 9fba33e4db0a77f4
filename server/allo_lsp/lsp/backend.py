"""`allo/backend`: who a simulation or a test will run on with the current settings, and why
(`jobs/build_probe.backend_choice`), for the client's status bar to show as it is said."""

from __future__ import annotations

from dataclasses import asdict

from allo_lsp.jobs.build_probe import BACKEND_REQUEST, backend_choice
from allo_lsp.lsp.server import AlloLanguageServer


async def on_backend(ls: AlloLanguageServer, params) -> dict:
    """`{backend, reason, python, allo}`; asked right after a change of the settings, so the
    settings are read again first."""
    await ls.pull_settings()
    settings = ls.settings
    return asdict(await backend_choice(settings.job_config(), settings.backend, settings.trusted))


def register(server: AlloLanguageServer) -> None:
    server.feature(BACKEND_REQUEST)(on_backend)
