"""Designs for job tests: a real example, told how the stand-in Allo should behave."""

import functools
import tempfile
from pathlib import Path

from paths import EXAMPLES

BASE = (EXAMPLES / "producer_consumer.py").read_text()


def design(directory: Path, behaviour: str = "ok", extra: str = "", name: str = "design.py") -> Path:
    """The producer/consumer example with `ALLO_STANDIN = behaviour` and `extra` appended.

    It also records, at import, the runner's pid in `pid.txt` beside it: a test can then check
    that no process survived the job.
    """
    marker = (
        f'\nALLO_STANDIN = "{behaviour}"\n'
        "import os as _os\n"
        "with open(_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), 'pid.txt'), 'a') as _f:\n"
        "    _f.write(str(_os.getpid()) + '\\n')\n"
    )
    head, sep, rest = BASE.partition("\nM, N = ")
    path = directory / name
    path.write_text(head + marker + sep + rest + extra)
    return path


def line_of(path: Path, needle: str) -> int:
    """1-based line of the first line containing `needle`."""
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def pids(path: Path) -> list[int]:
    marker = path.parent / "pid.txt"
    return [int(p) for p in marker.read_text().split()] if marker.exists() else []


def alive(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead for our purposes
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


@functools.cache
def fake_llvm_build_dir() -> str:
    """An LLVM build directory with the libraries the simulator loads, as empty files: the
    stand-in Allo never loads them, but the job manager checks they are there."""
    root = Path(tempfile.mkdtemp(prefix="allo-lsp-fake-llvm-"))
    (root / "lib").mkdir()
    for name in ("libomp.so", "libmlir_runner_utils.so", "libmlir_c_runner_utils.so"):
        (root / "lib" / name).write_bytes(b"")
    return str(root)


# A design whose outputs are NaN (0.0 / 0.0 in float32): every output path must stay strict JSON.
NAN_DESIGN = """
import allo
from allo.ir.types import float32, Stream
import allo.dataflow as df

M = 4


@df.region()
def top(A: float32[M], B: float32[M]):
    pipe: Stream[float32, 4]

    @df.kernel(mapping=[1], args=[A])
    def producer(local_A: float32[M]):
        for i in allo.grid(M):
            pipe.put(local_A[i] * 0.0 / 0.0)

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: float32[M]):
        for i in allo.grid(M):
            v: float32 = pipe.get()
            local_B[i] = v
"""


async def until_phase(phase: str, phases: list[list[str]], jobs: list, timeout_s: float = 60.0) -> None:
    """Wait until every job has reported `phase`; fail, saying how each job stands, when one
    ended without it or the time is up (a bare poll loop hung CI for its whole limit)."""
    import asyncio
    import time

    deadline = time.monotonic() + timeout_s
    while not all(phase in p for p in phases):
        ended = [(j.result().status, j.result().message) for j in jobs if j.done() and not j.exception()]
        failed = [repr(j.exception()) for j in jobs if j.done() and j.exception()]
        if ended or failed or time.monotonic() > deadline:
            raise AssertionError(f"waiting for {phase!r}: phases {phases}, ended {ended}, raised {failed}")
        await asyncio.sleep(0.05)
