"""The end of a session, as the LSP specification says: `exit` ends the server with status 0 after
a `shutdown`, 1 without one. A real server process, its stdin written frame by frame."""

import asyncio
import json
import sys

import pytest

SERVER = [sys.executable, "-m", "allo_lsp", "serve"]


def frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


async def _response(stdout: asyncio.StreamReader, msg_id: int) -> dict:
    """Messages from the server until the answer to `msg_id`."""
    while True:
        length = None
        while (line := await stdout.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("ascii").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        assert line and length is not None, "the server closed its output"
        message = json.loads(await stdout.readexactly(length))
        if message.get("id") == msg_id and "method" not in message:
            return message


@pytest.mark.parametrize(("shut_down_first", "status"), [(True, 0), (False, 1)])
async def test_exit_ends_the_server_with_status_1_unless_shut_down_first(shut_down_first, status):
    """pygls raised SystemExit(1) for an `exit` without `shutdown` and its stdio loop swallowed
    it: the server exited 0 either way."""
    process = await asyncio.create_subprocess_exec(
        *SERVER, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL
    )
    try:
        process.stdin.write(
            frame(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {"processId": None, "rootUri": None, "capabilities": {}},
                }
            )
        )
        await asyncio.wait_for(_response(process.stdout, 1), 20)
        process.stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        if shut_down_first:
            process.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
            await asyncio.wait_for(_response(process.stdout, 2), 20)
        process.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
        await process.stdin.drain()
        # stdin stays open: the server ends because of `exit`, not because its input ended.
        assert await asyncio.wait_for(process.wait(), 10) == status
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
