"""Shared by the benchmark scripts: paths, server commands, the peer environment, statistics, the
edit workload, and the output (a human summary, or one JSON object with `--json`)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
BENCH_VENV = ROOT / ".bench-venv"  # the peer servers' environment, created on demand (not committed)
PEER_PACKAGES = ("python-lsp-server", "pyflakes", "jedi-language-server")
PEER_TOOLS = ("pylsp", "jedi-language-server", "pyflakes")
OUR_DEFAULT_DEBOUNCE_MS = 200  # allo_lsp.settings.Settings.debounce_ms
SECTION = "alloDataflow"
NOT_ADVERTISED = "not advertised"  # a figure of a capability the server does not announce

if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))


def our_server() -> list[str]:
    """`allo-lsp serve` in this interpreter (run the benchmarks with the project's .venv/bin/python)."""
    return [sys.executable, "-m", "allo_lsp", "serve"]


def our_debounce_ms() -> int:
    """The server's default `debounceMs`, as this checkout has it."""
    import importlib

    for module in ("allo_lsp.settings", "allo_lsp.lsp.settings"):  # where it is now, where it was
        try:
            return importlib.import_module(module).Settings().debounce_ms
        except (ImportError, AttributeError):
            continue
    return OUR_DEFAULT_DEBOUNCE_MS


def probed_server(events: Path) -> list[str]:
    """`allo-lsp serve` that also writes when each analysis starts and ends to `events`
    (bench/analysis_probe.py): how many ran at once is then read, not assumed."""
    return [sys.executable, str(BENCH / "analysis_probe.py"), str(events)]


def our_cli() -> list[str]:
    """The `allo-lsp` command as a user types it: the console script next to this interpreter."""
    script = Path(sys.executable).parent / "allo-lsp"
    return [str(script)] if script.exists() else [sys.executable, "-m", "allo_lsp"]


def require_allo_lsp() -> None:
    import importlib.util

    if importlib.util.find_spec("allo_lsp") is None:
        sys.exit("allo_lsp is not importable here: run the benchmarks with the project's .venv/bin/python")


# -- statistics -------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def stats_ms(seconds: list[float]) -> dict[str, Any]:
    """p50, p95, min, max, mean of durations given in seconds, in milliseconds."""
    if not seconds:
        return {"n": 0}
    ms = [s * 1000 for s in seconds]
    return {
        "n": len(ms),
        "p50_ms": round(percentile(ms, 50), 3),
        "p95_ms": round(percentile(ms, 95), 3),
        "min_ms": round(min(ms), 3),
        "max_ms": round(max(ms), 3),
        "mean_ms": round(sum(ms) / len(ms), 3),
    }


def ratio(a: float | None, b: float | None, digits: int = 3) -> float | None:
    if a is None or b is None or b == 0 or a != a or b != b:
        return None
    return round(a / b, digits)


def machine() -> dict[str, Any]:
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = None
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "loadavg": load,
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


# -- workspace ----------------------------------------------------------------------------------


class Workspace:
    """A temporary directory holding the generated files; removed at the end."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="allo-lsp-bench-"))

    def write(self, name: str, text: str) -> tuple[Path, str]:
        path = self.root / name
        path.write_text(text, encoding="utf-8")
        return path, path.as_uri()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


# -- the peers' environment -----------------------------------------------------------------------


def peer_tools(install: bool) -> tuple[dict[str, str | None], str | None]:
    """Paths of pylsp, jedi-language-server and pyflakes in .bench-venv/ (None: unavailable), and
    why some are missing. With `install`, a missing environment is created first."""
    bindir = BENCH_VENV / "bin"
    error = None
    if install and not all((bindir / t).exists() for t in PEER_TOOLS):
        error = _install_peers()
    found = {t: (str(bindir / t) if (bindir / t).exists() else None) for t in PEER_TOOLS}
    if error is None and not all(found.values()):
        missing = ", ".join(t for t, p in found.items() if p is None)
        error = f"{missing} not in {BENCH_VENV.name}/ (run without --quick/--no-install to create it)"
    return found, error


def _install_peers() -> str | None:
    failed = {p: why for p, why in install_into_bench_venv(PEER_PACKAGES).items() if why}
    return "; ".join(f"{p}: {why}" for p, why in failed.items()) or None


def install_into_bench_venv(packages) -> dict[str, str | None]:
    """Create .bench-venv/ if it is missing, then pip-install each package on its own, so one that
    fails (no wheel for this platform, say) keeps none of the others out: package -> None when
    installed, else why not."""
    python = shutil.which("python3") or sys.executable
    packages = list(packages)
    print(f"bench: installing {', '.join(packages)} into {BENCH_VENV.name}/ ...", file=sys.stderr, flush=True)
    if not (BENCH_VENV / "bin" / "pip").exists():
        error = _step([python, "-m", "venv", str(BENCH_VENV)])
        if error:
            return dict.fromkeys(packages, error)
    pip = [str(BENCH_VENV / "bin" / "pip"), "install", "--disable-pip-version-check", "-q"]
    return {package: _step([*pip, package]) for package in packages}


def _step(argv: list[str]) -> str | None:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"could not run {' '.join(argv[:3])}: {exc}"
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        return f"{' '.join(argv[:3])} failed: {' / '.join(tail)}"
    return None


# -- the edit workload ----------------------------------------------------------------------------


@dataclass
class EditSeries:
    latencies: list[float] = field(default_factory=list)  # seconds, didChange -> publishDiagnostics
    warmup: int = 0
    requested: int = 0
    truncated: bool = False  # stopped by the time budget
    error: str | None = None
    nonempty: int = 0  # publications that carried diagnostics (the generated text has none)
    version: int = 1  # the document's version at the end
    pull: bool = False  # timed to the answer of `textDocument/diagnostic` instead of a publication
    # Pull answers "unchanged": the server's diagnostics were those of its previous answer (an
    # edit that changes no diagnostic may answer so, when the resultId follows the diagnostics).
    unchanged: int = 0

    def summary(self) -> dict[str, Any]:
        out = {
            "edits": len(self.latencies),
            "requested": self.requested,
            "warmup": self.warmup,
            "truncated_by_budget": self.truncated,
            "nonempty_publications": self.nonempty,
        }
        out.update(stats_ms(self.latencies))
        if self.pull:
            out["unchanged_answers"] = self.unchanged
        if self.error:
            out["error"] = self.error
        return out


def offset_of(text: str, line: int, column: int) -> int:
    start = 0
    for _ in range(line):
        start = text.index("\n", start) + 1
    return start + column


async def edit_series(
    server,
    uri: str,
    text: str,
    site: tuple[int, int],
    count: int,
    *,
    version: int,
    warmup: int = 0,
    budget_s: float | None = None,
    timeout_s: float = 120.0,
    idle: Callable[[int, str], None] | None = None,
    min_edits: int = 5,
    on_edit: Callable[[int], None] | None = None,
    pull: bool = False,
) -> EditSeries:
    """One-character edits at `site` (line, column), alternately inserting "1" after the literal
    there and deleting it, so the text stays valid; each waits for the server's diagnostics of
    its version: the publication (push), or with `pull` the answer to `textDocument/diagnostic`
    sent right after the edit (with the previous answer's resultId). `idle(i, text)` runs after
    each measured edit, while the server has nothing to do (for baselines measured in the same
    run); `on_edit(n)` after every edit."""
    line, column = site
    offset = offset_of(text, line, column)
    texts = (text, text[:offset] + "1" + text[offset:])
    series = EditSeries(warmup=warmup, requested=count, version=version, pull=pull)
    result_id = None
    inserted = False
    started = time.perf_counter()
    for i in range(warmup + count):
        measured = i - warmup
        if budget_s is not None and measured >= min(min_edits, count) and time.perf_counter() - started > budget_s:
            series.truncated = True
            break
        series.version += 1
        after = server.sequence(uri)
        t0 = time.perf_counter()
        if inserted:
            await server.change(uri, series.version, line, column, column + 1, "")
        else:
            await server.change(uri, series.version, line, column, column, "1")
        inserted = not inserted
        try:
            if pull:
                report, received = await pull_diagnostics(server, uri, result_id, timeout_s)
                result_id = report.get("resultId")
                unchanged, count_now = report.get("kind") == "unchanged", len(report.get("items") or [])
            else:
                published = await server.wait_diagnostics(uri, series.version, after, timeout_s)
                received, unchanged, count_now = published.time, False, published.count
        except Exception as exc:  # noqa: BLE001 - a timeout or a dead server ends the series
            series.error = f"edit {i}: {exc}"
            break
        if measured >= 0:
            series.latencies.append(received - t0)
            series.nonempty += count_now > 0
            series.unchanged += unchanged
            if idle is not None:
                idle(measured, texts[inserted])
        if on_edit is not None:
            on_edit(i + 1)
    return series


async def pull_diagnostics(server, uri: str, previous: str | None, timeout_s: float) -> tuple[dict, float]:
    """`textDocument/diagnostic` for `uri`: (the report, its receipt time)."""
    params: dict[str, Any] = {"textDocument": {"uri": uri}}
    if previous is not None:
        params["previousResultId"] = previous
    report, received = await server.request("textDocument/diagnostic", params, timeout_s)
    return report or {}, received


def current_text(text: str, site: tuple[int, int], series: EditSeries) -> str:
    """The document's text after the series (an odd number of edits leaves the digit in)."""
    if (series.version - 1) % 2 == 0:
        return text
    offset = offset_of(text, *site)
    return text[:offset] + "1" + text[offset:]


# -- output ---------------------------------------------------------------------------------------


def parser(doc: str | None) -> argparse.ArgumentParser:
    first = (doc or "").strip().split("\n")[0]
    p = argparse.ArgumentParser(
        description=first,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join((doc or "").strip().split("\n")[1:]),
    )
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a summary")
    p.add_argument("--quick", action="store_true", help="small sizes and counts (for tests); never installs anything")
    return p


def sizes(text: str) -> tuple[int, ...]:
    """`--sizes 500,2000`, as argparse reads it."""
    return tuple(int(s) for s in text.split(","))


def config(args, full: dict, quick: dict) -> dict:
    """The script's FULL or QUICK settings, with what the command line gave in their place (an
    option named like a setting, left at None when not given)."""
    cfg = dict(quick if args.quick else full)
    cfg.update({k: getattr(args, k) for k in cfg if getattr(args, k, None) is not None})
    return cfg


def run(name: str, measure, summarize: Callable[[dict], str], args) -> int:
    """Run `measure()` (a coroutine function), print its result, exit 1 if it failed."""
    require_allo_lsp()
    started = time.perf_counter()
    try:
        result = asyncio.run(measure())
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # noqa: BLE001 - reported, not a traceback in the middle of a run
        result = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(limit=8)}
    result = {
        "benchmark": name,
        "quick": bool(args.quick),
        **result,
        "wall_s": round(time.perf_counter() - started, 1),
        "machine": machine(),
    }
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(
            summarize(result)
            if "error" not in result
            else f"{name}: FAILED: {result['error']}\n{result.get('traceback', '')}"
        )
    return 1 if "error" in result else 0


def fmt_ms(value: float | None) -> str:
    if value is None or value != value:
        return "—"
    return f"{value:.1f} ms" if value >= 10 else f"{value:.2f} ms"


def fmt_x(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}x"


def goal(ok: bool | None) -> str:
    return {True: "goal met", False: "goal NOT met", None: "goal: n/a"}[ok]
