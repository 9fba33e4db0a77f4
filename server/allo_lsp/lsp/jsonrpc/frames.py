"""The JSON-RPC base protocol's frames, read within bounds (the transport under pygls' protocol).

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
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

MAX_FRAME_BYTES = 64 * 2**20
MAX_HEADER_LINE = 8192  # bytes, line break included
MAX_HEADER_LINES = 32
_EXIT_WAIT_S = 3.0  # as at the end of input: the time asyncio gets to tear down before exit
# The value is stripped after the match: a lazy `(.*?)[ \t]*` retried the blanks after every character
# (quadratic: 31 header lines of 8,000 spaces kept the server deaf for seconds).
_HEADER = re.compile(rb"([A-Za-z0-9-]+)[ \t]*:(.*)")


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
                length = _content_length(match.group(2).strip(b" \t"), length)
        body = await self._call(self._stream.read, length) if length else b""
        return body if len(body) == length else None


def _content_length(value: bytes, previous: int | None) -> int:
    if not value.isdigit():  # bytes.isdigit: ASCII digits only, so no sign, space or "1e3"
        raise FramingError(f"Content-Length {value[:40]!r} is not a byte count")
    # Compared as text first: CPython refuses int() of over 4,300 digits.
    digits = value.lstrip(b"0") or b"0"
    if len(digits) > len(str(MAX_FRAME_BYTES)) or int(digits) > MAX_FRAME_BYTES:
        raise FramingError(
            f"a frame of {value[:40].decode()} bytes, over the bound of {MAX_FRAME_BYTES} bytes (64 MiB)"
        )
    if previous is not None and previous != int(digits):
        raise FramingError("two different Content-Length headers")
    return int(digits)


async def serve(stream, handle: Callable[[bytes], None], stop_event: threading.Event, executor=None) -> str | None:
    """Read frames and `handle` each body until the input ends (None) or cannot be framed (why)."""
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
        handle(body)
    return None
