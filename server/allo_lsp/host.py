"""How the process that runs analyses is tuned: the server's queue and `allo-lsp check` apply it
around their analyses; the analysis itself (`analysis/`) only computes.

Both settings are the process's, not one analysis': the switch interval decides how soon another
thread (the one answering an editor request) gets the GIL back, and the collector's pause and
freeze decide when, if ever, the objects made meanwhile are walked.
"""

from __future__ import annotations

import functools
import gc
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

from allo_lsp.analysis.process_setting import WhileAnyRuns

P = ParamSpec("P")
T = TypeVar("T")

# How long the analysis thread keeps the GIL when another thread asks for it, while an analysis
# runs (Python's default is 5 ms). An editor request passes between threads several times (each
# header line and the body are read by another thread than the one that answers): at 5 ms a
# turn, a hover waited 80-100 ms (p95) while a 10,000-line file was analysed, 20 ms at 1 ms.
SWITCH_INTERVAL_S = 0.001
_REQUESTS_FIRST = WhileAnyRuns(
    sys.getswitchinterval, sys.setswitchinterval, lambda saved: min(saved, SWITCH_INTERVAL_S)
)

# Objects made while collection was paused past which they are frozen rather than collected
# (about 0.1 s of a collection's traversal).
FREEZE_AFTER = 100_000


@contextmanager
def collection_paused() -> Iterator[None]:
    """No cyclic garbage collection while the trees are built and walked: an analysis makes
    millions of objects that live until it ends, and each full collection walks all of them,
    which made the first analysis of a large file grow faster than the file.

    Once it ends, the first collection would still walk every object made meanwhile, holding
    the GIL (0.5 s after a 10,000-line file, while editor requests wait): after a large analysis
    they are frozen instead (`gc.freeze`), never walked. The analysis makes no reference cycles
    (its trees and model are freed by reference counting when the next analysis replaces them);
    what else was made meanwhile and is cyclic garbage is not collected."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_count()[0] > FREEZE_AFTER:
                gc.freeze()
            gc.enable()


@contextmanager
def analysing() -> Iterator[None]:
    """While an analysis runs in a server thread: requests first, no collection."""
    with _REQUESTS_FIRST.held(), collection_paused():
        yield


def tuned(fn: Callable[P, T]) -> Callable[P, T]:
    """`fn` run under `analysing()`: what the server hands to a worker thread."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        with analysing():
            return fn(*args, **kwargs)

    return run
