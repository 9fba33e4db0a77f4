"""Running a test function as pytest would, for the marks Allo's tests use.

- `@pytest.mark.skip(reason=...)`, and `skipif(condition, reason=...)` when the condition holds:
  the test is not run and ends `skipped` with its reason (never `passed`);
- `@pytest.mark.parametrize(names, values, ids=...)` (stacked marks multiply): every parameter
  set runs and is reported in `RunDetails.parameters`; the job fails with the first failure;
- a parameter that no mark provides is a fixture, which the runner does not provide: refused by
  name, not called with something made up.
Only the marks are read (`fn.pytestmark`, which pytest's decorators set); pytest itself need not
be importable for a test without marks.
"""

from __future__ import annotations

import inspect
import itertools
import re
import sys

from allo_lsp.protocol.details import ParameterCase, RunDetails
from allo_lsp.protocol.messages import ERROR, FAILED, PASSED, RUN, SKIPPED, UNSUPPORTED, JobResult

GENERIC = re.compile(r"^\s*(async\s+)?(def|class)\s+\w+\s*\[")


def python_too_old(exc: BaseException) -> str | None:
    """A generic region (`def inner[P0, P1](...)`, PEP 695) read by Python < 3.12: not the
    user's syntax error, the interpreter's age (Allo itself requires 3.12)."""
    if sys.version_info >= (3, 12) or not isinstance(exc, SyntaxError):
        return None
    if not GENERIC.match(exc.text or ""):
        return None
    found = ".".join(map(str, sys.version_info[:3]))
    return (
        f"generic regions (`def name[P0, P1](...)`, line {exc.lineno}) need Python >= 3.12, as Allo does; "
        f"this runner is Python {found}: choose a Python 3.12+ interpreter"
    )


def run_test(fn, name: str, classify) -> JobResult:
    """Call test `fn` as pytest would; `classify(exc)` turns an exception into a JobResult."""
    marks = list(getattr(fn, "pytestmark", []))
    for mark in marks:
        reason = _skip_reason(mark, fn)
        if reason is not None:
            return JobResult(SKIPPED, None, f"skipped: {reason}" if reason else "skipped")
    cases = _cases(marks)
    wanted = [p for p in inspect.signature(fn).parameters]
    provided = set(cases[0][1]) if cases else set()
    missing = [p for p in wanted if p not in provided]
    if missing:
        return JobResult(
            ERROR, UNSUPPORTED, f"the pytest fixture '{missing[0]}' of {name}() is not provided by the runner"
        )
    if not marks or not any(m.name == "parametrize" for m in marks):
        fn()
        return JobResult(PASSED, message=f"{name}() returned")
    reports, first = [], None
    for case_id, kwargs in cases:
        try:
            fn(**kwargs)
            reports.append(ParameterCase(case_id, PASSED))
        except Exception as exc:  # noqa: BLE001 - each parameter set is reported
            result = classify(exc)
            reports.append(ParameterCase(case_id, result.status, result.cause, result.message))
            first = first or result
    passed = sum(r.status == PASSED for r in reports)
    summary = f"{passed} of {len(reports)} parameter sets of {name}() passed"
    if first is None:
        return JobResult(PASSED, message=summary, details=RunDetails(parameters=reports))
    first.message = f"{summary}; first failure: {first.message}"
    first.of_kind(RUN).details.parameters = reports
    if first.status == PASSED:
        first.status = FAILED
    return first


def _skip_reason(mark, fn) -> str | None:
    """The reason when `mark` skips the test, else None."""
    kwargs = dict(getattr(mark, "kwargs", {}) or {})
    args = tuple(getattr(mark, "args", ()) or ())
    if mark.name == "skip":
        return str(kwargs.get("reason", args[0] if args else ""))
    if mark.name == "skipif":
        conditions = args or ((kwargs["condition"],) if "condition" in kwargs else ())
        for condition in conditions:
            if isinstance(condition, str):
                condition = eval(condition, dict(fn.__globals__, sys=sys))  # pytest's string form
            if condition:
                return str(kwargs.get("reason", condition if isinstance(condition, str) else ""))
    return None


def _cases(marks) -> list[tuple[str, dict]]:
    """Every combination of the parametrize marks, as (id, keyword arguments)."""
    axes = []
    for mark in marks:
        if mark.name != "parametrize":
            continue
        args = (
            list(mark.args) + [mark.kwargs[k] for k in ("argnames", "argvalues") if k in mark.kwargs][len(mark.args) :]
        )
        names, values = args[0], list(args[1])
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        ids = mark.kwargs.get("ids")
        axis = []
        for i, value in enumerate(values):
            value = getattr(value, "values", value)  # pytest.param(...)
            row = dict(zip(names, value)) if len(names) > 1 else {names[0]: value}
            label = ids[i] if isinstance(ids, (list, tuple)) else "-".join(map(_label, row.values()))
            axis.append((str(label), row))
        axes.append(axis)
    if not axes:
        return [("", {})]
    # `pytestmark` lists the mark nearest the function first, and so do pytest's ids.
    return [
        ("-".join(i for i, _ in combo), {k: v for _, row in combo for k, v in row.items()})
        for combo in itertools.product(*axes)
    ]


def _label(value) -> str:
    return str(value) if isinstance(value, (int, float, str, bool)) or value is None else type(value).__name__
