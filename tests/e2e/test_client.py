"""The VS Code client's own checks: package.json is the single source of the settings' defaults
(the server's `Settings` must agree), and the TypeScript typecheck, lint, unit tests and TextMate grammar
tests (npm scripts) pass."""

import json
import re
import subprocess
from dataclasses import fields

import pytest
from allo_lsp.settings import SECTION, Settings
from paths import ROOT

PACKAGE = json.loads((ROOT / "package.json").read_text())
PROPERTIES = PACKAGE["contributes"]["configuration"]["properties"]
# Read by the client only (`alloDataflow.server.python`, `alloDataflow.trace.server`).
CLIENT_ONLY = ("server.", "trace.")
# Set by the client from the editor's workspace trust, never by the user.
CLIENT_INJECTED = {"trusted"}


def field_name(key: str) -> str:
    """`vitis.clockNs` -> `vitis_clock_ns`: the `Settings` field a key of the section sets, as the
    server maps VS Code's nested settings."""
    return re.sub(r"(?<!^)([A-Z])", r"_\1", key.replace(".", "_")).lower()


SERVER_KEYS = {
    key.removeprefix(f"{SECTION}."): schema
    for key, schema in PROPERTIES.items()
    if not key.removeprefix(f"{SECTION}.").startswith(CLIENT_ONLY)
}


def test_server_settings_defaults_come_from_package_json():
    declared = {field_name(key): schema["default"] for key, schema in SERVER_KEYS.items()}
    defaults = {f.name: getattr(Settings(), f.name) for f in fields(Settings) if f.name not in CLIENT_INJECTED}
    assert declared == defaults


def test_trust_is_not_a_user_setting():
    assert not CLIENT_INJECTED & {field_name(key) for key in SERVER_KEYS}


def test_every_setting_is_documented_with_a_default():
    for key, schema in PROPERTIES.items():
        assert key.startswith(f"{SECTION}."), key
        assert "default" in schema, key
        assert schema.get("description") or schema.get("markdownDescription"), key


def test_server_info_names_the_module_the_client_starts():
    assert PACKAGE["serverInfo"]["module"] == "allo_lsp"
    assert (ROOT / "server" / PACKAGE["serverInfo"]["module"] / "__main__.py").is_file()


def test_lens_commands_are_contributed():
    from allo_lsp.ide.lenses import COMMANDS

    contributed = {c["command"] for c in PACKAGE["contributes"]["commands"]}
    assert set(COMMANDS.values()) | {"alloDataflow.cancelJob"} <= contributed


@pytest.mark.parametrize("script", ["typecheck", "lint", "test:unit", "test:grammar"])
def test_npm_script(vsix, script):
    """`vsix` makes sure node_modules is installed (npm ci) the way the build does."""
    run = subprocess.run(["npm", "run", "-s", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
