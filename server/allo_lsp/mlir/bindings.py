"""One small interface over whichever MLIR Python bindings the server's environment has: the
reading of a module when the job's runner had none (`functions.parse_module`), headers only.

Allo ships its own (`allo._mlir`); upstream-style bindings also come with `torch-mlir` and
`iree-base-compiler`. Their APIs drift between LLVM versions (attribute iteration, automatic
down-casting, error types), so everything version-sensitive lives here and the rest of the
package sees plain Python values.

Only one set of bindings is ever imported per process, and only when first asked for: two LLVM
builds loaded at once can abort the process (`LLVM ERROR: Option 'fast' already exists!`).
"""

from __future__ import annotations

import functools
import importlib
import re
import sys
from dataclasses import dataclass
from types import ModuleType

# In order of preference: Allo's own bindings know the `allo` dialect.
CANDIDATES = ("allo._mlir.ir", "mlir.ir", "torch_mlir.ir", "iree.compiler.ir")
# Only for a module the job's Allo could not read itself (an Allo built without `allo._mlir`):
# allo-lsp does not depend on any, so the command names this interpreter, which may be the editor
# extension's private environment the user never made.
INSTALL_HINT = (
    "the job's Allo reads its module with its own bindings (allo._mlir), and this one could not; use an Allo "
    "built with its Python bindings, or install bindings into the language server's environment with "
    f"{sys.executable} -m pip install torch-mlir==20261001 (or iree-base-compiler)"
)

_LINE_COL = re.compile(r":(\d+):(\d+)")
# `LINE:COL: MESSAGE` after a line's first `error: ` (found by `str.find`: a lazy `error: .*?:` was
# retried from every `error: ` of a long line, quadratic).
_TEXT_ERROR = re.compile(r":(\d+):(\d+): (.*)")


@dataclass(frozen=True)
class Diagnostic:
    line: int | None  # 1-based, as MLIR reports it
    column: int | None
    message: str

    def __str__(self) -> str:
        return f"{self.line}:{self.column}: {self.message}" if self.line else self.message


class ParseError(Exception):
    """The text is not MLIR these bindings accept."""

    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__("; ".join(map(str, diagnostics)))
        self.diagnostics = diagnostics


@dataclass(frozen=True)
class FuncHeader:
    """A `func.func` as far as signatures go. Attributes: unit -> True, string -> its value,
    anything else -> its printed form."""

    name: str
    inputs: tuple[str, ...]
    attributes: dict[str, str | bool]


class Bindings:
    def __init__(self, module_name: str, ir: ModuleType):
        self.module_name = module_name
        self._ir = ir

    def functions(self, text: str) -> list[FuncHeader]:
        """Every `func.func` of the module, nested modules included, in document order."""
        ir = self._ir
        context = ir.Context()  # one per parse: cheap (a few ms) and never shared between threads
        context.allow_unregistered_dialects = True
        try:
            module = ir.Module.parse(text, context)
        except Exception as exc:  # noqa: BLE001 - MLIRError on recent bindings, ValueError on older ones
            raise ParseError(_diagnostics(exc)) from None
        return [self._header(op) for op in _func_ops(module.operation)]

    def _header(self, op) -> FuncHeader:
        ir = self._ir
        attributes = {}
        for i in range(len(op.attributes)):  # iteration yields names or pairs, depending on version
            named = op.attributes[i]
            attributes[named.name] = self._value(named.attr)
        function_type = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
        name = attributes.pop("sym_name")
        attributes.pop("function_type")
        return FuncHeader(str(name), tuple(str(t) for t in function_type.inputs), attributes)

    def _value(self, attr) -> str | bool:
        if str(attr) == "unit":
            return True
        try:
            return self._ir.StringAttr(attr).value
        except (ValueError, TypeError):
            return str(attr)


def _func_ops(operation):
    for region in operation.regions:
        for block in region.blocks:
            for op in block.operations:
                op = op.operation
                if op.name == "func.func":
                    yield op
                elif op.name == "builtin.module":
                    yield from _func_ops(op)


def _diagnostics(exc: Exception) -> list[Diagnostic]:
    found = []
    for diag in getattr(exc, "error_diagnostics", None) or ():
        m = _LINE_COL.search(str(diag.location))
        found.append(Diagnostic(int(m[1]) if m else None, int(m[2]) if m else None, diag.message.strip()))
    if not found:  # older bindings only format the diagnostics into the message
        found = _text_errors(str(exc))
    return found or [Diagnostic(None, None, str(exc).strip() or type(exc).__name__)]


def _text_errors(message: str) -> list[Diagnostic]:
    found = []
    for line in message.split("\n"):
        start = line.find("error: ")
        m = _TEXT_ERROR.search(line, start + len("error: ")) if start >= 0 else None
        if m:
            found.append(Diagnostic(int(m[1]), int(m[2]), m[3].strip()))
    return found


def _import(module_name: str) -> ModuleType | None:
    try:
        ir = importlib.import_module(module_name)
    except Exception:  # noqa: BLE001 - ImportError, or a shared library that fails to load
        return None
    # PyPI's `mlir` and `mlir-python-bindings` are empty placeholders.
    return ir if hasattr(ir, "Context") and hasattr(ir, "Module") else None


@functools.cache
def load_bindings() -> Bindings | None:
    """The first importable bindings of CANDIDATES, or None. Cached for the process."""
    for name in CANDIDATES:
        ir = _import(name)
        if ir is not None:
            return Bindings(name, ir)
    return None
