"""A reference run's FIFO figures in the stream's hover, and the quick fix of a deadlock's depth."""

from allo_lsp.analysis import analyze
from allo_lsp.analysis.model import Position, Range
from allo_lsp.ide.fifo_run import depth_fixes, sizing_diagnostics, stream_hover_markdown
from allo_lsp.ide.hover import hover
from allo_lsp.protocol.messages import FIFO_SIZING, FIFO_STATISTICS, JobResult
from cursor import position_of, split_cursor

FILE = "/w/design.py"
DESIGN = """\
from allo.ir.types import int16

@df.region()
def top(A: int32[8], B: int32[8]):
    tap: Stream[int32, 2]
    lanes: Stream[int16[2, 2], 2][4]
    old = df.pipe(dtype=int32, shape=(), depth=2)

    @df.kernel(mapping=[1], args=[A])
    def producer(local_A: int32[8]):
        for i in range(8):
            tap.put(local_A[i])

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: int32[8]):
        for i in range(8):
            local_B[i] = t$0ap.get()
"""


def line(text: str, needle: str) -> int:
    return position_of(text, needle).line + 1


def sized(*streams) -> JobResult:
    return JobResult(
        "failed",
        "deadlock",
        "deadlock: ...",
        FILE,
        14,
        details={
            FIFO_SIZING: {
                "kind": "depth",
                "message": "...",
                "streams": [
                    {"stream": n, "file": FILE, "line": line, "declared": 2, "depth": d} for n, line, d in streams
                ],
            }
        },
    )


def whole(text: str) -> Range:
    return Range(Position(0, 0), Position(len(text.splitlines()), 0))


def apply(text: str, edit) -> str:
    lines = text.splitlines(keepends=True)
    line = lines[edit.range.start.line]
    lines[edit.range.start.line] = line[: edit.range.start.column] + edit.new_text + line[edit.range.end.column :]
    return "".join(lines)


def test_the_fix_sets_the_depth_the_diagnosis_found_on_each_form_of_declaration():
    text, _ = split_cursor(DESIGN)
    outcome = sized(
        ("tap", line(text, "tap:"), 8), ("lanes", line(text, "lanes:"), 16), ("old", line(text, "old ="), 4)
    )
    actions = depth_fixes(text, [outcome], whole(text))
    assert [a.title for a in actions] == [
        "Set the depth of `tap` to 8 (the smallest that does not deadlock)",
        "Set the depth of `lanes` to 16 (the smallest that does not deadlock)",
        "Set the depth of `old` to 4 (the smallest that does not deadlock)",
    ]
    fixed = text
    for action in actions:
        (edit,) = action.edits
        fixed = apply(fixed, edit)
    assert "    tap: Stream[int32, 8]\n" in fixed
    assert "    lanes: Stream[int16[2, 2], 16][4]\n" in fixed
    assert "    old = df.pipe(dtype=int32, shape=(), depth=4)\n" in fixed
    assert sizing_diagnostics(outcome)[0] == (
        line(text, "tap:") - 1,
        "deadlock: completes with depth of `tap` >= 8 (declared 2)",
    )


def test_no_fix_off_the_line_or_once_the_declaration_changed():
    text, _ = split_cursor(DESIGN)
    outcome = sized(("tap", line(text, "tap:"), 8))
    assert len(depth_fixes(text, [outcome], whole(text))) == 1
    assert (
        depth_fixes(text, [outcome], Range(Position(line(text, "lanes:"), 0), Position(line(text, "lanes:"), 5))) == []
    )
    assert depth_fixes(text.replace("Stream[int32, 2]", "Stream[int32, 3]"), [outcome], whole(text)) == []
    moved = "\n" + text
    assert depth_fixes(moved, [outcome], whole(moved)) == []
    imbalance = JobResult(
        "failed", "deadlock", file=FILE, details={FIFO_SIZING: {"kind": "imbalance", "message": "..."}}
    )
    assert depth_fixes(text, [imbalance], whole(text)) == [] and sizing_diagnostics(imbalance) == []


def test_the_stream_hover_shows_the_last_run():
    text, pos = split_cursor(DESIGN)
    analysis = analyze(text)
    result = hover(analysis, pos)
    stats = {
        "line": line(text, "tap:"),
        "depth": 2,
        "fifos": 1,
        "puts": 8,
        "gets": 8,
        "max_occupancy": 2,
        "waits": 4,
        "blocked_longest": {"pe": "producer_0", "op": "put", "fifo": "tap", "waits": 4, "seconds": 0.0012},
    }
    passed = JobResult("passed", details={FIFO_STATISTICS: [{"region": "top", "streams": {"tap": stats}}]})
    assert stream_hover_markdown(analysis.model.regions, result.range, [passed]) == (
        "\n\n---\nLast reference run: 8 puts, 8 gets; occupancy at most 2 of depth 2; "
        "blocked longest: `producer_0` on put of `tap` (full), 4 waits, 1.2 ms"
    )
    assert stream_hover_markdown(analysis.model.regions, result.range, []) is None


def test_the_stream_hover_says_what_a_completed_run_left_unread():
    text, pos = split_cursor(DESIGN)
    analysis = analyze(text)
    result = hover(analysis, pos)
    stats = {"line": line(text, "tap:"), "depth": 16, "fifos": 1, "puts": 16, "gets": 8, "max_occupancy": 9}
    passed = JobResult(
        "passed", details={FIFO_STATISTICS: [{"region": "top", "streams": {"tap": {**stats, "leftover": 8}}}]}
    )
    assert stream_hover_markdown(analysis.model.regions, result.range, [passed]) == (
        "\n\n---\nLast reference run: 16 puts, 8 gets; occupancy at most 9 of depth 16; "
        "**8 elements left unread** when it completed (a put/get imbalance)"
    )


def test_the_region_hover_names_the_backend_of_its_last_simulation():
    text, _ = split_cursor(DESIGN)
    analysis = analyze(text)
    at_region = position_of(text, "def top").__class__(line(text, "def top") - 1, 5)
    reference = JobResult("passed", target="top", backend="reference", duration_s=0.21, details={FIFO_STATISTICS: []})
    reference.of_kind("simulate")
    markdown = hover(analysis, at_region, outcomes=[reference]).markdown
    assert markdown.endswith(
        "\n\n---\nLast simulation: ✓ passed 0.2 s on the reference executor (numpy), not Allo's simulator"
    )
    allo = JobResult("failed", "assertion", target="top", backend="allo", line=12).of_kind("simulate")
    assert hover(analysis, at_region, outcomes=[allo]).markdown.endswith(
        "\n\n---\nLast simulation: ✗ assertion line 12 on Allo's simulator"
    )
    assert "Last simulation" not in hover(analysis, at_region).markdown
