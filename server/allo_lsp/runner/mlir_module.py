"""The compiled module read where it was made: in the user's Allo interpreter, through Allo's own
MLIR bindings (`allo._mlir`), which know the `allo` dialect, so the text is read as printed.

It is read as Allo's backends read a module (backend/llvm.py, backend/hls.py): parsed from its
text in a new context with the `allo` dialect registered. What the server checks the analysis
against is kept (protocol/details.py `CompiledModule`): every function's header; each
`allo.stream_construct` of a function's body (`customize` leaves those of the region's streams in
the top function, `NAME` or `NAME_I_J` for a stream array's FIFO, typed `!allo.stream<T, DEPTH>`);
each call (the top function calls every PE with its arguments and streams). Only the ops of a
body's own blocks are read, where `_build_top` puts them: nothing nested in loops.

Never raises: a missing `allo._mlir` or a module it refuses is said in `MlirDetails.unread`, and
the server then reads the text with bindings of its own, if it has any.
"""

from __future__ import annotations

from allo_lsp.protocol.details import (
    ARG,
    COMPILED_LIMIT,
    OPERAND_LIMIT,
    OTHER,
    STREAM,
    TYPE_LIMIT,
    CompiledCall,
    CompiledFunction,
    CompiledModule,
    CompiledStream,
    MlirDetails,
)
from allo_lsp.protocol.messages import MESSAGE_LIMIT, bounded

BINDINGS = "allo._mlir.ir"
_STREAM_TYPE = "!allo.stream<"


def read(text: str) -> MlirDetails:
    """The module `text` read with this interpreter's Allo, or why it could not be."""
    try:
        from allo._mlir import ir
        from allo._mlir.dialects import allo as allo_dialect
    except Exception as exc:  # noqa: BLE001 - ImportError, or a shared library that fails to load
        return MlirDetails(unread=_said(f"this interpreter's Allo has no MLIR bindings ({BINDINGS}): {_error(exc)}"))
    try:
        with ir.Context() as context:
            allo_dialect.register_dialect(context)
            context.allow_unregistered_dialects = True  # an op of a dialect Allo does not load: still read
            module = ir.Module.parse(text, context)
            return MlirDetails(compiled=_Reader(ir).module(module.operation))
    except Exception as exc:  # noqa: BLE001 - MLIRError on recent bindings, ValueError on older ones
        return MlirDetails(unread=_said(f"{BINDINGS} did not read the module: {_error(exc)}"))


class _Reader:
    def __init__(self, ir) -> None:
        self.ir = ir
        self.found = CompiledModule(BINDINGS)

    def module(self, operation) -> CompiledModule:
        for op in _ops(operation):
            if op.name == "func.func":
                self._function(op)
            elif op.name == "builtin.module":
                self.module(op)
        return self.found

    def _function(self, op) -> None:
        found, ir = self.found, self.ir
        attributes = op.attributes
        name = self._string(attributes["sym_name"])
        inputs = ir.FunctionType(ir.TypeAttr(attributes["function_type"]).value).inputs
        function = CompiledFunction(
            name=name,
            arg_types=tuple(_type(t) for t in inputs),
            itypes=self._string(attributes["itypes"]) if "itypes" in attributes else None,
            stypes=self._string(attributes["stypes"]) if "stypes" in attributes else None,
            kernel="df.kernel" in attributes,
            dataflow="dataflow" in attributes,
            nested="df.nested_kernel" in attributes,
        )
        if not self._room(found.functions):
            return
        found.functions.append(function)
        for body in _ops(op):
            if body.name == "allo.stream_construct" and self._room(found.streams):
                found.streams.append(self._stream(body, name))
            elif body.name == "func.call" and self._room(found.calls):
                found.calls.append(self._call(body, name))

    def _stream(self, op, function: str) -> CompiledStream:
        element, depth = stream_type(str(op.results[0].type))
        name = self._string(op.attributes["name"]) if "name" in op.attributes else ""
        return CompiledStream(name, function, element, depth)

    def _call(self, op, caller: str) -> CompiledCall:
        callee = str(op.attributes["callee"]).lstrip("@")
        operands = list(op.operands)
        if len(operands) > OPERAND_LIMIT:
            self.found.truncated = True
            operands = operands[:OPERAND_LIMIT]
        return CompiledCall(caller, callee, tuple(self._operand(v) for v in operands))

    def _operand(self, value) -> str:
        argument = self._block_argument(value)
        if argument is not None:
            return f"{ARG}{argument.arg_number}"
        owner = getattr(value.owner, "operation", value.owner)  # the op that made it
        if getattr(owner, "name", None) == "allo.stream_construct" and "name" in owner.attributes:
            return f"{STREAM}{self._string(owner.attributes['name'])}"
        return OTHER

    def _block_argument(self, value):
        ir = self.ir
        if isinstance(value, ir.BlockArgument):  # values come down-cast on recent bindings
            return value
        check = getattr(ir.BlockArgument, "isinstance", None)  # ... and are tested on older ones
        return ir.BlockArgument(value) if check is not None and check(value) else None

    def _string(self, attr) -> str:
        try:
            return self.ir.StringAttr(attr).value
        except (ValueError, TypeError):
            return str(attr)

    def _room(self, items: list) -> bool:
        if len(items) < COMPILED_LIMIT:
            return True
        self.found.truncated = True
        return False


def stream_type(text: str) -> tuple[str, int | None]:
    """`!allo.stream<memref<4xi32>, 2>` -> (`memref<4xi32>`, 2): the stream type's assembly format
    (`<` baseType `,` depth `>`). (text, None) for a type not of that form."""
    if not (text.startswith(_STREAM_TYPE) and text.endswith(">")):
        return _bounded_type(text), None
    inner = text[len(_STREAM_TYPE) : -1]
    level, split = 0, -1
    for i, c in enumerate(inner):  # the last comma outside the element type's own brackets
        level += {"<": 1, ">": -1}.get(c, 0)
        if c == "," and level == 0:
            split = i
    depth = inner[split + 1 :].strip() if split >= 0 else ""
    if not depth.isdigit():
        return _bounded_type(text), None
    return _bounded_type(inner[:split].strip()), int(depth)


def _ops(operation):
    """The ops of `operation`'s own blocks (an op, or an op view: both are read the same)."""
    for region in operation.regions:
        for block in region.blocks:
            for op in block.operations:
                yield op.operation


def _type(t) -> str:
    return _bounded_type(str(t))


def _bounded_type(text: str) -> str:
    return text if len(text) <= TYPE_LIMIT else text[:TYPE_LIMIT] + "..."


def _error(exc: Exception) -> str:
    return f"{type(exc).__name__}: {str(exc).strip()}" if str(exc).strip() else type(exc).__name__


def _said(text: str) -> str:
    return bounded(text, MESSAGE_LIMIT)
