"""The vocabulary table (`protocol/vocabulary.py`) against everything that lists its words:
package.json (the client's commands, menus and settings' enums), the CLI's parser, the server's
registered commands and lenses, its settings' checks and the job code's own tables."""

import argparse
import json

import pytest
from allo_lsp.analysis import analyze
from allo_lsp.cli import build_parser
from allo_lsp.ide.lenses import CANCEL, COMMANDS, FILES, REPORT, code_lenses
from allo_lsp.jobs import launch, synthesis
from allo_lsp.lsp import create_server
from allo_lsp.protocol import vocabulary as v
from allo_lsp.settings import SECTION, Settings, parse_settings
from paths import ROOT

PACKAGE = json.loads((ROOT / "package.json").read_text())
CLIENT_ONLY = {
    "alloDataflow.restartServer",
    "alloDataflow.showOutput",
    "alloDataflow.selectInterpreter",
    "alloDataflow.showGraph",
    "alloDataflow.pickPe",
}  # the client answers these itself
# Setting (package.json key after the section) -> its choices in the table.
SETTING_CHOICES = {
    "alloBuild": v.ALLO_BUILDS,
    "backend": v.BACKENDS,
    "emulate": v.EMULATIONS,
    "vitis.command": v.VITIS_COMMANDS,
    "scheduler": v.SCHEDULERS,
}


def _properties() -> dict:
    configuration = PACKAGE["contributes"]["configuration"]
    return (configuration if isinstance(configuration, dict) else configuration[0])["properties"]


def _cli_choices() -> dict[tuple[str, str], tuple]:
    """(subcommand, option) -> the option's choices, read from the parser the CLI runs."""
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return {
        (name, option): tuple(action.choices)
        for name, parser in sub.choices.items()
        for action in parser._actions
        if action.choices
        for option in action.option_strings
    }


def test_the_server_handles_every_command_package_json_declares_for_it():
    declared = {c["command"] for c in PACKAGE["contributes"]["commands"]} - CLIENT_ONLY
    registered = set(create_server().protocol.fm.commands)
    assert declared == registered == set(COMMANDS.values()) | {CANCEL, v.SWEEP}


def test_package_json_declares_the_tables_commands_and_its_menus_name_no_other():
    declared = [c["command"] for c in PACKAGE["contributes"]["commands"]]
    assert sorted(declared) == sorted(v.SERVER_COMMANDS + v.CLIENT_COMMANDS)
    in_menus = {item["command"] for items in PACKAGE["contributes"]["menus"].values() for item in items}
    assert in_menus <= set(declared)
    assert set(v.CLIENT_COMMANDS) == CLIENT_ONLY


def test_the_server_registers_the_tables_server_commands_and_its_lenses_use_them():
    assert sorted(create_server().protocol.fm.commands) == sorted(v.SERVER_COMMANDS)
    assert {kind: COMMANDS[kind] for kind in v.JOB_KINDS} == v.JOB_COMMANDS
    assert (COMMANDS[REPORT], COMMANDS[FILES], CANCEL) == (v.SHOW_REPORT, v.SYNTHESIS_FILES, v.CANCEL_JOB)
    assert set(COMMANDS) == set(v.JOB_KINDS) | {REPORT, FILES}
    text = (ROOT / "examples" / "producer_consumer.py").read_text()
    lenses = code_lenses(analyze(text), {}, set())
    assert lenses and {lens.kind for lens in lenses} <= set(v.JOB_KINDS)
    assert {lens.command for lens in lenses} <= set(v.JOB_COMMANDS.values())


def test_every_command_and_setting_is_in_the_section():
    assert SECTION == v.SECTION
    commands = [c["command"] for c in PACKAGE["contributes"]["commands"]]
    assert all(c.startswith(f"{v.SECTION}.") for c in commands + list(_properties()))


def test_the_settings_choices_are_package_jsons():
    enums = {key.removeprefix(f"{SECTION}."): tuple(p["enum"]) for key, p in _properties().items() if "enum" in p}
    assert {k: enums[k] for k in SETTING_CHOICES} == SETTING_CHOICES


@pytest.mark.parametrize("key", sorted(SETTING_CHOICES))
def test_the_server_accepts_each_of_a_settings_choices_and_nothing_else(key):
    outer, _, inner = key.rpartition(".")
    nest = (lambda value: {outer: {inner: value}}) if outer else (lambda value: {key: value})
    for choice in SETTING_CHOICES[key]:
        settings, warnings = parse_settings(nest(choice))
        assert warnings == [] and choice in vars(settings).values(), choice
    settings, warnings = parse_settings(nest("not-a-choice"))
    assert len(warnings) == 1 and settings == Settings()


def test_the_cli_offers_the_tables_choices():
    choices = _cli_choices()
    assert choices[("check", "--allo-build")] == v.ALLO_BUILDS
    assert choices[("run", "--backend")] == v.BACKENDS
    assert ("",) + choices[("run", "--emulate")] == v.EMULATIONS  # the empty choice is the option's absence
    assert choices[("synth", "--vitis-command")] == v.VITIS_COMMANDS
    assert choices[("sweep", "--scheduler")] == v.SCHEDULERS


def test_the_job_code_knows_the_same_backends_and_vitis_commands():
    assert launch.BACKENDS == v.BACKENDS
    assert tuple(synthesis.COMMANDS) == v.VITIS_COMMANDS
    assert Settings().backend in v.BACKENDS and Settings().allo_build in v.ALLO_BUILDS
    assert Settings().vitis_command in v.VITIS_COMMANDS and Settings().emulate in v.EMULATIONS


def test_the_sweeps_point_limit_is_one_number_everywhere():
    from allo_lsp.jobs import sweep

    setting = _properties()[f"{SECTION}.sweep.maxPoints"]
    assert setting["default"] == Settings().sweep_max_points == sweep.MAX_POINTS
    assert (setting["minimum"], setting["maximum"]) == (1, 100_000)
    for value, accepted in ((setting["minimum"], True), (setting["maximum"], True), (0, False), (100_001, False)):
        settings, warnings = parse_settings({"sweep": {"maxPoints": value}})
        assert (settings.sweep_max_points == value) is accepted and (warnings == []) is accepted, value
    assert build_parser().parse_args(["sweep", "f.py::top"]).max_points is None  # then sweep.MAX_POINTS
