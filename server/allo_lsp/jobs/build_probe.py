"""Which argument order the configured Allo compiles, learnt by a probe job (our own tiny
design, `service.probe_outcome`, never the user's code) once per interpreter and environment.

"Could not tell" is remembered as an answer too: an Allo the probe cannot read (none importable,
a broken build) is probed, and logged, once, not again before every job. A change of the
settings starts afresh (the server makes a new `BuildProbe`, and a job's settings other than the
probed ones are probed again).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from allo_lsp.protocol.messages import CANCELLED, JobResult

if TYPE_CHECKING:  # the server makes one at start: the jobs' modules come with the first probe
    from allo_lsp.jobs.environment import JobConfig
    from allo_lsp.jobs.manager import JobManager


@dataclass
class BuildProbe:
    found: str | None = None  # "fixed" or "legacy" once the probe told; None: not known
    probed: JobConfig | None = None  # the settings probed, or being probed

    def wanted(self, config: JobConfig) -> bool:
        """Whether jobs of `config` need a probe (none ran or runs for these settings)."""
        return self.probed != config

    async def run(self, manager: JobManager, config: JobConfig) -> JobResult | None:
        """The probe's outcome (`found` then says what it learnt), or None if `config` is
        probed already (or being probed), was superseded by other settings meanwhile, or the
        probe was cancelled."""
        if not self.wanted(config):
            return None
        from allo_lsp.jobs.service import build_of, probe_outcome

        self.probed, self.found = config, None
        outcome = await probe_outcome(manager, config)
        if self.probed != config:  # a job of other settings probes those
            return None
        if outcome.status == CANCELLED:  # the user cancelled every job: it tells nothing, the next job probes
            self.probed = None
            return None
        self.found = build_of(outcome)
        return outcome

    def interpreter(self) -> str:
        """The interpreter probed, as the log names it."""
        from allo_lsp.jobs.environment import interpreter_named

        return interpreter_named(self.probed.python if self.probed else "")
