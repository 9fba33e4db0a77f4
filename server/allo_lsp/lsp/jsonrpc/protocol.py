"""JSON-RPC messages guarded where pygls 2 is not: every malformed message answered, every
answer strict JSON, the requests pygls drops or mishandles answered.

A well-framed body that is not JSON is answered -32700 (id null); one that is not a
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

from cattrs.errors import BaseValidationError
from cattrs.v import transform_error
from lsprotocol.types import EXIT, INITIALIZE, ResponseError
from pygls.exceptions import JsonRpcInternalError, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol, lsp_method

from allo_lsp.finite_json import dumps
from allo_lsp.lsp.jsonrpc.encoded import Encoded

log = logging.getLogger(__name__)

# Each "pygls 2.1 private" member below is why pyproject.toml pins pygls to 2.1.x: a private name
# may change in any release, and these overrides would then silently stop applying.

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32602, -32603
NOT_INITIALIZED = -32002
_DETAIL = 300  # characters of a reason sent back: a 50 MB method name is not echoed


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
        # pygls 2.1 private `_handle_response`: no upstream issue found (pygls leaves the request waiting).
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
    # pygls 2.1 private `_send_data`: no upstream issue found for answering a message it could not read.
    protocol._send_data({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})


class Protocol(LanguageServerProtocol):
    """pygls' protocol, writing strict JSON (and answers already encoded as they are), and
    answering the requests it dropped or mishandled: a second `initialize` (pygls made a new
    workspace, dropping every open document), one before `initialize` (pygls raised inside the
    handler: an internal error) and one after `shutdown` (pygls answered nothing)."""

    # The process' exit status: 1 once `exit` came without a `shutdown` before it (the LSP
    # specification). pygls raises SystemExit with it, which its own stdio loop swallows.
    exit_status = 0

    # pygls 2.1 private `_shutdown`, `_workspace`: requests after shutdown, https://github.com/openlawlibrary/pygls/issues/605;
    # requests before initialize: no upstream issue found.
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
        if not is_request:
            self._forget_finished()

    # pygls 2.1 private `_request_futures`: no upstream issue found (its sibling `_result_types` leak is openlawlibrary/pygls#608).
    def _forget_finished(self) -> None:
        """pygls (2.1, `JsonRPCProtocol`) keeps the future of every notification it handled in
        `_request_futures` forever: drop the finished ones, or a long session leaks one per edit."""
        for msg_id in [k for k, f in self._request_futures.items() if f.done()]:
            self._request_futures.pop(msg_id, None)

    # pygls 2.1 private `_handle_cancel_notification`: https://github.com/openlawlibrary/pygls/issues/517 (the unknown-id warnings).
    def _handle_cancel_notification(self, msg_id) -> None:
        """A cancel of a request already answered is normal (VS Code cancels every hover or
        symbol request the user moved away from, often after its answer): a debug line, where
        pygls (2.1) warned once per cancel and the warnings were most of the user's log."""
        if msg_id not in self._request_futures:
            log.debug("$/cancelRequest for %s, already answered", msg_id)
            return
        super()._handle_cancel_notification(msg_id)

    # pygls 2.1 private `_request_futures`: no upstream issue found for a started coroutine running on after its cancel.
    def when_cancelled(self, callback) -> None:
        """`callback()` once the client cancels the request being handled (`$/cancelRequest`):
        pygls answers it "cancelled" but lets the handler's coroutine run on (pygls 2.1,
        `JsonRPCProtocol._handle_cancel_notification` cancels only a request not started)."""
        request = self._request_futures.get(self.msg_id)
        if request is None:
            return
        loop = asyncio.get_running_loop()

        def cancelled(future) -> None:
            if future.cancelled():
                loop.call_soon_threadsafe(callback)

        request.add_done_callback(cancelled)

    # A second `initialize` replacing pygls 2.1's private `_workspace`: no upstream issue found.
    @lsp_method(INITIALIZE)
    def lsp_initialize(self, params):
        if self._workspace is not None:
            raise JsonRpcInvalidRequest("the server is already initialized: a second initialize is refused")
        return (yield from super().lsp_initialize(params))

    # pygls 2.1 private `_send_data`, `_serialize_message`, `_include_headers`, `_server._report_server_error`:
    # no upstream issue found for NaN written as bare JSON NaN.
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
            body = dumps(
                {
                    "jsonrpc": "2.0",
                    "id": msg_id,
                    "error": {"code": INTERNAL_ERROR, "message": "the server's answer could not be encoded"},
                }
            )
        payload = body.encode(self.CHARSET)
        if self._include_headers:
            header = (
                f"Content-Length: {len(payload)}\r\nContent-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
            )
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
