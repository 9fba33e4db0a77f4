"""What the last reference runs said about a file's FIFOs, in editor terms.

The reference executor's results carry FIFO statistics (`SimulateDetails.fifo_statistics`) and,
after a deadlock, its diagnosis (`SimulateDetails.fifo_sizing`, runner/reference/fifos.py). Here they become the lines a
stream's hover adds, the diagnostic on a declaration too shallow, and the quick fix that edits
its depth (`Stream[int32, 4]` -> `Stream[int32, 16]`, `df.pipe(..., depth=4)` -> `depth=16`).
The fix is computed on the current text: when the declaration no longer reads as the run saw it
(another depth, another line), there is no fix.

Depth is offered only when the diagnosis found that a larger one completes with every FIFO
empty. Elements left unread, by a run that completed or by the diagnosis' deeper re-run, are a
put/get imbalance: a diagnostic on the stream's declaration (`LEFTOVER`), never a depth.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from allo_lsp.analysis.model import FileModel, Position, Range, Region
from allo_lsp.ide.types import CodeAction, TextEdit
from allo_lsp.protocol.details import DEPTH, IMBALANCE, FifoSizing, SimulateDetails, StreamStatistics, details_as
from allo_lsp.protocol.messages import JobResult

CODE = "fifo_depth"  # the code of the diagnostic on a declaration a diagnosis sized
LEFTOVER = "fifo_leftover"  # ... on a declaration whose FIFOs a run left elements in
# The depth in `Stream[T, 4]` (T may hold brackets: `Stream[int16[M, N], 4]`, optionally followed
# by `[P0, P1]`) and in `df.pipe(dtype=T, shape=(), depth=4)`.
_STREAM_DEPTH = re.compile(r"Stream\[(?:[^\[\]]|\[[^\[\]]*\])*?,\s*(\d+)\s*\]")
_PIPE_DEPTH = re.compile(r"\bdepth\s*=\s*(\d+)")


def stream_statistics(outcomes: Iterable[JobResult], region: str, stream: str) -> StreamStatistics | None:
    """The newest statistics of `stream` of `region` among the outcomes' runs."""
    found = None
    for outcome in outcomes:
        for run in details_as(outcome.details, SimulateDetails).fifo_statistics:
            if run.region == region and stream in run.streams:
                found = run.streams[stream]
    return found


def stream_hover_markdown(regions: Iterable[Region], hovered: Range, outcomes: Iterable[JobResult]) -> str | None:
    """The last run's figures for the stream of `regions` whose declaration or use is `hovered`."""
    outcomes = list(outcomes)
    if not outcomes:
        return None
    for region in regions:
        names = [s.name for s in region.streams if s.range == hovered]
        names += [u.stream for u in region.stream_uses if u.range == hovered]
        if names:
            stats = stream_statistics(outcomes, region.name, names[0])
            return statistics_markdown(stats) if stats else None
    return None


def statistics_markdown(stats: StreamStatistics) -> str:
    fifos = f" over {stats.fifos} FIFOs" if stats.fifos > 1 else ""
    text = (
        f"\n\n---\nLast reference run: {stats.puts:,} puts, {stats.gets:,} gets{fifos}; "
        f"occupancy at most {stats.max_occupancy} of depth {stats.depth}"
    )
    if stats.leftover:
        text += f"; **{stats.leftover:,} element{'s' * (stats.leftover != 1)} left unread** when it completed (a put/get imbalance)"
    longest = stats.blocked_longest
    if longest:
        state = "full" if longest.op == "put" else "empty"
        text += (
            f"; blocked longest: `{longest.pe}` on {longest.op} of `{longest.fifo}` ({state}), "
            f"{longest.waits:,} waits, {longest.seconds * 1e3:.1f} ms"
        )
    return text


@dataclass(frozen=True)
class Unread:
    """Elements a completed reference run left in one stream declaration's FIFOs."""

    region: str
    stream: str
    line: int | None  # 1-based, the declaration's
    elements: int
    puts: int
    gets: int


def unread(outcome: JobResult) -> list[Unread]:
    """What the outcome's completed runs left unread, per stream declaration (the most any run
    of its region left)."""
    found: dict[tuple[str, str], Unread] = {}
    for run in details_as(outcome.details, SimulateDetails).fifo_statistics:
        for name, s in run.streams.items():
            kept = found.get((run.region, name))
            if s.leftover and (kept is None or s.leftover > kept.elements):
                found[(run.region, name)] = Unread(run.region, name, s.line, s.leftover, s.puts, s.gets)
    return list(found.values())


def unread_words(left: list[Unread], quote: str = "`") -> str:
    """`16 elements left unread in `tap``, `16 elements left unread in `tap`, 3 in `s2``."""
    first, *others = left
    n = first.elements
    words = f"{n} element{'s' * (n != 1)} left unread in {quote}{first.stream}{quote}"
    return words + "".join(f", {u.elements} in {quote}{u.stream}{quote}" for u in others)


def leftover_diagnostics(outcome: JobResult, model: FileModel) -> list[tuple[int, str, bool]]:
    """(0-based line, message, is an error) on each declaration of this file whose FIFOs a run
    left elements in: a warning after a completed run, an error when a deadlock's deeper re-run
    left them (the deadlock's cause)."""
    out = []
    for u in unread(outcome):
        line = _declaration_line(model, u.region, u.stream, u.line)
        if line is not None:
            message = (
                f"{unread_words([u])} when the run completed ({u.puts:,} puts, {u.gets:,} gets): a put/get "
                "imbalance. Vitis C simulation warns of it as leftover data and the hardware may hang on it; "
                "Allo's simulator does not check it (the reference executor's finding)"
            )
            out.append((line, message, False))
    sizing = details_as(outcome.details, SimulateDetails).fifo_sizing
    if sizing is not None and sizing.kind == IMBALANCE:
        for left in sizing.leftover:
            if left.file in (None, outcome.file):
                out.append((left.line - 1, f"deadlock: not a FIFO depth problem: {sizing.message}", True))
    return out


def _declaration_line(model: FileModel, region: str, stream: str, line: int | None) -> int | None:
    """The 0-based line of `stream`'s declaration in a region of `model` named `region`, if it
    is on `line` (a region of another module, with the same names, is not this file's)."""
    for r in model.regions:
        if r.name == region:
            for s in r.streams:
                if s.name == stream and (line is None or s.range.start.line == line - 1):
                    return s.range.start.line
    return None


def _depth_sizing(outcome: JobResult) -> FifoSizing | None:
    """The outcome's deadlock diagnosis when it found depths that complete."""
    sizing = details_as(outcome.details, SimulateDetails).fifo_sizing
    return sizing if sizing is not None and sizing.kind == DEPTH else None


def sizing_diagnostics(outcome: JobResult) -> list[tuple[int, str]]:
    """(0-based line, message) for each declaration the diagnosis deepens."""
    sizing = _depth_sizing(outcome)
    if sizing is None:
        return []
    return [
        (s.line - 1, f"deadlock: completes with depth of `{s.stream}` >= {s.depth} (declared {s.declared})")
        for s in sizing.streams
        if s.file in (None, outcome.file)
    ]


def depth_fixes(text: str, outcomes: Iterable[JobResult], range: Range) -> list[CodeAction]:
    """Quick fixes setting the depth of each declaration on the lines of `range` that the newest
    deadlock diagnosis sized."""
    lines = text.splitlines()
    actions = []
    for outcome in outcomes:
        sizing = _depth_sizing(outcome)
        if sizing is None:
            continue
        for s in sizing.streams:
            line = s.line - 1
            if s.file not in (None, outcome.file) or not (range.start.line <= line <= range.end.line):
                continue
            if not 0 <= line < len(lines):
                continue
            edit = _depth_edit(lines[line], line, s.stream, s.declared, s.depth)
            if edit is not None:
                title = f"Set the depth of `{s.stream}` to {s.depth} (the smallest that does not deadlock)"
                actions.append(CodeAction(title, "quickfix", (edit,), (CODE,), preferred=True))
    return actions


def _depth_edit(text: str, line: int, stream: str, declared: int, depth: int) -> TextEdit | None:
    if not re.match(rf"\s*{re.escape(stream)}\b", text):
        return None  # another statement there now
    match = _STREAM_DEPTH.search(text) or _PIPE_DEPTH.search(text)
    if match is None or int(match.group(1)) != declared:
        return None
    return TextEdit(Range(Position(line, match.start(1)), Position(line, match.end(1))), str(depth))
