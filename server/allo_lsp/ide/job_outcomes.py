"""What a document shows of its jobs: the last outcome of each job (target and kind) and the
problems it points at, for as long as the text still says what the job ran.

Kept per job, so a run replaces only the outcome of its own kind (a simulation leaves the
synthesis' timing warning alone), a run that passes clears its predecessor's failure, and an
edit clears what it invalidates. An edit invalidates a job unless every line it changes lies
inside another module-level region or test function that the job does not reach (its target's
text does not name it, nor the text of anything it names): an edit of a region clears that
region's lenses and problems, an edit of an import or a constant clears every job's. While an
outcome holds, its problems move with the lines around them (`LineShift`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import PurePath

from allo_lsp.analysis.model import FileModel
from allo_lsp.analysis.problems import Problem
from allo_lsp.ide.document import LineShift
from allo_lsp.ide.outcomes import RUN_SOURCE, findings, placed
from allo_lsp.protocol.messages import JobResult

Job = tuple[str, str]  # (target name, kind)


@dataclass(frozen=True)
class SourcedProblem:
    """A problem and who found it (the diagnostic's source: `allo-lsp run`, `allo-lsp mlir`)."""

    source: str
    problem: Problem


@dataclass
class _Kept:
    outcome: JobResult
    text: str  # what the job ran
    problems: list[SourcedProblem]  # on `text`
    free: list[tuple[int, int]]  # first and last line of each definition an edit may change


class JobOutcomes:
    """One document's jobs: `record` when one ends, `outcomes`/`problems` on the current text."""

    def __init__(self) -> None:
        self._kept: dict[Job, _Kept] = {}
        self._seen: tuple[str, dict[Job, _Kept]] | None = None  # the last text asked about, and the answer

    def record(self, job: Job, outcome: JobResult, model: FileModel, text: str) -> None:
        """The outcome of `job`, which ran `text` (analysed as `model`), replacing its last."""
        lines = text.split("\n")
        problems = [SourcedProblem(RUN_SOURCE, p) for p in placed(findings(outcome, model, job[0]), lines)]
        self._kept[job] = _Kept(outcome, text, problems, _unreached(model, job[0], lines))
        self._seen = None

    def add_problems(self, job: Job, source: str, problems: list[Problem], text: str) -> None:
        """Problems found after the job (the MLIR view's signature check) on `text`, replacing
        those of `source`; nothing if the job's outcome is gone or was for another text."""
        kept = self._kept.get(job)
        if kept is None or kept.text != text:
            return
        kept.problems = [p for p in kept.problems if p.source != source] + [SourcedProblem(source, p) for p in problems]
        self._seen = None

    def outcomes(self, text: str) -> dict[Job, JobResult]:
        return {job: kept.outcome for job, kept in self._current(text).items()}

    def problems(self, text: str) -> list[SourcedProblem]:
        return [p for kept in self._current(text).values() for p in kept.problems]

    def _current(self, text: str) -> dict[Job, _Kept]:
        """The jobs whose outcome still holds on `text`, their problems moved onto it."""
        if self._seen is not None and self._seen[0] == text:
            return self._seen[1]
        shifts: dict[str, LineShift | None] = {}
        current = {}
        for job, kept in list(self._kept.items()):
            if kept.text not in shifts:
                shifts[kept.text] = None if kept.text == text else LineShift.between(kept.text, text)
            shift = shifts[kept.text]
            if shift is None:
                current[job] = kept
            elif _holds(shift, kept.free, kept.text.count("\n") + 1, text.count("\n") + 1):
                current[job] = replace(kept, problems=_moved(kept.problems, shift))
            else:
                del self._kept[job]  # an edit invalidated it: it does not come back with an undo
        self._seen = (text, current)
        return current


def _moved(problems: list[SourcedProblem], shift: LineShift) -> list[SourcedProblem]:
    out = []
    for p in problems:
        moved = shift.range_forward(p.problem.range)
        if moved is not None:
            out.append(SourcedProblem(p.source, replace(p.problem, range=moved)))
    return out


def _holds(shift: LineShift, free: list[tuple[int, int]], old_lines: int, new_lines: int) -> bool:
    """Whether every change from the job's text lies inside a definition the job does not reach."""
    old_at = new_at = 0
    for old_start, new_start, length in (*shift.blocks, (old_lines, new_lines, 0)):
        if (old_start, new_start) != (old_at, new_at) and not _inside_one(free, old_at, old_start):
            return False
        old_at, new_at = old_start + length, new_start + length
    return True


def _inside_one(free: list[tuple[int, int]], first: int, stop: int) -> bool:
    """Whether the old lines first..stop-1 (replaced) lie inside one of the definitions; lines
    inserted before `first` (stop == first) must fall between two lines of one."""
    if stop > first:
        return any(s <= first and stop - 1 <= e for s, e in free)
    return any(s < first <= e for s, e in free)


def _unreached(model: FileModel, target: str, lines: list[str]) -> list[tuple[int, int]]:
    """Lines of the module-level regions and test functions the job of `target` does not reach:
    neither the target nor named in the text of what it reaches."""
    spans = {r.name: (r.decorator_range.start.line, r.def_range.end.line) for r in model.regions if not r.scope_path}
    spans.update(
        {f.name: (f.def_range.start.line, f.def_range.end.line) for f in model.functions if model.builds_in(f.name)}
    )
    reached, todo = set(), [target]
    while todo:
        name = todo.pop()
        reached.add(name)
        if name not in spans:
            return []  # the target is something else: any edit may change what the job ran
        start, end = spans[name]
        words = set(re.findall(r"\w+", "\n".join(lines[start : end + 1])))
        todo += [other for other in spans if other in words and other not in reached]
    return sorted(span for name, span in spans.items() if name not in reached)


def reproducer_file(design: str, target: str) -> tuple[str, str]:
    """(title, path) of the quick fix that writes a library bug's minimal reproducer: a new file
    beside the design."""
    path = PurePath(design)
    name = f"{path.stem}_{target}_repro.py"
    return f"Write a minimal reproducer of this Allo bug to {name}", str(path.with_name(name))
