"""ADF020 stream-declaration: malformed stream declaration

## What it does
Flags a stream annotation that is not `Stream[T, depth]` (optionally followed by `[dims]` for an
array of streams), and a stream declaration given a value.

## Why is this bad?
Allo only understands an element type and a depth (`Only support \\`ele_type\\` and \\`depth\\` for
now`), and streams are declared, never assigned.

## Example
```python
pipe: Stream[int32, 4, 2]
fifo: Stream[int32, 4] = []
```
Use instead:
```python
pipe: Stream[int32, 4]
fifo: Stream[int32, 4][P0, P1]
```
"""

from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.ERROR


def check(ctx: Context):
    for region in ctx.model.regions:
        for s in region.streams:
            if s.legacy_pipe:
                continue  # removed syntax, reported with its migration by ADF040
            if not s.well_formed:
                yield Finding(
                    s.annotation_range or s.range,
                    f"Only support `ele_type` and `depth` for now: declare stream '{s.name}' as "
                    f"'{s.name}: Stream[T, depth]', or '{s.name}: Stream[T, depth][P0, P1]' for an "
                    "array of streams.",
                    {"region": region.name, "stream": s.name},
                )
            elif s.has_value:
                yield Finding(
                    s.range,
                    f"Stream '{s.name}' is given a value: streams are declared with no value "
                    f"('{s.name}: {s.annotation}').",
                    {"region": region.name, "stream": s.name},
                )
