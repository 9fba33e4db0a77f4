"""What a job may take from its user and write into what it generates: a target's name (in the
job's directory name, its batch script and its Slurm job name), an FPGA part and a clock period
(in Vitis' `run.tcl`). Each is checked where it comes in (the settings, the command line, the
editor's commands, a batch spec), so that nothing generated can hold a newline, a quote, a
bracket or a path; the generators quote what they embed as well.

Each function answers why the value is refused, or None; each caller raises its own error.
"""

from __future__ import annotations

import re

NAME_BYTES = 200  # a job directory is named after its target: the name stays well inside NAME_MAX
PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,99}")  # Xilinx part names: xcu250-figd2104-2L-e
CLOCK_NS = (0.1, 1000.0)  # 10 GHz to 1 MHz: anything outside is a typo, not a design


def name_error(name: object) -> str | None:
    """Why `name` cannot name a job's target (a region or a function of the file), or None: it
    is a Python identifier. Whether the file has it is `jobs.launch.unknown_target`'s."""
    if not isinstance(name, str):
        return f"a job's target is the name of a region or a function, not {type(name).__name__}"
    if not name.isidentifier() or len(name.encode()) > NAME_BYTES:
        return f"{_shown(name)} is not the name of a region or a function (a Python identifier)"
    return None


def part_error(part: object) -> str | None:
    """Why `part` is not an FPGA part name, or None ("" is none: the part Allo writes)."""
    if part == "":
        return None
    if not isinstance(part, str) or not PART.fullmatch(part):
        return f"the part {_shown(part)} is not an FPGA part name (letters, digits, '-', '_' and '.')"
    return None


def clock_error(clock_ns: object) -> str | None:
    """Why `clock_ns` is not a clock period in ns, or None (0 is none: the clock Allo writes)."""
    low, high = CLOCK_NS
    is_number = isinstance(clock_ns, (int, float)) and not isinstance(clock_ns, bool)
    if is_number and (clock_ns == 0 or low <= clock_ns <= high):  # NaN and infinities compare False
        return None
    return f"the clock {_shown(clock_ns)} is not a period in ns between {low:g} and {high:g} (0: what Allo writes)"


def _shown(value: object) -> str:
    """`value` as a message quotes it: on one line, bounded."""
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:77]}..."
