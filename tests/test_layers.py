"""The layering in ARCHITECTURE.md, checked on the imports of every module."""

import ast
import re
from pathlib import Path

from paths import ROOT

PACKAGE = ROOT / "server" / "allo_lsp"
# What each layer must not import (prefix match on the imported module name).
FORBIDDEN = {
    "analysis": (
        "pygls",
        "lsprotocol",
        "subprocess",
        "socket",
        "allo_lsp.lsp",
        "allo_lsp.ide",
        "allo_lsp.session",
        "allo_lsp.jobs",
        "allo_lsp.runner",
        "allo_lsp.check",
        "allo_lsp.cli",
    ),
    # Pure features: (analysis, plain inputs) -> frozen data. No event loop, process, thread or
    # file: those have a lifetime, and live in session/.
    "ide": (
        "pygls",
        "lsprotocol",
        "subprocess",
        "socket",
        "asyncio",
        "threading",
        "multiprocessing",
        "concurrent",
        "ctypes",
        "signal",
        "allo_lsp.lsp",
        "allo_lsp.session",
        "allo_lsp.jobs",
        "allo_lsp.runner",
        "allo_lsp.check",
        "allo_lsp.cli",
        "allo_lsp.regular_files",
    ),
    # The server's state: documents, the queue, the workspace, the editor's jobs. Below lsp/: it
    # knows no pygls or lsprotocol.
    "session": ("pygls", "lsprotocol", "allo_lsp.lsp", "allo_lsp.check", "allo_lsp.cli"),
    "mlir": ("pygls", "lsprotocol", "subprocess", "allo_lsp.lsp", "allo_lsp.ide", "allo_lsp.jobs", "allo_lsp.runner"),
    # Running things, no editor concept (the editor's jobs are session/editor.py's).
    "jobs": ("pygls", "lsprotocol", "allo_lsp.lsp", "allo_lsp.ide", "allo_lsp.session", "allo_lsp.runner"),
    # The transport under the server: frames and JSON-RPC messages, no feature.
    "lsp/jsonrpc": (
        "allo_lsp.lsp.convert",
        "allo_lsp.lsp.server",
        "allo_lsp.lsp.features",
        "allo_lsp.lsp.jobs",
        "allo_lsp.session",
        "allo_lsp.ide",
        "allo_lsp.jobs",
        "allo_lsp.analysis",
        "allo_lsp.runner",
        "allo_lsp.mlir",
        "allo_lsp.reports",
    ),
}
# The runner runs inside the user's Allo interpreter: the standard library, numpy, allo, and
# nothing of ours but the protocol.
RUNNER_MAY_IMPORT = ("allo_lsp.protocol", "allo_lsp.runner", "numpy", "allo")


def imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_layers_import_only_downwards():
    violations = []
    for layer, forbidden in FORBIDDEN.items():
        for path in sorted((PACKAGE / layer).rglob("*.py")):
            for name in imports(path):
                if name.startswith(forbidden):
                    violations.append(f"{path.relative_to(ROOT)} imports {name}")
    assert violations == []


def test_runner_and_protocol_import_only_the_standard_library_numpy_and_allo():
    import sys

    violations = []
    for layer in ("runner", "protocol"):
        for path in sorted((PACKAGE / layer).rglob("*.py")):
            for name in imports(path):
                top = name.split(".")[0]
                allowed = any(name == m or name.startswith(m + ".") for m in RUNNER_MAY_IMPORT)
                if top in sys.stdlib_module_names or top == "__future__" or allowed:
                    continue
                violations.append(f"{path.relative_to(ROOT)} imports {name}")
    assert violations == []


def test_the_check_is_not_vacuous():
    assert any((PACKAGE / "analysis").rglob("*.py"))
    assert "libcst" in imports(PACKAGE / "analysis" / "extract.py")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_modules(path: Path, modules: set[str]) -> set[str]:
    """The package's modules `path` imports (anywhere in it, functions included), each resolved to
    the module itself (`from allo_lsp.lsp import convert` is `allo_lsp.lsp.convert`). Imports under
    `if TYPE_CHECKING:` count too: a circle of annotations is still two modules that need each other."""
    me = _module_name(path)
    found = set()

    def visit(node) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                found.update(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
                    for _ in range(child.level - 1):
                        package = package.rpartition(".")[0]
                    base = f"{package}.{base}" if base else package
                found.update(f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in child.names)
            visit(child)

    visit(ast.parse(path.read_text()))
    resolved = set()
    for name in found:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name and name != me:
            resolved.add(name)
    return resolved


def test_no_import_circle_among_the_packages_modules():
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {name: _imported_modules(path, set(paths)) for name, path in paths.items()}
    circles = []
    done: set[str] = set()

    def walk(name: str, trail: list[str]) -> None:
        if name in trail:
            circles.append(" -> ".join(trail[trail.index(name) :] + [name]))
            return
        if name in done:
            return
        for imported in sorted(graph[name]):
            walk(imported, trail + [name])
        done.add(name)

    for name in sorted(graph):
        walk(name, [])
    assert circles == []


LSP = PACKAGE / "lsp"
# lsprotocol values are made in lsp/convert.py only (the transport under the server, jsonrpc/, makes
# the one it answers a client's unfit answer with). Elsewhere in lsp/ lsprotocol is read only: its
# method names to register features, its types in annotations, its enum members.
MAY_MAKE_LSP_VALUES = {"convert.py": None}
# A thin adapter: the features are in ide/, the state in session/, the jobs in jobs/ (issues 16, 28).
# Counted honestly since issue 28: every line that knows pygls, the document overrides
# (documents.py) and the transport (jsonrpc/) included: 1,606 lines then, 1,668 once the job
# commands' answers moved in from session/ and the problems kept across restarts are shown (issue 29).
LSP_LINES_AT_MOST = 1700


def _lsprotocol_calls(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    modules, names = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {a.asname or a.name for a in node.names if a.name.startswith("lsprotocol")}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("lsprotocol"):
            for a in node.names:
                (modules if a.name == "types" else names).add(a.asname or a.name)
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            called = ast.unparse(node.func)
            root = called.split(".")[0]
            if root in modules or called in names:
                calls.append(called)
    return calls


def test_lsprotocol_values_are_made_only_in_convert():
    violations = []
    for path in sorted(LSP.glob("*.py")):
        allowed = MAY_MAKE_LSP_VALUES.get(path.name, set())
        if allowed is None:
            continue
        violations += [f"{path.name} makes {c}" for c in _lsprotocol_calls(path) if c.split(".")[-1] not in allowed]
    assert violations == []
    assert _lsprotocol_calls(LSP / "convert.py")  # not vacuous


def test_no_function_in_lsp_is_over_50_lines():
    long = []
    for path in sorted(LSP.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > 50:
                    long.append(f"{path.name}:{node.lineno} {node.name} ({lines} lines)")
    assert long == []


def test_features_use_the_servers_public_state():
    """Handlers reach the server through the object they are given, never its module's private
    names nor its private fields (`ls._pending`)."""
    violations = []
    for path in sorted(LSP.glob("*.py")):
        if path.name == "server.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("allo_lsp"):
                violations += [
                    f"{path.name} imports {node.module}.{a.name}" for a in node.names if a.name.startswith("_")
                ]
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "ls":
                if node.attr.startswith("_"):
                    violations.append(f"{path.name}:{node.lineno} reads ls.{node.attr}")
    assert violations == []


# A job result's details are typed per kind (protocol/details.py): read by field, never by key,
# outside protocol/.
DETAILS_BY_KEY = re.compile(r"\.details(\[|\.(get|setdefault|pop)\()|\[\"details\"\]")


def test_details_are_read_by_field_outside_protocol():
    assert DETAILS_BY_KEY.search('outcome.details.get("report")') and DETAILS_BY_KEY.search('data["details"].pop')
    violations = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith("protocol/"):
            continue
        violations += [
            f"{relative}:{n}: {line.strip()}"
            for n, line in enumerate(path.read_text().splitlines(), 1)
            if DETAILS_BY_KEY.search(line)
        ]
    assert violations == []


def test_the_runners_wire_is_written_once():
    """Its marker lines and options: both sides import protocol/pipes.py."""
    pipes = PACKAGE / "protocol" / "pipes.py"
    assert "@@allo-lsp" in pipes.read_text()
    spelled = [
        str(p.relative_to(ROOT))
        for p in sorted(PACKAGE.rglob("*.py"))
        if p != pipes and re.search(r"@@allo-lsp|\"--(result-fd|watchdog-fd|warm)\"", p.read_text())
    ]
    assert spelled == []


def test_lsp_is_a_thin_adapter():
    lines = {str(path.relative_to(LSP)): len(path.read_text().splitlines()) for path in sorted(LSP.rglob("*.py"))}
    assert "jsonrpc/stdio.py" in lines and "documents.py" in lines
    assert sum(lines.values()) < LSP_LINES_AT_MOST, lines


# The synthesis report is typed (protocol/report.py): reports/ reads Vitis' files into it, and
# everything else reads its fields, the resources by RESOURCES, never a resource's name spelled.
RESOURCE_KEY = re.compile(r"""(["'])(BRAM_18K|DSP|FF|LUT|URAM|DSP48E)\1""")
MAY_SPELL_RESOURCES = ("reports/", "protocol/report.py")


def test_only_the_report_modules_spell_a_resources_name():
    assert RESOURCE_KEY.search('resources.get("LUT", {})') and not RESOURCE_KEY.search('f"LUT {lut:g}%"')
    spelled, violations = set(), []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        found = [n for n, line in enumerate(path.read_text().splitlines(), 1) if RESOURCE_KEY.search(line)]
        if relative.startswith(MAY_SPELL_RESOURCES):
            spelled |= {relative} if found else set()
        else:
            violations += [f"{relative}:{n}" for n in found]
    assert violations == []
    assert "protocol/report.py" in spelled  # not vacuous: the one list is there
