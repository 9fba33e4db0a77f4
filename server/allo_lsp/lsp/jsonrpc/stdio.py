"""pygls' language server with its stdio loop replaced: frames read and checked by `frames.py`
and answered by `protocol.py` instead of `pygls.io_`, and an exit status that says how it ended."""

from __future__ import annotations

import asyncio
import functools
import logging
import sys
from threading import Event

from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

from allo_lsp.lsp.jsonrpc.frames import serve
from allo_lsp.lsp.jsonrpc.protocol import dispatch

log = logging.getLogger(__name__)

# The "pygls 2.1 private" loop below is why pyproject.toml pins pygls to 2.1.x: were it renamed,
# pygls' own reader would serve again, unchecked.


class CheckedStdioServer(LanguageServer):
    input_error: str | None = None  # why the client's input could not be read (`frames.serve`)

    # pygls 2.1 private `_start_io_async`, `_stop_event`: no upstream issue found for its reader's header handling.
    def _start_io_async(self, stdin=None, stdout=None) -> None:
        self._stop_event = Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            handle = functools.partial(dispatch, self.protocol)
            self.input_error = asyncio.run(serve(stdin or sys.stdin.buffer, handle, self._stop_event, self.thread_pool))
        except BrokenPipeError:
            log.error("the client has gone: stopping")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def exit_status(self) -> int:
        """1 if the client's input could not be framed or `exit` came without `shutdown`."""
        return 1 if self.input_error else self.protocol.exit_status
