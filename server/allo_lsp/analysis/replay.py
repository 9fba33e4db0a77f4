"""Replaying module-level statements from the analysis before.

A module-level statement is extracted again only when its text, its line or a module-level name
it read changed (its chunk's nodes are reused while its text is unchanged): while the user types
in one kernel, every other statement is replayed from what it added to the model last time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from allo_lsp.analysis.evaluate import Scope
from allo_lsp.analysis.model import FileModel

# The FileModel lists a module-level statement may add to.
_MODEL_LISTS = ("regions", "builds", "calls", "functions", "string_layouts")


@dataclass
class _Extracted:
    """What extracting one module-level definition added, and the module-level names it read."""

    deps: list[tuple[str, int, object]]  # (name, line, signature)
    rebinds: list[tuple[str, int, object]]  # (name, line, value) bound in the module scope
    added: dict[str, list]  # FileModel list name -> items


class Replay:
    """`cache`: kept between analyses of one document, keyed by (statement node, line); after a
    run it holds only the entries that run used or made (`finish`)."""

    def __init__(self, model: FileModel, cache: dict | None) -> None:
        self.model = model
        self.cache = cache if cache is not None else {}
        self.used: dict = {}

    def statement(self, stmt: cst.CSTNode, line: int, scope: Scope, extract: Callable[[], None]) -> None:
        """Replay `stmt` when nothing it read changed, else `extract()` it and record what it did."""
        key = (stmt, line)
        cached = self.cache.get(key)
        if cached is not None and all(scope.signature(n, at) == sig for n, at, sig in cached.deps):
            if scope.recorder is not None:  # inside another top-level statement being recorded
                scope.recorder.extend((n, at) for n, at, _ in cached.deps)
            for name, at, value in cached.rebinds:
                scope.bind(name, at, value=value)
            for name, items in cached.added.items():
                getattr(self.model, name).extend(items)
            self.used[key] = cached
            return
        sizes = {name: len(getattr(self.model, name)) for name in _MODEL_LISTS}
        reads: list = []
        bound: list = []
        outer, scope.recorder = scope.recorder, reads
        outer_journal, scope.journal = scope.journal, bound
        try:
            extract()
        finally:
            scope.recorder, scope.journal = outer, outer_journal
            if outer is not None:
                outer.extend(reads)
            if outer_journal is not None:
                outer_journal.extend(bound)
        rebinds = [(name, b.line, b.value) for name, b in bound]
        added = {name: getattr(self.model, name)[sizes[name] :] for name in _MODEL_LISTS}
        deps = [(n, at, scope.signature(n, at)) for n, at in dict.fromkeys(reads)]
        self.used[key] = _Extracted(deps, rebinds, added)

    def finish(self) -> None:
        """Keep only this run's entries: statements gone from the file are forgotten."""
        self.cache.clear()
        self.cache.update(self.used)
