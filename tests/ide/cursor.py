"""Fixtures with a `$0` cursor, rust-analyzer style."""

from textwrap import dedent

from allo_lsp.analysis.model import Position

HEADER = """\
import allo
from allo.ir.types import int32, Stream
import allo.dataflow as df
import numpy as np

"""


def split_cursor(src: str) -> tuple[str, Position]:
    text = HEADER + dedent(src)
    index = text.index("$0")
    text = text.replace("$0", "", 1)
    line = text.count("\n", 0, index)
    return text, Position(line, index - (text.rfind("\n", 0, index) + 1))


def position_of(text: str, needle: str) -> Position:
    index = text.index(needle)
    line = text.count("\n", 0, index)
    return Position(line, index - (text.rfind("\n", 0, index) + 1))
