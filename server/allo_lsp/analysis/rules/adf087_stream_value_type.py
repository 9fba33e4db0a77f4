"""ADF087 stream-value-type: a stream get stored as another type, or a put the simulator cannot convert

## What it does
Flags, in a kernel, `x = s.get()` / `b[i] = s.get()` where the local or the array element has
another MLIR type than the stream's element (`int16` against `int32`; `Int` and `UInt` of one
width are the same `iN`), and, in a region some `df.build` builds for `target="simulator"`,
`s.put(v)` where `v` and the stream's element are not both integers and differ in type (a
`float32` into a `Stream[int32]`, a `for` loop's `index` variable into a `Stream[int32]`, a
`float16` into a `Stream[float32]`), or puts an array into a stream of scalars, a scalar into a
stream of blocks, or a block of another rank or element type (an `int8[4]` into a
`Stream[int32[4]]`). Allo a098603f casts no stream get: `build_assign_stmt` in
`allo/ir/builder.py` skips its cast for a `StreamGetOp`, and stores the value as it is. Its
simulator converts a put's value only between integers (`_process_function_streams` in
`allo/backend/simulator.py`: `TruncIOp` or `ExtUIOp`, see ADF090) and stores any other value as
it is; an array it copies into its FIFO element by element, with no conversion.

## Why is this bad?
`df.build` raises an `MLIRError` (no exit status): for the get, at every target, when
`_build_top` canonicalizes the module (`'affine.store' op value to store must have the same type
as memref element type`, or `memref.store`'s message where the index is not affine); for the
put, in `LLVMOMPModule`'s lowering (`'memref.store' op failed to verify that type of 'value'
matches element type of 'memref'`, or `'memref.store' op store index operand count not equal
to memref rank` for a put of another rank). An integer put of another width is converted silently
instead (ADF090).

## Example
```python
    s: Stream[int32, 4]
    ...
        for i in range(N):
            b[i] = s.get()  # b: int16[N]
```
Use instead: get into a local of the stream's type, then assign it (that assignment is cast):
```python
            v: int32 = s.get()
            b[i] = v
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.rules.kernel_typing import problems_of

SEVERITY = Severity.ERROR


def _simulator_built(ctx: Context, region) -> bool:
    return any(b.target == "simulator" for b in ctx.model.builds_of(region))


def _typed_at(typing, where) -> str:
    """The type of the scalar expression at exactly `where`, as the message names it."""
    found = next((e for e in typing.expressions if e.range == where and not e.shape), None)
    return f"of type {found.type}" if found is not None else "of another type"


def _value_at(typing, where) -> str:
    """The type of the expression at exactly `where`, an array's with its shape."""
    found = next((e for e in typing.expressions if e.range == where), None)
    if found is None:
        return "a value"
    shape = f"[{', '.join(map(str, found.shape))}]" if found.shape else ""
    return f"{'an array' if found.shape else 'a value'} of type {found.type}{shape}"


def check(ctx: Context):
    for region, kernel, problem in problems_of(ctx.model, ("stored-get", "simulator-put", "block-put")):
        data = {"region": region.name, "kernel": kernel.name}
        if problem.kind == "stored-get":
            yield Finding(
                problem.range,
                f"Kernel '{kernel.name}' stores a stream get into a target {_typed_at(kernel.typing, problem.range)}, "
                f"not the stream's element type: Allo casts no get, so df.build stops when MLIR verifies the module "
                f"({problem.message}). Get into a local of the stream's type, then assign it.",
                data,
            )
            continue
        if not _simulator_built(ctx, region):
            continue
        if problem.kind == "block-put":
            yield Finding(
                problem.range,
                f"Kernel '{kernel.name}' puts {_value_at(kernel.typing, problem.range)} that is not of its stream's "
                f"element type and rank, and region '{region.name}' is built for the simulator, which copies a "
                f"put into its FIFO as it is: df.build stops there ({problem.message}). Put a value of the "
                "stream's element type and shape.",
                data,
            )
            continue
        put = next((p for p in kernel.typing.puts if p.range == problem.range), None)
        what = f"a value of type {put.value} into stream '{put.stream}' of {put.element}" if put else "a value"
        yield Finding(
            problem.range,
            f"Kernel '{kernel.name}' puts {what} and region '{region.name}' is built for the simulator, which "
            f"converts a put only between integers: df.build stops there ({problem.message}). Store the value "
            "in a local of the stream's type first.",
            data,
        )
