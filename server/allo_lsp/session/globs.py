"""Glob patterns matched in time linear in the path, whatever the pattern: the editor's exclude
globs (`files.exclude`, VS Code's syntax) and `.gitignore` lines (git's).

A backtracking matcher (Python's `re`, and pathspec's patterns, which compile to it) takes time
exponential in the stars of `*a*a*a...*b` on a long name of `a`s: one committed `.gitignore`
line left the server unable to answer anything. Here the patterns are one automaton whose
states are followed all at once (Thompson's construction), and each set of states met is kept
with its moves, as RE2 does: a character of a path costs one dictionary look-up, a set not met
before at most the patterns' length.

The syntax of both: `*` any run of characters but `/`, `?` one of them, `[...]` one of a class
(`[!...]` or `[^...]` none of it; a class never matches `/`), `**` as a whole segment: `**/` any
number of whole directories, a trailing `**` anything. The editor's adds `{a,b}` (nested up to
`MAX_BRACE_DEPTH`) and `a/**` for `a` and everything under it; git's adds `\\` escapes, and
`a/**` is only what is under `a`.
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

Test = Callable[[str], bool]
MAX_BRACE_DEPTH = 16  # deeper, a `{` is a character: no glob worth writing nests more
# A longer pattern is passed over: its sets of states grow with it, and no glob or ignore line
# worth writing is longer (a path's character costs up to a segment's length in states then).
MAX_PATTERN_CHARS = 1000
_CACHE_MOVES = 50_000  # moves kept before all are forgotten (an ignore file keeps two automata)
_CACHE_STATES = 100_000  # states in the sets kept, as much

# The pieces of a pattern: ("char", test), ("star",), ("all",), ("segments",), ("under",),
# ("alt", [pieces, ...]).
STAR, ALL, SEGMENTS, UNDER = ("star",), ("all",), ("segments",), ("under",)


def _not_slash(c: str) -> bool:
    return c != "/"


def _any(_c: str) -> bool:
    return True


ONE = ("char", _not_slash)


@dataclass(frozen=True)
class _Class:
    singles: frozenset[str]
    ranges: tuple[tuple[str, str], ...]
    negated: bool

    def __call__(self, c: str) -> bool:
        inside = c in self.singles or any(lo <= c <= hi for lo, hi in self.ranges)
        return c != "/" and inside != self.negated


def _class(body: str) -> tuple:
    negated = body[:1] in ("!", "^")
    body = body[1:] if negated else body
    singles, ranges, i = set(), [], 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            ranges.append((body[i], body[i + 2]))
            i += 3
        else:
            singles.add(body[i])
            i += 1
    return ("char", _Class(frozenset(singles), tuple(ranges), negated))


def _literal(c: str) -> tuple:
    return ("char", c.__eq__)


@dataclass
class _Text:
    """A pattern being read: where its `]` and its braces' pairs are, found once (a search from
    each `[` or `{` would be quadratic in a line of them)."""

    glob: str
    git: bool  # git's syntax, else the editor's
    closes: list[int] = field(init=False)
    pairs: dict[int, int] = field(init=False)

    def __post_init__(self) -> None:
        self.closes = [i for i, c in enumerate(self.glob) if c == "]"]
        self.pairs, stack = {}, []
        if not self.git:
            for i, c in enumerate(self.glob):
                if c == "{":
                    stack.append(i)
                elif c == "}" and stack:
                    self.pairs[stack.pop()] = i

    def close_of_class(self, start: int, end: int) -> int:
        """The `]` closing a class opened at `start` (one character at least: `[]]` is `]`), or -1."""
        found = bisect_left(self.closes, start + 2)
        return self.closes[found] if found < len(self.closes) and self.closes[found] < end else -1

    def pieces(self, lo: int, hi: int, depth: int = 0) -> list[tuple]:
        glob, out, i = self.glob, [], lo
        while i < hi:
            c = glob[i]
            if glob.startswith("**", i) and i + 1 < hi:
                end = i + 2
                while end < hi and glob[end] == "*":
                    end += 1
                whole = (i == lo or glob[i - 1] == "/") and (end == hi or glob[end] == "/")
                if not whole:  # git's and the editor's alike: `a**b` is `a*b`
                    out.append(STAR)
                elif out and end == hi:  # `a/**`: the editor's includes `a`, git's only what is under it
                    out[-1:] = [UNDER] if not self.git else [out[-1], ALL]
                elif end == hi:
                    out.append(ALL)
                else:  # `**/`
                    out.append(SEGMENTS)
                    end += 1
                i = end
                continue
            if c == "*":
                out.append(STAR)
            elif c == "?":
                out.append(ONE)
            elif c == "\\" and self.git and i + 1 < hi:
                out.append(_literal(glob[i + 1]))
                i += 1
            elif c == "[" and (close := self.close_of_class(i, hi)) != -1:
                body = glob[i + 1 : close]
                out.append(_class(_unescaped(body) if self.git else body))
                i = close
            elif c == "{" and depth < MAX_BRACE_DEPTH and self.pairs.get(i, hi) < hi:
                close = self.pairs[i]
                out.append(("alt", [self.pieces(a, b, depth + 1) for a, b in self._alternatives(i + 1, close)]))
                i = close
            else:
                out.append(_literal(c))
            i += 1
        return out

    def _alternatives(self, lo: int, hi: int) -> list[tuple[int, int]]:
        parts, start, i = [], lo, lo
        while i < hi:
            if self.glob[i] == "{" and i in self.pairs:
                i = self.pairs[i]
            elif self.glob[i] == ",":
                parts.append((start, i))
                start = i + 1
            i += 1
        return [*parts, (start, hi)]


def _unescaped(body: str) -> str:
    out, i = [], 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            i += 1
        out.append(body[i])
        i += 1
    return "".join(out)


def editor_glob(glob: str) -> list[tuple] | None:
    """A VS Code glob's pieces, over the whole path relative to its folder (None: too long)."""
    return _Text(glob, git=False).pieces(0, len(glob)) if len(glob) <= MAX_PATTERN_CHARS else None


@dataclass(frozen=True)
class IgnoreLine:
    pieces: list[tuple]
    ignores: bool  # false: a `!` line, which takes back what an earlier line ignored
    directories_only: bool  # a line ending in `/`


def gitignore_line(line: str) -> IgnoreLine | None:
    """One `.gitignore` line as git reads it, over a path relative to the file's directory; None
    for a blank line, a comment or a line git cannot read (`!` alone, a trailing `\\`), and for
    one longer than `MAX_PATTERN_CHARS`."""
    if line.startswith("#") or len(line) > MAX_PATTERN_CHARS:
        return None
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(line):  # an escaped space stays
        stripped += " "
    ignores = not stripped.startswith("!")
    body = stripped if ignores else stripped[1:]
    directories_only = body.endswith("/") and not body.endswith("\\/")
    body = body[:-1] if directories_only else body
    if not body or body == "/" or (len(body) - len(body.rstrip("\\"))) % 2 == 1:
        return None
    anchored = "/" in body  # a `/` at the start or in the middle: from the file's directory only
    body = body.removeprefix("/")
    pieces = _Text(body, git=True).pieces(0, len(body))
    return IgnoreLine(pieces if anchored else [SEGMENTS, *pieces], ignores, directories_only)


class _Builder:
    """A nondeterministic automaton: each state's empty moves and its moves on a character."""

    def __init__(self) -> None:
        self.empty: list[list[int]] = []
        self.moves: list[list[tuple[Test, int]]] = []

    def state(self) -> int:
        self.empty.append([])
        self.moves.append([])
        return len(self.empty) - 1

    def sequence(self, pieces: list[tuple], start: int) -> int:
        """The pieces from `start` on; the state they end in. Each piece makes its own states, so a
        state's moves are those of the one piece that follows it."""
        state = start
        for piece in pieces:
            state = self._piece(piece, state)
        return state

    def _piece(self, piece: tuple, start: int) -> int:
        end = self.state()
        kind = piece[0]
        if kind == "char":
            self.moves[start].append((piece[1], end))
        elif kind in ("star", "all"):
            loop = self.state()
            self.empty[start].append(loop)
            self.moves[loop].append((_not_slash if kind == "star" else _any, loop))
            self.empty[loop].append(end)
        elif kind == "segments":  # (?:[^/]+/)*
            loop, name = self.state(), self.state()
            self.empty[start].append(loop)
            self.empty[loop].append(end)
            self.moves[loop].append((_not_slash, name))
            self.moves[name].extend([(_not_slash, name), ("/".__eq__, loop)])
        elif kind == "under":  # (?:/.*)?
            below = self.state()
            self.empty[start].append(end)
            self.moves[start].append(("/".__eq__, below))
            self.moves[below].append((_any, below))
            self.empty[below].append(end)
        else:  # "alt"
            for alternative in piece[1]:
                first = self.state()
                self.empty[start].append(first)
                self.empty[self.sequence(alternative, first)].append(end)
        return end


class _Sets:
    """The sets of states met so far, by number, and their moves on each character met."""

    def __init__(self, automaton: Patterns) -> None:
        self.automaton = automaton
        self.numbers: dict[frozenset[int], int] = {}
        self.states: list[frozenset[int]] = []
        self.last: list[int] = []  # per set: the highest pattern it accepts, -1 none
        self.size = 0  # states in the sets
        self.next: dict[tuple[int, str], int] = {}
        self.lock = threading.Lock()  # a scan's thread and a request's may share a pattern
        self.dead = self.number(frozenset())
        self.start = self.number(automaton.closure({automaton.start}))

    def number(self, states: frozenset[int]) -> int:
        found = self.numbers.get(states)
        if found is None:
            found = self.numbers[states] = len(self.last)
            accepted = [self.automaton.accepts[s] for s in states if s in self.automaton.accepts]
            self.last.append(max(accepted, default=-1))
            self.states.append(states)
            self.size += len(states)
        return found

    def move(self, number: int, c: str) -> int:
        with self.lock:
            moved = {to for s in self.states[number] for test, to in self.automaton.moves[s] if test(c)}
            found = self.next[(number, c)] = self.number(self.automaton.closure(moved))
        return found


class Patterns:
    """Patterns matched together against whole paths: which of them match, in one pass."""

    def __init__(self, patterns: Sequence[list[tuple]]) -> None:
        builder = _Builder()
        self.start = builder.state()
        self.accepts: dict[int, int] = {}  # a pattern's last state -> its index
        for index, pieces in enumerate(patterns):
            first = builder.state()
            builder.empty[self.start].append(first)
            self.accepts[builder.sequence(pieces, first)] = index
        self.empty, self.moves = builder.empty, builder.moves
        self._sets = _Sets(self)

    def closure(self, states: set[int]) -> frozenset[int]:
        """`states` and every state their empty moves reach."""
        seen, todo = set(states), list(states)
        while todo:
            for to in self.empty[todo.pop()]:
                if to not in seen:
                    seen.add(to)
                    todo.append(to)
        return frozenset(seen)

    def last(self, path: str) -> int:
        """The highest index of the patterns that match `path` whole; -1 when none does."""
        sets = self._sets
        if len(sets.next) > _CACHE_MOVES or sets.size > _CACHE_STATES:  # a new cache; a match under way keeps its own
            sets = self._sets = _Sets(self)
        number = sets.start
        for c in path:
            moved = sets.next.get((number, c))
            number = sets.move(number, c) if moved is None else moved
            if number == sets.dead:
                return -1
        return sets.last[number]

    def any(self, path: str) -> bool:
        return self.last(path) >= 0
