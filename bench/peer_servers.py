"""The peer language servers of bench/peers.py: which they are, where they are installed
(`.bench-venv/`, on demand), the client that drives them, the check that each really reports a
planted error, and how a session (or a cold start) of one begins.

Every peer runs with its defaults: nothing is sent as `initializationOptions`, and each
`workspace/configuration` request is answered null (as a client without settings does). None
needs a setting to report diagnostics of an open file: basedpyright's `diagnosticMode` defaults
to `openFilesOnly`, ty and pyrefly check open files without a workspace setting. `NOTES` says what
each does by default that bears on the figures.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import common
from common import NOT_ADVERTISED
from lsp_client import CAPABILITIES, LspError, LspServer, with_pull

OURS = "allo-lsp"


@dataclass(frozen=True)
class Peer:
    name: str  # as the results name it
    packages: tuple[str, ...]  # on PyPI; the first is the one whose version is reported
    argv: tuple[str, ...]  # argv[0]: a script in .bench-venv/bin/
    notes: str  # its defaults, as they bear on the figures
    debounce_ms: int | None = None  # its diagnostics delay after a change, as shipped


PEERS = (
    Peer("ruff", ("ruff",), ("ruff", "server"), "its default rules (pyflakes' F and pycodestyle's E4, E7, E9)"),
    Peer("ty", ("ty",), ("ty", "server"), "checks open files; asks `ty` configuration (answered null)"),
    Peer("pyrefly", ("pyrefly",), ("pyrefly", "lsp"), "push only; asks `python` configuration (answered null)"),
    Peer(
        "basedpyright",
        ("basedpyright",),
        ("basedpyright-langserver", "--stdio"),
        "diagnosticMode openFilesOnly, typeCheckingMode recommended (its defaults); node from its wheel",
    ),
    Peer("pylsp", ("python-lsp-server", "pyflakes"), ("pylsp",), "pyflakes on; lints 500 ms after a change", 500),
    Peer(
        "jedi-language-server",
        ("jedi-language-server",),
        ("jedi-language-server",),
        "reports syntax errors only, 1 s after a change",
        1000,
    ),
)
PYFLAKES = "pyflakes"  # the batch comparison's command, installed with pylsp


def script(name: str) -> Path:
    return common.BENCH_VENV / "bin" / name


def locate(install: bool) -> tuple[dict[str, list[str] | str], str | None]:
    """name -> argv, or why the peer is unavailable; and the path of pyflakes (None: missing).
    With `install`, what is missing is pip-installed into .bench-venv/ first."""
    missing = [p for p in PEERS if not script(p.argv[0]).exists()]
    failed: dict[str, str | None] = {}
    if install and missing:
        failed = common.install_into_bench_venv(package for p in missing for package in p.packages)
    found: dict[str, list[str] | str] = {}
    for p in PEERS:
        if script(p.argv[0]).exists():
            found[p.name] = [str(script(p.argv[0])), *p.argv[1:]]
        elif any(failed.get(package) for package in p.packages):
            found[p.name] = "; ".join(f"{k}: {failed[k]}" for k in p.packages if failed.get(k))
        else:
            hint = "" if install else " (run without --quick/--no-install to install it)"
            found[p.name] = f"{p.argv[0]} not in {common.BENCH_VENV.name}/{hint}"
    flakes = script(PYFLAKES)
    return found, str(flakes) if flakes.exists() else None


def versions() -> dict[str, str | None]:
    """package -> version installed in .bench-venv/ (None: not installed)."""
    packages = [package for p in PEERS for package in p.packages]
    python = script("python")
    if not python.exists():
        return dict.fromkeys(packages)
    code = (
        "import importlib.metadata as m, json, sys\n"
        "def v(p):\n    try: return m.version(p)\n    except m.PackageNotFoundError: return None\n"
        "print(json.dumps({p: v(p) for p in sys.argv[1:]}))"
    )
    try:
        done = subprocess.run([str(python), "-c", code, *packages], capture_output=True, text=True, timeout=60)
        return json.loads(done.stdout)
    except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError):
        return dict.fromkeys(packages)


# -- the client ------------------------------------------------------------------------------------

# A client that pulls, as VS Code announces it: with dynamic registration, which ty and
# basedpyright wait for before they offer `textDocument/diagnostic` (they register it after
# `initialized` instead of announcing `diagnosticProvider`).
PULL_CAPABILITIES = with_pull(CAPABILITIES)
PULL_CAPABILITIES["textDocument"]["diagnostic"] = {"dynamicRegistration": True, "relatedDocumentSupport": False}
REGISTRATION_WAIT_S = 5.0


class PeerClient(LspServer):
    """LspServer that also keeps each document's latest diagnostics (to check their content),
    sees dynamic registrations of `textDocument/diagnostic`, and waits for the server to idle."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.registered_pull = False
        self.diagnostics: dict[tuple[str, int | None], list[dict]] = {}  # (uri, version) -> its first publication's
        self.latest: dict[str, list[dict]] = {}  # uri -> the diagnostics of its latest publication
        self.unversioned: dict[str, int] = {}  # uri -> its publications without a version

    def _answer(self, method: str, params: Any) -> Any:
        if method == "client/registerCapability":
            methods = {r.get("method") for r in (params or {}).get("registrations", [])}
            self.registered_pull |= "textDocument/diagnostic" in methods
        return super()._answer(method, params)

    async def _dispatch(self, message: dict, received: float) -> None:
        if message.get("method") == "textDocument/publishDiagnostics":
            params = message.get("params") or {}
            diagnostics = params.get("diagnostics") or []
            self.diagnostics.setdefault((params.get("uri"), params.get("version")), diagnostics)
            self.latest[params.get("uri")] = diagnostics
            if params.get("version") is None:  # as a server clears a closed document's, say
                self.unversioned[params.get("uri")] = self.unversioned.get(params.get("uri"), 0) + 1
        await super()._dispatch(message, received)

    def pulls(self) -> bool:
        return super().pulls() or self.registered_pull

    async def wait_for_pull(self) -> bool:
        """Whether the server offers pull diagnostics, statically or by registering them soon."""
        deadline = time.perf_counter() + REGISTRATION_WAIT_S
        while not self.pulls() and not self.closed and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)
        return self.pulls()

    async def quiet(self, window_s: float = 0.05, cap_s: float = 3.0) -> bool:
        """Wait until the server's processes (a wrapper's node included) use at most one clock tick
        of CPU in `window_s`, for at most `cap_s`: a server's trailing work after its answer
        (a second publication, indexing) then does not land in the next server's timing.
        False when it never idled (or /proc is not there to tell)."""
        pids = _process_tree(self.pid)
        if not pids:
            return False
        deadline = time.perf_counter() + cap_s
        last = _cpu_ticks(pids)
        while time.perf_counter() < deadline:
            await asyncio.sleep(window_s)
            now = _cpu_ticks(pids)
            if now - last <= 1:
                return True
            last = now
        return False


def _stat(pid: int) -> list[str] | None:
    """/proc/PID/stat's fields after the command name (state, ppid, ..., utime, stime, ...)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rpartition(")")[2].split()
    except OSError:
        return None


def _process_tree(root: int) -> list[int]:
    parents: dict[int, int] = {}
    for entry in os.scandir("/proc") if os.path.isdir("/proc") else ():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))):
            parents[int(entry.name)] = int(fields[1])
    if root not in parents:
        return []
    tree, grew = {root}, True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in tree and pid not in tree:
                tree.add(pid)
                grew = True
    return sorted(tree)


def _cpu_ticks(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        fields = _stat(pid)
        if fields:
            total += int(fields[11]) + int(fields[12])  # utime + stime
    return total


# -- the planted error -----------------------------------------------------------------------------

PLANTED_FILE = "planted.py"
CLEAN = "def planted():\n    return 1\n"
UNDEFINED = "undefined_name_planted"
# (what is planted, line 1 as it becomes): an undefined name, then (for servers that report
# syntax only, as jedi-language-server and allo-lsp on plain Python) a syntax error.
PLANTS = (("undefined name", f"    return {UNDEFINED} + 1"), ("syntax error", "    return (1 +"))
NO_DIAGNOSTICS = "no diagnostics for the planted error"


async def check_planted(server: PeerClient, ws: common.Workspace, pull: bool, timeout: float = 60.0) -> dict:
    """Open a clean file, then plant an error into it by `didChange` (the path the edits time) and
    read the diagnostics of that version, pushed or pulled: {"planted": what it reported} or
    {"skipped": NO_DIAGNOSTICS, "why": ...}. A diagnostic counts when it is new on the planted
    lines and, for the undefined name, names it."""
    _, uri = ws.write(PLANTED_FILE, CLEAN)
    line = CLEAN.splitlines()[1]
    try:
        after = server.sequence(uri)
        await server.open(uri, CLEAN)
        clean = await _diagnostics(server, uri, 1, after, pull, timeout)
        before = {(d["range"]["start"]["line"], d.get("message")) for d in clean}
        for version, (what, planted) in enumerate(PLANTS, start=2):
            after = server.sequence(uri)
            await server.change(uri, version, 1, 0, len(line), planted)
            line = planted
            found = [
                d
                for d in await _diagnostics(server, uri, version, after, pull, timeout)
                if d["range"]["start"]["line"] in (1, 2)
                and (d["range"]["start"]["line"], d.get("message")) not in before
                and (what != "undefined name" or UNDEFINED in d.get("message", ""))
            ]
            if found:
                return {"planted": what, "message": found[0].get("message", "")[:120]}
        return {"skipped": NO_DIAGNOSTICS, "why": "none of its diagnostics is on the planted line"}
    except (TimeoutError, LspError) as exc:
        return {"skipped": NO_DIAGNOSTICS, "why": f"{type(exc).__name__}: {exc}"}
    finally:
        if not server.closed:
            await server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


async def _diagnostics(
    server: PeerClient, uri: str, version: int, after: int, pull: bool, timeout: float
) -> list[dict]:
    """The diagnostics of `version`: pulled, or its publication (a server that publishes without
    versions: the first publication after sequence number `after`)."""
    if pull:
        report, _ = await common.pull_diagnostics(server, uri, None, timeout)
        return report.get("items") or []
    published = await server.wait_diagnostics(uri, version, after, timeout)
    if published.version is None:
        return server.latest.get(uri, [])
    return server.diagnostics.get((uri, published.version), [])


# -- a session -----------------------------------------------------------------------------------


async def start_session(argv: list[str], ws: common.Workspace, uri: str, text: str, pull: bool):
    """A started server with the file open and its first diagnostics in, and its planted-error
    check; or what stands in for its figures (unavailable, not advertised, skipped, error)."""
    try:
        server = await PeerClient.start(argv, cwd=str(ws.root))
    except OSError as exc:
        return None, {"unavailable": f"does not start: {exc}"}
    try:
        try:
            await server.initialize(ws.root, capabilities=PULL_CAPABILITIES if pull else CAPABILITIES)
        except Exception as exc:  # noqa: BLE001
            return None, {"unavailable": f"no answer to initialize: {type(exc).__name__}: {exc}"}
        if pull and not await server.wait_for_pull():
            return None, NOT_ADVERTISED
        check = await check_planted(server, ws, pull)
        if "skipped" in check:
            return None, check
        after = server.sequence(uri)
        await server.open(uri, text)
        if pull:
            await common.pull_diagnostics(server, uri, None, 300)
        else:
            await server.wait_diagnostics(uri, 1, after, 300)
        await server.quiet(cap_s=10)
        opened, server = server, None
        return opened, check
    except Exception as exc:  # noqa: BLE001 - one server failing does not end the comparison
        return None, {"error": f"{type(exc).__name__}: {exc}"}
    finally:
        if server is not None:
            await server.close()


async def spawn_to_first_diagnostics(argv: list[str], ws: common.Workspace, uri: str, text: str) -> float:
    """Seconds from spawning the server to its first publication for `uri`, opened at once after
    `initialize` and `initialized` (a client that does not pull)."""
    t0 = time.perf_counter()
    server = await PeerClient.start(argv, cwd=str(ws.root))
    try:
        await server.initialize(ws.root)
        await server.open(uri, text)
        return (await server.wait_diagnostics(uri, 1, 0, 120)).time - t0
    finally:
        await server.close()
