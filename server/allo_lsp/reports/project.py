"""From a path (a report file or a project directory) to a `Report`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from .model import Report, ReportError
from .rpt import parse_rpt
from .xml import parse_xml, read, top_module

REPORT_GLOBS = ("**/syn/report/csynth.xml", "**/syn/report/csynth.rpt")


def parse_report(path_or_text: str | Path) -> Report:
    """One report file (`csynth.xml`, `<module>_csynth.xml` or `csynth.rpt`), given as a path or its text.

    A string is text when it starts with `<` or spans lines, else a path. Without ModuleInformation
    (before 2022.1) the module list is the top module alone; `load` can do better from a directory.
    """
    report = _parse_one(path_or_text)
    return report if report.modules else replace(report, modules=(top_module(report),))


def find_report(project_dir: str | Path) -> Path:
    """The newest `syn/report/csynth.xml` under `project_dir` (a `csynth.rpt` if no XML was written)."""
    root = Path(project_dir)
    if not root.is_dir():
        raise ReportError(f"{root}: no such directory")
    for pattern in REPORT_GLOBS:
        direct = root / Path(pattern).name
        found = [direct] if direct.is_file() else []
        found += [p for p in root.glob(pattern) if p.is_file()]
        if found:
            return max(found, key=lambda p: p.stat().st_mtime)
    raise ReportError(f"{root}: no syn/report/csynth.xml below it (has synthesis run?)")


def load(path: str | Path) -> Report:
    """A report file, or the newest report in a project directory, with every module it describes.

    Modules come from the report's ModuleInformation (2022+). Older reports have none; then each
    `<module>_csynth.xml` beside `csynth.xml` becomes a module (top first, the rest by name, all
    one level below it, as those files do not say who instantiates whom). Unreadable ones are left out.
    """
    path = Path(path)
    if path.is_dir():
        path = find_report(path)
    report = _parse_one(path)
    if not report.modules and path.name == "csynth.xml":
        report = replace(report, modules=_sibling_modules(report, path.parent))
    return report if report.modules else replace(report, modules=(top_module(report),))


def _sibling_modules(report: Report, folder: Path) -> tuple:
    modules = {}
    for file in sorted(folder.glob("*_csynth.xml")):
        try:
            sub = parse_xml(file.read_bytes(), str(file))
        except (ReportError, OSError):
            continue
        if sub.top and sub.top not in modules:
            modules[sub.top] = top_module(sub, depth=0 if sub.top == report.top else 1)
    if not modules:
        return ()
    first = modules.pop(report.top, None) or top_module(report)
    return (first, *modules.values())


def _parse_one(path_or_text: str | Path) -> Report:
    if isinstance(path_or_text, str) and (path_or_text.lstrip().startswith("<") or "\n" in path_or_text):
        return _parse_text(path_or_text, "")
    path = Path(path_or_text)
    if path.is_dir():
        raise ReportError(f"{path}: is a directory (use load() for a project directory)")
    data = read(path)
    if path.suffix == ".xml" or data.lstrip().startswith(b"<"):
        return parse_xml(data, str(path))
    return _parse_text(data.decode("utf-8", errors="replace"), str(path))


def _parse_text(text: str, source: str) -> Report:
    text = text.lstrip("\ufeff \t\r\n")  # a parser wants the XML declaration first
    if text.startswith("<"):
        return parse_xml(text, source)
    if not text.strip():
        raise ReportError(f"{source or '<text>'}: empty report")
    return parse_rpt(text, source)
