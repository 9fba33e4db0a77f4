"""`allo-lsp check`: the editor's analysis for terminals and CI, in text, JSON, SARIF or GitHub form.

The JSON form is the contract the tests and benchmarks read: whatever the editor shows comes
from the same `analysis.analyze` call.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from allo_lsp import __version__
from allo_lsp.analysis import Analysis, Options, analyze
from allo_lsp.analysis.model import Range, Region
from allo_lsp.analysis.problems import Problem
from allo_lsp.analysis.rules import BY_CODE, RULES
from allo_lsp.finite_json import dumps

_SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".mypy_cache", "build", "dist"}


@dataclass
class CheckedFile:
    path: str
    analysis: Analysis


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
    return out


def _mentions_allo(path: Path) -> bool:
    try:
        return b"allo" in path.read_bytes()
    except OSError:
        return False


def check_files(paths: list[Path], options: Options) -> list[CheckedFile]:
    checked = []
    for path in paths:
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CheckError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
        except OSError as exc:
            raise CheckError(f"{path}: {exc.strerror}") from exc
        checked.append(CheckedFile(str(path), analyze(text, options)))
    return checked


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
