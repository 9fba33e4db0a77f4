"""The rule registry: one module per diagnostic code, each documented by its docstring.

A rule module has a docstring whose first line is `CODE kebab-name: summary` followed by
What/Why/Example sections, a `SEVERITY`, optionally `severity_for(options)`, and
`check(ctx) -> Iterable[Finding]`. Codes never change meaning.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from allo_lsp.analysis.problems import Problem, Severity
from allo_lsp.analysis.rules import (
    adf001_bare_scalar_param,
    adf002_scalar_in_args,
    adf003_legacy_arg_order,
    adf004_merged_local_names,
    adf005_outputs_not_last,
    adf006_unused_param,
    adf010_missing_mapping,
    adf011_mapping_not_first,
    adf012_args_count,
    adf013_args_not_names,
    adf014_unknown_arg,
    adf015_type_mismatch,
    adf016_shadowing_param,
    adf017_pid_axes,
    adf020_stream_declaration,
    adf021_stream_use,
    adf022_unbalanced_stream,
    adf030_meta_construct,
    adf040_removed_syntax,
    adf050_region_named_kernel,
    adf060_call_arity,
    adf061_swapped_call_args,
    adf900_syntax_error,
)
from allo_lsp.analysis.rules.base import Context, Options


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


RULES: tuple[Rule, ...] = tuple(
    Rule.of(m)
    for m in (
        adf001_bare_scalar_param,
        adf002_scalar_in_args,
        adf003_legacy_arg_order,
        adf004_merged_local_names,
        adf005_outputs_not_last,
        adf006_unused_param,
        adf010_missing_mapping,
        adf011_mapping_not_first,
        adf012_args_count,
        adf013_args_not_names,
        adf014_unknown_arg,
        adf015_type_mismatch,
        adf016_shadowing_param,
        adf017_pid_axes,
        adf020_stream_declaration,
        adf021_stream_use,
        adf022_unbalanced_stream,
        adf030_meta_construct,
        adf040_removed_syntax,
        adf050_region_named_kernel,
        adf060_call_arity,
        adf061_swapped_call_args,
        adf900_syntax_error,
    )
)
BY_CODE = {r.code: r for r in RULES}


def run_rules(ctx: Context) -> list[Problem]:
    problems = []
    for rule in RULES:
        severity = rule.severity(ctx.options)
        for finding in rule.module.check(ctx):
            problems.append(Problem(rule.code, severity, finding.range, finding.message, dict(finding.data)))
    problems.sort(key=lambda p: (p.range.start, p.code))
    return problems


def rules_markdown() -> str:
    """The README's table of diagnostic codes."""
    lines = ["| code | name | severity | rule |", "|---|---|---|---|"]
    for r in RULES:
        lines.append(f"| {r.code} | `{r.name}` | {r.module.SEVERITY.label} | {r.summary} |")
    return "\n".join(lines)
