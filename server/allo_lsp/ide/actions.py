"""Every code action of a range on the document's text: the quick fixes and disables of the
problems there, the fix-all (when its kind is asked for), the FIFO depths a reference run found,
the lenses' jobs (for editors without code lenses: the lightbulb, a context menu), and the
minimal reproducer of a library bug a job found (a new file beside the design)."""

from __future__ import annotations

from pathlib import Path

from allo_lsp.analysis import Options
from allo_lsp.analysis.model import Range
from allo_lsp.ide.code_actions import code_actions, disable_actions
from allo_lsp.ide.document import DocumentAnalysis
from allo_lsp.ide.fifo_run import depth_fixes
from allo_lsp.ide.fix_all import fix_all_actions, wanted
from allo_lsp.ide.job_outcomes import reproducer_file
from allo_lsp.ide.lenses import run_actions
from allo_lsp.ide.types import CodeAction
from allo_lsp.protocol.messages import LIBRARY_BUG, JobResult


def document_actions(
    uri: str,
    text: str,
    version: int | None,
    result: DocumentAnalysis | None,
    options: Options,
    where: Range,
    only: list[str] | None,
    outcomes: list[JobResult],
) -> list[CodeAction]:
    """The actions of `where` on the text of `uri`, which the edits must be computed on exactly:
    analysed again if `result` is of another text. Slow (a fix parses the whole file, fix-all
    analyses it again): run off the event loop. `only`: the kinds asked for (on save,
    source.fixAll)."""
    if result is None or result.text != text:
        result = DocumentAnalysis.build(text, version, options, result)
    analysis = result.current
    found = []
    if wanted("quickfix", only):
        found = code_actions(text, analysis, where) + disable_actions(text, analysis, where)
    found += fix_all_actions(text, options, analysis, only, result.cache) + depth_fixes(text, outcomes, where)
    jobs = run_actions(analysis, where.start.line)
    return found + [CodeAction(title, "source", (), command=(command, [uri, name])) for title, command, name in jobs]


def reproducer_actions(design: str | None, reproducer: tuple[str, str] | None, codes: set[str]) -> list[CodeAction]:
    """On a library bug's diagnostic (`codes`: of those the editor gives), the file that
    reproduces it (`reproducer`: the target and the script a job of the `design` found)."""
    if reproducer is None or design is None or LIBRARY_BUG not in codes:
        return []
    title, path = reproducer_file(design, reproducer[0])
    return [CodeAction(title, "quickfix", (), (LIBRARY_BUG,), new_file=(Path(path).as_uri(), reproducer[1]))]
