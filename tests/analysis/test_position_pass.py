"""The analysis' position pass gives every node the range libcst's `PositionProvider` gives it:
the same nodes, the same starts and ends (whitespace, comments, decorators, parentheses, line
continuations, CRLF and lone CR newlines, and every file the tests and benchmarks analyse)."""

import sys

import libcst as cst
import pytest
from allo_lsp.analysis.chunks import statement_starts
from allo_lsp.analysis.parse import parse
from allo_lsp.analysis.position_pass import positions
from libcst.metadata import PositionProvider
from paths import EXAMPLES, ROOT

sys.path.insert(0, str(ROOT / "bench"))
from generate import generate

FIXTURES = sorted((ROOT / "tests" / "analysis" / "fixtures").glob("*.py")) + sorted(EXAMPLES.glob("*.py"))

ODD = [
    "x = (  # a comment\n    1 +\n    2\n)\n",
    "@df.region()\n@other\ndef f(a: int32[4], *, b=1, **kw) -> None:\n    '''doc\n    string'''\n    return\n",
    "if a:\n    pass\nelif b:  # c\n\n    y = [1,\n         2]\nelse:\n    z = \\\n        3\n",
    "def f():\n\tx = 1\r\n\ty = (2 +\r3)\n",
    "class C(B, metaclass=M):\n    async def g(self):\n        async with a as b, c:\n            await b\n",
    "s = f'{a!r:>{w}} {b}' + b'\\x00' + '''x\ny'''\nlambda *a, **k: (yield)\n",
    "try:\n    pass\nexcept* E as e:\n    raise\nfinally:\n    del x[1:2, ::3]\n",
    "match p:\n    case [1, *r] | {'k': v} if v:\n        pass\n    case C(x=1):\n        pass\n",
    "",
    "\n\n# only a comment",
    "x = 1",  # no trailing newline
]


def libcst_positions(module: cst.Module) -> dict:
    provider = PositionProvider()
    provider._gen_impl(module)
    return provider._computed


def assert_same(source: str) -> None:
    module = parse(source).module  # repaired where a syntax error is (ADF900's fixture)
    ours, theirs = positions(module), libcst_positions(module)
    assert ours.keys() == theirs.keys()
    assert [ours[n] for n in theirs] == list(theirs.values())


@pytest.mark.parametrize("source", ODD, ids=range(len(ODD)))
def test_odd_syntax(source):
    assert_same(source)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixtures_and_examples(path):
    assert_same(path.read_text())


def test_a_generated_file_statement_by_statement():
    lines = generate(1500).text.split("\n")
    starts = statement_starts(lines) + [len(lines)]
    for a, b in zip(starts, starts[1:]):
        assert_same("\n".join(lines[a:b]) + "\n")
