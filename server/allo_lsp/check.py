"""`allo-lsp check`: the editor's analysis for terminals and CI, in text, JSON, SARIF or GitHub form.

The JSON form is the contract the tests and benchmarks read: whatever the editor shows comes
from the same `analysis.analyze` call.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from allo_lsp import __version__, host
from allo_lsp.analysis import Analysis, Options, analyze, lsp_newlines
from allo_lsp.analysis.model import Range, Region
from allo_lsp.analysis.problems import Problem
from allo_lsp.analysis.rules import BY_CODE, RULES
from allo_lsp.analysis.rules.base import MAX_ANALYSED_CHARS
from allo_lsp.finite_json import dumps
from allo_lsp.regular_files import Refused, inside, read_regular, replace_atomically
from allo_lsp.session.project_config import ProjectConfigs

# A file is read whole up to 4 bytes (UTF-8's longest) for each character the analysis reads: a
# larger text is still analysed up to the analysis' bound (ADF901 says so, counting the rest).
# The editor's workspace scan has the same bound (session/workspace_files.py, not imported for one
# number: 30 ms at each start); past it, a file is data, not a design, and is not read at all.
MAX_FILE_BYTES = 4 * MAX_ANALYSED_CHARS
_SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".mypy_cache", "build", "dist"}
# What a file that is not one is, in the message that skips it (never opened to find out).
_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


@dataclass
class CheckedFile:
    path: str
    analysis: Analysis
    fixed: int = 0  # problems `--fix` fixed (or `--diff` would)
    before: str = ""  # with fixes: the text before and after them
    after: str = ""


class CheckError(Exception):
    """A path that cannot be checked (missing, unreadable, not a regular file): exit code 2."""


class Trouble:
    """What the command could not do, one line on stderr per file as it happens. `failed`: a file
    named, or one that was to be checked or fixed, was not (exit status 2); a file merely skipped
    (a special file in a directory, a link out of the paths named) does not fail the command."""

    def __init__(self) -> None:
        self.failed = False

    def skip(self, message: str) -> None:
        print(f"allo-lsp check: {message}", file=sys.stderr)

    def fail(self, message: str) -> None:
        self.failed = True
        self.skip(message)


def collect(paths: list[str], trouble: Trouble) -> list[Path]:
    """Files named on the command line, and the Allo files (those mentioning `allo`) in directories."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            out += _walk(path, trouble)
        elif os.path.lexists(path):
            out.append(path)  # whatever it is: `read` refuses what is not a regular file
        else:
            raise CheckError(f"{raw}: no such file or directory")
    # Once each, as first named: `check . src/` names src/'s files twice (ruff checks them once).
    once: dict[Path, Path] = {}
    for path in out:
        once.setdefault(path.resolve(), path)
    return list(once.values())


def _walk(directory: Path, trouble: Trouble) -> Iterator[Path]:
    """The `.py` files under `directory` that mention `allo`, in path order. Entries that are not
    regular files (FIFOs, devices, links to them), larger than the bound or unreadable are skipped,
    said on stderr; links to directories are not followed (no loop, nothing outside the tree),
    links to files are, as Ruff's."""
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".py") and _mentions_allo(Path(root, name), trouble):
                yield Path(root, name)


def _mentions_allo(path: Path, trouble: Trouble) -> bool:
    try:
        # Looked at before it is opened: opening a FIFO waits for a writer, and some devices act when opened.
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            trouble.skip(
                f"{path}: not a regular file ({_KINDS.get(stat.S_IFMT(info.st_mode), 'of no known kind')}), skipped"
            )
            return False
        return b"allo" in read_regular(path, MAX_FILE_BYTES)
    except Refused as exc:  # too large, or swapped for a special file since
        trouble.skip(f"{exc}, skipped")
    except OSError as exc:  # a broken link, no permission
        trouble.skip(f"{path}: {exc.strerror}, skipped")
    return False


def read(path: Path) -> tuple[bytes, str]:
    """The bytes of `path`, a regular file within `MAX_FILE_BYTES`, and their text."""
    try:
        data = read_regular(path, MAX_FILE_BYTES)
        return data, data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CheckError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except Refused as exc:
        raise CheckError(str(exc)) from exc
    except OSError as exc:
        raise CheckError(f"{path}: {exc.strerror}") from exc


# -- the command, with Ruff's exit status ------------------------------------------------------
# The fixes' modules (ide/fix_all.py and every fix) and difflib are imported when a fix is asked
# for or a text report counts them: a plain check, as CI and editors' batch runs do, starts 55 ms
# sooner without them.
# 0: no problem left (none found, or every one fixed); 1: problems left (`--diff`: fixes to show);
# 2: the command could not check or fix everything (a missing or unreadable file, a bad
# [tool.allo-lsp], a fix that could not be written): the other files are still checked and fixed.


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
    trouble = Trouble()
    try:
        files = collect(paths, trouble)
    except CheckError as exc:
        print(f"allo-lsp check: {exc}", file=sys.stderr)
        return 2
    if config_errors(files, configs):
        return 2
    roots = [Path(p) for p in paths]  # a file named is its own root
    checked = []
    for path in files:  # one file's failure stops no other
        with host.collection_paused():  # a batch of analyses: the collector never walks their trees
            one = _check_one(path, options, configs, build_chosen, how, roots, trouble)
        if one is not None:
            checked.append(one)
    status = _status(checked, how)
    return 2 if trouble.failed else status


def _status(checked: list[CheckedFile], how: Run) -> int:
    """Prints the output; the exit status of what was checked."""
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


def _check_one(
    path: Path,
    options: Options,
    configs: ProjectConfigs,
    build_chosen: bool,
    how: Run,
    roots: list[Path],
    trouble: Trouble,
) -> CheckedFile | None:
    try:
        data, raw = read(path)
    except CheckError as exc:
        trouble.fail(str(exc))
        return None
    text = lsp_newlines(raw)
    chosen = configs.options(path, options, build_chosen)  # the file's project's [tool.allo-lsp]
    if not (how.fix or how.diff):
        return CheckedFile(str(path), analyze(text, chosen), before=text)
    from allo_lsp.ide.fix_all import fix_all

    fixed = fix_all(text, chosen, unsafe=how.unsafe_fixes)
    if how.fix and not how.diff and fixed.applied:
        if not _written(path, data, with_line_breaks(raw, fixed.text), roots, trouble):
            return CheckedFile(str(path), analyze(text, chosen), before=text)  # what the file still holds
    return CheckedFile(str(path), fixed.analysis, fixed.applied, text, fixed.text)


def _written(path: Path, data: bytes, text: str, roots: list[Path], trouble: Trouble) -> bool:
    """Whether `path`, read as `data`, now holds `text`: only inside the paths named (a link in a
    tree may lead anywhere), whole or not at all (a full disk leaves the file as it was), and only
    over what was read (an edit saved meanwhile is kept)."""
    real = Path(os.path.realpath(path))
    if not inside(real, roots):
        trouble.skip(f"{path}: not fixed: its real path {real} is outside the paths named")
        return False
    try:
        replace_atomically(real, text.encode("utf-8"), expected=data)  # the real path: a link stays a link
        return True
    except Refused as exc:
        trouble.fail(str(exc))  # changed since it was read
    except OSError as exc:
        trouble.fail(f"{path}: {exc.strerror}, not written")
    return False


_LINE_BREAK = re.compile(r"(\r\n|\r|\n)")  # those `lsp_newlines` reads


def with_line_breaks(original: str, fixed: str) -> str:
    """`fixed`, made from `original` with its line breaks written `\\n`, with `original`'s breaks:
    each line keeps its own (`\\r\\n`, a lone `\\r` or `\\n`), a line a fix changed takes that of the
    line it replaced, a line it added that of the line before."""
    if "\r" not in original:
        return fixed
    parts = _LINE_BREAK.split(original)
    old, breaks = parts[0::2], parts[1::2] + [""]  # the last line has no break
    if len(set(breaks[:-1])) == 1:  # one kind throughout (`\r\n`, or `\r`): no line to match
        return fixed.replace("\n", breaks[0])
    import difflib  # mixed breaks: the lines are matched (2 s for 200 fixes in 16,000 lines)

    new = fixed.split("\n")
    out: list[str] = []
    for _, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new).get_opcodes():
        for k in range(j2 - j1):
            i = i1 + min(k, i2 - i1 - 1)  # the line kept or replaced; an added one (i2 == i1): the one before
            out.append(breaks[i] if i >= 0 and breaks[i] else (out[-1] if out else "\n"))
    out[-1] = ""
    return "".join(line + end for line, end in zip(new, out))


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
