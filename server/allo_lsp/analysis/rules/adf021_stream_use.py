"""ADF021 stream-use: `put`/`get` on an undeclared stream, or `put` without exactly one argument

## What it does
Flags `x.put(...)` / `x.get()` in a kernel when `x` is not a stream declared in the region, and
`put` calls with no or several arguments.

## Why is this bad?
Kernels communicate only through the region's declared streams, and a put sends exactly one
element (`Stream can only have one argument`).

## Example
```python
pipe: Stream[int32, 4]
...
piep.put(a, b)
```
Use instead:
```python
pipe.put(a)
pipe.put(b)
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region in ctx.model.regions:
        declared = [s.name for s in region.streams]
        # A line of the region set aside for a syntax error may be the missing declaration:
        # ADF900 on that line is the problem to show, not a cascade on every use.
        set_aside = any(_within(e.range.start.line, region.def_range) for e in ctx.model.syntax_errors)
        for use in region.stream_uses:
            if use.stream not in declared and not set_aside:
                known = ", ".join(declared) if declared else "none declared"
                yield Finding(
                    use.range,
                    f"'{use.stream}' is not a stream of region '{region.name}' (streams: {known}); "
                    f"declare it in the region as '{use.stream}: Stream[T, depth]'.",
                    {"region": region.name, "stream": use.stream},
                )
            elif use.op == "put" and use.arg_count != 1:
                yield Finding(
                    use.call_range,
                    f"Stream can only have one argument: '{use.stream}.put' sends one element per "
                    f"call (this call passes {use.arg_count}).",
                    {"region": region.name, "stream": use.stream},
                )


def _within(line: int, extent) -> bool:
    return extent.start.line <= line <= extent.end.line
