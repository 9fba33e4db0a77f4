"""A client that writes raw bytes to the real server's stdin and reads its stdout as a strict
JSON-RPC reader would (VS Code's): `Content-Length` bytes exactly, JSON without `NaN` or
`Infinity`. A frame the strict reader refuses is kept in `refused`, not taken for a message.

pytest-lsp's client cannot send a malformed frame, and Python's `json` accepts the `NaN` that
VS Code rejects, so the wire's guarantees are checked through this one.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import sys

from trusted import with_trust

SERVER = [sys.executable, "-m", "allo_lsp", "serve"]


def frame(message: dict | bytes) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


class RawServer:
    def __init__(self, process: asyncio.subprocess.Process, settings: dict) -> None:
        self.process = process
        self.settings = settings  # answered to workspace/configuration
        self.answers: dict[str, object] = {}  # method -> result, answered instead (a broken client)
        self.messages: list[dict] = []
        self.refused: list[bytes] = []  # frames a strict JSON-RPC reader rejects
        self.stderr: list[str] = []
        self._arrived = asyncio.Condition()
        self._ids = itertools.count(1)
        self._tasks = [asyncio.ensure_future(self._read()), asyncio.ensure_future(self._read_stderr())]

    @classmethod
    async def start(cls, settings: dict | None = None, env: dict | None = None) -> RawServer:
        base = dict(os.environ)
        base.pop("LLVM_BUILD_DIR", None)
        process = await asyncio.create_subprocess_exec(
            *SERVER,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**base, **(env or {})},
        )
        return cls(process, dict(settings or {}))

    # -- writing ----------------------------------------------------------------------------

    async def write(self, data: bytes) -> None:
        """Raw bytes to the server's stdin; a server that has gone (having refused what it read
        so far) is told by its exit code, not here."""
        with contextlib.suppress(ConnectionError):
            self.process.stdin.write(data)
            await self.process.stdin.drain()

    async def send(self, message: dict | bytes) -> None:
        await self.write(frame(message))

    async def notify(self, method: str, params: dict | None = None) -> None:
        await self.send({"jsonrpc": "2.0", "method": method, "params": params or {}})

    async def request(self, method: str, params: dict | None = None, timeout: float = 20) -> dict:
        msg_id = next(self._ids)
        await self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params or {}})
        return await self.response(msg_id, timeout)

    async def initialize(self, capabilities: dict | None = None) -> dict:
        """initialize + initialized, with the settings as initialization options (and, if the
        capabilities say so, as the answer to workspace/configuration)."""
        answer = await self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": None,
                "capabilities": capabilities or {},
                "initializationOptions": {"alloDataflow": with_trust("alloDataflow", self.settings)},
            },
        )
        await self.notify("initialized")
        return answer

    async def shutdown(self, timeout: float = 15) -> int:
        await self.request("shutdown", timeout=timeout)
        await self.notify("exit")
        return await self.exit_code(timeout)

    # -- reading ----------------------------------------------------------------------------

    async def wait_for(self, predicate, timeout: float = 20, since: int = 0) -> dict:
        """The first message (in arrival order, from the `since`-th on) for which `predicate` holds."""

        async def found():
            async with self._arrived:
                while True:
                    hit = next((m for m in self.messages[since:] if predicate(m)), None)
                    if hit is not None:
                        return hit
                    if self.process.stdout.at_eof():
                        raise EOFError(f"the server closed its output; stderr: {''.join(self.stderr)[-2000:]}")
                    await self._arrived.wait()

        return await asyncio.wait_for(found(), timeout)

    async def response(self, msg_id, timeout: float = 20) -> dict:
        return await self.wait_for(lambda m: m.get("id") == msg_id and "method" not in m, timeout)

    async def exit_code(self, timeout: float = 15) -> int:
        return await asyncio.wait_for(self.process.wait(), timeout)

    async def _read(self) -> None:
        stdout = self.process.stdout
        try:
            while True:
                length = None
                while (line := await stdout.readline()) not in (b"\r\n", b""):
                    name, _, value = line.decode("ascii").partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                if not line or length is None:
                    break
                body = await stdout.readexactly(length)
                try:
                    message = json.loads(body, parse_constant=_refuse_constant)
                except ValueError:
                    self.refused.append(body)
                    continue
                async with self._arrived:
                    self.messages.append(message)
                    self._arrived.notify_all()
                if "method" in message and "id" in message:  # the server asks: answer as an editor
                    await self._answer(message)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            async with self._arrived:
                self._arrived.notify_all()

    async def _answer(self, request: dict) -> None:
        result = None
        if request["method"] in self.answers:
            result = self.answers[request["method"]]
        elif request["method"] == "workspace/configuration":
            result = [with_trust(item.get("section"), self.settings) for item in request["params"]["items"]]
        with contextlib.suppress(ConnectionError):
            await self.send({"jsonrpc": "2.0", "id": request["id"], "result": result})

    async def _read_stderr(self) -> None:
        while line := await self.process.stderr.readline():
            async with self._arrived:
                self.stderr.append(line.decode("utf-8", "replace"))
                self._arrived.notify_all()

    async def logged(self, needle: str, timeout: float = 10) -> None:
        """Until the server has written `needle` on stderr."""

        async def found():
            async with self._arrived:
                await self._arrived.wait_for(lambda: needle in "".join(self.stderr) or self.process.stderr.at_eof())
            assert needle in "".join(self.stderr), "".join(self.stderr)[-2000:]

        await asyncio.wait_for(found(), timeout)

    async def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            if self.process.returncode is None:
                self.process.kill()
        await self.process.wait()
        for task in self._tasks:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(task, 2)


@contextlib.asynccontextmanager
async def raw_server(settings: dict | None = None, env: dict | None = None, initialize: bool = True):
    server = await RawServer.start(settings, env)
    try:
        if initialize:
            await server.initialize()
        yield server
    finally:
        await server.close()
