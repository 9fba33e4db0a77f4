"""Functional emulation of targets no toolchain here can run (`allo-lsp run --emulate aie|csim`).

With emulation on for a target, `is_available()` says so, and a module built for it runs its
region on the reference executor, so the test's numeric checks really run. Only the function is
emulated: no timing, no resource use, and no hardware-specific behaviour (an `ExternalModule`
C++ kernel or a `vliw` design is refused), except where the target computes another value: on
AIE an int8/int16 `allo.matmul` cast at once into a wider int accumulates in that type, as
Allo's external kernels do (`library.cast_into`). The runner reads `ALLO_LSP_EMULATE` (a comma list),
and the job's result names what ran emulated (`record`/`recorded`).
"""

from __future__ import annotations

import contextlib
import os

KINDS = ("aie", "csim")
ENV = "ALLO_LSP_EMULATE"
_ran: list[str] = []
_running: list[str] = []  # the emulated kind of the module being called, innermost last
_remarks: list[str] = []  # what else the result must say about how it ran (`remark`)


def enabled(kind: str) -> bool:
    return kind in {k.strip() for k in os.environ.get(ENV, "").split(",")}


def record(kind: str) -> None:
    if kind not in _ran:
        _ran.append(kind)


def recorded() -> list[str]:
    return list(_ran)


@contextlib.contextmanager
def running(kind: str):
    """While a module built for `kind` runs: what its target computes differently (`current`)."""
    _running.append(kind)
    try:
        yield
    finally:
        _running.pop()


def current() -> str:
    """The emulated kind of the module running now ("" for a simulator module or none)."""
    return _running[-1] if _running else ""


def remark(text: str) -> None:
    """Something the job's result says besides passing, e.g. that an older API form ran."""
    if text not in _remarks:
        _remarks.append(text)


def describe() -> str:
    """`emulated aie (functional, reference executor)`, and the remarks; "" when neither."""
    return "; ".join([f"emulated {kind} (functional, reference executor)" for kind in _ran] + _remarks)
