"""Quick fixes, rust-analyzer style: the design before, the diagnostic code, the design after.

Each `fixes/<CODE>_<what>.py` is a design before its fix. Its docstring says why, and on lines of
their own: `Fix: CODE title` (the action of that title offered for the first problem with CODE:
it is applied, and leaves fewer problems with CODE), `After: ...` (the codes the fixed design
still reports, or `nothing`) and, if the fix adds one the design did not report, `New: ...`
(the prose says why that is right).
`snapshots/<name>.snap` is the text after the fix, exactly (UPDATE_SNAPSHOTS=1 rewrites it:
review the diff). The tests after the table are the ones that are not a before/after.
"""

import re
from pathlib import Path
from textwrap import dedent

import pytest
from allo_lsp.analysis import analyze
from allo_lsp.analysis.model import Position, Range
from allo_lsp.ide.code_actions import code_actions
from paths import EXAMPLES
from snapshot import assert_snapshot

HERE = Path(__file__).parent
FIXES = HERE / "fixes"
SNAPSHOTS = HERE / "snapshots"

_FIX = re.compile(r"^Fix: (ADF\d{3}) (.+)$", re.M)
_AFTER = re.compile(r"^After: (.+)$", re.M)
_NEW = re.compile(r"^New: (.+)$", re.M)


def apply_edits(text: str, edits) -> str:
    """Apply from the end backwards, so earlier positions stay valid; columns are code points."""
    starts, offset = [], 0
    for line in text.split("\n"):
        starts.append(offset)
        offset += len(line) + 1
    for edit in sorted(edits, key=lambda e: (e.range.start, e.range.end), reverse=True):
        start = starts[edit.range.start.line] + edit.range.start.column
        end = starts[edit.range.end.line] + edit.range.end.column
        text = text[:start] + edit.new_text + text[end:]
    return text


def actions_for(text: str, code: str):
    analysis = analyze(text)
    problem = next(p for p in analysis.problems if p.code == code)
    return code_actions(text, analysis, problem.range)


def fix(text: str, code: str, title: str | None = None) -> str:
    """The text after the one action offered for the first `code` problem (titled `title`, one
    of several when the fix cannot tell something only the user knows)."""
    offered = [a for a in actions_for(text, code) if code in a.codes]
    actions = [a for a in offered if title in (None, a.title)]
    assert len(actions) == 1, [a.title for a in offered]
    (action,) = actions
    assert action.kind == "quickfix" and action.preferred == (len(offered) == 1)
    return apply_edits(text, action.edits)


def titles(text: str, code: str) -> list[str]:
    return [a.title for a in actions_for(text, code)]


def _codes(found: re.Match | None) -> set[str]:
    words = found.group(1) if found else "nothing"
    return set() if words == "nothing" else {c.strip() for c in words.split(",")}


# -- one fixture per fix: before, and its snapshot after ------------------------------------


@pytest.mark.parametrize("path", sorted(FIXES.glob("*.py")), ids=lambda p: p.stem)
def test_fix(path):
    before = path.read_text()
    doc = before.split('"""')[1]
    found = _FIX.search(doc)
    assert found and _AFTER.search(doc), f"{path.name} must say `Fix: CODE title` and `After: ...`"
    code, title = found.groups()
    assert path.stem.startswith(code + "_"), f"{path.name} is named after the code it fixes"
    fixed = fix(before, code, title)
    assert_snapshot(SNAPSHOTS / f"{path.stem}.snap", fixed)
    problems_before, problems_after = (analyze(t).problems for t in (before, fixed))
    assert sum(p.code == code for p in problems_after) < sum(p.code == code for p in problems_before)
    codes_before, codes_after = ({p.code for p in ps} for ps in (problems_before, problems_after))
    assert codes_after == _codes(_AFTER.search(doc))
    assert codes_after - codes_before == _codes(_NEW.search(doc))


def test_every_snapshot_has_its_fixture():
    fixtures = {p.stem for p in FIXES.glob("*.py")}
    examples = {f"example_{name}" for name, *_ in EXAMPLE_FIXES}
    assert {p.stem for p in SNAPSHOTS.glob("*.snap")} == fixtures | examples


# -- the examples: each is clean after its fix ----------------------------------------------

EXAMPLE_FIXES = [
    (
        "pitfall_bare_scalar",
        "ADF002",
        "Declare 'n' as int32[1] (and update 1 kernel, 1 call)",
        (
            "def top(A: int32[M], n: int32[1], B: int32[M]):",
            "pipe.put(local_A[i] + local_n[0])",
            "mod(A, np.array([5], dtype=np.int32), B)",
        ),
    ),
    (
        "pitfall_arg_order",
        "ADF003",
        # Its call's names (inp, out, n_arr) do not tell its order: two display-only actions.
        "Reorder top(...) to top(arr_in, n, arr_out) and update 1 call (1 call taken as written for the declaration order)",
        ("def top(arr_in: int32[N], n: int32[1], arr_out: int32[N]):", "    mod(inp, n_arr, out)\n"),
    ),
    ("pitfall_mapping_order", "ADF011", "Move mapping= first", ("    @df.kernel(mapping=[1], args=[A])\n",)),
    (
        "pitfall_merged_names",
        "ADF004",
        "Rename 'x' to 'x_B'",
        ("    def consumer(x_B: int32[M]):\n", "            x_B[i] = pipe.get()\n", "pipe.put(x[i] + 10)"),
    ),  # the producer's `x` is its own
]


@pytest.mark.parametrize(("example", "code", "title", "lines"), EXAMPLE_FIXES, ids=[e[0] for e in EXAMPLE_FIXES])
def test_example_is_clean_after_its_fix(example, code, title, lines):
    text = (EXAMPLES / f"{example}.py").read_text()
    assert title in titles(text, code)
    fixed = fix(text, code, title)
    assert_snapshot(SNAPSHOTS / f"example_{example}.snap", fixed)
    for line in lines:
        assert line in fixed
    assert analyze(fixed).problems == []


def test_pitfall_removed_syntax_example_is_clean_after_both_fixes():
    text = (EXAMPLES / "pitfall_removed_syntax.py").read_text()
    for title in ("Migrate top()", "Migrate df.pipe"):
        analysis = analyze(text)
        [action] = [a for p in analysis.problems for a in code_actions(text, analysis, p.range) if title in a.title]
        text = apply_edits(text, action.edits)
    assert "def top(A: Ty[M, N], B: Ty[M, N]):\n    pipe: Stream[Ty, 4]\n" in text
    assert "from allo.ir.types import int32, Stream\n" in text
    assert analyze(text).problems == []


# -- which problems get which action ----------------------------------------------------------


def test_scalar_in_args_is_reported_once_and_offers_the_fix():
    # Allo rejects a bound scalar at the `args` only: ADF002 there, no ADF001 at the parameter.
    text = (EXAMPLES / "pitfall_bare_scalar.py").read_text()
    analysis = analyze(text)
    assert [p.code for p in analysis.problems] == ["ADF002"]
    [action] = code_actions(text, analysis, analysis.problems[0].range)
    assert action.codes == ("ADF002",)
    assert action.title == "Declare 'n' as int32[1] (and update 1 kernel, 1 call)"


def test_one_action_fixes_every_output():
    # C and D are both flagged; a range over both gets the one reorder that fixes both.
    before = (FIXES / "ADF005_outputs_last_updates_calls.py").read_text()
    analysis = analyze(before)
    flagged = [p for p in analysis.problems if p.code == "ADF005"]
    assert len(flagged) == 2
    [action] = code_actions(before, analysis, Range(flagged[0].range.start, flagged[1].range.end))
    assert action.codes == ("ADF005",)


def test_no_action_where_there_is_no_problem_or_no_fix():
    text = (EXAMPLES / "pitfall_bare_scalar.py").read_text()
    analysis = analyze(text)
    assert code_actions(text, analysis, Range.of(0, 0, 0, 3)) == []
    problem = analysis.problems[0]
    just_before = Position(problem.range.start.line, problem.range.start.column - 1)
    assert code_actions(text, analysis, Range(just_before, just_before)) == []
    assert code_actions(text, analysis, Range(problem.range.end, problem.range.end)) != []
    deadlock = (EXAMPLES / "pitfall_deadlock_stream.py").read_text()  # ADF022: no quick fix
    deadlock_analysis = analyze(deadlock)
    assert code_actions(deadlock, deadlock_analysis, deadlock_analysis.problems[0].range) == []


def test_df_pipe_of_blocks_is_not_rewritten():
    # A non-empty shape made a stream of blocks; the replacement would silently drop it.
    text = dedent(
        """\
        import allo
        from allo.ir.types import int32, float32, Stream
        import allo.dataflow as df
        import numpy as np

        M = 16

        @df.region()
        def top(A: int32[M], B: int32[M]):
            pipe = df.pipe(dtype=int32, shape=(4,), depth=2)

            @df.kernel(mapping=[1], args=[A])
            def producer(local_A: int32[M]):
                for i in range(M):
                    pipe.put(local_A[i])

            @df.kernel(mapping=[1], args=[B])
            def consumer(local_B: int32[M]):
                for i in range(M):
                    local_B[i] = pipe.get()
        """
    )
    assert titles(text, "ADF040") == []


_NARROW_PUT = """\
import allo
from allo.ir.types import Int, int8, int32, Stream
import allo.dataflow as df

N = 8


@df.region()
def top(A: int8[N], B: int8[N], C: int32[N]):
    s: Stream[ELEMENT, 4]

    @df.kernel(mapping=[1], args=[A, B])
    def producer(a: int8[N], b: int8[N]):
        for i in range(N):
            PUT

    @df.kernel(mapping=[1], args=[C])
    def consumer(c: int32[N]):
        for i in range(N):
            c[i] = s.get()
"""


@pytest.mark.parametrize(
    ("element", "put"),
    [
        ("int32", "if i >= 0: s.put(a[i] * b[i])"),  # a one-line `if`: no line of its own to store on
        ("int32", "p = a[i]; s.put(p * b[i])"),  # the local would read `p` before it is bound
        ("int32", "[s.put(a[i] * b[j]) for j in range(1)]"),  # inside a comprehension
        ("Int(32)", "s.put(a[i] * b[i])"),  # an element type built by a call: left to the user
    ],
    ids=["one-line-if", "two-statements", "comprehension", "call-element"],
)
def test_a_put_with_no_line_of_its_own_gets_no_local(element, put):
    text = _NARROW_PUT.replace("ELEMENT", element).replace("PUT", put)
    # A comprehension statement does not build in Allo either (visit_Expr: ADF089).
    expected = ["ADF089", "ADF090"] if put.startswith("[") else ["ADF090"]
    assert [p.code for p in analyze(text).problems] == expected
    assert titles(text, "ADF090") == []


def test_the_stored_put_keeps_the_line_break_of_its_line():
    text = _NARROW_PUT.replace("ELEMENT", "int32").replace("PUT", "s.put(a[i] * b[i])").replace("\n", "\r\n")
    fixed = fix(text, "ADF090")
    assert "            value: int32 = a[i] * b[i]\r\n            s.put(value)\r\n" in fixed
    assert not any(p.code == "ADF090" for p in analyze(fixed).problems)


# -- robustness -------------------------------------------------------------------------------


def test_a_syntax_error_elsewhere_does_not_stop_the_fix():
    text = (EXAMPLES / "pitfall_arg_order.py").read_text()
    broken = text.replace("if __name__", "x = np.zeros(\nif __name__")
    assert any(p.code == "ADF900" for p in analyze(broken).problems)
    title = EXAMPLE_FIXES[1][2]
    fixed = fix(broken, "ADF003", title)
    assert fixed == fix(text, "ADF003", title).replace("if __name__", "x = np.zeros(\nif __name__")


def test_a_fix_that_would_touch_a_broken_line_leaves_it_alone():
    # The call is half typed: the parser sets its line aside, the model has no call there, and
    # the fix changes the region and the kernel only.
    text = (EXAMPLES / "pitfall_bare_scalar.py").read_text().replace("mod(A, 5, B)", "mod(A, 5, B")
    assert titles(text, "ADF002") == ["Declare 'n' as int32[1] (and update 1 kernel)"]
    assert "    mod(A, 5, B\n" in fix(text, "ADF002")


def test_a_stale_analysis_gives_no_action_rather_than_a_wrong_one():
    text = (EXAMPLES / "pitfall_bare_scalar.py").read_text()
    analysis = analyze(text)
    for edited in ("\n\n" + text, text.replace("def top(", "def top_renamed(")):
        for problem in analysis.problems:
            assert code_actions(edited, analysis, problem.range) == []


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("pitfall_*.py")), ids=lambda p: p.stem)
def test_half_typed_files_never_raise(path):
    """Every prefix of each pitfall example, cut mid-line, as a user typing it would have it."""
    text = path.read_text()
    lines = text.split("\n")
    for n in range(1, len(lines) + 1):
        prefix = "\n".join(lines[:n])
        prefix = prefix[: len(prefix) - len(lines[n - 1]) // 2]
        analysis = analyze(prefix)
        everything = Range.of(0, 0, len(lines), 0)
        for action in code_actions(prefix, analysis, everything):
            apply_edits(prefix, action.edits)
