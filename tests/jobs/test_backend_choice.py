"""Which backend `auto` picks for a simulation, and why (jobs/build_probe.backend_choice), asked of
the real job interpreter as the runner will see it (issue 26 item 4)."""

import asyncio
import sys

from allo_lsp.jobs.build_probe import backend_choice
from allo_lsp.jobs.environment import JobConfig
from designs import fake_llvm_build_dir
from paths import STANDIN


def choice(monkeypatch, llvm: str = "", backend: str = "auto", trusted: bool = True, python: str = ""):
    monkeypatch.delenv("LLVM_BUILD_DIR", raising=False)
    return asyncio.run(backend_choice(JobConfig(python=python, llvm_build_dir=llvm), backend, trusted))


def test_without_an_llvm_build_the_reference_executor_runs(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(STANDIN))
    found = choice(monkeypatch)
    assert (found.backend, found.reason) == ("reference", "LLVM_BUILD_DIR is not set")
    broken = choice(monkeypatch, llvm="/nonexistent/llvm")
    assert (broken.backend, broken.reason) == ("reference", "LLVM_BUILD_DIR=/nonexistent/llvm is not a directory")


def test_with_an_llvm_build_allo_runs_where_it_imports_and_the_reference_executor_where_not(monkeypatch):
    llvm = fake_llvm_build_dir()
    monkeypatch.setenv("PYTHONPATH", str(STANDIN))  # the stand-in Allo: found as the runner finds it
    found = choice(monkeypatch, llvm)
    assert found.backend == "allo" and found.allo is not None
    assert found.allo == "?"  # the stand-in has no metadata: its version is not said
    assert found.reason == f"Allo with the LLVM build at {llvm}"
    assert found.python == sys.executable
    monkeypatch.delenv("PYTHONPATH")
    missing = choice(monkeypatch, llvm)
    assert (missing.backend, missing.reason, missing.allo) == (
        "reference",
        f"Allo does not import in {sys.executable}",
        None,
    )


def test_the_setting_and_the_workspace_trust_decide_first(monkeypatch):
    assert choice(monkeypatch, backend="reference").reason == "alloDataflow.backend is reference"
    forced = choice(monkeypatch, backend="allo")
    assert forced.backend == "allo" and forced.reason.startswith("alloDataflow.backend is allo, but jobs will fail: ")
    untrusted = choice(monkeypatch, trusted=False)
    assert (untrusted.backend, untrusted.reason) == ("", "the workspace is not trusted: no job runs")
    gone = choice(monkeypatch, llvm=fake_llvm_build_dir(), python="/nonexistent/python")
    assert gone.backend == "" and "does not exist" in gone.reason


def test_where_neither_allo_nor_numpy_imports_nothing_runs_not_the_reference_executor(monkeypatch, tmp_path):
    """The reference executor runs in the job's interpreter, on numpy: a bare venv runs nothing, and
    the answer says so (the status bar said "reference executor" there, and every job failed)."""
    import subprocess

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "bare")], check=True)
    bare = str(tmp_path / "bare" / "bin" / "python")
    monkeypatch.setenv("PYTHONPATH", "")
    for llvm, why in ((fake_llvm_build_dir(), f"Allo does not import in {bare}"), ("", "LLVM_BUILD_DIR is not set")):
        found = choice(monkeypatch, llvm, python=bare)
        assert (found.backend, found.reason) == (
            "",
            f"{why}, and numpy does not import there either: no simulation or test can run",
        )
    forced = choice(monkeypatch, backend="reference", python=bare)
    assert forced.backend == "" and forced.reason.startswith("alloDataflow.backend is reference, and numpy")
    # Where numpy imports (this interpreter), the reference executor runs.
    assert choice(monkeypatch, fake_llvm_build_dir()).backend == "reference"
