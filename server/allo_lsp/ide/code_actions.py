"""Quick fixes: for each problem under the editor's range, the text edits that resolve it.

Pure: text and analysis in, `CodeAction`s out. The fixes themselves live in `ide/fixes/`, one
module per kind of change; this module picks them by diagnostic code.
"""

from __future__ import annotations

from collections.abc import Callable

from allo_lsp.analysis import Analysis, Problem
from allo_lsp.analysis.model import FileModel, Range
from allo_lsp.ide.fixes import (
    allo_functions,
    build_target,
    decorator,
    kernel_order,
    removed_syntax,
    rename,
    scalar,
    signature,
)
from allo_lsp.ide.fixes.base import Fix
from allo_lsp.ide.fixes.source import Source
from allo_lsp.ide.types import CodeAction

FIXES: dict[str, Callable[[Source, FileModel, Problem], Fix]] = {
    "ADF001": scalar.one_element_array,
    "ADF002": scalar.one_element_array,
    "ADF003": signature.legacy_order,
    "ADF004": rename.rename_kernel_param,
    "ADF005": signature.outputs_last,
    "ADF010": decorator.add_mapping,
    "ADF011": decorator.move_mapping_first,
    "ADF016": rename.rename_kernel_param,
    "ADF023": kernel_order.producers_first,
    "ADF040": removed_syntax.modernize,
    "ADF052": build_target.simulator_target,
    "ADF070": allo_functions.use_allo_function,
}


def code_actions(text: str, analysis: Analysis, range: Range) -> list[CodeAction]:
    """Quick fixes for the problems in `analysis.problems` whose range overlaps `range`."""
    problems = [p for p in analysis.problems if p.code in FIXES and _overlap(p.range, range)]
    if not problems:
        return []
    source = Source.of(text)
    if source is None:
        return []
    actions: list[CodeAction] = []
    for problem in problems:
        try:
            fix = FIXES[problem.code](source, analysis.model, problem)
            edits = source.checked(fix.edits)
        except Exception:  # noqa: BLE001 - a fix that trips on odd code costs its action, never the request
            continue
        _add(actions, CodeAction(fix.title, "quickfix", edits, (problem.code,), preferred=True))
    return actions


def _overlap(a: Range, b: Range) -> bool:
    # Inclusive at both ends: a cursor just after a problem's last character still asks about it.
    return a.start <= b.end and b.start <= a.end


def _add(actions: list[CodeAction], action: CodeAction) -> None:
    """One action per change: ADF001 and ADF002 on one parameter, or ADF005 on two outputs of one
    region, offer the same edits; they become one action listing every code it fixes."""
    for i, seen in enumerate(actions):
        if seen.edits == action.edits:
            if not set(action.codes) <= set(seen.codes):
                actions[i] = CodeAction(seen.title, seen.kind, seen.edits, seen.codes + action.codes, seen.preferred)
            return
    actions.append(action)
