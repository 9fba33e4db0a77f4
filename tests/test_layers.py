"""The layering in ARCHITECTURE.md, checked on the imports of every module."""

import ast
from pathlib import Path

from paths import ROOT

PACKAGE = ROOT / "server" / "allo_lsp"
# What each layer must not import (prefix match on the imported module name).
FORBIDDEN = {
    "analysis": ("pygls", "lsprotocol", "subprocess", "socket", "allo_lsp.lsp", "allo_lsp.ide",
                 "allo_lsp.jobs", "allo_lsp.runner", "allo_lsp.check", "allo_lsp.cli"),
    "ide": ("pygls", "lsprotocol", "subprocess", "socket", "allo_lsp.lsp", "allo_lsp.jobs",
            "allo_lsp.runner", "allo_lsp.check", "allo_lsp.cli"),
    "mlir": ("pygls", "lsprotocol", "subprocess", "allo_lsp.lsp", "allo_lsp.ide", "allo_lsp.jobs",
             "allo_lsp.runner"),
    "jobs": ("pygls", "lsprotocol", "allo_lsp.lsp", "allo_lsp.ide", "allo_lsp.runner"),
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
