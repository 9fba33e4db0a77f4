"""A minimal LSP client over a server's stdio, for timing: raw JSON-RPC, no framework in the way.

Times are taken on the client side with `time.perf_counter()`: a message's receipt time is when
its body has been read from the pipe. Every wait has a timeout; `close()` asks the server to shut
down and kills it (and nothing else) if it does not exit.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CAPABILITIES = {
    "workspace": {
        "configuration": True,
        "didChangeConfiguration": {"dynamicRegistration": True},
        "workspaceFolders": True,
    },
    "textDocument": {
        "synchronization": {"dynamicRegistration": False, "didSave": True},
        "publishDiagnostics": {"versionSupport": True, "relatedInformation": True},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "codeLens": {},
    },
    "window": {"workDoneProgress": True},
}

# What a client that pulls diagnostics adds (LSP 3.17): `textDocument/diagnostic` and
# `workspace/diagnostic`. Without it a server pushes (`publishDiagnostics`).
PULL_CAPABILITIES = {
    "textDocument": {"diagnostic": {"dynamicRegistration": False, "relatedDocumentSupport": False}},
    "workspace": {"diagnostics": {"refreshSupport": True}},  # as VS Code; refreshes are answered null
}


def with_pull(capabilities: dict) -> dict:
    """`capabilities` with PULL_CAPABILITIES merged in (a copy)."""
    out = {key: dict(value) for key, value in capabilities.items()}
    for key, value in PULL_CAPABILITIES.items():
        out.setdefault(key, {}).update(value)
    return out


class LspError(Exception):
    pass


@dataclass
class Published:
    version: int | None
    time: float  # perf_counter at receipt
    count: int  # number of diagnostics


class LspServer:
    """One server process. `settings`: section -> value, answered to workspace/configuration."""

    def __init__(self, proc: asyncio.subprocess.Process, stderr_path: str, settings: dict[str, Any] | None) -> None:
        self.proc = proc
        self.pid = proc.pid
        self.stderr_path = stderr_path
        self.settings = settings or {}
        self._next_id = 0
        self._pending: dict[int, asyncio.Future] = {}
        self._changed = asyncio.Condition()
        self._first: dict[tuple[str, int | None], Published] = {}  # (uri, version): first publish
        self._latest: dict[str, tuple[int, Published]] = {}  # uri -> (sequence number, publish)
        self._history: dict[str, list[Published]] = {}  # uri -> every publication, in order
        self.closed = False
        self.requests_seen: list[str] = []
        self.server_capabilities: dict = {}  # from the initialize result
        self.log_messages: list[tuple[float, int, str]] = []  # window/logMessage: (receipt, type, text)
        self.progress: dict[Any, list[tuple[float, Any]]] = {}  # $/progress by token: (receipt, value)
        self._reader = asyncio.ensure_future(self._read_loop())

    @classmethod
    async def start(
        cls,
        argv: list[str],
        settings: dict[str, Any] | None = None,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
    ) -> LspServer:
        fd, stderr_path = tempfile.mkstemp(prefix="allo-lsp-bench-stderr-", suffix=".log")
        with os.fdopen(fd, "wb") as stderr:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=stderr,
                cwd=cwd,
                env=env,
                limit=64 * 1024 * 1024,
            )
        return cls(proc, stderr_path, settings)

    # -- protocol -----------------------------------------------------------------------------

    def _write(self, message: dict) -> None:
        if self.proc.stdin is None or self.proc.stdin.is_closing():
            raise LspError("the server's stdin is closed")
        body = json.dumps(message, separators=(",", ":")).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def notify(self, method: str, params: Any) -> None:
        self._write({"jsonrpc": "2.0", "method": method, "params": params})
        await self.proc.stdin.drain()

    async def request(self, method: str, params: Any, timeout: float = 30.0) -> tuple[Any, float]:
        """(result, receipt time); LspError on an error response, TimeoutError on no answer."""
        rid, future = await self.send_request(method, params)
        return await self.response(method, rid, future, timeout)

    async def send_request(self, method: str, params: Any) -> tuple[int, asyncio.Future]:
        """Send a request; its id and the future of its response (for `response`)."""
        self._next_id += 1
        rid = self._next_id
        future = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
        self._write({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        await self.proc.stdin.drain()
        return rid, future

    async def response(self, method: str, rid: int, future: asyncio.Future, timeout: float) -> tuple[Any, float]:
        try:
            message, received = await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            raise TimeoutError(f"no answer to {method} within {timeout:g} s") from None
        finally:
            self._pending.pop(rid, None)
        if "error" in message:
            raise LspError(f"{method}: {message['error'].get('message')} ({message['error'].get('code')})")
        return message.get("result"), received

    async def _read_loop(self) -> None:
        reader = self.proc.stdout
        try:
            while True:
                length = None
                while True:
                    line = await reader.readline()
                    if not line:
                        return
                    line = line.strip()
                    if not line:
                        break
                    key, _, value = line.decode("ascii", "replace").partition(":")
                    if key.strip().lower() == "content-length":
                        length = int(value.strip())
                if length is None:
                    continue
                body = await reader.readexactly(length)
                received = time.perf_counter()
                await self._dispatch(json.loads(body), received)
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            return
        finally:
            self.closed = True
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(LspError(f"the server exited ({self.stderr_tail()})"))
            async with self._changed:
                self._changed.notify_all()

    async def _dispatch(self, message: dict, received: float) -> None:
        method = message.get("method")
        if method is None:  # a response
            future = self._pending.get(message.get("id"))
            if future is not None and not future.done():
                future.set_result((message, received))
            return
        if "id" in message:  # a request from the server
            self.requests_seen.append(method)
            try:
                result = self._answer(method, message.get("params"))
                self._write({"jsonrpc": "2.0", "id": message["id"], "result": result})
                await self.proc.stdin.drain()
            except (LspError, ConnectionError):
                pass
            return
        if method == "window/logMessage":
            params = message.get("params") or {}
            self.log_messages.append((received, params.get("type", 0), params.get("message", "")))
            return
        if method == "$/progress":
            params = message.get("params") or {}
            self.progress.setdefault(params.get("token"), []).append((received, params.get("value")))
            async with self._changed:
                self._changed.notify_all()
            return
        if method == "textDocument/publishDiagnostics":
            params = message["params"]
            uri, version = params["uri"], params.get("version")
            published = Published(version, received, len(params.get("diagnostics", [])))
            self._first.setdefault((uri, version), published)
            sequence = self._latest.get(uri, (0, None))[0] + 1
            self._latest[uri] = (sequence, published)
            self._history.setdefault(uri, []).append(published)
            async with self._changed:
                self._changed.notify_all()

    def _answer(self, method: str, params: Any) -> Any:
        if method == "workspace/configuration":
            return [self.settings.get(item.get("section")) for item in (params or {}).get("items", [])]
        return None  # client/registerCapability, window/workDoneProgress/create, refreshes...

    # -- diagnostics --------------------------------------------------------------------------

    def sequence(self, uri: str) -> int:
        """How many diagnostics publications `uri` has had (to wait for the next one)."""
        return self._latest.get(uri, (0, None))[0]

    def versions_published(self, uri: str, after: int) -> list[int | None]:
        """The versions of `uri`'s publications after sequence number `after`, in order."""
        return [p.version for p in self._history.get(uri, [])[after:]]

    async def wait_diagnostics(self, uri: str, version: int | None, after: int, timeout: float) -> Published:
        """The first publication for `uri` at `version`; a server that publishes without a version
        gets its first publication after sequence number `after`."""

        def found() -> Published | None:
            if version is not None and (uri, version) in self._first:
                return self._first[(uri, version)]
            sequence, latest = self._latest.get(uri, (0, None))
            if latest is not None and latest.version is None and sequence > after:
                return latest
            return None

        async def wait() -> Published:
            async with self._changed:
                while True:
                    hit = found()
                    if hit is not None:
                        return hit
                    if self.closed:
                        raise LspError(f"the server exited before diagnostics of {uri} ({self.stderr_tail()})")
                    await self._changed.wait()

        try:
            return await asyncio.wait_for(wait(), timeout)
        except asyncio.TimeoutError:
            raise TimeoutError(f"no diagnostics for {Path(uri).name} version {version} within {timeout:g} s") from None

    # -- documents ----------------------------------------------------------------------------

    async def initialize(
        self,
        root: Path,
        initialization_options: Any = None,
        timeout: float = 60.0,
        capabilities: dict | None = None,
    ) -> float:
        params = {
            "processId": os.getpid(),
            "rootUri": root.as_uri(),
            "rootPath": str(root),
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "capabilities": capabilities if capabilities is not None else CAPABILITIES,
            "clientInfo": {"name": "allo-lsp-bench"},
        }
        if initialization_options is not None:
            params["initializationOptions"] = initialization_options
        result, received = await self.request("initialize", params, timeout)
        self.server_capabilities = (result or {}).get("capabilities") or {}
        await self.notify("initialized", {})
        return received

    def pulls(self) -> bool:
        """The server advertises `textDocument/diagnostic` (`diagnosticProvider`)."""
        return bool(self.server_capabilities.get("diagnosticProvider"))

    def pulls_workspace(self) -> bool:
        """The server advertises `workspace/diagnostic` (`diagnosticProvider.workspaceDiagnostics`)."""
        provider = self.server_capabilities.get("diagnosticProvider")
        return isinstance(provider, dict) and bool(provider.get("workspaceDiagnostics"))

    async def wait_progress(self, token: Any, done: Callable[[list[tuple[float, Any]]], bool], timeout: float) -> None:
        """Until `done(progress of token)` holds (TimeoutError after `timeout` s)."""

        async def wait() -> None:
            async with self._changed:
                while not done(self.progress.get(token, [])):
                    if self.closed:
                        raise LspError(f"the server exited ({self.stderr_tail()})")
                    await self._changed.wait()

        try:
            await asyncio.wait_for(wait(), timeout)
        except asyncio.TimeoutError:
            raise TimeoutError(f"progress of {token!r} not done within {timeout:g} s") from None

    async def open(self, uri: str, text: str, version: int = 1) -> None:
        await self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": version, "text": text}},
        )

    async def change(self, uri: str, version: int, line: int, column: int, end_column: int, text: str) -> None:
        rng = {"start": {"line": line, "character": column}, "end": {"line": line, "character": end_column}}
        await self.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": rng, "text": text}],
            },
        )

    # -- the end ------------------------------------------------------------------------------

    def stderr_tail(self, size: int = 600) -> str:
        try:
            data = Path(self.stderr_path).read_bytes()[-size:].decode("utf-8", "replace").strip()
        except OSError:
            data = ""
        return f"stderr: {data}" if data else "no stderr"

    async def close(self, timeout: float = 5.0) -> None:
        try:
            if not self.closed and self.proc.returncode is None:
                try:
                    await self.request("shutdown", None, timeout)
                    await self.notify("exit", None)
                except (LspError, TimeoutError, ConnectionError, RuntimeError):
                    pass
                try:
                    await asyncio.wait_for(self.proc.wait(), timeout)
                except asyncio.TimeoutError:
                    pass
        finally:
            if self.proc.returncode is None:
                self.proc.kill()
                try:
                    await asyncio.wait_for(self.proc.wait(), timeout)
                except asyncio.TimeoutError:
                    pass
            self._reader.cancel()
            try:
                os.unlink(self.stderr_path)
            except OSError:
                pass

    async def __aenter__(self) -> LspServer:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()


def rss_kb(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak) of a process, in kB, from /proc/<pid>/status."""
    out = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0])
    return out
