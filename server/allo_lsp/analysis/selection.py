"""Which problems a file shows, and at which severity: the project's configuration
(`analysis/config.py`) resolved for one file, and its noqa comments (`analysis/noqa.py`)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from allo_lsp.analysis.noqa import NEVER_HIDDEN, unsuppressed
from allo_lsp.analysis.problems import Problem, Severity


@dataclass(frozen=True)
class Selection:
    ignored: frozenset[str] = frozenset()  # codes not shown
    severities: tuple[tuple[str, Severity], ...] = ()  # (code, its severity instead of the rule's)

    def shown(self, problems: list[Problem], text: str) -> list[Problem]:
        """The problems the file shows: not ignored by the configuration nor by a noqa comment,
        each at its configured severity."""
        severities = dict(self.severities)
        kept = []
        for p in unsuppressed(problems, text):
            if p.code in self.ignored and p.code not in NEVER_HIDDEN:
                continue
            severity = severities.get(p.code)
            kept.append(p if severity is None or severity == p.severity else replace(p, severity=severity))
        return kept
