"""Compiled Allo modules (MLIR text) read through whichever MLIR Python bindings are importable,
and compared with the semantic model. Pure functions over text: no processes, no editor types.
The bindings are imported on first use only (`bindings.load_bindings`).
"""

from allo_lsp.mlir.bindings import load_bindings
from allo_lsp.mlir.compare import Mismatch, compare_signature, kernel_of
from allo_lsp.mlir.functions import CompiledFunction, ParsedModule, parse_functions
from allo_lsp.mlir.probe import PROBE_SOURCE, reorders_arguments

__all__ = [
    "PROBE_SOURCE",
    "CompiledFunction",
    "Mismatch",
    "ParsedModule",
    "compare_signature",
    "kernel_of",
    "load_bindings",
    "parse_functions",
    "reorders_arguments",
]
