"""ADF090 put-zero-extension: a put of a narrower signed value into a wider stream is zero-extended

## What it does
Flags `s.put(value)` in a kernel where `value`'s Allo type is a signed integer narrower than the
stream's integer element type: Allo a098603f puts the value as it is typed (`build_Call` in
`allo/ir/builder.py` emits no cast), and its simulator converts it at the FIFO
(`_process_function_streams` in `allo/backend/simulator.py`): a wider value is truncated, a
narrower one zero-extended even when it is signed (Allo's MLIR integers are signless, so
`is_signed` is never true and `ExtSIOp` is never chosen).

## Why is this bad?
Nothing fails: a negative `int8 * int8` product (typed `Int(16)`) put into a `Stream[int32]`
arrives as a large positive number (`-15` as `65521`).

## Example
```python
    s: Stream[int32, 4]
    ...
            s.put(a[i] * b[i])
```
Use instead:
```python
            v: int32 = a[i] * b[i]
            s.put(v)
```
The quick fix does that (`value: int32 = ...` before the put, the name free in the kernel) when
the put is a statement on a line of its own. It is unsafe: the stream then receives another
number, the sign-extended one.
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding
from allo_lsp.analysis.rules.kernel_typing import typed_kernels
from allo_lsp.protocol.typing_rules import stream_cast

SEVERITY = Severity.WARNING


def check(ctx: Context):
    for region, kernel, typing in typed_kernels(ctx.model):
        for put in typing.puts:
            # Only a widening changes the number: a truncation keeps the low bits, as a
            # computation in the stream's type would.
            if stream_cast(put.value, put.element) != "extui" or not put.value.signed:
                continue
            yield Finding(
                put.range,
                f"Kernel '{kernel.name}' puts a value of type {put.value} into stream '{put.stream}' of {put.element}: "
                f"Allo's simulator zero-extends it, so a negative value arrives as a large positive one. "
                "Store it in a local of the stream's type first.",
                {"region": region.name, "kernel": kernel.name, "stream": put.stream},
            )
