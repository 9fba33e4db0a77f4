"""The wire as an attacker (or a broken client) uses it: bad frames, bad messages, NaN in answers,
a second `initialize`, requests on files never opened, edits outside the text.

Raw bytes go to the real server's stdin (`raw_client.py`, which reads answers as strictly as
VS Code does); the rest through pytest-lsp (`lsp_session.py`).
"""

import json
import os
import time

import lsp_session
import pytest
from designs import NAN_DESIGN
from lsprotocol import types as lsp
from paths import EXAMPLES
from raw_client import RawServer, raw_server

BASE = (EXAMPLES / "producer_consumer.py").read_text()
MAX_FRAME_BYTES = 64 * 2**20  # README, "Reliability": the frame bound
PING = {"jsonrpc": "2.0", "id": "ping", "method": "allo/ping", "params": None}  # unknown: -32601


async def assert_alive(server) -> None:
    """The server still reads frames: a request after the bad one is answered."""
    await server.send(PING)
    answer = await server.response("ping", timeout=10)
    assert answer["error"]["code"] == -32601


# -- frames whose framing is lost: the server logs why and exits 1, at once -------------------

LOST = {
    "negative Content-Length": b"Content-Length: -1\r\n\r\n{}",
    "no Content-Length": b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}",
    "non-decimal Content-Length": b"Content-Length: abc\r\n\r\n{}",
    "fractional Content-Length": b"Content-Length: 1.5\r\n\r\n{}",
    "signed Content-Length": b"Content-Length: +2\r\n\r\n{}",
    "hexadecimal Content-Length": b"Content-Length: 0x2\r\n\r\n{}",
    "empty Content-Length": b"Content-Length: \r\n\r\n{}",
    "two different Content-Lengths": b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
    "a header without a colon": b"Content-Length 2\r\n\r\n{}",
    "a body without a header": json.dumps(PING).encode() + b"\r\n\r\n",
    "a header line of 1 MB": b"X-Padding: " + b"a" * 2**20 + b"\r\n",
    "40 header lines": b"X-A: b\r\n" * 40 + b"Content-Length: 2\r\n\r\n{}",
    "Content-Length 10^12": b"Content-Length: 1000000000000\r\n\r\n{}",
    "Content-Length of 5000 digits": b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n{}",
    "Content-Length one over the bound": b"Content-Length: %d\r\n\r\n{}" % (MAX_FRAME_BYTES + 1),
}


@pytest.mark.parametrize("data", LOST.values(), ids=LOST.keys())
async def test_a_frame_that_cannot_be_delimited_ends_the_server_with_status_1(data):
    """pygls skipped a header it could not parse and read the body as the next header line, so
    every later frame lost its header too: alive but deaf for good; Content-Length 10^12 made it
    allocate a terabyte. Where such a frame ends is unknown, so the server does not guess: it
    says why on stderr and exits 1 (an editor restarts it and sends its documents again)."""
    async with raw_server() as server:
        start = time.monotonic()
        await server.write(data)
        assert await server.exit_code(timeout=10) == 1
        assert time.monotonic() - start < 5
        await server.logged("cannot be read any further")


async def test_a_frame_at_the_bound_is_read():
    """64 MiB is accepted (here: a didOpen notification of that size, then a request)."""
    async with raw_server() as server:
        head = b'{"jsonrpc": "2.0", "method": "allo/big", "params": {"pad": "'
        tail = b'"}}'
        body = head + b"a" * (MAX_FRAME_BYTES - len(head) - len(tail)) + tail
        await server.send(body)
        await assert_alive(server)


# -- frames that are well delimited: read, and every bad message answered ---------------------

LENIENT = {
    "lower-case header name": b"content-length: %d\r\n\r\n",
    "no space after the colon": b"Content-Length:%d\r\n\r\n",
    "bare line feeds": b"Content-Length: %d\n\n",
    "an unknown header": b"X-Trace: 1\r\nContent-Length: %d\r\n\r\n",
    "leading zeros": b"Content-Length: 000%d\r\n\r\n",
    "5,000 leading zeros": b"Content-Length: " + b"0" * 5000 + b"%d\r\n\r\n",
    "stray line break before the frame": b"\r\nContent-Length: %d\r\n\r\n",
}


async def test_a_header_written_loosely_but_unambiguously_is_read():
    async with raw_server() as server:
        for name, header in LENIENT.items():
            body = json.dumps({**PING, "id": name}).encode()
            await server.write(header % len(body) + body)
            assert (await server.response(name, timeout=10))["error"]["code"] == -32601, name


async def test_header_values_padded_with_blanks_are_read_in_linear_time():
    """31 header lines of 8,100 blanks inside their value (each under the line bound), then a
    Content-Length with blanks after it: the old lazy `(.*?)[ \\t]*` took about 0.5 s a line
    (15 s for the frame, the server deaf meanwhile); now the answer comes at once."""
    async with raw_server() as server:
        await assert_alive(server)  # started: the bound below is the frame's alone
        body = json.dumps({**PING, "id": "padded"}).encode()
        padded = b"X-Pad: a" + b" " * 8100 + b"b\r\n"
        await server.write(padded * 31 + b"Content-Length: %d \t \r\n\r\n" % len(body) + body)
        start = time.monotonic()
        assert (await server.response("padded", timeout=30))["error"]["code"] == -32601
        assert time.monotonic() - start < 5


INVALID = {
    # body: (expected code, expected id)
    "empty body": (b"", -32700, None),
    "not JSON": (b"{not json", -32700, None),
    "not UTF-8": (b'{"jsonrpc": "2.0", "id": 1, "method": "\xff"}', -32700, None),
    "nested 100,000 deep": (b"[" * 100_000, -32700, None),
    "an array (a batch)": (b"[]", -32600, None),
    "a number": (b"3", -32600, None),
    'jsonrpc "1.0"': (b'{"jsonrpc": "1.0", "id": 7, "method": "shutdown"}', -32600, 7),
    "no jsonrpc": (b'{"id": 8, "method": "shutdown"}', -32600, 8),
    "an object id": (b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "shutdown"}', -32600, None),
    "a boolean id": (b'{"jsonrpc": "2.0", "id": true, "method": "shutdown"}', -32600, None),
    "a numeric method": (b'{"jsonrpc": "2.0", "id": 9, "method": 5}', -32600, 9),
    "string params": (b'{"jsonrpc": "2.0", "id": 10, "method": "textDocument/hover", "params": "x"}', -32600, 10),
    "neither request nor response": (b'{"jsonrpc": "2.0", "id": 11}', -32600, 11),
    "hover without a position": (
        b'{"jsonrpc": "2.0", "id": 12, "method": "textDocument/hover", "params": {"textDocument": {"uri": "file:///a.py"}}}',
        -32602,
        12,
    ),
    "hover at a line that is a string": (
        b'{"jsonrpc": "2.0", "id": 13, "method": "textDocument/hover", "params": '
        b'{"textDocument": {"uri": "file:///a.py"}, "position": {"line": "x", "character": 0}}}',
        -32602,
        13,
    ),
    "a negative position": (
        b'{"jsonrpc": "2.0", "id": 14, "method": "textDocument/definition", "params": '
        b'{"textDocument": {"uri": "file:///a.py"}, "position": {"line": -1, "character": 0}}}',
        -32602,
        14,
    ),
    "symbols of a document that is a number": (
        b'{"jsonrpc": "2.0", "id": "s", "method": "textDocument/documentSymbol", "params": {"textDocument": 5}}',
        -32602,
        "s",
    ),
    "a command that is not a string": (
        b'{"jsonrpc": "2.0", "id": 15, "method": "workspace/executeCommand", "params": {"command": 1}}',
        -32602,
        15,
    ),
}


async def test_an_invalid_message_is_answered_with_its_error_code():
    """pygls logged these and answered nothing: the client waited forever on each request.
    (One server for all: each answer is the next message, so none is taken for another's.)"""
    async with raw_server() as server:
        for name, (body, code, msg_id) in INVALID.items():
            seen = len(server.messages)
            await server.send(body)
            answer = await server.wait_for(lambda m: "error" in m, timeout=10, since=seen)
            assert (answer["jsonrpc"], answer.get("id", "missing"), answer["error"]["code"]) == ("2.0", msg_id, code), (
                name
            )
        await assert_alive(server)
        assert server.refused == []


async def test_a_notification_with_invalid_params_is_dropped_and_not_answered():
    async with raw_server() as server:
        await server.send(b'{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": 5}}')
        await assert_alive(server)
        assert [m for m in server.messages if m.get("id") != "ping" and "error" in m] == []


async def test_an_answer_of_the_client_that_does_not_fit_settles_the_request():
    """The client answers workspace/configuration with a number: pygls could not read it, logged,
    and left the server's request waiting for good (its settings, workspace trust among them,
    never came)."""
    server = await RawServer.start()
    try:
        server.answers["workspace/configuration"] = 5
        await server.initialize({"workspace": {"configuration": True}})
        await server.logged("workspace/configuration failed")
        await assert_alive(server)
    finally:
        await server.close()


# -- answers: strict JSON even when a design computes NaN ----------------------------------------


async def test_a_job_whose_outputs_are_nan_is_answered_in_valid_json(tmp_path):
    """The reference executor computes 0.0/0.0: the result's min, max and mean are NaN. Python's
    json wrote the bare token NaN, which VS Code's JSON-RPC rejects: the command never settled."""
    path = tmp_path / "nan_design.py"
    path.write_text(NAN_DESIGN)
    uri = path.as_uri()
    async with raw_server({"backend": "reference", "timeout": 20}) as server:
        await server.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": NAN_DESIGN}},
        )
        await server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics", timeout=20)
        answer = await server.request(
            "workspace/executeCommand", {"command": "alloDataflow.simulate", "arguments": [uri, "top"]}, timeout=30
        )
        assert server.refused == []
        result = answer["result"]
        assert (result["status"], result["backend"]) == ("passed", "reference")
        (output,) = result["outputs"]
        assert (output["min"], output["max"], output["mean"]) == ("NaN", "NaN", "NaN")
        # And the code lenses, encoded once (`encoded.py`), say so in valid JSON too.
        lenses = await server.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
        assert lenses["result"] and server.refused == []


# -- the session: one initialize ------------------------------------------------------------------


async def test_a_second_initialize_is_refused_and_the_documents_are_kept():
    """pygls made a new, empty workspace for it: every open document was dropped, and the next
    edit of one raised."""
    uri = "file:///tmp/allo-lsp-protocol/design.py"
    async with raw_server() as server:
        await server.notify(
            "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": BASE}}
        )
        await server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics", timeout=20)
        before = await server.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        again = await server.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        assert again["error"]["code"] == -32600
        after = await server.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        assert after["result"] == before["result"] != []
        hover_line = BASE.splitlines().index(next(l for l in BASE.splitlines() if l.startswith("def top(")))
        hover = await server.request(
            "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": hover_line, "character": 5}}
        )
        assert hover["result"] is not None


async def test_a_request_before_initialize_is_answered_not_initialized():
    """pygls ran the handler without a workspace, which raised: an internal error, and a
    notification before initialize (a didOpen) raised the same way."""
    async with raw_server(initialize=False) as server:
        await server.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": "file:///tmp/a.py", "languageId": "python", "version": 1, "text": BASE}},
        )
        answer = await server.request("textDocument/documentSymbol", {"textDocument": {"uri": "file:///tmp/a.py"}})
        assert answer["error"]["code"] == -32002
        assert "result" in await server.initialize()
        assert " ERROR " not in "".join(server.stderr)


async def test_a_request_after_shutdown_is_answered_invalid_request():
    """pygls dropped it without an answer: the client waited until it gave up."""
    async with raw_server() as server:
        assert (await server.request("shutdown"))["result"] is None
        answer = await server.request("textDocument/documentSymbol", {"textDocument": {"uri": "file:///tmp/a.py"}})
        assert answer["error"]["code"] == -32600
        await server.notify("exit")
        assert await server.exit_code() == 0


# -- documents the client never opened are not read ---------------------------------------------


async def test_a_request_on_a_file_never_opened_does_not_read_it(tmp_path):
    """pygls read a document it did not have from disk, whole, on the event loop: a code action
    on a FIFO hung the server for good (and one on /dev/zero grew it to 21 GB)."""
    fifo = tmp_path / "fifo.py"
    os.mkfifo(fifo)
    regular = tmp_path / "closed.py"
    regular.write_text(BASE)
    async with raw_server() as server:
        # (/dev/stdin is the server's own input: read, it swallowed the client's next messages.)
        for uri in (fifo.as_uri(), regular.as_uri(), "file:///dev/stdin"):
            for method in (
                "textDocument/codeAction",
                "textDocument/documentSymbol",
                "textDocument/codeLens",
                "textDocument/inlayHint",
            ):
                params = {
                    "textDocument": {"uri": uri},
                    "range": {"start": {"line": 0, "character": 0}, "end": {"line": 3, "character": 0}},
                    "context": {"diagnostics": []},
                }
                answer = await server.request(method, params, timeout=10)
                assert answer["result"] in ([], None), (method, answer)
        await assert_alive(server)


async def test_an_edit_of_a_document_never_opened_is_ignored_quietly():
    """pygls raised a KeyError and showed the user "Error in server: 'file:///...'"."""
    async with raw_server() as server:
        await server.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": "file:///tmp/never-opened.py", "version": 2},
                "contentChanges": [
                    {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "x"}
                ],
            },
        )
        await assert_alive(server)
        assert [m for m in server.messages if m.get("method") == "window/showMessage"] == []


# -- incremental edits outside the text are applied as the editor applied them ------------------


def vscode_apply(text: str, r: lsp.Range, new: str) -> str:
    """An edit as VS Code applies it to its own model: positions clamped into the text (a line
    past the end: the end of the text; a column past a line's end: that end), ends in order.
    (ASCII text: columns are code points.)"""
    lines = lsp_session.lsp_lines(text)
    starts = [0]
    for line, brk in zip(lines, __import__("re").findall(r"\r\n|\r|\n", text)):
        starts.append(starts[-1] + len(line) + len(brk))

    def offset(p: lsp.Position) -> int:
        if p.line >= len(lines):
            return len(text)
        return starts[p.line] + min(p.character, len(lines[p.line]))

    a, b = sorted((offset(r.start), offset(r.end)))
    return text[:a] + new + text[b:]


def _edits(text: str) -> list[tuple[lsp.Range, str]]:
    lines = lsp_session.lsp_lines(text)
    top = next(i for i, line in enumerate(lines) if line.startswith("def top("))
    sizes = next(i for i, line in enumerate(lines) if line.startswith("M, N = "))
    P, R = lsp.Position, lsp.Range
    return [
        (R(P(top, 7), P(top, 4)), "main"),  # reversed on one line: `top` renamed `main`
        (R(P(sizes + 1, 0), P(sizes, 0)), "M, N = 4, 4\n"),  # reversed across a line break
        (R(P(top, 8), P(top, 10_000)), "(A: int32[M, N], n: int32[1], B: int32[M, N]):"),  # column past the end
        (R(P(10_000, 0), P(10_000, 5)), "\n\n@df.region()\ndef extra(A: int32[M]):\n    pass\n"),  # lines past the end
        (R(P(0, 10_000), P(0, 10_000)), " Edited."),  # past the end of the first line
    ]


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
async def test_edits_outside_the_text_are_clamped_as_the_editor_clamps_them(newline):
    """Reversed ranges and positions past a line's end or the text's desynchronised the server's
    text from the editor's, silently. Now it holds exactly what the editor holds (compared with
    the same text opened afresh) and logs a warning per such edit."""
    text = BASE.replace("\n", newline)
    expected = text
    async with lsp_session.session({"debounceMs": 0}) as s:
        uri, fresh = "file:///tmp/allo-lsp-protocol/edited.py", "file:///tmp/allo-lsp-protocol/expected.py"
        s.client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
        )
        await s.diagnostics(uri, 1)
        for version, (rng, new) in enumerate(_edits(text), start=2):
            new = new.replace("\n", newline)
            expected = vscode_apply(expected, rng, new)
            s.client.text_document_did_change(
                lsp.DidChangeTextDocumentParams(
                    lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    [lsp.TextDocumentContentChangePartial(range=rng, text=new)],
                )
            )
        edited = await s.diagnostics(uri, version)
        s.client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(
                lsp.TextDocumentItem(uri=fresh, language_id="python", version=1, text=expected)
            )
        )
        assert edited == await s.diagnostics(fresh, 1)

        async def symbols(u):
            return await s.client.text_document_document_symbol_async(
                lsp.DocumentSymbolParams(text_document=lsp.TextDocumentIdentifier(u))
            )

        got, want = await symbols(uri), await symbols(fresh)
        assert [x.name for x in got] == ["main", "extra"]
        assert got == want
        assert "".join(s.stderr).count("applied as an editor does") == 5


def test_random_edits_give_the_text_the_editor_has():
    """The server's document against `vscode_apply` on 3,000 random edits (in range or not, in
    order or not) of texts with every LSP line break."""
    import random

    from allo_lsp.lsp.documents import ClientDocument

    rng = random.Random(13)
    for _ in range(300):
        text = "".join(rng.choice(["a", "bc", " ", "\n", "\r\n", "\r", "xyz"]) for _ in range(rng.randrange(0, 40)))
        doc = ClientDocument("file:///r.py", source=text)
        for _ in range(10):

            def position():
                return lsp.Position(rng.randrange(0, 12), rng.randrange(0, 12))

            edit = lsp.Range(position(), position())
            new = rng.choice(["", "q", "\n", "\r\n", "ab\rc"])
            text = vscode_apply(text, edit, new)
            doc.apply_change(lsp.TextDocumentContentChangePartial(range=edit, text=new))
            assert doc.source == text
