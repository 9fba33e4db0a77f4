"""Compiled Allo modules and the semantic model compared: the module as the job's runner read it
with the Allo that made it (`functions.from_runner`), else its text read through whichever MLIR
Python bindings the server has (`functions.parse_functions`), and the signature
(`compare.py`) and the whole analysis (`differential.py`) checked against it. Pure functions:
no processes, no editor types. The bindings are imported on first use only (`bindings.load_bindings`).
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
    "from_runner": "functions",
    "parse_module": "functions",
    "Disagreement": "differential",
    "disagreements": "differential",
    "PROBE_SOURCE": "probe",
    "reorders_arguments": "probe",
}

__all__ = sorted(_MODULE_OF)

__getattr__ = lazy.attributes(__name__, _MODULE_OF)
