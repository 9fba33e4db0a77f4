"""The rule registry: one module per diagnostic code, each documented by its docstring.

A rule module has a docstring whose first line is `CODE kebab-name: summary` followed by
What/Why/Example sections, a `SEVERITY`, optionally `severity_for(options)`, and
`check(ctx) -> Iterable[Finding]`. Codes never change meaning.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from dataclasses import dataclass
from types import ModuleType

from allo_lsp.analysis.problems import Problem, Severity
from allo_lsp.analysis.rules.base import Context, Finding, Options


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    summary: str
    doc: str  # the sections after the title line, markdown
    module: ModuleType

    def severity(self, options: Options) -> Severity:
        custom = getattr(self.module, "severity_for", None)
        return custom(options) if custom else self.module.SEVERITY

    @staticmethod
    def of(module: ModuleType) -> Rule:
        title, _, doc = (module.__doc__ or "").strip().partition("\n")
        head, _, summary = title.partition(": ")
        code, _, name = head.partition(" ")
        return Rule(code, name, summary, doc.strip(), module)


# Every `adfNNN_<name>.py` module beside this file, in code order.
RULES: tuple[Rule, ...] = tuple(
    Rule.of(importlib.import_module(f"{__name__}.{info.name}"))
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name)
    if info.name.startswith("adf")
)
BY_CODE = {r.code: r for r in RULES}


# The code of a rule that raised (its module says so, `failure`): the tool's bug, not the design's.
INTERNAL_ERROR = "ADF902"


def run_rules(ctx: Context) -> list[Problem]:
    """Every rule's problems. Each rule runs alone: one that raises costs its own problems (all of
    them, none half-made) and is one INTERNAL_ERROR problem naming it; the others still report."""
    problems = []
    for rule in RULES:
        try:
            problems += _problems(rule, rule.module.check(ctx), ctx)
        except Exception as exc:  # noqa: BLE001 - one rule's bug must not cost the other rules' problems
            if rule.code not in ctx.options.selection.ignored:  # a rule the file does not show is not missed
                internal = BY_CODE[INTERNAL_ERROR]
                problems += _problems(internal, [internal.module.failure(rule.code, rule.name, exc)], ctx)
    problems.sort(key=lambda p: (p.range.start, p.code))
    return problems


def _problems(rule: Rule, findings: Iterable[Finding], ctx: Context) -> list[Problem]:
    severity = rule.severity(ctx.options)
    return [Problem(rule.code, f.severity or severity, f.range, f.message, dict(f.data)) for f in findings]


# Where the rules' pages are (`allo_lsp/rule_docs.py` writes them), from the README.
DOCS_FROM_README = "server/allo_lsp/docs/rules"


def rules_markdown() -> str:
    """The README's table of diagnostic codes, each linked to its page."""
    lines = ["| code | name | severity | rule |", "|---|---|---|---|"]
    for r in RULES:
        code = f"[{r.code}]({DOCS_FROM_README}/{r.code}.md)"
        lines.append(f"| {code} | `{r.name}` | {r.module.SEVERITY.label} | {r.summary} |")
    return "\n".join(lines)
