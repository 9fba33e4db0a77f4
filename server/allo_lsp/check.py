"""`allo-lsp check`: the editor's analysis for terminals and CI, in text, JSON, SARIF or GitHub form.

The JSON form is the contract the tests and benchmarks read: whatever the editor shows comes
from the same `analysis.analyze` call.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from allo_lsp import __version__
from allo_lsp.analysis import Analysis, Options, analyze, lsp_newlines
from allo_lsp.analysis.model import Range, Region
from allo_lsp.analysis.problems import Problem
from allo_lsp.analysis.rules import BY_CODE, RULES
from allo_lsp.finite_json import dumps
from allo_lsp.ide.project_config import ProjectConfigs

_SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".mypy_cache", "build", "dist"}


@dataclass
class CheckedFile:
    path: str
    analysis: Analysis
    fixed: int = 0  # problems `--fix` fixed (or `--diff` would)
    before: str = ""  # with fixes: the text before and after them
    after: str = ""


class CheckError(Exception):
    """A path that cannot be checked (missing, unreadable): a usage error, exit code 2."""


def collect(paths: list[str]) -> list[Path]:
    """Files named on the command line, and the Allo files (those mentioning `allo`) in directories."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            out.append(path)
        elif path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
                for name in sorted(files):
                    candidate = Path(root, name)
                    if name.endswith(".py") and _mentions_allo(candidate):
                        out.append(candidate)
        else:
            raise CheckError(f"{raw}: no such file or directory")
    # Once each, as first named: `check . src/` names src/'s files twice (ruff checks them once).
    once: dict[Path, Path] = {}
    for path in out:
        once.setdefault(path.resolve(), path)
    return list(once.values())


def _mentions_allo(path: Path) -> bool:
    try:
        return b"allo" in path.read_bytes()
    except OSError:
        return False


def read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CheckError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except OSError as exc:
        raise CheckError(f"{path}: {exc.strerror}") from exc


# -- the command, with Ruff's exit status ------------------------------------------------------
# The fixes' modules (ide/fix_all.py and every fix) and difflib are imported when a fix is asked
# for or a text report counts them: a plain check, as CI and editors' batch runs do, starts 55 ms
# sooner without them.
# 0: no problem left (none found, or every one fixed); 1: problems left (`--diff`: fixes to show);
# 2: the command could not check (a missing file, a bad [tool.allo-lsp]).


@dataclass(frozen=True)
class Run:
    """What `allo-lsp check` was asked: the options after the paths."""

    fmt: str = "text"
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    exit_zero: bool = False
    exit_non_zero_on_fix: bool = False


def run(paths: list[str], options: Options, build_chosen: bool, how: Run) -> int:
    configs = ProjectConfigs()
    try:
        files = collect(paths)
        if config_errors(files, configs):
            return 2
        checked = [_check_one(path, options, configs, build_chosen, how) for path in files]
    except CheckError as exc:
        print(f"allo-lsp check: {exc}", file=sys.stderr)
        return 2
    fixed = sum(c.fixed for c in checked)
    if how.diff:
        _print_diffs(checked)
        return 0 if how.exit_zero or not fixed else 1
    output = render(checked, how.fmt)
    if how.fmt == "text":
        output += _fix_summary(checked, how)
    if output:
        print(output)
    left = any(c.analysis.problems for c in checked)
    if how.exit_non_zero_on_fix and fixed:
        return 1
    return 1 if left and not how.exit_zero else 0


def config_errors(files: list[Path], configs: ProjectConfigs) -> bool:
    """Prints the problems of the configurations of `files` (as Ruff, no file is checked with a
    configuration that says something it cannot mean); whether there were any."""
    seen = {}
    for path in files:
        project = configs.for_file(path)
        if project.path is not None and project.problems:
            seen[project.path] = project
    for project in seen.values():
        for p in project.problems:
            r = p.range.start
            print(f"{project.path}:{r.line + 1}:{r.column + 1}: error: {p.message}", file=sys.stderr)
    return bool(seen)


def _check_one(path: Path, options: Options, configs: ProjectConfigs, build_chosen: bool, how: Run) -> CheckedFile:
    raw = read(path)
    text = lsp_newlines(raw)
    chosen = configs.options(path, options, build_chosen)  # the file's project's [tool.allo-lsp]
    if not (how.fix or how.diff):
        return CheckedFile(str(path), analyze(text, chosen), before=text)
    from allo_lsp.ide.fix_all import fix_all

    fixed = fix_all(text, chosen, unsafe=how.unsafe_fixes)
    if how.fix and not how.diff and fixed.applied:
        _write(path, raw, fixed.text)
    return CheckedFile(str(path), fixed.analysis, fixed.applied, text, fixed.text)


def _write(path: Path, raw: str, text: str) -> None:
    # The file keeps its line breaks: the analysis reads them all as `\n`.
    if "\r\n" in raw and "\n" not in raw.replace("\r\n", ""):
        text = text.replace("\n", "\r\n")
    try:
        path.write_bytes(text.encode("utf-8"))
    except OSError as exc:
        raise CheckError(f"{path}: {exc.strerror}") from exc


def _print_diffs(checked: list[CheckedFile]) -> None:
    """Ruff's `--diff`: a unified diff per file a fix would change, and the count on stderr."""
    import difflib

    for c in checked:
        if c.fixed:
            diff = difflib.unified_diff(
                c.before.splitlines(keepends=True), c.after.splitlines(keepends=True), c.path, c.path
            )
            sys.stdout.write("".join(line if line.endswith("\n") else line + "\n" for line in diff))
    fixed = sum(c.fixed for c in checked)
    print(f"Would fix {fixed} problem{'s' * (fixed != 1)}.", file=sys.stderr)


def _fix_summary(checked: list[CheckedFile], how: Run) -> str:
    """After the text output: what was fixed, or what `--fix` (and `--unsafe-fixes`) would fix."""
    if how.fix:
        fixed = sum(c.fixed for c in checked)
        return f"\nFixed {fixed} problem{'s' * (fixed != 1)}." if fixed else ""
    if not any(c.analysis.problems for c in checked):
        return ""
    from allo_lsp.ide.fix_all import fixable

    found = [fixable(c.before, c.analysis) for c in checked if c.analysis.problems]
    safe, unsafe = sum(f.safe for f in found), sum(f.unsafe for f in found)
    hidden = f" ({unsafe} more with --unsafe-fixes)" if unsafe and not how.unsafe_fixes else ""
    if how.unsafe_fixes:
        safe, unsafe = safe + unsafe, 0
    if not safe:
        return f"\nNo fix available{hidden}." if hidden else ""
    return f"\n[*] {safe} fixable with --fix{' --unsafe-fixes' * how.unsafe_fixes}{hidden}."


def render(checked: list[CheckedFile], fmt: str) -> str:
    return {"text": to_text, "json": to_json, "sarif": to_sarif, "github": to_github}[fmt](checked)


# -- JSON ------------------------------------------------------------------------------------


def to_json(checked: list[CheckedFile]) -> str:
    return dumps({"files": [_file_json(c) for c in checked]}, indent=2)


def _file_json(c: CheckedFile) -> dict:
    return {
        "path": c.path,
        "regions": [region_json(r) for r in c.analysis.model.regions],
        "diagnostics": [problem_json(p) for p in c.analysis.problems],
    }


def region_json(region: Region) -> dict:
    return {
        "name": region.name,
        "line": region.range.start.line + 1,
        "pe_count": region.pe_count,
        "top_signature": [
            {
                "position": arg.position,
                "name": arg.param.name,
                "type": arg.param.type.resolved if arg.param.type else arg.param.annotation,
                "annotation": arg.param.annotation,
                "mlir_type": arg.param.type.mlir if arg.param.type else None,
                "interface": arg.interface,
                "bundle": arg.bundle,
                "direction": arg.param.direction.value,
                "kernels": arg.param.kernels,
            }
            for arg in region.top_signature
        ],
        "legacy_order": region.legacy_order,
        "kernels": [
            {
                "name": k.name,
                "line": k.range.start.line + 1,
                "mapping": list(k.mapping) if k.mapping is not None else None,
                "pe_count": k.pe_count,
                "instances": k.instance_names,
                "args": [a.name for a in k.args] if k.args is not None else None,
            }
            for k in region.kernels
        ],
        "streams": [
            {
                "name": s.name,
                "type": s.type.resolved if s.type else s.annotation,
                "put_by": list(dict.fromkeys(u.kernel for u in s.puts)),
                "got_by": list(dict.fromkeys(u.kernel for u in s.gets)),
            }
            for s in region.streams
        ],
    }


def problem_json(p: Problem) -> dict:
    return {
        "code": p.code,
        "severity": p.severity.label,
        **_one_based(p.range),
        "message": p.message,
    }


def _one_based(r: Range) -> dict:
    return {
        "line": r.start.line + 1,
        "column": r.start.column + 1,
        "end_line": r.end.line + 1,
        "end_column": r.end.column + 1,
    }


# -- text ------------------------------------------------------------------------------------


def to_text(checked: list[CheckedFile]) -> str:
    lines: list[str] = []
    for c in checked:
        for p in c.analysis.problems:
            r = p.range.start
            lines.append(f"{c.path}:{r.line + 1}:{r.column + 1}: {p.code} {p.severity.label}: {p.message}")
        for region in c.analysis.model.regions:
            lines += _signature_text(c.path, region)
    count = sum(len(c.analysis.problems) for c in checked)
    lines.append(f"{len(checked)} file{'s' * (len(checked) != 1)} checked, {count} diagnostic{'s' * (count != 1)}.")
    return "\n".join(lines)


def _signature_text(path: str, region: Region) -> list[str]:
    pes = f"{region.pe_count} PE{'s' * (region.pe_count != 1)}" if region.pe_count is not None else "? PEs"
    out = [
        f"{path}:{region.range.start.line + 1}: region {region.name}({', '.join(p.name for p in region.params)}), {pes}"
    ]
    for arg in region.top_signature:
        p = arg.param
        resolved = p.type.resolved if p.type else p.annotation or "?"
        mlir = p.type.mlir if p.type else "?"
        iface = f"m_axi {arg.bundle}" if arg.bundle else arg.interface
        out.append(f"  #{arg.position} {p.name}: {resolved}  {mlir}  {iface}  {p.direction.value}")
    declared = [p.name for p in region.params]
    legacy = region.legacy_order
    if legacy != [n for n in declared if n in legacy]:
        out.append(f"  older Allo builds: {region.name}({', '.join(legacy)})")
    return out


# -- GitHub workflow commands ----------------------------------------------------------------


def to_github(checked: list[CheckedFile]) -> str:
    lines = []
    for c in checked:
        for p in c.analysis.problems:
            level = {1: "error", 2: "warning"}.get(int(p.severity), "notice")
            pos = _one_based(p.range)
            props = (
                f"file={_gh_prop(c.path)},line={pos['line']},col={pos['column']},"
                f"endLine={pos['end_line']},endColumn={pos['end_column']},title={p.code}"
            )
            lines.append(f"::{level} {props}::{_gh_data(p.message)}")
    return "\n".join(lines)


def _gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


# -- SARIF 2.1.0 -----------------------------------------------------------------------------


def to_sarif(checked: list[CheckedFile]) -> str:
    level = {1: "error", 2: "warning", 3: "note", 4: "note"}
    results = []
    for c in checked:
        for p in c.analysis.problems:
            pos = _one_based(p.range)
            results.append(
                {
                    "ruleId": p.code,
                    "ruleIndex": list(BY_CODE).index(p.code),
                    "level": level[int(p.severity)],
                    "message": {"text": p.message},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": Path(c.path).as_posix()},
                                "region": {
                                    "startLine": pos["line"],
                                    "startColumn": pos["column"],
                                    "endLine": pos["end_line"],
                                    "endColumn": pos["end_column"],
                                },
                            }
                        }
                    ],
                }
            )
    rules = [
        {
            "id": r.code,
            "name": r.name,
            "shortDescription": {"text": r.summary},
            "help": {"text": r.summary, "markdown": r.doc},
            "defaultConfiguration": {"level": level[int(r.module.SEVERITY)]},
        }
        for r in RULES
    ]
    run = {
        "tool": {"driver": {"name": "allo-lsp", "version": __version__, "rules": rules}},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    return dumps(
        {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": [run]},
        indent=2,
    )
