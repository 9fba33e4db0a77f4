"""The server's commands and settings' choices against package.json, the client's declaration of
them: one list each, the client's and the server's kept equal."""

import json

from allo_lsp.ide.lenses import CANCEL, COMMANDS
from allo_lsp.lsp import create_server
from allo_lsp.lsp.settings import ALLO_BUILDS, BACKENDS, EMULATIONS, SECTION, VITIS_COMMANDS
from paths import ROOT

PACKAGE = json.loads((ROOT / "package.json").read_text())
CLIENT_ONLY = {"alloDataflow.restartServer", "alloDataflow.showOutput", "alloDataflow.selectInterpreter"}  # the client answers these itself


def test_the_server_handles_every_command_package_json_declares_for_it():
    declared = {c["command"] for c in PACKAGE["contributes"]["commands"]} - CLIENT_ONLY
    registered = set(create_server().protocol.fm.commands)
    assert declared == registered == set(COMMANDS.values()) | {CANCEL}


def test_the_settings_choices_are_package_jsons():
    configuration = PACKAGE["contributes"]["configuration"]
    properties = (configuration if isinstance(configuration, dict) else configuration[0])["properties"]
    enums = {key.removeprefix(f"{SECTION}."): tuple(p["enum"]) for key, p in properties.items() if "enum" in p}
    assert {k: enums[k] for k in ("alloBuild", "backend", "emulate", "vitis.command")} == {
        "alloBuild": ALLO_BUILDS, "backend": BACKENDS, "emulate": EMULATIONS, "vitis.command": VITIS_COMMANDS}
