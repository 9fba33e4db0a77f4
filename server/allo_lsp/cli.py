"""Command-line entry point: `allo-lsp [serve] | check | run | report | rules`."""

from __future__ import annotations

import argparse
import os
import signal
import sys

from allo_lsp import __version__
from allo_lsp.finite_json import dumps
from allo_lsp.protocol.vocabulary import ALLO_BUILDS, BACKENDS, EMULATIONS, SCHEDULERS, VITIS_COMMANDS


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="allo-lsp", description="Editor tooling for Allo dataflow designs.")
    parser.add_argument("--version", action="version", version=f"allo-lsp {__version__}")
    sub = parser.add_subparsers(dest="command")

    serve = sub.add_parser("serve", help="run the language server (the default command)")
    serve.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP port instead, for debugging")
    serve.add_argument("--log-file", metavar="PATH", help="write the server's log to PATH")

    check = sub.add_parser("check", help="analyse files or directories and print diagnostics and signatures")
    check.add_argument("paths", nargs="+", metavar="PATH")
    check.add_argument("--format", choices=("text", "json", "sarif", "github"), default="text")
    check.add_argument(
        "--allo-build",
        choices=ALLO_BUILDS,
        default=None,
        help="the Allo build the code targets: legacy makes ADF003/ADF004 errors, fixed information "
        "(default: allo-build of [tool.allo-lsp] in pyproject.toml, else auto)",
    )
    check.add_argument("--fix", action="store_true", help="apply the safe fixes to the files")
    check.add_argument("--unsafe-fixes", action="store_true", help="with --fix or --diff: the unsafe fixes too")
    check.add_argument("--diff", action="store_true", help="print the fixes as a diff instead of writing them")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when problems are left")
    check.add_argument("--exit-non-zero-on-fix", action="store_true", help="exit 1 when a fix was applied")
    check.add_argument(
        "--omp-threads", type=int, default=0, help="OpenMP threads the design will run with (ADF051); 0: unset"
    )

    run = sub.add_parser("run", help="simulate a region, or run a function that builds one, in an isolated process")
    run.add_argument("target", metavar="FILE::TARGET", help="a module-level region (simulated) or function (run)")
    run.add_argument("--backend", choices=BACKENDS, default="auto")
    run.add_argument("--python", default="", help="the Allo environment's interpreter (default: this one)")
    run.add_argument("--llvm-build-dir", default="", help="LLVM build for the simulator (default: $LLVM_BUILD_DIR)")
    run.add_argument("--omp-threads", type=int, default=0, help="OpenMP threads (default: the design's PE count)")
    run.add_argument("--timeout", type=float, default=300.0, help="seconds before the job is killed")
    run.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    run.add_argument(
        "--emulate",
        choices=[e for e in EMULATIONS if e],
        default="",
        help="reference backend: run aie / vitis_hls csim modules functionally on the executor",
    )
    run.add_argument("--format", choices=("text", "json"), default="text")
    run.add_argument(
        "--trace",
        type=int,
        default=0,
        metavar="N",
        help="reference backend: keep the first N (up to 16) values each PE puts and gets per FIFO (in the JSON)",
    )

    report = sub.add_parser("report", help="show a Vitis HLS synthesis report (csynth.xml or a project directory)")
    report.add_argument("path", metavar="PATH", help="a csynth.xml, a csynth.rpt, or a project directory")
    report.add_argument("--format", choices=("text", "json", "md"), default="text")

    synth = sub.add_parser("synth", help="synthesize a region with Vitis HLS in an isolated process")
    synth.add_argument("target", metavar="FILE::REGION")
    synth.add_argument("--python", default="", help="the Allo environment's interpreter (default: this one)")
    synth.add_argument("--vitis-command", choices=VITIS_COMMANDS, default="vitis_hls")
    synth.add_argument("--part", default="", help="FPGA part (default: what Allo writes)")
    synth.add_argument("--clock", type=float, default=0.0, help="clock period in ns (default: what Allo writes)")
    synth.add_argument("--launcher-prefix", default="", help="e.g. 'srun -p fpga -t 4:00:00' or 'ssh build-host'")
    synth.add_argument("--timeout", type=float, default=4 * 3600.0)
    synth.add_argument("--format", choices=("text", "json"), default="text")

    sweep = sub.add_parser("sweep", help="synthesize every combination of constants and settings; one table")
    sweep.add_argument("target", metavar="FILE::REGION")
    sweep.add_argument("--set", action="append", metavar="NAME=V1,V2", help="a module-level constant, clock or part")
    sweep.add_argument("--scheduler", choices=SCHEDULERS, default="local", help="slurm: one job array")
    sweep.add_argument("--jobs", type=int, default=2, help="local: points synthesized at once")
    sweep.add_argument("--python", default="", help="the Allo environment's interpreter (default: this one)")
    sweep.add_argument("--vitis-command", choices=VITIS_COMMANDS, default="vitis_hls")
    sweep.add_argument("--part", default="", help="FPGA part (default: what Allo writes)")
    sweep.add_argument("--clock", type=float, default=0.0, help="clock period in ns (default: what Allo writes)")
    sweep.add_argument("--timeout", type=float, default=4 * 3600.0, help="seconds per point")
    sweep.add_argument("--max-points", type=int, help="refuse a sweep of more points (default 256)")
    for option in ("partition", "time", "mem"):
        sweep.add_argument(f"--{option}", default="", help=f"slurm: sbatch --{option}")
    sweep.add_argument("--cpus", type=int, default=0, help="slurm: sbatch --cpus-per-task")
    sweep.add_argument("--sbatch-args", default="", help="slurm: more sbatch options")
    sweep.add_argument("--format", choices=("text", "json", "csv"), default="text")

    rules = sub.add_parser("rules", help="list the diagnostic codes, or explain one")
    rules.add_argument("code", nargs="?")
    rules.add_argument("--format", choices=("text", "markdown"), default="text")
    rules.add_argument(
        "--write-docs", action="store_true", help="write the rules' documentation pages the package ships"
    )

    graph = sub.add_parser("graph", help="print a region's dataflow graph (kernels, PEs, streams) as JSON or dot")
    graph.add_argument("target", metavar="FILE::REGION", help="a module-level region")
    graph.add_argument(
        "--format", choices=("json", "dot", "text"), help="json (the default), dot; with --pe: text or json"
    )
    graph.add_argument("--expand", action="store_true", help="one node per PE instead of per kernel")
    graph.add_argument(
        "--pe", metavar="NAME", help="one PE (gemm_1_2): the branches it keeps, the lines it runs, its streams"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv if argv is not None else sys.argv[1:] or ["serve"])
    if args.command == "serve":
        return _serve(args)
    try:
        return _command(args, parser)
    except BrokenPipeError:
        # The reader stopped early (`allo-lsp check . | head`): no traceback, and stdout pointed
        # at /dev/null so that the interpreter's own flush at exit does not fail again. The
        # status is a shell's for a process ended by SIGPIPE.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 128 + signal.SIGPIPE


def _command(args, parser: argparse.ArgumentParser) -> int:
    if args.command == "check":
        return _check(args)
    if args.command == "rules":
        return _rules(args)
    if args.command == "run":
        return _run(args)
    if args.command == "synth":
        return _synth(args)
    if args.command == "report":
        return _report(args)
    if args.command == "graph":
        return _graph(args)
    if args.command == "sweep":
        from allo_lsp.jobs.sweep import cli

        return cli(args)
    parser.print_help()
    return 2


def _serve(args) -> int:
    import logging

    # stdout carries the protocol: logs go to stderr (the client's output channel) or a file.
    logging.basicConfig(
        filename=args.log_file,
        level=logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    from allo_lsp.lsp import create_server

    server = create_server()

    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        if not host or not port.isdigit():
            print("allo-lsp serve: --tcp takes HOST:PORT, e.g. 127.0.0.1:2087", file=sys.stderr)
            return 2
        server.start_tcp(host, int(port))
    else:
        import signal

        # SIGTERM (an editor stopping a server that did not exit) ends the server as `exit` does,
        # so that its jobs are killed with it instead of running on.
        signal.signal(signal.SIGTERM, _terminate)
        try:
            server.start_io(_ClientInput(sys.stdin.buffer), sys.stdout.buffer)
        finally:
            _remove_unfinished_dirs()
    return server.exit_status()


# Once the client has gone (end of input, SIGTERM), the server stops its jobs and exits; after
# this long it exits anyway: CPython 3.11's asyncio never finishes tearing down a subprocess that
# was being started at that moment (a job's runner, the next pre-started one).
_TEARDOWN_S = 3.0


class _ClientInput:
    """stdin, as pygls reads it, noticing the end of input (the client has gone)."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def readline(self, *args):
        return self._seen(self._stream.readline(*args))

    def read(self, *args):
        return self._seen(self._stream.read(*args))

    def _seen(self, data: bytes) -> bytes:
        if not data:
            _exit_after(_TEARDOWN_S)
        return data

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _exit_after(seconds: float) -> None:
    import os
    import threading

    def leave() -> None:
        _remove_unfinished_dirs()
        os._exit(0)

    timer = threading.Timer(seconds, leave)
    timer.daemon = True
    timer.start()


def _remove_unfinished_dirs() -> None:
    manager = sys.modules.get("allo_lsp.jobs.manager")  # not imported: no job ran
    if manager is not None:
        manager.remove_unfinished_dirs()


def _terminate(signum, frame) -> None:
    _exit_after(_TEARDOWN_S)
    raise SystemExit(128 + signum)


def _check(args) -> int:
    from allo_lsp.analysis import Options
    from allo_lsp.check import Run, run

    how = Run(args.format, args.fix, args.unsafe_fixes, args.diff, args.exit_zero, args.exit_non_zero_on_fix)
    options = Options(allo_build=args.allo_build or "auto", omp_threads=args.omp_threads)
    return run(args.paths, options, args.allo_build is not None, how)


def _run(args) -> int:
    import asyncio
    import dataclasses
    from pathlib import Path

    from allo_lsp.analysis import analyze
    from allo_lsp.jobs.environment import JobConfig, SetupError
    from allo_lsp.jobs.manager import JobManager
    from allo_lsp.jobs.service import run_target, target_of
    from allo_lsp.protocol.messages import ENVIRONMENT, ERROR, PASSED, JobResult

    file, sep, name = args.target.rpartition("::")
    if not sep or not file or not name:
        print("allo-lsp run: the target is FILE::NAME, e.g. examples/producer_consumer.py::top", file=sys.stderr)
        return 2
    try:
        text = Path(file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        print(f"allo-lsp run: {file}: {exc}", file=sys.stderr)
        return 2
    model = analyze(text).model
    config = JobConfig(
        python=args.python,
        llvm_build_dir=args.llvm_build_dir,
        omp_threads=args.omp_threads,
        timeout_s=args.timeout,
        extra_env={"ALLO_LSP_EMULATE": args.emulate} if args.emulate else {},
    )
    try:
        target = dataclasses.replace(target_of(model, file, name), trace=max(0, args.trace))
    except SetupError as exc:
        result = JobResult(ERROR, ENVIRONMENT, str(exc), target=name, backend=args.backend)
    else:
        result = asyncio.run(run_target(JobManager(), target, model, config, args.backend, args.seed))
    if args.format == "json":
        result.details.log = result.details.artifact_text = result.details.traceback = None  # bulky
        print(dumps(result.to_json(), indent=2))
    else:
        print(_run_text(result, file))
    return 0 if result.status == PASSED else 1


def _synth(args) -> int:
    import asyncio
    from pathlib import Path

    from allo_lsp.analysis import analyze
    from allo_lsp.jobs.environment import JobConfig
    from allo_lsp.jobs.launch import Target
    from allo_lsp.jobs.manager import JobManager
    from allo_lsp.jobs.synthesis import SynthConfig, synthesize
    from allo_lsp.protocol.messages import PASSED, SYNTHESIZE

    file, sep, name = args.target.rpartition("::")
    if not sep or not file or not name:
        print("allo-lsp synth: the target is FILE::REGION, e.g. examples/producer_consumer.py::top", file=sys.stderr)
        return 2
    try:
        model = analyze(Path(file).read_text(encoding="utf-8")).model
    except (OSError, UnicodeDecodeError) as exc:
        print(f"allo-lsp synth: {file}: {exc}", file=sys.stderr)
        return 2
    synth = SynthConfig(
        command=args.vitis_command,
        part=args.part,
        clock_ns=args.clock,
        launcher_prefix=args.launcher_prefix,
        timeout_s=args.timeout,
    )
    result = asyncio.run(
        synthesize(JobManager(), Target(file, name, SYNTHESIZE), model, JobConfig(python=args.python), synth)
    )
    details = result.of_kind(SYNTHESIZE).details
    if args.format == "json":
        details.log = details.report_markdown = None  # bulky
        print(dumps(result.to_json(), indent=2))
    else:
        print(_run_text(result, file))
        if details.report_markdown:
            print(details.report_markdown)
    return 0 if result.status == PASSED else 1


def _run_text(result, file: str) -> str:
    from allo_lsp.ide.fifo_run import unread, unread_words
    from allo_lsp.protocol.details import Differential, SimulateDetails

    where = f" ({result.file or file}:{result.line})" if result.line else ""
    cause = f" [{result.cause}]" if result.cause else ""
    lines = [
        f"{result.status}{cause}{where}: {result.message}",
        f"  backend {result.backend}, {result.duration_s:.2f} s, OMP_NUM_THREADS={result.omp_num_threads}",
    ]
    for out in result.outputs:
        lines.append(
            f"  {out.name}: {out.dtype}{out.shape} min {out.min} max {out.max} mean {out.mean:.4g} sha {out.checksum}"
        )
    details = result.details
    if isinstance(details, SimulateDetails):
        for left in unread(result):
            lines.append(
                f"  warning: {unread_words([left])} (line {left.line}) when the run completed "
                f"({left.puts:,} puts, {left.gets:,} gets): a put/get imbalance (Vitis C simulation: leftover data)"
            )
        for blocked in details.blocked:
            lines.append(
                f"  blocked: {blocked.pe} {blocked.op} {blocked.stream} (line {blocked.line}), "
                f"FIFO {blocked.occupancy}/{blocked.depth}"
            )
        differential = details.differential or Differential()
        for name, diff in differential.max_abs_diff.items():
            lines.append(f"  reference executor vs Allo on {name}: largest difference {diff:g}")
        if differential.error is not None:
            lines.append(f"  reference executor could not check this design: {differential.error}")
    if result.status != "passed" and details.log:
        lines.append("  --- output (last lines) ---")
        lines += ["  " + l for l in details.log.strip().splitlines()[-15:]]
    return "\n".join(lines)


def _graph(args) -> int:
    from pathlib import Path

    from allo_lsp.analysis import analyze, lsp_newlines
    from allo_lsp.ide.graph import region_graph
    from allo_lsp.ide.graph_dot import to_dot
    from allo_lsp.lsp.convert import Converter

    file, sep, name = args.target.rpartition("::")
    try:
        text = lsp_newlines(Path(file).read_text(encoding="utf-8")) if sep and file and name else None
    except (OSError, UnicodeDecodeError) as exc:
        print(f"allo-lsp graph: {file}: {exc}", file=sys.stderr)
        return 2
    if text is not None and args.pe is not None:
        return _graph_pe(args, text, name)
    graph = region_graph(analyze(text).model.regions, text, name, args.expand) if text is not None else None
    if graph is None or args.format == "text":
        if graph is not None:
            print("allo-lsp graph: --format text is for one PE (--pe NAME)", file=sys.stderr)
            return 2
        print(f"allo-lsp graph: no module-level region {args.target!r} (the target is FILE::REGION)", file=sys.stderr)
        return 2
    # The JSON is the server's `allo/regionGraph` answer, its ranges' characters in UTF-16 as there.
    if args.format == "dot":
        sys.stdout.write(to_dot(graph))
    else:
        print(dumps(Converter.utf16(text).region_graph(graph), indent=2))
    return 0


def _graph_pe(args, text: str, region: str) -> int:
    """`allo-lsp graph FILE::REGION --pe NAME`: the code as that PE runs it (ide/active_pe.py)."""
    from allo_lsp.analysis import analyze
    from allo_lsp.ide.active_pe import active_pe, listing
    from allo_lsp.lsp.convert import Converter

    regions = analyze(text).model.regions
    kernel = next((k for r in regions if r.name == region for k in r.kernels if args.pe in k.instance_names), None)
    found = active_pe(regions, text, region, kernel.name, args.pe) if kernel is not None else None
    if found is None or found.pe is None or args.format == "dot":
        why = "--pe prints text or json" if args.format == "dot" else f"no PE {args.pe!r} in region {region!r}"
        print(f"allo-lsp graph: {why}", file=sys.stderr)
        return 2
    if args.format == "json":  # the server's alloDataflow/activePe answer, its characters in UTF-16
        print(dumps(Converter.utf16(text).active_pe(found), indent=2))
    else:
        sys.stdout.write(listing(found, text, kernel))
    return 0


def _report(args) -> int:
    from allo_lsp.reports import ReportError, format_markdown, format_text, load

    try:
        report = load(args.path)
    except ReportError as exc:
        print(f"allo-lsp report: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(dumps(report.to_json(), indent=2))
    else:
        print(format_markdown(report) if args.format == "md" else format_text(report))
    return 0


def _rules(args) -> int:
    from allo_lsp.analysis.rules import BY_CODE, RULES, rules_markdown

    if args.write_docs:
        from allo_lsp import rule_docs

        for path in rule_docs.write():
            print(f"wrote {path}")
        return 0
    if args.code is None:
        if args.format == "markdown":
            print(rules_markdown())
        else:
            for r in RULES:
                print(f"{r.code}  {r.module.SEVERITY.label:<8} {r.name}: {r.summary}")
        return 0
    rule = BY_CODE.get(args.code.upper())
    if rule is None:
        print(f"allo-lsp rules: unknown code {args.code!r}", file=sys.stderr)
        return 2
    print(f"# {rule.code} {rule.name}: {rule.summary}\n\n{rule.doc}")
    return 0
