"""Where and how a job runs: the Allo interpreter, `LLVM_BUILD_DIR`, `OMP_NUM_THREADS`.

Everything is checked before anything starts, so a broken set-up gives a message saying what to
set, not a crash from inside Allo.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

import allo_lsp

LLVM_LIBS = ("libomp.so", "libmlir_runner_utils.so", "libmlir_c_runner_utils.so")
# The directory holding the `allo_lsp` package, for the server's own interpreter only: installed
# from a wheel it is the server venv's whole site-packages. A job imports the runner from a copy
# of the runner's packages alone (`isolation.runner_root`).
PACKAGE_ROOT = str(Path(allo_lsp.__file__).resolve().parent.parent)


class SetupError(Exception):
    """The job cannot start; the message says what to set or install."""


@dataclass(frozen=True)
class JobConfig:
    """The job-related settings, as the user gave them (empty: not set)."""

    python: str = ""  # the Allo environment's interpreter
    llvm_build_dir: str = ""
    omp_threads: int = 0  # 0: the design's PE count
    timeout_s: float = 300.0
    extra_env: dict[str, str] = field(default_factory=dict)


def resolve_python(setting: str) -> str:
    """The interpreter to run the job with: the setting, else this one."""
    if not setting:
        return sys.executable
    path = shutil.which(setting) if os.sep not in setting else setting
    if path is None or not os.path.exists(path):
        raise SetupError(
            f"alloDataflow.python: {setting!r} does not exist. Point it at your Allo environment's python."
        )
    if not os.path.isfile(path):
        raise SetupError(f"alloDataflow.python: {path!r} is not a file. Point it at your Allo environment's python.")
    if not os.access(path, os.X_OK):
        raise SetupError(f"alloDataflow.python: {path!r} is not executable.")
    return os.path.abspath(path)  # the job runs in its own directory


def interpreter_named(setting: str) -> str:
    """The interpreter a job runs with, as the log names it; unchecked (`resolve_python` says
    what is wrong with it when a job starts)."""
    return setting or sys.executable


def check_llvm_build_dir(path: str) -> str:
    """A valid LLVM build directory for the simulator, or SetupError saying what is wrong."""
    if not path:
        raise SetupError(
            "LLVM_BUILD_DIR is not set: the Allo simulator loads libomp and the MLIR runner "
            "libraries from $LLVM_BUILD_DIR/lib. Set alloDataflow.llvmBuildDir (or export "
            "LLVM_BUILD_DIR before starting the editor) to the LLVM build Allo was built with."
        )
    lib = Path(path) / "lib"
    if not Path(path).is_dir():
        raise SetupError(f"LLVM_BUILD_DIR={path} is not a directory.")
    missing = [name for name in LLVM_LIBS if not (lib / name).exists()]
    if missing:
        raise SetupError(
            f"LLVM_BUILD_DIR={path} lacks {', '.join('lib/' + m for m in missing)}: "
            "point it at the LLVM build (with OpenMP and the MLIR runner utils) Allo was built with."
        )
    return path


def omp_threads(config: JobConfig, pe_count: int | None) -> int:
    """At least one OpenMP thread per PE: with fewer, PEs spinning on streams can hang the run."""
    needed = pe_count or 1
    return max(needed, config.omp_threads)


def job_environment(config: JobConfig, omp: int, llvm_build_dir: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env.update(config.extra_env)
    if llvm_build_dir:
        env["LLVM_BUILD_DIR"] = llvm_build_dir
    else:
        env.pop("LLVM_BUILD_DIR", None)  # unchecked: the runner must not take it as usable
    env["OMP_NUM_THREADS"] = str(omp)
    # The user's PYTHONPATH and nothing of ours (the runner comes from `isolation.runner_root`);
    # the job runs in its own directory, so relative entries are made absolute here.
    user_path = [os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    if user_path:
        env["PYTHONPATH"] = os.pathsep.join(user_path)
    else:
        env.pop("PYTHONPATH", None)
    env["PYTHONUNBUFFERED"] = "1"
    # No `__pycache__` in the user's directories, from the Pythons the design starts as well
    # (the runner's own `-I` ignores this variable: it has `-B`).
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("PYTHONSTARTUP", None)
    return env
