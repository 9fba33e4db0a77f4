"""Runs one `JobRequest` in this process and delivers its `JobResult`.

The job manager starts `python -I -B -u -c BOOTSTRAP RUNNER-DIR --result-fd N --watchdog-fd M
[--warm]` (jobs/isolation.py: RUNNER-DIR holds a copy of our runner/ and protocol/ alone). The
process splits into a watchdog and this runner (`watchdog.py`); the runner reads its request
from stdin (one line, then stdin is /dev/null), runs it, writes the result as the very last
thing on its result pipe and leaves with `os._exit(0)`: no `atexit`
hook or library teardown of the design runs after the result, and the job manager believes a
result only from a runner that then exited 0 in time.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import io
import os
import sys
import time
import traceback

from allo_lsp.protocol import classify
from allo_lsp.protocol.details import (
    Blocked,
    Details,
    Differential,
    FifoRun,
    FifoSizing,
    SimulateDetails,
    SynthesisDetails,
    from_json,
)
from allo_lsp.protocol.messages import (
    ALLO_ERROR,
    ASSERTION,
    DEADLOCK,
    DETAIL_LIMIT,
    ENVIRONMENT,
    ERROR,
    FAILED,
    LIBRARY_BUG,
    MESSAGE_LIMIT,
    MLIR,
    PASSED,
    PROBE,
    RUN,
    SIMULATE,
    SYNTHESIZE,
    UNSUPPORTED,
    USER_ERROR,
    JobRequest,
    JobResult,
    Output,
    bounded,
)
from allo_lsp.protocol.pipes import READY, RESULT_FD, WARM, WATCHDOG_FD, JobLine, phase_line, result_line
from allo_lsp.runner import pytest_marks
from allo_lsp.runner.watchdog import supervise


def phase(name: str) -> None:
    """A line the job manager turns into progress."""
    print(phase_line(name), file=sys.__stderr__, flush=True)


class UserFailure(Exception):
    """A problem with the request's target that the user must fix (missing function, ...)."""


USAGE = f"usage: python -I -c BOOTSTRAP {RESULT_FD} N [{WATCHDOG_FD} N] [{WARM}] < REQUEST-LINE"


def main(argv: list[str]) -> int:
    try:
        warm, result_fd, watchdog_fd = _options(argv)
    except ValueError as exc:
        print(f"allo-lsp runner: {exc}\n{USAGE}", file=sys.stderr)
        return 2
    supervise(watchdog_fd, keep=(result_fd,))
    # The runner from here on. The result goes out through a private copy of the pipe: not at
    # the number the command line names, and not inherited by the processes the design starts.
    private = os.dup(result_fd)
    os.close(result_fd)
    if watchdog_fd is not None:
        os.close(watchdog_fd)
    if warm:
        _preload()
    received = _receive()
    if received is None:
        os._exit(0)  # the server no longer needs this runner
    request, nonce = received
    deliver(private, nonce, run_job(request))
    return 0  # not reached: `deliver` leaves with os._exit


def _options(argv: list[str]) -> tuple[bool, int, int | None]:
    warm, fds = False, {}
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == WARM:
            warm = True
        elif arg in (RESULT_FD, WATCHDOG_FD) and args and args[0].isdigit():
            fds[arg] = int(args.pop(0))
        else:
            raise ValueError(f"unexpected argument {arg!r}")
    if RESULT_FD not in fds:
        raise ValueError(f"{RESULT_FD} is required")
    return warm, fds[RESULT_FD], fds.get(WATCHDOG_FD)


def _preload() -> None:
    """A pre-started runner: numpy and our modules are imported before the user clicks; Allo is
    not (its OpenMP pool must be sized by the job's OMP_NUM_THREADS, which arrives with the job,
    and the reference backend must come first on sys.path when chosen)."""
    try:
        import allo_lsp.runner.reference  # noqa: F401
        import numpy  # noqa: F401  (the import a cold start pays for)
    except ImportError:
        pass  # the job imports them again and reports what is missing
    print(READY, file=sys.__stderr__, flush=True)


def _receive() -> tuple[JobRequest, str] | None:
    """The job: one line on stdin (the request, its directory and environment, its nonce). Then stdin
    is /dev/null: nothing more of the server's comes that way."""
    line = sys.stdin.buffer.readline()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    if not line.strip():
        return None
    job = JobLine.decode(line)
    os.chdir(job.cwd)  # a pre-started runner waited in `/`
    for name, value in job.env.items():  # set before Allo loads OpenMP
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    return job.request, job.nonce


def run_job(request: JobRequest) -> JobResult:
    request.backend = choose_backend(request.backend, request.kind)
    if request.backend == "reference":
        from allo_lsp.runner.reference import SHIM_PATH

        sys.path.insert(0, SHIM_PATH)  # `import allo` in the design is the executor's own
    started = time.monotonic()
    tail = _Tail()
    sys.stdout, sys.stderr = tail.wrap(sys.stdout), tail.wrap(sys.stderr)
    try:
        with _traced(request):
            result = run(request)
    except BaseException as exc:  # noqa: BLE001 - every way a design can fail is a result
        try:
            result = failure(exc, request, tail.text())
        except Exception as inner:  # noqa: BLE001 - an exception whose str() raises, say
            result = JobResult(FAILED, USER_ERROR, f"{type(exc).__name__} (not printable: {inner!r})", request.file)
    finally:
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    result.of_kind(request.kind)
    result.backend = request.backend
    result.target = request.target
    result.duration_s = round(time.monotonic() - started, 3)
    fifos = sys.modules.get("allo_lsp.runner.reference.fifos")
    if fifos is not None and fifos.recorded() and isinstance(result.details, SimulateDetails):
        result.details.fifo_statistics = from_json(list[FifoRun], fifos.recorded())
    if fifos is not None and fifos.recorded() and result.status == PASSED:
        unread = _unread(fifos.recorded()[-1])
        if unread:
            result.message = (
                f"{result.message}; {unread} (a put/get imbalance: Vitis C simulation warns of leftover data)"
            )
    omp = os.environ.get("OMP_NUM_THREADS")
    result.omp_num_threads = int(omp) if omp and omp.isdigit() else None
    return result


def _traced(request: JobRequest):
    """The reference executor's trace of the first values per PE and FIFO, when the job asks
    (`options["trace"]`: how many, at most 16); else nothing."""
    values = request.options.get("trace")
    if request.backend != "reference" or type(values) is not int or values <= 0:
        return contextlib.nullcontext()
    from allo_lsp.runner.reference.scheduler import tracing

    return tracing(values)


def _unread(run: dict) -> str | None:
    """What the last run left unread in its FIFOs (`leftover`), said in words, or None."""
    left = [(name, s["leftover"]) for name, s in run.get("streams", {}).items() if s.get("leftover")]
    if not left:
        return None
    return "left " + ", ".join(f"{n} element{'s' if n != 1 else ''} unread in `{name}`" for name, n in left)


def deliver(fd: int, nonce: str, result: JobResult) -> None:
    """Write the result, last, and leave at once: nothing of the design runs after it."""
    result.message = bounded(result.message, MESSAGE_LIMIT)
    phase("done")
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a stream the design replaced or closed
            pass
    data = memoryview(result_line(nonce, result))
    try:
        while data:
            data = data[os.write(fd, data) :]
    except OSError:
        os._exit(4)  # the server is gone
    os._exit(0)


def choose_backend(requested: str, kind: str) -> str:
    """`auto`: the real Allo when it is importable and, to simulate, has an LLVM build (the job
    manager passes LLVM_BUILD_DIR only when it checked it); else the reference executor."""
    if requested != "auto":
        return requested
    usable = importlib.util.find_spec("allo") is not None
    if kind in (SIMULATE, RUN):
        usable = usable and bool(os.environ.get("LLVM_BUILD_DIR"))
    return "allo" if usable else "reference"


def run(request: JobRequest) -> JobResult:
    phase("loading")
    module = load(request.file, request.source)
    target = getattr(module, request.target, None)
    if target is None or not callable(target):
        raise UserFailure(f"'{request.target}' is not a module-level function of {os.path.basename(request.file)}")
    if request.kind == RUN:
        phase("running")
        return run_test(target, request)
    if request.kind == SIMULATE and request.backend == "reference":
        from allo_lsp.runner.reference import simulate

        arrays = inputs(request)
        phase("simulating")
        simulate(target, arrays)
        return JobResult(PASSED, message=f"{request.target} simulated", outputs=outputs_of(request, arrays))
    if request.backend == "reference":
        raise UserFailure(f"{request.kind} needs the Allo backend: the reference executor only simulates")
    import allo.dataflow as df

    if request.kind == SYNTHESIZE:
        # Allo writes the project (HLS C++ and run.tcl); the job manager runs Vitis HLS itself,
        # so that it can use a launcher prefix, stream the log and cancel it.
        phase("generating the HLS project")
        df.build(target, target="vitis_hls", mode="csyn", project=request.project_dir)
        return JobResult(
            PASSED, message=f"HLS project of {request.target}", details=SynthesisDetails(project=request.project_dir)
        )
    if request.kind in (MLIR, PROBE):
        phase("customizing")
        text = str(df.customize(target).module)
        path = os.path.join(request.project_dir, f"{request.target}.mlir")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        phase("reading the module")
        from allo_lsp.runner import mlir_module

        details = mlir_module.read(text)  # with the Allo that made it: the server needs no bindings
        return JobResult(PASSED, message=f"MLIR of {request.target}", artifact=path, details=details)
    if request.kind == SIMULATE:
        phase("building")
        mod = df.build(target, target="simulator")
        arrays = inputs(request)
        phase("simulating")
        mod(*arrays)
        phase("comparing with the reference executor")
        return JobResult(
            PASSED,
            message=f"{request.target} simulated",
            outputs=outputs_of(request, arrays),
            details=SimulateDetails(differential=differential(request, target, arrays)),
        )
    raise UserFailure(f"unknown job kind {request.kind!r}")


def run_test(target, request: JobRequest) -> JobResult:
    """A test function, with its pytest marks (`pytest_marks.py`); under the reference backend
    the result also says what ran emulated."""
    result = pytest_marks.run_test(target, request.target, lambda exc: failure(exc, request, ""))
    emulated = sys.modules.get("allo_lsp.runner.reference.emulate")
    if emulated is not None and emulated.describe():
        result.message = f"{result.message} ({emulated.describe()})"
        result.of_kind(RUN).details.emulated = emulated.recorded()
    return result


def outputs_of(request: JobRequest, arrays: list) -> list[Output]:
    return [summary(spec.name, a) for spec, a in zip(request.args, arrays) if spec.direction in ("out", "inout")]


def differential(request: JobRequest, region, allo_arrays: list) -> Differential:
    """The same seeded inputs through the reference executor: the largest difference per output
    (one of the two is wrong when they disagree)."""
    import numpy as np
    from allo_lsp.runner.reference import Deadlock, Unsupported, simulate

    mine = inputs(request)
    try:
        simulate(region, mine)
    except (Unsupported, Deadlock, Exception) as exc:  # noqa: BLE001 - a finding, not a failure
        return Differential(error=f"{type(exc).__name__}: {exc}")
    diffs = {}
    for spec, theirs, ours in zip(request.args, allo_arrays, mine):
        if spec.direction in ("out", "inout"):
            a, b = np.asarray(theirs, dtype=np.float64), np.asarray(ours, dtype=np.float64)
            diffs[spec.name] = float(np.max(np.abs(a - b))) if a.size else 0.0
    return Differential(max_abs_diff=diffs)


def load(path: str, source: str | None = None):
    """Import the user's file as a module (not as `__main__`, so its main block does not run).

    With `source` (the editor's unsaved text), that text runs under the file's name, so
    tracebacks, and Allo's own `inspect.getsource`, point at the lines the user sees.
    """
    directory = os.path.dirname(os.path.abspath(path))
    if directory not in sys.path:
        sys.path.insert(0, directory)
    # As `python FILE` would: a design that parses its command line at import (argparse)
    # sees its own name, not the runner's options.
    sys.argv = [path]
    spec = importlib.util.spec_from_file_location("allo_lsp_user_design", path)
    if spec is None or spec.loader is None:
        raise UserFailure(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    if source is None:
        spec.loader.exec_module(module)
    else:
        import linecache

        linecache.cache[path] = (len(source), None, source.splitlines(True), path)
        # dont_inherit: this module's `from __future__ import annotations` must not turn the
        # design's annotations into strings (Allo evaluates them).
        exec(compile(source, path, "exec", dont_inherit=True), module.__dict__)
    return module


def inputs(request: JobRequest) -> list:
    """Seeded inputs of the declared types and shapes: small values, so integer designs do not
    overflow by accident; outputs start at zero."""
    import numpy as np

    rng = np.random.default_rng(request.seed)
    arrays = []
    for spec in request.args:
        dtype = np.dtype(spec.dtype)
        if spec.direction == "out":
            arrays.append(np.zeros(spec.shape, dtype=dtype))
        elif dtype.kind == "f":
            arrays.append(rng.uniform(-1, 1, spec.shape).astype(dtype))
        elif dtype.kind == "u":
            arrays.append(rng.integers(0, 16, spec.shape).astype(dtype))
        else:
            arrays.append(rng.integers(-8, 8, spec.shape).astype(dtype))
    return arrays


def summary(name: str, array) -> Output:
    import numpy as np

    data = np.ascontiguousarray(array)
    numeric = data.size and data.dtype.kind in "iufb"
    return Output(
        name=name,
        shape=list(data.shape),
        dtype=str(data.dtype),
        min=float(data.min()) if numeric else None,
        max=float(data.max()) if numeric else None,
        mean=float(data.mean()) if numeric else None,
        checksum=hashlib.sha256(data.tobytes()).hexdigest()[:16],
    )


def failure(exc: BaseException, request: JobRequest, printed: str) -> JobResult:
    """Classify an exception that ended the job (ALLO_DATAFLOW.md sections 4 and 5) by what
    the runner knows of it: its type, where it was raised (Allo's code, the runner's own, the
    design) and its own text. What the design printed never decides the cause (a design may
    print anything): it is only the message of an Allo build error, which Allo prints before
    `sys.exit(1)`."""
    too_old = pytest_marks.python_too_old(exc)
    if too_old is not None:
        return JobResult(ERROR, ENVIRONMENT, too_old, request.file, exc.lineno)
    line = user_line(exc, request.file)
    reference = _reference_failure(exc, request, line)
    if reference is not None:
        return reference
    if isinstance(exc, UserFailure):
        return JobResult(ERROR, USER_ERROR, str(exc), request.file, None)
    where = raised_in(exc)
    text = f"{type(exc).__name__}: {exc}"
    missing = classify.missing_package(exc.name) if isinstance(exc, ModuleNotFoundError) else None
    if missing is not None and where == "design":
        # `import torch` in a design, where the environment has no torch: nothing in the design to fix.
        return JobResult(ERROR, ENVIRONMENT, missing, request.file, line)
    if isinstance(exc, ImportError) and (_is_allo(exc.name) or where in ("allo", "runner")):
        if exc.name == "allo":
            return JobResult(ERROR, ENVIRONMENT, classify.ALLO_NOT_IMPORTABLE)
        return JobResult(ERROR, ENVIRONMENT, f"the Allo environment is incomplete: {bounded(text, MESSAGE_LIMIT)}")
    if where == "allo":
        environment = classify.environment_problem(str(exc))
        if environment is not None:
            return JobResult(ERROR, ENVIRONMENT, environment)
        bug = classify.library_bug(str(exc))
        if bug is not None:
            return JobResult(ERROR, LIBRARY_BUG, f"Allo/LLVM bug, not your code: {bug}", request.file, line)
    if isinstance(exc, SystemExit):
        if where == "allo" and exc.code not in (0, None):
            # Allo prints its build errors and calls sys.exit(1).
            message = classify.allo_error_line(printed) or f"Allo exited with status {exc.code}"
            return JobResult(ERROR, ALLO_ERROR, bounded(message, MESSAGE_LIMIT), request.file, line)
        return JobResult(
            ERROR,
            USER_ERROR,
            f"sys.exit({exc.code!r}) was called before '{request.target}' finished",
            request.file,
            line,
        )
    if isinstance(exc, AssertionError):
        message = _assertion_message(exc)
        return JobResult(
            FAILED,
            ASSERTION,
            bounded(message, MESSAGE_LIMIT),
            request.file,
            line,
            details=Details(assertion=bounded(str(exc), DETAIL_LIMIT)),
        )
    return JobResult(
        FAILED, USER_ERROR, bounded(text, MESSAGE_LIMIT), request.file, line, details=Details(traceback=_traceback(exc))
    )


# numpy.testing's report: the tolerance line, then the mismatch summary and the arrays. The
# summary is what tells a user how wrong the design is; the arrays can be long, so the message
# keeps a bounded number of lines (the whole text stays in the details).
_ASSERTION_LINES = 8


def _assertion_message(exc: AssertionError) -> str:
    """`assertion failed: Not equal to tolerance ...` with numpy's mismatch lines under it
    (`Mismatched elements: 3 / 16 (18.8%)`, the largest differences, the arrays)."""
    lines = [line.rstrip() for line in str(exc).strip().splitlines() if line.strip()]
    if not lines:
        return "assertion failed: assert"
    shown = lines[:_ASSERTION_LINES] + (["..."] if len(lines) > _ASSERTION_LINES else [])
    return "assertion failed: " + "\n".join(shown)


def _is_allo(module: str | None) -> bool:
    return module is not None and (module == "allo" or module.startswith("allo."))


def raised_in(exc: BaseException) -> str:
    """Whose code raised `exc`: "allo" (the imported Allo package, or the reference executor's
    stand-in), "runner" (this package, e.g. its own `import allo.dataflow`) or "design"."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "design"
    innermost = os.path.realpath(frames[-1].filename)
    runner = os.path.dirname(os.path.realpath(__file__))
    for root in _allo_roots():
        if innermost.startswith(root + os.sep):
            return "allo"
    if innermost.startswith(runner + os.sep):
        return "runner"
    return "design"


def _allo_roots() -> list[str]:
    """Where the `allo` package that imports here lives (found without importing it)."""
    try:
        spec = importlib.util.find_spec("allo")
    except (ImportError, ValueError):
        return []
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    return [os.path.realpath(p) for p in locations]


def _reference_failure(exc: BaseException, request: JobRequest, line: int | None) -> JobResult | None:
    """A deadlock or an unsupported construct, from the reference executor."""
    if "allo_lsp.runner.reference" not in sys.modules:
        return None
    from allo_lsp.runner.reference import Deadlock, Unsupported

    if isinstance(exc, Deadlock):
        blocked = [from_json(Blocked, vars(b)) for b in exc.blocked]
        first = next((b.line for b in blocked if b.line), line)
        details = SimulateDetails(blocked=blocked, fifo_sizing=from_json(FifoSizing, exc.sizing))
        return JobResult(FAILED, DEADLOCK, str(exc), request.file, first, details=details)
    if isinstance(exc, Unsupported):
        return JobResult(ERROR, UNSUPPORTED, str(exc), request.file, exc.line or line)
    if _executor_crash(exc):
        # The executor's own failure, not the design's: never blamed on the user's line.
        at = f" at line {line}" if line else ""
        construct = _source_line(request.file, line)
        what = f" on `{construct}`" if construct else ""
        message = (
            f"the reference executor failed{what}{at} ({type(exc).__name__}: {exc}): a construct it does not "
            "run; use the Allo backend (its traceback is in the details)"
        )
        return JobResult(
            ERROR,
            UNSUPPORTED,
            bounded(message, MESSAGE_LIMIT),
            request.file,
            line,
            details=Details(traceback=_traceback(exc)),
        )
    return None


_EXECUTOR = os.path.join(os.path.dirname(os.path.realpath(__file__)), "reference")
# What the executor raises on purpose for the design's own faults (an index outside the buffer,
# a wrong argument, a value no integer holds, a division by zero): the user's error, at their line.
_DELIBERATE = (IndexError, ValueError, ZeroDivisionError, AssertionError)


def _executor_crash(exc: BaseException) -> bool:
    """Did the executor (or its `allo` stand-in) fail inside its own code? An exception whose
    innermost frame is there and is not one of its deliberate refusals."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames or isinstance(exc, (SystemExit, KeyboardInterrupt, _DELIBERATE)):
        return False
    innermost = os.path.realpath(frames[-1].filename)
    if not innermost.startswith(_EXECUTOR + os.sep):
        return False
    statement = (frames[-1].line or "").lstrip()
    return not statement.startswith("raise ")


def _source_line(path: str, line: int | None) -> str | None:
    if not line:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            for number, text in enumerate(f, 1):
                if number == line:
                    return bounded(text.strip(), 200) or None
    except OSError:
        return None
    return None


def user_line(exc: BaseException, path: str) -> int | None:
    """The innermost line of the user's file in the traceback."""
    target = os.path.realpath(path)
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if os.path.realpath(frame.filename) == target:
            line = frame.lineno
    return line


def _traceback(exc: BaseException) -> str:
    return bounded("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)), DETAIL_LIMIT)


class _Tail:
    """Tees what Python code prints, keeping the last part: Allo prints its errors before
    exiting, and the message is what the user needs."""

    LIMIT = 64 * 1024

    def __init__(self) -> None:
        self._buffer = io.StringIO()

    def wrap(self, stream):
        tail = self

        class Tee:
            """Looks like the stream it wraps (`buffer`, `encoding`, `isatty`...) but records
            what is written through it."""

            def write(self, s: str) -> int:
                tail._buffer.write(s)
                if tail._buffer.tell() > 2 * tail.LIMIT:
                    kept = tail._buffer.getvalue()[-tail.LIMIT :]
                    tail._buffer = io.StringIO()
                    tail._buffer.write(kept)
                return stream.write(s)

            def __getattr__(self, name: str):
                return getattr(stream, name)

        return Tee()

    def text(self) -> str:
        return self._buffer.getvalue()[-self.LIMIT :]
