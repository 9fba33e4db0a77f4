"""The log at its default level carries what a user needs, not pygls' bookkeeping (issue 26,
item 9): a `$/cancelRequest` for a request already answered is normal (VS Code sends one for
every hover or symbol request the user moved away from), so it is no warning, neither on the
server's stderr (the client's output channel) nor as `window/logMessage`."""

import asyncio
import json

from test_lifecycle import SERVER, frame

ANSWERED = 40  # hover requests answered, then cancelled (as 187 of 335 lines of a real session were)


async def _read_until(stdout: asyncio.StreamReader, msg_id: int, seen: list[dict]) -> None:
    """Messages from the server into `seen` until the answer to `msg_id`."""
    while True:
        length = None
        while (line := await stdout.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("ascii").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        assert line and length is not None, "the server closed its output"
        message = json.loads(await stdout.readexactly(length))
        seen.append(message)
        if message.get("id") == msg_id and "method" not in message:
            return


def _request(msg_id: int, method: str, params: dict | None = None) -> bytes:
    return frame({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})


def _notify(method: str, params: dict) -> bytes:
    return frame({"jsonrpc": "2.0", "method": method, "params": params})


async def test_cancels_of_answered_requests_are_not_warnings(tmp_path):
    design = tmp_path / "design.py"
    design.write_text("import allo\n\ndef f(x):\n    return x\n")
    uri = design.as_uri()
    process = await asyncio.create_subprocess_exec(
        *SERVER, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    seen: list[dict] = []
    try:
        process.stdin.write(_request(1, "initialize", {"processId": None, "rootUri": None, "capabilities": {}}))
        await asyncio.wait_for(_read_until(process.stdout, 1, seen), 20)
        process.stdin.write(_notify("initialized", {}))
        document = {"uri": uri, "languageId": "python", "version": 1, "text": design.read_text()}
        process.stdin.write(_notify("textDocument/didOpen", {"textDocument": document}))
        where = {"textDocument": {"uri": uri}, "position": {"line": 2, "character": 4}}
        for msg_id in range(2, 2 + ANSWERED):
            process.stdin.write(_request(msg_id, "textDocument/hover", where))
            await asyncio.wait_for(_read_until(process.stdout, msg_id, seen), 20)
            process.stdin.write(_notify("$/cancelRequest", {"id": msg_id}))
        process.stdin.write(_request(1000, "shutdown"))
        await asyncio.wait_for(_read_until(process.stdout, 1000, seen), 20)
        process.stdin.write(_notify("exit", {}))
        await process.stdin.drain()
        stderr = (await asyncio.wait_for(process.stderr.read(), 20)).decode()
        assert await asyncio.wait_for(process.wait(), 10) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    answers = [m for m in seen if isinstance(m.get("id"), int) and 2 <= m["id"] < 2 + ANSWERED]
    assert len(answers) == ANSWERED and all("result" in m for m in answers)
    warnings = [m for m in seen if m.get("method") == "window/logMessage" and m["params"]["type"] <= 2]
    assert warnings == []
    assert "Cancel notification" not in stderr, stderr[:2000]
    assert "WARNING" not in stderr, stderr[:2000]
