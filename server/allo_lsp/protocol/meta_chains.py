"""How Allo pairs `allo.meta_if` / `meta_elif` / `meta_else`: one rule for the analysis and the executor.

Allo (`allo/ir/infer.py`, `allo/ir/builder.py`) keeps a stack of open `meta_if` conditions per
nesting level of meta bodies. `meta_if` pushes its condition; `meta_elif` replaces the top (an
earlier branch taken stays taken); `meta_else` takes the negation of the top and pops it. So an
`meta_else` pairs with the last open `meta_if` at its level even when ordinary statements stand
between them, and after a `meta_else` has closed a chain, a further `meta_elif`/`meta_else`
pairs with whatever is still open below it, or is "Unmatched".

Conditions here are three-valued: True, False, or None when the caller cannot fold them (the
analysis, for a condition that depends on something it does not know). A branch is then taken
True, False or None (unknown), by Kleene logic. The executor always knows its conditions.

Each branch body (the statements inside one `with allo.meta_if/elif/else():`) gets a fresh
`MetaLevel` (Allo's `with_scope_level + 1`, the inner chains dropped when it ends); the statements
of a `meta_for` body, plain loops and `if`s share the enclosing level: Allo unrolls `meta_for`
without touching `with_scope_level`, so a `meta_else` in its body pairs with a `meta_if` before it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Truth = bool | None
BRANCHES = ("meta_if", "meta_elif", "meta_else")  # a meta_for is not a branch: it opens no level
UNMATCHED_ELIF = "Unmatched allo.meta_elif()"
UNMATCHED_ELSE = "Unmatched allo.meta_else()"


class MetaChainError(Exception):
    """A `meta_elif`/`meta_else` with no open `meta_if` at its level (Allo's own message); `tag`
    is the caller's tag of that branch (`MetaLevel.branch`)."""

    def __init__(self, message: str, tag: object = None) -> None:
        super().__init__(message)
        self.tag = tag


def _not(a: Truth) -> Truth:
    return None if a is None else not a


def _and(a: Truth, b: Truth) -> Truth:
    if a is False or b is False:
        return False
    if a is None or b is None:
        return None
    return True


def _or(a: Truth, b: Truth) -> Truth:
    return _not(_and(_not(a), _not(b)))


@dataclass
class _Open:
    truth: Truth  # an earlier branch of the chain is taken
    chain: int  # the chain's id: the index of the `meta_if` that opened it (its first copy)
    stale: bool = False  # a later copy of the same `meta_if` (an unrolled loop's) is open too


@dataclass
class MetaLevel:
    """The open `meta_if` chains of one nesting level; `branch` says whether a body is taken.

    Allo unrolls a `meta_for` (every one on simulator and HLS targets; `infer.py` visits its body
    once per iteration), so the branches of its body at this level pair once per iteration: the
    callers walk the body once and `replay` the other iterations' pairing. A chain's id names its
    `meta_if` statement, the same for every copy, so a caller can keep one flag per statement;
    `exact` says whether that is enough (it is not once a copy pairs with another chain than the
    first copy did, or a branch pairs with a copy that a later one has overwritten).
    """

    _open: list[_Open] = field(default_factory=list)
    _seen: int = 0
    # (kind, chain, tag) of every branch seen at this level, replayed copies included
    _log: list[tuple[str, int, object]] = field(default_factory=list)
    exact: bool = True

    def branch(self, kind: str, cond: Truth = None, tag: object = None) -> tuple[Truth, int]:
        """(taken, chain id) of a `meta_if`/`meta_elif` (with `cond`) or a `meta_else`.

        Raises MetaChainError with Allo's message for an unmatched `meta_elif`/`meta_else`.
        """
        index = self._seen
        self._seen += 1
        taken, chain = self._pair(kind, cond, index if kind == "meta_if" else None, tag)
        self._log.append((kind, chain, tag))
        return taken, chain

    def mark(self) -> int:
        """Where the next branch goes in the log: give it to `replay` after the loop's body."""
        return len(self._log)

    def replay(self, mark: int, times: int) -> None:
        """The pairing of `times - 1` more copies of the branches logged since `mark` (a
        `meta_for` of `times` iterations whose body was walked once). Raises MetaChainError,
        tagged with the branch's tag, where Allo's unrolled copy is unmatched."""
        events = self._log[mark:]
        for _ in range(times - 1):
            for kind, chain, tag in events:
                _, paired = self._pair(kind, None, chain if kind == "meta_if" else None, tag)
                if paired != chain:
                    self.exact = False
                self._log.append((kind, chain, tag))

    def _pair(self, kind: str, cond: Truth, opens: int | None, tag: object) -> tuple[Truth, int]:
        if kind == "meta_if":
            for other in self._open:
                if other.chain == opens:
                    other.stale = True
            self._open.append(_Open(cond, opens))  # type: ignore[arg-type]
            return cond, opens  # type: ignore[return-value]
        if kind not in ("meta_elif", "meta_else"):
            raise ValueError(f"not a meta branch: {kind}")
        if not self._open:
            raise MetaChainError(UNMATCHED_ELIF if kind == "meta_elif" else UNMATCHED_ELSE, tag)
        top = self._open[-1]
        if top.stale:
            self.exact = False
        if kind == "meta_elif":
            before, top.truth = top.truth, _or(top.truth, cond)
            return _and(_not(before), cond), top.chain
        self._open.pop()
        return _not(top.truth), top.chain
