"""Deeply nested expressions: the analysis run again with room for them when Python's stack
overflowed.

libcst parses what CPython parses (natively, with no Python recursion), but its code generation
(positions) and its visitors recurse a few Python frames per node, and a subscript is three nodes:
`a[a[...]]` 200 deep, which CPython accepts, needs about 1,200 frames, past Python's default limit
of 1,000. So an analysis that overflowed is run again in a thread of its own with a large stack
and a raised recursion limit, when its expressions are nested at most `MAX_NESTING` deep (CPython
counts them, each top-level statement parsed alone). Deeper is reported as too deep to analyse:
the bound, not the caller's stack, says what is analysed, and the raised limit, not the stack,
stops a walk (a RecursionError, never a segfault).
"""

from __future__ import annotations

import ast
import sys
import threading
import warnings
from collections.abc import Callable
from typing import TypeVar

from allo_lsp.analysis.process_setting import WhileAnyRuns

T = TypeVar("T")

# Levels of nested expressions (CPython's AST) that are analysed: twice CPython's limit of 200
# nested brackets, each of which may hold two levels (`[*[...]]`, `[x if c else [...]]`).
MAX_NESTING = 400
# Frames: libcst's walks take up to about 6 per level of an expression (3 nodes per subscript),
# 2,400 for MAX_NESTING levels, plus nested blocks (CPython allows 100 levels of indentation).
RECURSION_LIMIT = 10_000
# The thread's C stack, for RECURSION_LIMIT frames however much C each takes (Python 3.10 runs
# every Python call on the C stack). Only the pages touched are ever committed.
STACK_BYTES = 512 * 1024 * 1024

_lock = threading.Lock()
_RAISED_LIMIT = WhileAnyRuns(sys.getrecursionlimit, sys.setrecursionlimit, lambda saved: max(saved, RECURSION_LIMIT))


def call(fn: Callable[..., T], *args) -> T:
    """`fn(*args)` in a fresh thread with room for RECURSION_LIMIT frames; what it raises is
    raised here, and RecursionError when no such thread can be started."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["value"] = fn(*args)
        except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
            outcome["error"] = exc

    with _RAISED_LIMIT.held():
        with _lock:  # the stack size is the process's setting for threads started next
            try:
                previous = threading.stack_size(STACK_BYTES)
            except (ValueError, RuntimeError):  # no such stack here: no more room than the caller has
                raise RecursionError("no thread stack of STACK_BYTES") from None
            try:
                thread = threading.Thread(target=run, name="allo-lsp-deep-analysis", daemon=True)
                thread.start()
            except RuntimeError:  # the stack could not be mapped (an address-space limit)
                raise RecursionError("no thread stack of STACK_BYTES") from None
            finally:
                threading.stack_size(previous)
        thread.join()
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]


def deepest(sources: list[tuple[int, str]]) -> tuple[int, int]:
    """(levels, 0-based line) of the most deeply nested expression in `sources` (each a
    top-level statement's first line and text), as CPython's parser builds it: levels of
    expressions inside one another, a statement starting again at 0. A statement CPython cannot
    parse counts as flat (its syntax error is reported anyway); one too deep for CPython as
    nested more than anything (`MAX_NESTING + 1`)."""
    found = (0, 0)
    for first, source in sources:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(source)
        except SyntaxError:
            continue
        except (RecursionError, MemoryError):
            return MAX_NESTING + 1, first
        stack: list[tuple[ast.AST, int]] = [(tree, 0)]
        while stack:
            node, depth = stack.pop()
            if depth > found[0]:
                found = (depth, first + getattr(node, "lineno", 1) - 1)
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    stack.append((child, depth + 1))
                else:
                    stack.append((child, 0 if isinstance(child, ast.stmt) else depth))
    return found
