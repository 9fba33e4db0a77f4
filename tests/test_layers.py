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
}


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


def test_the_check_is_not_vacuous():
    assert any((PACKAGE / "analysis").rglob("*.py"))
    assert "libcst" in imports(PACKAGE / "analysis" / "extract.py")
