"""Which argument order the configured Allo compiles, learnt by a probe job (our own tiny
design, `service.probe_outcome`, never the user's code) once per interpreter and environment;
and which backend a simulation or a test will run on, and why (`backend_choice`: the answer
the client's status bar shows, `allo/backend`).

"Could not tell" is remembered as an answer too: an Allo the probe cannot read (none importable,
a broken build) is probed, and logged, once, not again before every job. A change of the
settings starts afresh (the server makes a new `BuildProbe`, and a job's settings other than the
probed ones are probed again).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from dataclasses import dataclass
from typing import TYPE_CHECKING

from allo_lsp.protocol.messages import CANCELLED, JobResult
from allo_lsp.protocol.vocabulary import SECTION

if TYPE_CHECKING:  # the server makes one at start: the jobs' modules come with the first probe
    from allo_lsp.jobs.environment import JobConfig
    from allo_lsp.jobs.manager import JobManager


@dataclass
class BuildProbe:
    found: str | None = None  # "fixed" or "legacy" once the probe told; None: not known
    probed: JobConfig | None = None  # the settings probed, or being probed

    def wanted(self, config: JobConfig) -> bool:
        """Whether jobs of `config` need a probe (none ran or runs for these settings)."""
        return self.probed != config

    async def run(self, manager: JobManager, config: JobConfig) -> JobResult | None:
        """The probe's outcome (`found` then says what it learnt), or None if `config` is
        probed already (or being probed), was superseded by other settings meanwhile, or the
        probe was cancelled."""
        if not self.wanted(config):
            return None
        from allo_lsp.jobs.service import build_of, probe_outcome

        self.probed, self.found = config, None
        outcome = await probe_outcome(manager, config)
        if self.probed != config:  # a job of other settings probes those
            return None
        if outcome.status == CANCELLED:  # the user cancelled every job: it tells nothing, the next job probes
            self.probed = None
            return None
        self.found = build_of(outcome)
        return outcome

    def interpreter(self) -> str:
        """The interpreter probed, as the log names it."""
        from allo_lsp.jobs.environment import interpreter_named

        return interpreter_named(self.probed.python if self.probed else "")


BACKEND_REQUEST = "allo/backend"  # the client asks; the answer is a `BackendChoice`'s fields
_ASK_S = 15.0  # an interpreter that has not said within this long is "could not be asked"
# Whether `allo` and numpy are importable where a job runs (the reference executor runs there
# too, on numpy): the path the runner gets (isolation.BOOTSTRAP: the absolute PYTHONPATH entries,
# a plain interpreter's user site), `find_spec` alone (it imports nothing), and Allo's version
# as its metadata gives it.
_FIND_ALLO = """\
import importlib.util, json, os, sys
sys.path[:0] = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if os.path.isabs(p)]
if sys.prefix == sys.base_prefix and not os.environ.get("PYTHONNOUSERSITE"):
    import site
    if os.path.isdir(site.getusersitepackages()):
        site.addsitedir(site.getusersitepackages())
version = None
if importlib.util.find_spec("allo") is not None:
    try:
        import importlib.metadata
        version = importlib.metadata.version("allo")
    except Exception:
        version = "?"
print(json.dumps({"allo": version, "numpy": importlib.util.find_spec("numpy") is not None}))
"""


@dataclass(frozen=True)
class BackendChoice:
    """Who will run a simulation or a test with these settings, and why."""

    backend: str  # "allo", "reference", or "" when no job can run
    reason: str
    python: str = ""  # the interpreter jobs run in
    allo: str | None = None  # the Allo version it imports ("?" unknown), None if none or not asked


async def backend_choice(config: JobConfig, backend: str, trusted: bool) -> BackendChoice:
    """What `launch.prepare` and the runner's `choose_backend` will pick for a simulation with
    `config` and the `alloDataflow.backend` setting `backend`, asking the job interpreter what it
    imports (only in a trusted workspace: nothing runs in another)."""
    from allo_lsp.jobs.environment import SetupError, check_llvm_build_dir, interpreter_named, resolve_python

    python = interpreter_named(config.python)
    if not trusted:
        return BackendChoice("", "the workspace is not trusted: no job runs", python)
    try:
        llvm, no_llvm = check_llvm_build_dir(config.llvm_build_dir or os.environ.get("LLVM_BUILD_DIR", "")), None
    except SetupError as exc:
        llvm, no_llvm = None, exc
    try:
        python = resolve_python(config.python)
    except SetupError as exc:
        return BackendChoice("", str(exc), python)
    found, why = await _imports(python, config, llvm)
    if why:
        return BackendChoice("", f"{python} could not be asked what it imports ({why})", python)
    version = found["allo"]
    if backend == "reference":
        return _reference(f"{SECTION}.backend is reference", found, python)
    if no_llvm is not None:
        if backend == "allo":
            return BackendChoice("allo", f"{SECTION}.backend is allo, but jobs will fail: {no_llvm}", python, version)
        return _reference(_first_clause(str(no_llvm)), found, python)
    if backend == "allo":
        return BackendChoice("allo", f"{SECTION}.backend is allo", python, version)
    if version is None:
        return _reference(f"Allo does not import in {python}", found, python)
    named = "Allo" if version == "?" else f"Allo {version}"  # "?": its metadata does not say
    return BackendChoice("allo", f"{named} with the LLVM build at {llvm}", python, version)


def _reference(why: str, found: dict, python: str) -> BackendChoice:
    """The reference executor, for `why`, if numpy imports where it would run; else nothing runs."""
    if not found["numpy"]:
        return BackendChoice(
            "", f"{why}, and numpy does not import there either: no simulation or test can run", python
        )
    return BackendChoice("reference", why, python)


def _first_clause(message: str) -> str:
    """`LLVM_BUILD_DIR is not set` of check_llvm_build_dir's `LLVM_BUILD_DIR is not set: the ...`."""
    return message.split(": ", 1)[0].split(". ", 1)[0].rstrip(".")


async def _imports(python: str, config: JobConfig, llvm: str | None) -> tuple[dict, str]:
    """({"allo": the Allo version `python` imports or None, "numpy": whether it imports numpy};
    why it could not be asked, or "")."""
    from allo_lsp.jobs.environment import job_environment

    try:
        process = await asyncio.create_subprocess_exec(
            python,
            "-I",
            "-B",
            "-c",
            _FIND_ALLO,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=job_environment(config, 1, llvm),
            cwd="/",
            start_new_session=True,  # its own process group: killed whole if it does not answer
        )
    except OSError as exc:
        return {}, str(exc)
    try:
        out, _ = await asyncio.wait_for(process.communicate(), _ASK_S)
    except asyncio.TimeoutError:
        return {}, f"no answer within {_ASK_S:g} s"
    finally:
        if process.returncode is None:  # timed out, or the request was cancelled
            os.killpg(process.pid, signal.SIGKILL)
            await process.wait()
    try:
        answer = json.loads(out.decode(errors="replace").strip().splitlines()[-1])
        version, numpy = answer["allo"], answer["numpy"]
    except (ValueError, IndexError, KeyError, TypeError):
        return {}, f"exit status {process.returncode}"
    return {"allo": str(version) if version is not None else None, "numpy": numpy is True}, ""
