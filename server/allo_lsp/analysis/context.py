"""One extraction's shared state: the libcst module, where its nodes are, the evaluator and the
model being filled. Every part of the extraction (scopes, builds, regions, kernels) reads the
file through it, so none of them needs another to know a node's range or what `df` names."""

from __future__ import annotations

import libcst as cst

from allo_lsp.analysis.chunks import Positions
from allo_lsp.analysis.evaluate import UNKNOWN, Evaluator, Scope, Symbol
from allo_lsp.analysis.model import FileModel, Range
from allo_lsp.analysis.syntax import dotted


class Context:
    def __init__(self, module: cst.Module, positions: Positions) -> None:
        self.module = module
        self.positions = positions
        self.evaluator = Evaluator(module.code_for_node)
        self.model = FileModel()

    def range(self, node: cst.CSTNode) -> Range:
        pos, start = self.positions.get(node)
        return Range.of(pos.start.line - 1 + start, pos.start.column, pos.end.line - 1 + start, pos.end.column)

    def line(self, node: cst.CSTNode) -> int:
        """0-based line of a node, the unit `Scope` orders bindings by."""
        pos, start = self.positions.get(node)
        return pos.start.line - 1 + start

    def text(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def is_df(self, node: cst.BaseExpression, attr: str, scope: Scope, line: int) -> bool:
        """Is `node` `df.<attr>` / `allo.dataflow.<attr>` (or `<attr>` imported from there)?"""
        if isinstance(node, cst.Call):
            node = node.func
        if isinstance(node, cst.Name):
            value = self.evaluator.lookup(node.value, scope, line)
            return value == Symbol(f"allo.dataflow.{attr}")
        if not isinstance(node, cst.Attribute) or node.attr.value != attr:
            return False
        base = node.value
        if isinstance(base, cst.Name):
            value = self.evaluator.lookup(base.value, scope, line)
            # An unimported `df` still reads as Allo's: snippets often leave imports out.
            return value == Symbol("allo.dataflow") or (base.value == "df" and value is UNKNOWN)
        return dotted(base) == "allo.dataflow"
