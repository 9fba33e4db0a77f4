"""Quick fixes: for each problem under the editor's range, the text edits that resolve it.

Pure: text and analysis in, `CodeAction`s out. The fixes themselves live in `ide/fixes/`, one
module per kind of change; this module picks them by diagnostic code.
"""

from __future__ import annotations

from collections.abc import Callable

from allo_lsp.analysis import Analysis, Problem
from allo_lsp.analysis.model import FileModel, Position, Range
from allo_lsp.analysis.noqa import NEVER_HIDDEN, Comment, comments, directive
from allo_lsp.ide.fixes import (
    allo_functions,
    build_target,
    close_name,
    decorator,
    kernel_order,
    operators,
    put_local,
    removed_syntax,
    rename,
    scalar,
    signature,
)
from allo_lsp.ide.fixes.base import Fix
from allo_lsp.ide.fixes.source import Source
from allo_lsp.ide.types import CodeAction, TextEdit

# A fix function gives one fix, or several when the right one depends on what only the user
# knows (ADF003/ADF005 with a call whose order its arguments do not tell).
FIXES: dict[str, Callable[[Source, FileModel, Problem], Fix | list[Fix]]] = {
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
    "ADF081": allo_functions.use_allo_function,  # a builtin Allo has its own function for (`abs`)
    "ADF082": operators.unsigned_division,  # `u // v` only: no other operand types have a fix
    "ADF090": put_local.through_local,
    "ADF091": operators.invert_as_xor,  # stored whole, where `x ^ -1` has the bits of NumPy's `~x`
    "ADF095": rename.rename_loop_variable,  # a loop variable only: a declaration's type is the user's
    "ADF096": close_name.closest_bound_name,  # a typo of one name in scope that builds
}


def code_actions(text: str, analysis: Analysis, range: Range) -> list[CodeAction]:
    """Quick fixes for the problems in `analysis.problems` whose range overlaps `range`."""
    actions: list[CodeAction] = []
    under = [p for p in analysis.problems if _overlap(p.range, range)]
    for problem, fix, edits in available_fixes(text, analysis, under):
        _add(actions, CodeAction(fix.title, "quickfix", edits, (problem.code,), preferred=not fix.display_only))
    return actions


def available_fixes(
    text: str, analysis: Analysis, problems: list[Problem]
) -> list[tuple[Problem, Fix, tuple[TextEdit, ...]]]:
    """Each of `problems` that has a fix, with the fix and its edits in text order."""
    problems = [p for p in problems if p.code in FIXES]
    source = Source.of(text) if problems else None
    if source is None:
        return []
    out = []
    for problem in problems:
        try:
            found = FIXES[problem.code](source, analysis.model, problem)
            fixes = found if isinstance(found, list) else [found]
            out += [(problem, fix, source.checked(fix.edits)) for fix in fixes]
        except Exception:  # noqa: BLE001 - a fix that trips on odd code costs its action, never the request
            continue
    return out


def disable_actions(text: str, analysis: Analysis, range: Range) -> list[CodeAction]:
    """The action "Disable ADF005 for this line" on each problem under `range`: the noqa comment that
    hides it (`analysis/noqa.py`), added to the line's comment or at its end."""
    lines = text.split("\n")
    under = [p for p in analysis.problems if p.code not in NEVER_HIDDEN and _overlap(p.range, range)]
    ending = {c.line: c for c in comments(text)} if under else {}  # one scan, whatever the problems
    actions: list[CodeAction] = []
    for problem in under:
        line = problem.range.start.line
        if line >= len(lines):
            continue
        edit = _noqa_edit(ending.get(line), lines[line], line, problem.code)
        if edit is not None:
            _add(actions, CodeAction(f"Disable {problem.code} for this line", "quickfix", (edit,), (problem.code,)))
    return actions


def _noqa_edit(comment: Comment | None, content: str, line: int, code: str) -> TextEdit | None:
    found = directive(comment) if comment is not None else None
    if found is not None:
        if found.codes_end is None:
            return None  # a bare directive hides every code already
        at = Position(line, found.codes_end)
        return TextEdit(Range(at, at), f", {code}")
    if comment is not None:  # `x = 1  # why` -> `x = 1  # noqa: ADF005 # why`
        at = Position(line, comment.column)
        return TextEdit(Range(at, at), f"# noqa: {code} ")
    if content.rstrip().endswith("\\"):
        return None  # a continued line: nothing may follow its backslash
    at = Position(line, len(content.rstrip()))
    return TextEdit(Range(at, Position(line, len(content))), f"  # noqa: {code}")


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
