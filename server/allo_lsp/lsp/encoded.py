"""Answers sent as JSON encoded once: the code lenses of a large file.

pygls turns every result into JSON through cattrs, field by field: for the ~1,000 lenses of a
10,000-line file that costs tens of milliseconds per request, though the answer only changes
with the analysis or a job. A result wrapped in `Encoded` was turned into JSON once, when it
was computed, and is written as it is.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging

from pygls.protocol import LanguageServerProtocol

log = logging.getLogger(__name__)


class Encoded:
    """A result already in JSON (ASCII, as `json.dumps` writes by default)."""

    def __init__(self, value) -> None:
        self.text = json.dumps(value)


class Protocol(LanguageServerProtocol):
    def _send_data(self, data) -> None:
        result = getattr(data, "result", None)
        if not isinstance(result, Encoded):
            super()._send_data(data)
            return
        if self.writer is None:
            return
        head = json.dumps({"id": data.id, "jsonrpc": data.jsonrpc})
        body = f'{head[:-1]}, "result": {result.text}}}'
        if self._include_headers:  # as pygls writes them
            body = f"Content-Length: {len(body)}\r\nContent-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n{body}"
        try:
            written = self.writer.write(body.encode(self.CHARSET))
            if inspect.isawaitable(written):
                asyncio.ensure_future(written)
        except Exception:  # the client went away: as pygls does, log and go on
            log.exception("could not send an encoded response")
