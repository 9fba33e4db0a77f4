"""The rules' documentation pages: one markdown file per code, generated from the rule modules'
docstrings into `docs/rules/` inside the package (shipped with it), so that every diagnostic
links its code to its page (`codeDescription.href`, a `file:` URI the editor opens).

`allo-lsp rules --write-docs` writes them again; a test keeps them equal to the docstrings.
"""

from __future__ import annotations

import functools
from pathlib import Path

from allo_lsp.analysis.rules import RULES, Rule
from allo_lsp.ide.code_actions import FIXES

DOCS = Path(__file__).parent / "docs" / "rules"


def page(rule: Rule) -> str:
    """The page of one rule, as its module's docstring says it."""
    facts = [f"Severity: {rule.module.SEVERITY.label}"]
    if rule.code in FIXES:
        facts.append("a quick fix is sometimes available (`allo-lsp check --fix` applies the safe ones)")
    if rule.code != "ADF900":
        facts.append(f"suppress it on a line with `# noqa: {rule.code}`")
    return f"# {rule.code} {rule.name}\n\n{rule.summary}.\n\n{'; '.join(facts)}.\n\n{rule.doc}\n"


def pages() -> dict[str, str]:
    """File name -> text, for every rule."""
    return {f"{rule.code}.md": page(rule) for rule in RULES}


def write(directory: Path = DOCS) -> list[Path]:
    """Writes every page into `directory` and removes the pages of no rule; the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    wanted = pages()
    for stale in directory.glob("*.md"):
        if stale.name not in wanted:
            stale.unlink()
    written = []
    for name, text in wanted.items():
        path = directory / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(path)
    return written


@functools.cache
def href(code: str) -> str | None:
    """The URI of the code's page, None for a code without one (not a rule's)."""
    path = DOCS / f"{code}.md"
    return path.as_uri() if path.is_file() else None
