"""ADF901 partial-analysis: the file is larger than the analysis bound; only its beginning was analysed

## What it does
Says, on the first line left out, that a file larger than the analysis bound (512 KiB of text by
default, about 16,000 lines of design code) was analysed only up to the last whole top-level
statement before the bound: regions, kernels, diagnostics, hovers and lenses past that line are
missing. The bound keeps the first analysis of a file of megabytes within a few seconds and its
memory bounded.

## Why is this bad?
Nothing is wrong with the design itself, but problems after the cut are not reported, so a
clean result does not mean a clean file.

## Example
```python
# a generated file of 5 MB: tables, then the regions
WEIGHTS = [0.12, 0.5, ...]   # 100,000 lines
@df.region()
def top(...): ...
```
Use instead:
```python
# weights.py holds the tables; the design file imports them
from weights import WEIGHTS
@df.region()
def top(...): ...
```
"""

from allo_lsp.analysis.model import Range
from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.INFORMATION


def check(ctx: Context):
    partial = ctx.model.partial
    if partial is None:
        return
    line = partial.analysed_lines
    yield Finding(
        Range.of(line, 0, line, 0),
        f"Only the first {partial.analysed_lines:,} lines ({partial.analysed_chars:,} characters) "
        f"of this file were analysed: it has {partial.total_lines:,} lines ({partial.total_chars:,} "
        f"characters), past the analysis bound of {partial.bound:,} characters. Nothing after this "
        "line is checked; split the file to analyse the rest.",
        {"analysed_lines": partial.analysed_lines, "total_lines": partial.total_lines},
    )
