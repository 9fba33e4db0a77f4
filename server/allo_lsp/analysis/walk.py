"""A fast walk over a libcst tree: the nodes under a root, by their fields.

libcst's visitors rebuild every node they pass (`_visit_and_replace_children`), several times
slower than reading the fields; where only reading is needed (finding calls, assignments), this
walk is used instead. Whitespace and punctuation fields are skipped: they hold no expression.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import libcst as cst

_SKIPPED = ("whitespace", "lpar", "rpar", "leading_lines", "lines_after", "comma", "semicolon")
_FIELDS: dict[type, tuple[str, ...]] = {}


def walk(root: cst.CSTNode, prune: tuple[type, ...] = ()) -> Iterator[cst.CSTNode]:
    """`root` and every node under it (not in source order: fields are not always in source
    order, `a if b else c`), not descending into nodes of the `prune` types below `root`."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if node is not root and isinstance(node, prune):
            continue
        for name in _fields(type(node)):
            value = getattr(node, name)
            if isinstance(value, cst.CSTNode):
                stack.append(value)
            elif isinstance(value, (list, tuple)):
                stack += [v for v in value if isinstance(v, cst.CSTNode)]


def _fields(kind: type) -> tuple[str, ...]:
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind) if not f.name.startswith(_SKIPPED))
    return names
