"""What the server keeps of the jobs it ran for the editor (made once, in the server's `__init__`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from allo_lsp.jobs.manager import JobManager
from allo_lsp.protocol.messages import JobResult


@dataclass
class JobsState:
    # After the user's first job, a runner is pre-started so the next one begins at once.
    manager: JobManager = field(default_factory=lambda: JobManager(prestart=True, owns_kept_dirs=True))
    outcomes: dict[str, dict[tuple[str, str], JobResult]] = field(default_factory=dict)  # uri -> (name, kind) -> last
    running: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    progress: dict[str, str] = field(default_factory=dict)  # progress token -> job key
    lens_changes: dict[str, int] = field(default_factory=dict)  # uri -> jobs started or ended
    # Synthesis runs that produced a report, per (uri, region): the newest two.
    synthesis: dict[tuple[str, str], list[JobResult]] = field(default_factory=dict)
    reproducers: dict[str, tuple[str, str]] = field(default_factory=dict)  # uri -> (target, script) of a library bug

    def outcomes_of(self, uri: str) -> list[JobResult]:
        """The last outcome of each job of the document."""
        return list(self.outcomes.get(uri, {}).values())

    def reports_of(self, uri: str) -> dict[str, dict]:
        """Region name -> its newest synthesis report, for the document."""
        return {name: history[-1].details["report"] for (u, name), history in self.synthesis.items()
                if u == uri and history and history[-1].details.get("report")}
