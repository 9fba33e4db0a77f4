"""Vitis HLS / Vivado HLS synthesis reports and logs, as plain data. Pure: text or paths in, no processes.

- `load(path)`: a `csynth.xml`/`csynth.rpt`, or a project directory (its newest `syn/report/csynth.xml`).
- `parse_report(path_or_text)`: one report file; `find_report(project_dir)`: where `load` looks.
- Both give `protocol/report.py`'s typed `Report` (this package is the only one that knows the
  names of Vitis' fields); `Report.to_json()`: the schema `allo-lsp report --format json` prints.
- `format_text`, `format_markdown`, `delta(old, new)`: for people, and for "what changed since the last run".
- `scan_log(text)`, `failed(messages)`, `last_run(text)`: did a synthesis run fail, whatever its exit code.
Bad input raises `ReportError` (with the file and what is wrong), never a parser's own exception.
"""

import importlib

_MODULE_OF = {
    "delta": "format",
    "format_markdown": "format",
    "format_text": "format",
    "LogMessage": "log",
    "failed": "log",
    "last_run": "log",
    "scan_log": "log",
    "Clock": "model",
    "Latency": "model",
    "Loop": "model",
    "Module": "model",
    "Range": "model",
    "Report": "model",
    "ReportError": "model",
    "Resource": "model",
    "Resources": "model",
    "UnreadableFigure": "model",
    "find_report": "project",
    "load": "project",
    "parse_report": "project",
}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str):
    """PEP 562, written out here (not `allo_lsp.lazy`): reports/ imports nothing of ours but the
    typed report (protocol/, stdlib only)."""
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(importlib.import_module(f"{__name__}.{_MODULE_OF[name]}"), name)
    return value
