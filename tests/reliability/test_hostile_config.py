"""Hostile project configurations (issue 25, items 5-7): random `[tool.allo-lsp]` tables of wrong
types, deep nesting, huge lists and odd globs, through `analysis/config`; special files where a
`pyproject.toml` or a `.gitignore` is looked for, through the project search and the workspace
scan; and one round through the real server over stdio. Nothing raises, nothing hangs (each case
bounded in time), every problem lies on the text's lines, and the server keeps answering.
Seeded, a bounded number of cases."""

import json
import math
import os
import random
import sys
import time
from pathlib import Path

import pytest
import pytest_lsp
from allo_lsp.analysis.config import KEYS, MAX_PROBLEMS, parse_config
from allo_lsp.session.project_config import MAX_BYTES, ProjectConfigs
from allo_lsp.session.workspace_files import allo_files
from editor import Editor, make_client
from lsprotocol import types as lsp
from paths import EXAMPLES
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

SEED = 25
CASES = 200
CASE_LIMIT_S = 3.0  # a stall, not a loaded machine
GLOB_CHARACTERS = "*?[]!^{},/\\-a.b"
DESIGN = (EXAMPLES / "pitfall_mapping_order.py").read_text()  # one ADF011


# -- random TOML -----------------------------------------------------------------------------------


class Raw(str):
    """TOML text written as it is: a value nested thousands deep (no recursion makes it)."""


def toml(value, depth: int = 0) -> str:
    """`value` as a TOML inline value (strings as JSON writes them: TOML's basic strings read them)."""
    if isinstance(value, Raw):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml(v, depth + 1) for v in value) + "]"
    return "{ " + ", ".join(f"{json.dumps(k)} = {toml(v, depth + 1)}" for k, v in value.items()) + " }"


def glob(rng: random.Random) -> str:
    if rng.random() < 0.3:
        return "*a" * rng.randint(1, 2000) + "*b"
    return "".join(rng.choice(GLOB_CHARACTERS) for _ in range(rng.randint(0, rng.choice([8, 200, 3000]))))


def text(rng: random.Random) -> str:
    return rng.choice(
        [
            "".join(chr(rng.randint(32, 0x2FFF)) for _ in range(rng.randint(0, 20))),
            rng.choice(["ADF", "ADF005", "adf0", "ALL", "error", "hint", "fixed", "auto", "", " ", "X9"]),
            "ADF0" * rng.randint(1, 5000),
            glob(rng),
        ]
    )


def value(rng: random.Random, depth: int = 0):
    kinds = ["int", "float", "bool", "text"] + (["list", "table", "deep"] if depth < 3 else [])
    kind = rng.choice(kinds)
    if kind == "int":
        return rng.choice([0, -1, 2**63 - 1, rng.randint(-99, 99)])
    if kind == "float":
        return rng.choice([0.5, float("inf"), float("nan"), -1e300])
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "text":
        return text(rng)
    if kind == "list" and depth == 0 and rng.random() < 0.1:  # huge, of values cheap to make
        return [rng.choice([1, "ADF0", "zz", [], {}]) for _ in range(20_000)]
    if kind == "list":
        return [value(rng, depth + 1) for _ in range(rng.choice([0, 1, 3, 5]))]
    if kind == "table":
        return {text(rng) or "k": value(rng, depth + 1) for _ in range(rng.randint(0, 4))}
    inner, depth = toml(value(rng, 3)), rng.choice([10, 150, 3000])
    return Raw("[" * depth + inner + "]" * depth if rng.random() < 0.5 else "{ a = " * depth + inner + " }" * depth)


def hostile_table(rng: random.Random) -> str:
    keys = rng.sample(KEYS, rng.randint(1, len(KEYS))) + ([text(rng) or "x"] if rng.random() < 0.3 else [])
    lines = ["[project]", 'name = "x"', "", "[tool.allo-lsp]"]
    for key in keys:
        if key == "per-file-ignores" and rng.random() < 0.6:
            entries = {glob(rng): [text(rng) for _ in range(rng.randint(0, 3))] for _ in range(rng.randint(1, 30))}
            lines.append(f"{json.dumps(key)} = {toml(entries)}")
        elif key == "select" and rng.random() < 0.3:  # huge lists of (mostly bad) codes
            lines.append(f"select = {toml([f'ADF{rng.randint(0, 99999)}' for _ in range(20_000)])}")
        else:
            lines.append(f"{json.dumps(key)} = {toml(value(rng))}")
    return "\n".join(lines) + "\n"


PATHS = ["design.py", "tests/test_x.py", "a" * 3000 + ".py", "/".join(["a" * 200] * 10) + "/x.py", "é/ü.py"]


def test_random_hostile_tables_are_problems_on_their_lines_never_exceptions():
    rng = random.Random(SEED)
    slowest = 0.0
    for case in range(CASES):
        body = hostile_table(rng)
        started = time.monotonic()
        try:
            found, problems = parse_config(body)
            if found is not None:
                for path in PATHS:
                    found.selection_for(path)
        except Exception as exc:  # noqa: BLE001 - the failure to report, with its case
            pytest.fail(f"case {case}: {exc!r} on {body[:300]!r}")
        took = time.monotonic() - started
        slowest = max(slowest, took)
        assert took < CASE_LIMIT_S, f"case {case}: {took:.1f} s on {body[:300]!r}"
        lines = body.split("\n")
        assert len(problems) <= MAX_PROBLEMS + 1, f"case {case}: {len(problems)} problems"
        for p in problems:
            r = p.range
            assert 0 <= r.start.line <= r.end.line < len(lines), (case, p)
            assert 0 <= r.start.column <= len(lines[r.start.line]) and r.end.column <= len(lines[r.end.line]), (case, p)
            assert len(p.message) < 500, (case, p.message[:200])
    print(f"slowest case: {slowest * 1000:.0f} ms")


# -- special files where a pyproject.toml or a .gitignore is looked for -----------------------------


def special(path: Path, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "dangling":
        os.symlink(path.parent / "nowhere", path)
    elif kind == "loop":
        os.symlink(path, path)
    elif kind == "huge":
        path.write_text('[tool.allo-lsp]\nignore = ["ADF006"]\n' + "#" * MAX_BYTES)
    else:  # a device or the process's own stdin, through a link
        os.symlink(kind, path)


SPECIAL = ["fifo", "directory", "dangling", "loop", "huge", "/dev/zero", "/dev/urandom", "/proc/self/fd/0"]


@pytest.mark.timeout(120)
def test_special_files_where_a_pyproject_is_looked_for_are_passed_over(tmp_path):
    rng = random.Random(SEED)
    for case in range(40):
        root = tmp_path / str(case)
        levels = [root / "a", root / "a" / "b", root / "a" / "b" / "c"]
        levels[-1].mkdir(parents=True)
        kinds = {level: rng.choice([*SPECIAL, "regular", "none"]) for level in levels}
        for level, kind in kinds.items():
            if kind == "regular":
                (level / "pyproject.toml").write_text(f'[tool.allo-lsp]\nignore = ["ADF00{len(level.parts) % 10}"]\n')
            elif kind != "none":
                special(level / "pyproject.toml", kind)
        started = time.monotonic()
        found = ProjectConfigs().for_file(levels[-1] / "design.py", [root.as_uri()])
        assert time.monotonic() - started < CASE_LIMIT_S, (case, kinds)
        regular = [level for level in reversed(levels) if kinds[level] == "regular"]
        assert found.path == (regular[0] / "pyproject.toml" if regular else None), (case, kinds)


@pytest.mark.timeout(120)
def test_special_files_and_odd_globs_in_the_workspace_leave_the_scan_bounded(tmp_path):
    rng = random.Random(SEED)
    for case in range(20):
        root = tmp_path / str(case)
        (root / "sub").mkdir(parents=True)
        (root / "design.py").write_text(DESIGN)
        (root / ("a" * 200 + ".py")).write_text(DESIGN)
        (root / "sub" / "kernel.py").write_text(DESIGN)
        for name in ("x.py", "sub/y.py", ".gitignore", "sub/.gitignore"):
            if not (root / name).exists() and rng.random() < 0.5:
                special(root / name, rng.choice(SPECIAL))
        if not (root / ".gitignore").exists() and not (root / ".gitignore").is_symlink():
            (root / ".gitignore").write_text("\n".join(glob(rng) for _ in range(rng.randint(1, 5))) + "\n")
        started = time.monotonic()
        found = list(allo_files([root], [glob(rng) for _ in range(3)]))
        assert time.monotonic() - started < CASE_LIMIT_S * 3, case
        assert all(path.is_file() and not path.is_symlink() for path in found), (case, found)


# -- one round through the server --------------------------------------------------------------------


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "allo_lsp", "serve"], client_factory=make_client)
)
async def client(lsp_client: LanguageClient):
    lsp_client.editor = Editor(lsp_client, "visual_studio_code")
    lsp_client.set_configuration({"alloBuild": "auto"}, section="alloDataflow")
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=client_capabilities("visual_studio_code")))
    yield
    await lsp_client.shutdown_session()


async def test_the_server_keeps_answering_beside_hostile_configurations(client, tmp_path):
    editor, rng = client.editor, random.Random(SEED)
    line = DESIGN.split("\n").index("    def producer(local_A: int32[M]):")
    for case in range(6):
        folder = tmp_path / str(case)
        folder.mkdir()
        if case % 3 == 2:
            special(folder / "pyproject.toml", rng.choice(["fifo", "/dev/zero", "/proc/self/fd/0"]))
        else:
            (folder / "pyproject.toml").write_text(hostile_table(rng).replace("ignore", "ignore-not"))
        uri = editor.open(DESIGN, path=folder / "design.py")
        shown = await editor.diagnostics(uri, timeout=20)
        assert {d.code for d in shown} <= {"ADF011"}, case  # a select that leaves ADF011 out shows none
        hover = await editor.hover(uri, line, len("    def pro"))
        assert hover is not None and "producer" in hover, case
