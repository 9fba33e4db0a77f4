"""The LSP wire, guarded where pygls 2 is not: frames read within bounds, every malformed
message answered, every answer strict JSON.

Frames. A frame is header lines (`Name: value`), a blank line, then `Content-Length` bytes of
JSON. pygls' reader skips a header it cannot parse and then reads the body as the next header
line, swallowing the next frame's header with it: after one bad Content-Length the server was
alive but deaf for good; and it allocated whatever Content-Length claimed (10^12 bytes: a
crash). Here a frame over `MAX_FRAME_BYTES`, or a header that cannot be parsed (a missing,
negative, non-decimal or conflicting Content-Length; a line that is not `Name: value`; a line
over `MAX_HEADER_LINE` bytes; more than `MAX_HEADER_LINES` lines) ends the server: it logs why
and exits with status 1, at once. Once a header is wrong nobody knows where the body ends, so
resynchronising on the next `Content-Length:` would be a guess that can take a line of a
document's text for a message; an editor restarts a server that exits and sends its open
documents again (VS Code: up to 4 times in 3 minutes). VS Code never hands a file over 50 MB
to extensions, so the bound is above anything an editor sends.

Messages. A well-framed body that is not JSON is answered -32700 (id null); one that is not a
JSON-RPC 2.0 message (an array, `"jsonrpc": "1.0"`, an id that is neither an integer nor a
string, a method that is not a string) -32600; a request whose params do not fit its method
-32602. A notification is never answered (JSON-RPC): a bad one is logged and dropped. A
response of the client's that does not fit settles our request with an error instead of
leaving it waiting.

Answers go out through `finite_json.dumps`: NaN and infinities become strings.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import re
import threading

from cattrs.errors import BaseValidationError
from cattrs.v import transform_error
from lsprotocol.types import EXIT, INITIALIZE, ResponseError
from pygls.exceptions import JsonRpcInternalError, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol, lsp_method

from allo_lsp.finite_json import dumps
from allo_lsp.lsp.encoded import Encoded

log = logging.getLogger(__name__)

MAX_FRAME_BYTES = 64 * 2**20
MAX_HEADER_LINE = 8192  # bytes, line break included
MAX_HEADER_LINES = 32
_EXIT_WAIT_S = 3.0  # as at the end of input: the time asyncio gets to tear down before exit

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32602, -32603
NOT_INITIALIZED = -32002
_HEADER = re.compile(rb"([A-Za-z0-9-]+)[ \t]*:[ \t]*(.*?)[ \t]*")
_DETAIL = 300  # characters of a reason sent back: a 50 MB method name is not echoed


class FramingError(Exception):
    """The input cannot be split into frames any more."""


class FrameReader:
    """Frames from a binary stream read in `executor` (blocking reads off the event loop)."""

    def __init__(self, stream, executor=None) -> None:
        self._stream = stream
        self._executor = executor

    async def _call(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    async def next_frame(self) -> bytes | None:
        """The next frame's body; None at the end of input (between frames or inside one)."""
        length, lines = None, 0
        while True:
            line = await self._call(self._stream.readline, MAX_HEADER_LINE)
            if not line:
                return None
            if not line.endswith(b"\n"):
                if len(line) >= MAX_HEADER_LINE:
                    raise FramingError(f"a header line longer than {MAX_HEADER_LINE} bytes")
                return None  # the input ended inside a line
            text = line[:-2] if line.endswith(b"\r\n") else line[:-1]
            if not text:
                if lines == 0:
                    continue  # a stray line break between frames, as pygls tolerates
                if length is None:
                    raise FramingError("a frame without a Content-Length header")
                break
            lines += 1
            if lines > MAX_HEADER_LINES:
                raise FramingError(f"more than {MAX_HEADER_LINES} header lines")
            match = _HEADER.fullmatch(text)
            if match is None:
                raise FramingError(f"a header line that is not `Name: value`: {text[:80]!r}")
            if match.group(1).lower() == b"content-length":
                length = _content_length(match.group(2), length)
        body = await self._call(self._stream.read, length) if length else b""
        return body if len(body) == length else None


def _content_length(value: bytes, previous: int | None) -> int:
    if not value.isdigit():  # bytes.isdigit: ASCII digits only, so no sign, space or "1e3"
        raise FramingError(f"Content-Length {value[:40]!r} is not a byte count")
    # Compared as text first: CPython refuses int() of over 4,300 digits.
    digits = value.lstrip(b"0") or b"0"
    if len(digits) > len(str(MAX_FRAME_BYTES)) or int(digits) > MAX_FRAME_BYTES:
        raise FramingError(f"a frame of {value[:40].decode()} bytes, over the bound of {MAX_FRAME_BYTES} bytes (64 MiB)")
    if previous is not None and previous != int(digits):
        raise FramingError("two different Content-Length headers")
    return int(digits)


async def serve(stream, protocol: LanguageServerProtocol, stop_event: threading.Event, executor=None) -> str | None:
    """Read and dispatch messages until the input ends (None) or cannot be framed (why)."""
    reader = FrameReader(stream, executor)
    while not stop_event.is_set():
        try:
            body = await reader.next_frame()
        except FramingError as exc:
            log.error("allo-lsp: the client's input cannot be read any further (%s): exiting with status 1", exc)
            # As at the end of input: exit even if tearing the event loop down hangs.
            timer = threading.Timer(_EXIT_WAIT_S, os._exit, args=(1,))
            timer.daemon = True
            timer.start()
            return str(exc)
        if body is None:
            return None
        dispatch(protocol, body)
    return None


def dispatch(protocol: LanguageServerProtocol, body: bytes) -> None:
    """One frame's body: handled by pygls if it is a well-formed message, else answered here."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        log.warning("a message that is not JSON: %s", exc)
        send_error(protocol, None, PARSE_ERROR, f"the message is not JSON: {exc}"[:_DETAIL])
        return
    problem, msg_id = _envelope_problem(data)
    if problem is not None:
        log.warning("an invalid message: %s", problem)
        is_response = isinstance(data, dict) and "method" not in data and ("result" in data or "error" in data)
        if not is_response:  # a response is not answered: the client is not waiting for anything
            send_error(protocol, msg_id, INVALID_REQUEST, problem)
        return
    if "method" in data and protocol.get_message_type(data["method"]) is None:
        data.setdefault("params", None)  # optional in JSON-RPC; pygls' generic message needs it
    try:
        message = protocol.structure_message(data)
    except Exception as exc:  # noqa: BLE001 - pygls raises JsonRpcInvalidParams or JsonRpcInternalError
        _unfit(protocol, data, _reason(exc))
        return
    try:
        protocol.handle_message(message)
    except Exception:  # pygls answers a request's own failures; this is anything else
        log.exception("could not handle a message")


def _envelope_problem(data) -> tuple[str | None, object]:
    """(what is wrong with the JSON-RPC envelope or None, the id to answer with)."""
    if not isinstance(data, dict):
        return "a message is a JSON object (LSP has no batches)", None
    msg_id = data.get("id")
    id_ok = "id" not in data or (isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool))
    reply_id = msg_id if id_ok and "id" in data else None
    if data.get("jsonrpc") != "2.0":
        return f'"jsonrpc" is "2.0", not {_short(data.get("jsonrpc"))}', reply_id
    if not id_ok and not (msg_id is None and "error" in data and "method" not in data):
        return f'an "id" is an integer or a string, not {_short(msg_id)}', None
    if "method" in data:
        if not isinstance(data["method"], str):
            return f'a "method" is a string, not {_short(data["method"])}', reply_id
        if data.get("params") is not None and not isinstance(data["params"], (dict, list)):
            return f'"params" are an object or an array, not {_short(data["params"])}', reply_id
        return None, reply_id
    if "id" not in data or ("result" in data) == ("error" in data):
        return "neither a request, a notification nor a response", reply_id
    return None, reply_id


def _unfit(protocol: LanguageServerProtocol, data: dict, reason: str) -> None:
    """A message whose envelope is right but whose contents do not fit its method's types."""
    method = data.get("method")
    if method is None:  # the client's answer to one of our requests: settle that request
        log.warning("an answer to request %s that does not fit: %s", _short(data["id"]), reason)
        protocol._handle_response(data["id"], error=ResponseError(INVALID_PARAMS, f"the answer does not fit: {reason}"))
    elif "id" in data:
        log.warning("%s request %s with invalid params: %s", method[:_DETAIL], _short(data["id"]), reason)
        send_error(protocol, data["id"], INVALID_PARAMS, f"invalid params for {method[:_DETAIL]}: {reason}")
    else:
        log.warning("%s notification with invalid params, ignored: %s", method[:_DETAIL], reason)


def _reason(exc: Exception) -> str:
    cause = exc.__cause__
    if isinstance(cause, BaseValidationError):
        return "; ".join(transform_error(cause))[:_DETAIL]
    return repr(cause or exc)[:_DETAIL]


def _short(value) -> str:
    return repr(value)[:60]


def send_error(protocol: LanguageServerProtocol, msg_id, code: int, message: str) -> None:
    # A dict, not lsprotocol's ResponseErrorMessage: that one leaves out an id of None, and
    # JSON-RPC wants `"id": null` when the id could not be read.
    protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})


class Protocol(LanguageServerProtocol):
    """pygls' protocol, writing strict JSON (and answers already encoded as they are), and
    answering the requests it dropped or mishandled: a second `initialize` (pygls made a new
    workspace, dropping every open document), one before `initialize` (pygls raised inside the
    handler: an internal error) and one after `shutdown` (pygls answered nothing)."""

    # The process' exit status: 1 once `exit` came without a `shutdown` before it (the LSP
    # specification). pygls raises SystemExit with it, which its own stdio loop swallows.
    exit_status = 0

    def handle_message(self, message) -> None:
        method = getattr(message, "method", None)
        is_request = method is not None and hasattr(message, "id")
        if method == EXIT:
            self.exit_status = 0 if self._shutdown else 1
        if self._workspace is None and method is not None and method not in (INITIALIZE, EXIT):
            if is_request:
                send_error(self, message.id, NOT_INITIALIZED, f"{method} before initialize")
            else:  # as the specification says: dropped (`exit` excepted)
                log.warning("%s before initialize: ignored", method)
            return
        if self._shutdown and is_request:
            send_error(self, message.id, INVALID_REQUEST, f"{method} after shutdown")
            return
        super().handle_message(message)

    @lsp_method(INITIALIZE)
    def lsp_initialize(self, params):
        if self._workspace is not None:
            raise JsonRpcInvalidRequest("the server is already initialized: a second initialize is refused")
        return (yield from super().lsp_initialize(params))

    def _send_data(self, data) -> None:
        if not data:
            return
        if self.writer is None:
            log.error("no transport to send to")
            return
        try:
            body = self._encode(data)
        except Exception:  # an answer that cannot be encoded is still an answer: an error
            log.exception("could not encode a message")
            msg_id = getattr(data, "id", None)
            if msg_id is None or not hasattr(data, "result"):
                return
            body = dumps({"jsonrpc": "2.0", "id": msg_id,
                          "error": {"code": INTERNAL_ERROR, "message": "the server's answer could not be encoded"}})
        payload = body.encode(self.CHARSET)
        if self._include_headers:
            header = f"Content-Length: {len(payload)}\r\nContent-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
            payload = header.encode("ascii") + payload
        try:
            written = self.writer.write(payload)
            if inspect.isawaitable(written):
                asyncio.ensure_future(written)
        except BrokenPipeError:  # as pygls: the client has gone, the server stops
            log.exception("the client has gone")
            raise
        except Exception as error:
            log.exception("could not send a message")
            self._server._report_server_error(error, JsonRpcInternalError)

    def _encode(self, data) -> str:
        result = getattr(data, "result", None)
        if isinstance(result, Encoded):
            head = dumps({"id": data.id, "jsonrpc": data.jsonrpc})
            return f'{head[:-1]}, "result": {result.text}}}'
        return dumps(data, default=self._serialize_message)
