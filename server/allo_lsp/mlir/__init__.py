"""Compiled Allo modules (MLIR text) read through whichever MLIR Python bindings are importable,
and compared with the semantic model. Pure functions over text: no processes, no editor types.
The bindings are imported on first use only (`bindings.load_bindings`).
"""

import importlib

# Each name from its module, imported on first use (PEP 562): importing the package, as the
# server does at start, costs nothing before the first diagnostics.
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


def __getattr__(name: str):
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_MODULE_OF[name]}"), name)
    globals()[name] = value
    return value
