"""Failure detection in Vivado/Vitis HLS logs (`vitis_hls.log`, `solution1.log`).

The exit code alone is not trustworthy (crashes with exit 0 have been reported), so a run is judged
by its log: tagged messages (`ERROR: [HLS 200-70] ...`) plus the lines that fail without a tag.
A `solution1.log` keeps appending across sessions (the teozax fixture holds dozens, the last one
clean), so judge a run from `last_run(text)` on, not from the first line of the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ERROR = "ERROR"
TAGGED = re.compile(r"^(ERROR|CRITICAL WARNING|WARNING|INFO): \[(\S+) (\d+-\d+)\] (.*)$")
# Lines that end a run without a `[TOOL code]` tag, seen in real logs (fixtures/log_error_lines.tsv).
UNTAGGED_FAILURES = (
    re.compile(r"^\s*Pre-synthesis failed\."),
    re.compile(r"command 'ap_source' returned error code"),
    re.compile(r"^ERROR: (?!\[)(.*)"),  # e.g. export_design's "ERROR: '2201251806' is an invalid argument."
    re.compile(r"^Abnormal program termination"),  # the tool crashed (signal number in parentheses)
    re.compile(r"^terminate called after throwing"),  # an uncaught C++ exception in the tool
    re.compile(r": command not found$"),  # the wrapper could not start the tool at all
)
# Each session prints this banner first (Vivado HLS 2018-2020 and Vitis HLS alike).
BANNER = re.compile(r"High-Level Synthesis from C")


@dataclass(frozen=True)
class LogMessage:
    severity: str  # ERROR, CRITICAL WARNING, WARNING or INFO
    tool: str  # HLS, SYNCHK, SIM, v++, ... ("" for an untagged failure line)
    code: str  # 200-70 ("" for an untagged failure line)
    message: str
    line: int  # 1-based


def scan_log(text: str) -> list[LogMessage]:
    messages = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.rstrip()
        match = TAGGED.match(line)
        if match:
            messages.append(LogMessage(match[1], match[2], match[3], match[4].strip(), number))
        elif any(pattern.search(line) for pattern in UNTAGGED_FAILURES):
            message = line[len("ERROR: ") :] if line.startswith("ERROR: ") else line.strip()
            messages.append(LogMessage(ERROR, "", "", message, number))
    return messages


def failed(messages: list[LogMessage], since_line: int = 1) -> bool:
    """Any error at or after `since_line` (`last_run(text)` to judge only the newest session)."""
    return any(m.severity == ERROR and m.line >= since_line for m in messages)


def last_run(text: str) -> int:
    """The 1-based line where the last session in the log starts (1 when there is no banner)."""
    start = 1
    for number, line in enumerate(text.splitlines(), start=1):
        if BANNER.search(line):
            start = number
    return start
