"""What the server keeps of its open documents, and the answers read from it: each document's
newest analysis, what it shows of its jobs, the MLIR views compiled from it, and whether its
lenses are to be asked for again.

Only an open document has an entry: a closed one's analysis goes with it, and so do its jobs'
outcomes (they were for the text its jobs ran). Answers are on the current text (`Current`):
from the newest analysis, moved to the text as it is now.
"""

from __future__ import annotations

from dataclasses import dataclass

from allo_lsp.analysis.model import FileModel, Range
from allo_lsp.analysis.problems import Problem
from allo_lsp.ide.active_pe import TRACE_VALUES, ActivePe, active_pe, find_kernel
from allo_lsp.ide.current import Current
from allo_lsp.ide.document import DocumentAnalysis, keep_parse_caches
from allo_lsp.ide.job_outcomes import Job, JobOutcomes, SourcedProblem
from allo_lsp.ide.lenses import Lens
from allo_lsp.ide.mlir_view import MLIR_SOURCE, Compiled, MlirView, definition_in_view, view_symbols, view_uri
from allo_lsp.ide.types import Symbol
from allo_lsp.protocol.messages import MLIR, JobResult

ANALYSIS_SOURCE = "allo-lsp"  # the source of the analysis' problems (a job's say which job found them)


@dataclass
class _ActiveChoice:
    """The PE chosen for a kernel (`alloDataflow/activePe`), and its view on the analysis it was
    last computed on (hovers read it)."""

    pe: str
    mapping: tuple | None  # the kernel's when chosen: another mapping clears the choice
    view: ActivePe | None = None
    analysis: object = None


class DocumentStore:
    def __init__(self) -> None:
        self.analyses: dict[str, DocumentAnalysis] = {}  # the newest of each open document
        self.lenses_to_refresh: set[str] = set()  # documents whose last lenses left one out (an edited line)
        self.mlir_views: dict[str, MlirView] = {}  # allo-mlir: URI -> the view
        self._recent: list[str] = []  # the documents analysed last, newest first
        self._jobs: dict[str, JobOutcomes] = {}  # what each open document shows of its jobs
        # (version, problems) an earlier server's first analysis found on the text being analysed
        # for the first time here (`problem_cache.py`): shown until that analysis ends
        self.kept_problems: dict[str, tuple[int | None, list[Problem]]] = {}
        self._active: dict[str, dict[tuple[str, str], _ActiveChoice]] = {}  # (region, kernel) -> its PE

    def keep(self, uri: str, result: DocumentAnalysis) -> None:
        """The analysis of the document's current text."""
        self.analyses[uri] = result
        self.kept_problems.pop(uri, None)
        self._recent = keep_parse_caches(self.analyses, self._recent, uri)
        chosen, regions = self._active.get(uri, {}), result.usable.model.regions
        for key, choice in list(chosen.items()):  # a kernel gone, or mapped otherwise: its PE unchosen
            if (found := find_kernel(regions, *key)) is None or found[1].mapping != choice.mapping:
                del chosen[key]
            choice.view = choice.analysis = None  # made again on the new analysis when asked

    def forget(self, uri: str) -> None:
        """A closed document."""
        self.analyses.pop(uri, None)
        self.kept_problems.pop(uri, None)
        self._jobs.pop(uri, None)
        self._active.pop(uri, None)

    def active_pe(self, uri: str, text: str, region: str, kernel: str, pe, clear: bool) -> ActivePe | None:
        """`alloDataflow/activePe` on `text` (the current one): `pe` (a name or a pid) chosen for the
        kernel, or with None the one chosen before (`clear`: none); None without such a kernel or
        an analysis. A PE that is not the kernel's leaves the choice as it was."""
        if (result := self.analyses.get(uri)) is None:
            return None
        analysis, base, shift = result.view(text)
        chosen = self._active.setdefault(uri, {})
        if clear:
            chosen.pop((region, kernel), None)
        before = chosen.get((region, kernel))
        if before is not None and before.analysis is analysis and pe in (None, before.pe) and before.view is not None:
            return before.view.forward(shift)  # asked again on the same analysis (after each edit, a scroll)
        found = active_pe(analysis.model.regions, base, region, kernel, pe if pe is not None else before and before.pe)
        if found is not None and found.pe is None and pe is not None and before is not None:
            found = active_pe(analysis.model.regions, base, region, kernel, before.pe)
        if found is not None and found.pe is not None:
            mapping = find_kernel(analysis.model.regions, region, kernel)[1].mapping  # type: ignore[index]
            chosen[(region, kernel)] = _ActiveChoice(found.pe.name, mapping, found, analysis)
        return found.forward(shift) if found is not None else None

    def chosen_pes(self, uri: str) -> dict[tuple[str, str], str]:
        """(region, kernel) -> the name of its chosen PE, in the document `uri`."""
        return {key: choice.pe for key, choice in self._active.get(uri, {}).items()}

    def trace_values(self, uri: str) -> int:
        """How many first values per PE and FIFO a reference run of the document is asked to keep:
        some while one of its kernels has an active PE (the hover on a put or get shows them)."""
        return TRACE_VALUES if self._active.get(uri) else 0

    def active_pes(self, uri: str, text: str) -> list[ActivePe]:
        """The views of the document's active PEs on the analysed text that answers for `text`."""
        if (result := self.analyses.get(uri)) is None or not (chosen := self._active.get(uri)):
            return []
        analysis, base, _ = result.view(text)
        for (region, kernel), choice in chosen.items():
            if choice.analysis is not analysis:
                choice.view, choice.analysis = (
                    active_pe(analysis.model.regions, base, region, kernel, choice.pe),
                    analysis,
                )
        return [c.view for c in chosen.values() if c.view is not None and c.view.pe is not None]

    def is_of(self, uri: str, version: int | None) -> bool:
        """Whether the document's newest analysis is of its text at `version`."""
        result = self.analyses.get(uri)
        return result is not None and result.version == version

    def current(self, uri: str, text: str) -> Current | None:
        """The document's features on `text` (its current text); None before its first analysis."""
        result = self.analyses.get(uri)
        return Current.of(result, text) if result is not None else None

    def model(self, uri: str) -> FileModel | None:
        """The newest model of a text that parsed (what a job runs: the user's last complete code),
        else the newest."""
        result = self.analyses.get(uri)
        return result.usable.model if result is not None else None

    def jobs_of(self, uri: str) -> JobOutcomes:
        return self._jobs.setdefault(uri, JobOutcomes())

    def outcomes(self, uri: str, text: str) -> list[JobResult]:
        """The outcomes of the document's jobs that still hold on `text`."""
        return list(self.jobs_of(uri).outcomes(text).values())

    def record(self, uri: str, job: Job, outcome: JobResult, model: FileModel | None, text: str) -> None:
        """A finished job of `uri`, which ran `text` (analysed as `model`): kept while the
        document is open (a closed one's outcomes went with it)."""
        if uri in self.analyses and model is not None:
            self.jobs_of(uri).record(job, outcome, model, text)

    def problems(self, uri: str, result: DocumentAnalysis) -> list[SourcedProblem]:
        """The analysis' problems and those of the jobs whose outcomes hold on its text."""
        found = [SourcedProblem(ANALYSIS_SOURCE, p) for p in result.problems]
        return found + self.jobs_of(uri).problems(result.text)

    def lenses_back(self, uri: str) -> bool:
        """Whether the document's last lenses left one out, which its new analysis has: asked
        for again once."""
        if uri not in self.lenses_to_refresh:
            return False
        self.lenses_to_refresh.discard(uri)
        return True

    def cached_lenses(self, uri: str, key: tuple) -> object | None:
        """The lenses' answer as encoded for `key` (the document's version and its jobs' changes):
        editors ask again on every scroll and focus, and a large file has a thousand lenses."""
        lenses = self.analyses[uri].lenses
        return lenses[1] if lenses is not None and lenses[0] == key else None

    def cache_lenses(self, uri: str, key: tuple, encoded: object) -> object:
        self.analyses[uri].lenses = (key, encoded)
        return encoded

    def lenses(self, uri: str, text: str, running: dict) -> list[Lens]:
        """The document's lenses on `text`. A lens on a line being edited is left out until the
        analysis of the new text, which then asks for them again (`lenses_to_refresh`)."""
        outcomes, active = self.jobs_of(uri).outcomes(text), self.active_pes(uri, text)
        lenses, left_out = Current.of(self.analyses[uri], text).lenses(outcomes, running, active)
        if left_out:
            self.lenses_to_refresh.add(uri)
        return lenses

    def add_mlir_view(self, uri: str, path: str, region: str, found: Compiled, ran: str) -> dict:
        """The module compiled from `region` of the text the job `ran`: its view kept, the
        signature's problems shown on the document. Returns what the client opens the view with."""
        mlir_uri = view_uri(path, region)
        self.mlir_views[mlir_uri] = MlirView(uri, region, found.text)
        self.jobs_of(uri).add_problems((region, MLIR), MLIR_SOURCE, found.problems, ran)
        return {
            "mlirUri": mlir_uri,
            "mlir": found.text,
            "functions": found.functions,
            "parseError": found.parse_error,
            "bindings": found.bindings,
        }

    def mlir_definition(self, view: str, line: int, column: int) -> tuple[str, str, Range] | None:
        """From a symbol of an MLIR view to its kernel or region: (source URI, the text the range
        is on, the range); None for a document that is not a view or a symbol of nothing."""
        mlir = self.mlir_views.get(view)
        result = self.analyses.get(mlir.source_uri) if mlir is not None else None
        if result is None:
            return None
        target = definition_in_view(mlir.text, line, column, result.usable, mlir.region)
        return (mlir.source_uri, result.text, target) if target is not None else None

    def mlir_symbols(self, view: str) -> tuple[str, list[Symbol]] | None:
        """The outline of an MLIR view (its text, its functions by what they implement); None for a
        document that is not one."""
        mlir = self.mlir_views.get(view)
        if mlir is None:
            return None
        result = self.analyses.get(mlir.source_uri)
        return mlir.text, view_symbols(mlir.text, result.usable, mlir.region) if result else []
