"""Compiled Allo modules (MLIR text) read through whichever MLIR Python bindings are importable,
and compared with the semantic model. Pure functions over text: no processes, no editor types.
The bindings are imported on first use only (`bindings.load_bindings`).
"""

from allo_lsp import lazy

_MODULE_OF = {
    "load_bindings": "bindings",
    "Mismatch": "compare",
    "compare_signature": "compare",
    "kernel_of": "compare",
    "CompiledFunction": "functions",
    "ParsedModule": "functions",
    "parse_functions": "functions",
    "PROBE_SOURCE": "probe",
    "reorders_arguments": "probe",
}

__all__ = sorted(_MODULE_OF)

__getattr__ = lazy.attributes(__name__, _MODULE_OF)
