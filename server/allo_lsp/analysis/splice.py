"""An edit inside one nested statement of a chunk: only that statement is parsed again.

While the user types in a kernel, the chunk (the whole top-level region or test function) would
be parsed and walked for positions again, though only the kernel's lines changed: at 500 lines
that was most of an edit's cost. Here the innermost statement below the top level whose lines
hold the edit (a kernel, its loop, one line of it) is parsed alone, at its own columns, inside
`if 1:` headers indented as its enclosing blocks are (so its tree and positions are the ones a
parse of the whole chunk gives), and spliced into the chunk's tree: the nodes around it are
rebuilt (`with_changes`), every other node and position is the previous parse's, moved down by
the lines the edit added.

Only where that is exact: the statement's first and last lines are its own (decorators
included, no comment or indented blank line after it that a block's footer could own), the
statement parses alone into one statement of the same kind at the same indentation, and the
wrapper's indentation is the module's. Anything else returns None and the chunk is parsed whole.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import libcst as cst
from libcst.metadata import CodePosition, CodeRange

from allo_lsp.analysis.parse import PARSE_FAILURES

_Path = list[tuple[cst.CSTNode, str, int | None]]  # (node, field, index in the field's tuple)


def reparsed(
    module: cst.Module,
    positions: dict,
    old: list[str],
    new: list[str],
    first: int,
    positions_of: Callable[[cst.Module], dict],
):
    """(module, positions) of the chunk whose lines went from `old` to `new` (the lines differ
    from `first` on, 0-based in the chunk), or None. `positions_of`: a module's positions."""
    delta = len(new) - len(old)
    old_end = _old_end(old, new, first)
    # The old lines (1-based) the edit replaced; a pure insertion, the two lines around it.
    top, bottom = (first + 1, old_end) if old_end > first else (first, first + 1)
    found = _innermost(module, positions, top, bottom)
    if found is None:
        return None
    path, stmt = found
    span = (_first_line(stmt, positions), positions[stmt].end.line)  # 1-based, in `old`
    if not _own_lines(old, span) or not _own_lines(new, (span[0], span[1] + delta)):
        return None
    if not _is_code(old[span[0] - 1]) or not _is_code(new[span[0] - 1]):
        return None  # a comment there would be the statement's leading lines
    indent = _lead(old[span[0] - 1])
    if _lead(new[span[0] - 1]) != indent:
        return None
    headers = [_lead(old[_first_line(node, positions) - 1]) + "if 1:" for node, _, _ in path if _is_statement(node)]
    text = "\n".join(headers + new[span[0] - 1 : span[1] + delta]) + "\n"
    try:
        wrapper = cst.parse_module(text)
    except PARSE_FAILURES:
        return None
    if wrapper.default_indent != module.default_indent or wrapper.default_newline != module.default_newline:
        return None
    parsed = _unwrap(wrapper, len(headers))
    if parsed is None or type(parsed) is not type(stmt):
        return None
    try:
        inner = positions_of(wrapper)
    except RecursionError:
        return None
    spliced = parsed.with_changes(leading_lines=stmt.leading_lines)
    shift = span[0] - len(headers) - 1  # wrapper line -> chunk line
    table = _without(positions, stmt)
    new_range = _moved(inner[parsed], shift)
    for node in _subtree(parsed):
        if node is not parsed and node in inner:
            table[node] = _moved(inner[node], shift)
    table[spliced] = new_range
    old_range = positions[stmt]
    if delta:
        for node, r in positions.items():
            if node in table and r.start.line > span[1]:
                table[node] = _moved(r, delta)
    rebuilt = spliced
    for node, name, index in reversed(path):
        r = positions.get(node)
        child = rebuilt
        value = getattr(node, name)
        rebuilt = node.with_changes(**{name: child if index is None else (*value[:index], child, *value[index + 1 :])})
        table.pop(node, None)
        if r is not None:
            moved = _around(r, old_range, new_range, span[1], delta)
            if moved is None:
                return None
            table[rebuilt] = moved
    return rebuilt, table


def _old_end(old: list[str], new: list[str], first: int) -> int:
    """The old lines' end (exclusive, 0-based) of the edit starting at `first`."""
    limit = min(len(old), len(new)) - first
    same_tail = next((i for i in range(limit) if old[-1 - i] != new[-1 - i]), limit)
    return len(old) - same_tail


def _innermost(module: cst.Module, positions: dict, top: int, bottom: int):
    """The path to the innermost statement below the top level whose lines (1-based, decorators
    included) hold lines `top` to `bottom`, and that statement; None when only a top-level one does."""
    path: _Path = []
    node, name, statements = module, "body", module.body
    found = None
    while True:
        hit = None
        for i, stmt in enumerate(statements):
            r = positions.get(stmt)
            if r is not None and _first_line(stmt, positions) <= top and bottom <= r.end.line:
                hit = i, stmt
                break
        if hit is None:
            break
        i, stmt = hit
        path.append((node, name, i))
        found = list(path), stmt
        block = getattr(stmt, "body", None)
        if not isinstance(block, cst.IndentedBlock):
            break
        path.append((stmt, "body", None))
        node, name, statements = block, "body", block.body
    if found is None or len(found[0]) < 2:
        return None  # a top-level statement: the chunk itself
    return found


def _first_line(stmt: cst.CSTNode, positions: dict) -> int:
    decorators = getattr(stmt, "decorators", ())
    return positions[decorators[0]].start.line if decorators else positions[stmt].start.line


def _own_lines(lines: list[str], span: tuple[int, int]) -> bool:
    """The statement on `span` (1-based lines) ends on a line of code, and what follows it up to
    the next line of code is empty lines only: nothing a block's footer could own."""
    top, bottom = span
    if not 1 <= top <= bottom <= len(lines) or not _is_code(lines[bottom - 1]):
        return False
    for line in lines[bottom:]:
        if line:
            return _is_code(line)
    return True


def _is_code(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def _lead(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _is_statement(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.BaseStatement)


def _unwrap(wrapper: cst.Module, depth: int) -> cst.CSTNode | None:
    """The one statement inside `depth` nested `if 1:` blocks."""
    statements = wrapper.body
    for _ in range(depth):
        if len(statements) != 1 or not isinstance(statements[0], cst.If) or statements[0].orelse is not None:
            return None
        statements = statements[0].body.body
    return statements[0] if len(statements) == 1 else None


def _without(positions: dict, stmt: cst.CSTNode) -> dict:
    """`positions` less the nodes of `stmt`'s subtree (its leading lines aside: they are kept)."""
    table = dict(positions)
    for node in _subtree(stmt):
        table.pop(node, None)
    return table


def _subtree(stmt: cst.CSTNode) -> list[cst.CSTNode]:
    """`stmt` and every node under it, whitespace included, its leading lines (and theirs) aside."""
    out, stack = [], [stmt]
    keep = set(stmt.leading_lines)
    while stack:
        node = stack.pop()
        out.append(node)
        for name in _fields(type(node)):
            value = getattr(node, name)
            if isinstance(value, cst.CSTNode):
                if value not in keep:
                    stack.append(value)
            elif isinstance(value, (tuple, list)):
                stack += [v for v in value if isinstance(v, cst.CSTNode) and v not in keep]
    return out


_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(kind: type) -> tuple[str, ...]:
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind))
    return names


def _moved(r: CodeRange, lines: int) -> CodeRange:
    if not lines:
        return r
    return CodeRange(CodePosition(r.start.line + lines, r.start.column), CodePosition(r.end.line + lines, r.end.column))


def _around(r: CodeRange, old: CodeRange, new: CodeRange, bottom: int, delta: int) -> CodeRange | None:
    """The range of a node around the edited statement: its start is before the statement's or
    the same, its end the same as the statement's or on a line after the statement's last."""
    if r.start == old.start:
        start = new.start
    elif (r.start.line, r.start.column) < (old.start.line, old.start.column):
        start = r.start
    else:
        return None
    if r.end == old.end:
        end = new.end
    elif r.end.line > bottom:
        end = CodePosition(r.end.line + delta, r.end.column)
    else:
        return None
    return CodeRange(start, end)
