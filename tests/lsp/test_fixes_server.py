"""Fixes that never make code worse, through the real server over stdio (issue 26, item 2): the
ADF003 quick fix leaves a call already in the new order, offers two display-only actions for a
call whose order its arguments do not tell, and the editor's fix-all applies neither."""

from pathlib import Path

from lsprotocol import types as lsp
from test_linter_conventions import actions, apply, whole

FIXES = Path(__file__).parent.parent / "ide" / "fixes"
ALREADY = (FIXES / "ADF003_call_already_in_the_new_order.py").read_text()
UNTOLD = (FIXES / "ADF003_call_that_cannot_be_told.py").read_text()


async def reorders(editor, text: str, name: str) -> tuple[str, list[lsp.CodeAction]]:
    uri = editor.open(text, name)
    diagnostics = await editor.diagnostics(uri)
    (problem,) = [d for d in diagnostics if d.code == "ADF003"]
    found = await actions(editor, uri, problem.range, [problem])
    return uri, [a for a in found if a.title.startswith("Reorder")]


async def test_the_quick_fix_leaves_a_call_already_in_the_new_order(editor):
    _, (action,) = await reorders(editor, ALREADY, "already.py")
    # The old fix said "and update 1 call" and wrote mod(0.5, B, A).
    assert action.title == "Reorder pipeline(...) to pipeline(A, scale, B); 1 call already in that order"
    assert action.kind == lsp.CodeActionKind.QuickFix and action.is_preferred
    after = apply(ALREADY, action.edit.document_changes[0].edits)
    assert "def pipeline(A: float32[N], scale: float32, B: float32[N]):" in after
    assert "    mod(A, 0.5, B)\n" in after


async def test_a_call_that_cannot_be_told_gets_two_display_only_actions_and_fix_all_applies_neither(editor):
    uri, found = await reorders(editor, UNTOLD, "untold.py")
    assert [a.title for a in found] == [
        "Reorder top(...) to top(A, n, B); 1 call left as written: the arguments do not tell the order",
        "Reorder top(...) to top(A, n, B) and update 1 call (1 call taken as written for the declaration order)",
    ]
    assert not any(a.is_preferred for a in found)  # the user must choose: none is applied unasked
    left, permuted = (apply(UNTOLD, a.edit.document_changes[0].edits) for a in found)
    assert "    mod(A, out, np.array([3], dtype=np.int32))\n" in left
    assert "    mod(A, np.array([3], dtype=np.int32), out)\n" in permuted
    # On save (codeActionsOnSave): nothing to do, the file is left as it is.
    assert await actions(editor, uri, whole(UNTOLD), [], only=["source.fixAll"]) == []
