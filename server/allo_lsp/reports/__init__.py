"""Vitis HLS / Vivado HLS synthesis reports and logs, as plain data. Pure: text or paths in, no processes.

- `load(path)`: a `csynth.xml`/`csynth.rpt`, or a project directory (its newest `syn/report/csynth.xml`).
- `parse_report(path_or_text)`: one report file; `find_report(project_dir)`: where `load` looks.
- `Report.to_json()`: the schema `allo-lsp report --format json` prints.
- `format_text`, `format_markdown`, `delta(old, new)`: for people, and for "what changed since the last run".
- `scan_log(text)`, `failed(messages)`, `last_run(text)`: did a synthesis run fail, whatever its exit code.
Bad input raises `ReportError` (with the file and what is wrong), never a parser's own exception.
"""

from .format import delta, format_markdown, format_text
from .log import LogMessage, failed, last_run, scan_log
from .model import Clock, Latency, Loop, Module, Range, Report, ReportError, Resource
from .project import find_report, load, parse_report

__all__ = [
    "Clock",
    "Latency",
    "LogMessage",
    "Loop",
    "Module",
    "Range",
    "Report",
    "ReportError",
    "Resource",
    "delta",
    "failed",
    "find_report",
    "format_markdown",
    "format_text",
    "last_run",
    "load",
    "parse_report",
    "scan_log",
]
