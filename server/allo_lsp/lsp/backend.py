"""`allo/backend`: who a simulation or a test will run on, and why (jobs/build_probe.py)."""

from dataclasses import asdict

from allo_lsp.jobs.build_probe import BACKEND_REQUEST, backend_choice


def register(server) -> None:
    @server.feature(BACKEND_REQUEST)
    async def on_backend(ls, params) -> dict:
        await ls.pull_settings()  # asked right after a change of the settings: read them first
        s = ls.settings
        return asdict(await backend_choice(s.job_config(), s.backend, s.trusted))
