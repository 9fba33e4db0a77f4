"""ADF902 internal-error: one of allo-lsp's rules failed on this file; its problems are missing

## What it does
Says, on the file's first line, that a rule raised an exception while it checked this file: it
names the rule, the exception and where it was raised. That rule's problems are missing from the
file; every other rule still checked it. The failure is a bug in allo-lsp, not in the design.

## Why is this bad?
The design may well be right, but what the failed rule checks was not checked: that none of its
problems shows proves nothing. Report it (the message and the file that triggers it), and update
allo-lsp once it is fixed.

## Example
```python
# a design on which a rule of allo-lsp raises, say ADF021 with an IndexError
@df.region()
def top(A: int32[16], B: int32[16]): ...
```
Use instead:
```python
# the same design, checked again by the allo-lsp release with the fix; meanwhile
# `ignore = ["ADF021"]` in [tool.allo-lsp] hides both ADF021 and this report of it
@df.region()
def top(A: int32[16], B: int32[16]): ...
```
"""

import os

from allo_lsp.analysis.model import Range
from allo_lsp.analysis.problems import Severity
from allo_lsp.analysis.rules.base import Context, Finding

SEVERITY = Severity.WARNING
_DETAIL = 200  # characters of the exception's own message


def check(ctx: Context):
    # Nothing in the design makes this problem: the registry (`rules/__init__.py`) reports a rule
    # that raised, through `failure`.
    return ()


def failure(code: str, name: str, exc: Exception) -> Finding:
    """The problem of rule `code` having raised `exc` on the file."""
    detail = " ".join(str(exc).split())
    detail = detail if len(detail) <= _DETAIL else detail[:_DETAIL] + "..."
    raised = type(exc).__name__ + (f" ({detail})" if detail else "")
    place = _innermost(exc)
    return Finding(
        Range.of(0, 0, 0, 0),
        f"{code} ({name}) failed on this file with {raised}{place}. This is a bug in allo-lsp, not in "
        f"your design: {code}'s problems are missing here; every other rule still checked the file. "
        "Please report it with the file that triggers it.",
        {"rule": code, "exception": type(exc).__name__},
    )


def _innermost(exc: Exception) -> str:
    """` at module.py:LINE`, where `exc` was raised (a bug report's first clue)."""
    tb = exc.__traceback__
    if tb is None:
        return ""
    while tb.tb_next is not None:
        tb = tb.tb_next
    return f" at {os.path.basename(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno}"
