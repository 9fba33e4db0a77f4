"""STAND-IN `allo._mlir.ir` (tests only): upstream bindings' `ir`, its `Module.parse` reading the
stand-in's Allo ops in their custom form (see the package's docstring)."""

import importlib
import os
import re
import sys


def _chosen(name: str) -> str | None:
    design = getattr(sys.modules.get("allo.dataflow"), "_current_design", {})
    return design.get(name) or os.environ.get(name)


def _upstream():
    if _chosen("ALLO_STANDIN_BINDINGS") == "none":
        raise ImportError("stand-in allo: ALLO_STANDIN_BINDINGS=none (an Allo built without its MLIR bindings)")
    for name in ("mlir.ir", "torch_mlir.ir"):
        try:
            ir = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(ir, "Context") and hasattr(ir, "Module"):  # PyPI's `mlir` is an empty placeholder
            return ir
    raise ImportError("stand-in allo: no upstream MLIR bindings to stand in for allo._mlir (pip install torch-mlir)")


_ir = _upstream()
globals().update({k: v for k, v in vars(_ir).items() if not k.startswith("_")})

# `allo.stream_construct() {name = "pipe"} : !allo.stream<i32, 4>`, the op's assembly format
# (AlloOps.td), in the generic form upstream bindings accept with unregistered dialects allowed.
_STREAM_CONSTRUCT = re.compile(r"(?<![\"\w.])allo\.stream_construct\(\)((?: \{[^}\n]*\})?) : ([^\n]+)")


class Module:
    @staticmethod
    def parse(text, context=None):
        generic = _STREAM_CONSTRUCT.sub(r'"allo.stream_construct"()\1 : () -> \2', text)
        return _ir.Module.parse(generic, context)
