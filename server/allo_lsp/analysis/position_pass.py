"""Node -> CodeRange for a libcst module: libcst's own position pass (`PositionProvider`), its
bookkeeping made cheaper.

The pass is a code generation of the whole tree that records where each node starts and ends;
it was about 45 % of a first analysis. Of that, a third was bookkeeping, not the traversal: a
generator-based context manager per syntactic node (`contextlib`), a regular expression split of
every token for newlines, a frozen dataclass made for every start and end. The state below does
the same arithmetic and records the same ranges (`tests/analysis/test_position_pass.py` compares
them with libcst's for every node of the examples and generated files), with a plain context
manager, a newline test before the split, and one `CodePosition` per distinct point.

MetadataWrapper.resolve would also walk every node once more; the provider's code generation
pass is all positions need (libcst is pinned below 2). It recurses a few frames per node: a
RecursionError here is the analysis' to handle (`deep`).
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import CodePosition, CodeRange
from libcst.metadata.position_provider import NEWLINE_RE, PositionProvider, PositionProvidingCodegenState

# The private members below are why pyproject.toml pins libcst to 1.9.x.


def positions(module: cst.Module) -> dict:
    """Node -> CodeRange, as `PositionProvider` computes them."""
    provider = PositionProvider()
    state = _State(default_indent=module.default_indent, default_newline=module.default_newline, provider=provider)
    state.points = {}
    module._codegen(state)
    return provider._computed


# libcst 1.9 private `_update_position`, `_stack`, `_computed`, `Module._codegen`: no upstream issue found for the pass' cost.
class _State(PositionProvidingCodegenState):
    """`PositionProvidingCodegenState` with the same results at less cost per node."""

    points: dict  # (line, column) -> its CodePosition, shared by every range starting or ending there

    def _point(self) -> CodePosition:
        key = (self.line, self.column)
        found = self.points.get(key)
        if found is None:
            found = self.points[key] = CodePosition(*key)
        return found

    def _update_position(self, value: str) -> None:
        if "\n" in value or "\r" in value:
            segments = NEWLINE_RE.split(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])
        else:
            self.column += len(value)

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._stack.append(self._point())

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self._stack.pop()
        computed = self.provider._computed
        if node not in computed:  # a syntactic position recorded inside wins
            computed[node] = CodeRange(start, self._point())

    def record_syntactic_position(self, node, *, start_node=None, end_node=None) -> _Syntactic:
        return _Syntactic(self, node, start_node, end_node)


class _Syntactic:
    """What `record_syntactic_position`'s context manager does: the node's range from where the
    state was on entry to where it is on exit, or from the start and end of the nodes named."""

    __slots__ = ("end_node", "node", "start", "start_node", "state")

    def __init__(self, state: _State, node, start_node, end_node) -> None:
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node

    def __enter__(self) -> None:
        self.start = self.state._point()

    def __exit__(self, *exc) -> bool:
        state = self.state
        computed = state.provider._computed
        start = computed[self.start_node].start if self.start_node is not None else self.start
        end = computed[self.end_node].end if self.end_node is not None else state._point()
        computed[self.node] = CodeRange(start, end)
        return False
