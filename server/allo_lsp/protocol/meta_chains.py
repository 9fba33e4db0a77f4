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
    """A `meta_elif`/`meta_else` with no open `meta_if` at its level (Allo's own message)."""


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
class MetaLevel:
    """The open `meta_if` chains of one nesting level; `branch` says whether a body is taken."""

    _open: list[Truth] = field(default_factory=list)
    # For each open chain, the index of its `meta_if` among the branches seen at this level:
    # lets callers group the branches of one chain.
    _chain_ids: list[int] = field(default_factory=list)
    _seen: int = 0

    def branch(self, kind: str, cond: Truth = None) -> tuple[Truth, int]:
        """(taken, chain id) of a `meta_if`/`meta_elif` (with `cond`) or a `meta_else`.

        Raises MetaChainError with Allo's message for an unmatched `meta_elif`/`meta_else`.
        """
        index = self._seen
        self._seen += 1
        if kind == "meta_if":
            self._open.append(cond)
            self._chain_ids.append(index)
            return cond, index
        if not self._open:
            raise MetaChainError(UNMATCHED_ELIF if kind == "meta_elif" else UNMATCHED_ELSE)
        before = self._open[-1]
        chain = self._chain_ids[-1]
        if kind == "meta_elif":
            self._open[-1] = _or(before, cond)
            return _and(_not(before), cond), chain
        if kind == "meta_else":
            self._open.pop()
            self._chain_ids.pop()
            return _not(before), chain
        raise ValueError(f"not a meta branch: {kind}")
