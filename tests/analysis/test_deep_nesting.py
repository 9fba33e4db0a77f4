"""Issue 13 item 11: expressions nested as deep as CPython accepts are analysed, whatever walks
them (libcst's visitors and positions recurse a few frames per node: `a[a[...]]` 200 deep used
to be ADF900 "nested too deeply to analyse"). Deeper is reported, never a crash
(tests/reliability/test_fuzz_analysis.py: TOO_DEEP)."""

import subprocess
import sys
import threading

import pytest
from allo_lsp.analysis import analyze, deep
from allo_lsp.check import region_json
from allo_lsp.ide.code_actions import code_actions
from paths import EXAMPLES

BASE = (EXAMPLES / "producer_consumer.py").read_text()

REGION = """
@df.region()
def nested(A: int32[4], B: int32[4]):
    @df.kernel(mapping=[1], args=[A, B])
    def reader(local_A: int32[4], local_B: int32[4]):
        local_B[0] = {expression}
"""


def lines_of(opening: str, depth: int) -> str:
    """`opening` `depth` times, 20 to a line: lines over 1,000 characters are set aside."""
    return "\n".join(opening * min(20, depth - k) for k in range(0, depth, 20))


# Expressions `depth` brackets deep (CPython's limit is 200), reading `local_A` at the bottom.
CONSTRUCTS = {
    "subscripts": lambda depth: lines_of("local_A[", depth) + "0" + "]" * depth,
    "calls": lambda depth: lines_of("int(", depth) + "local_A" + ")" * depth,
    "keyword calls": lambda depth: lines_of("max(0, key=", depth) + "local_A" + ")" * depth,
}
# What Allo itself refuses of a construct (not the analysis giving up): `max(0, key=...)` has one
# positional argument, and build_Call takes exactly two for min and max (ADF089, once per call).
REFUSED = {"keyword calls": "ADF089"}


def with_region(expression: str) -> str:
    return BASE + REGION.format(expression=expression)


@pytest.mark.parametrize("depth", [150, 200])
def test_a_subscript_chain_at_module_level(depth):
    """The issue's case: `a[a[a[...]]]` 200 deep on one line."""
    text = BASE + "\ny = " + "a[" * depth + "0" + "]" * depth + "\n"
    compile(text, "<nested>", "exec")
    analysis = analyze(text)
    assert analysis.problems == []
    assert [r.name for r in analysis.model.regions] == [r.name for r in analyze(BASE).model.regions]


@pytest.mark.parametrize("depth", [199, 200])
@pytest.mark.parametrize("name", CONSTRUCTS)
def test_what_cpython_accepts_is_analysed(name, depth):
    construct = CONSTRUCTS[name]
    text = with_region(construct(depth))
    compile(text, "<nested>", "exec")  # CPython accepts it
    analysis = analyze(text)
    assert {p.code for p in analysis.problems} == ({REFUSED[name]} if name in REFUSED else set())
    # The kernel reading through the nesting is analysed as the same kernel with none.
    flat = analyze(with_region(construct(1))).model
    assert [region_json(r) for r in analysis.model.regions] == [region_json(r) for r in flat.regions]


def test_the_recursion_limit_is_restored():
    limit = sys.getrecursionlimit()
    analyze(with_region(CONSTRUCTS["subscripts"](200)))
    assert sys.getrecursionlimit() == limit


def test_concurrent_deep_analyses():
    """The server analyses documents in several threads at once: each gets the room it needs,
    and the limit goes back when the last one ends."""
    limit = sys.getrecursionlimit()
    texts = [with_region(CONSTRUCTS["subscripts"](200)), with_region(CONSTRUCTS["calls"](200))]
    results: list = [None, None]

    def run(i: int) -> None:
        results[i] = analyze(texts[i]).problems

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert results == [[], []]
    assert sys.getrecursionlimit() == limit


def test_the_callers_stack_does_not_matter():
    """Called with little of the stack left, the analysis is the same."""
    text = with_region(CONSTRUCTS["subscripts"](150))
    expected = analyze(text).problems

    def at_depth(n: int):
        return at_depth(n - 1) if n else analyze(text).problems

    assert at_depth(sys.getrecursionlimit() - 100) == expected == []


@pytest.mark.parametrize(
    "source, levels",
    [
        ("y = " + "a[" * 200 + "0" + "]" * 200, 201),
        ("y = [" + "*[" * 100 + "]" * 100 + "]", 201),
        ("y = " + "+".join(["1"] * 490), 490),
        ("def f():\n    if x:\n        y = -x\n", 2),
    ],
)
def test_nesting_is_counted_as_cpython_builds_it(source, levels):
    assert deep.deepest([(5, source)]) == (levels, 5 + source.count("\n", 0, source.rfind("y = ")))


def test_through_check(tmp_path):
    path = tmp_path / "nested.py"
    path.write_text(with_region(CONSTRUCTS["subscripts"](200)))
    out = subprocess.run(
        [sys.executable, "-m", "allo_lsp", "check", str(path)], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "ADF900" not in out.stdout and "Traceback" not in out.stderr


def test_quick_fixes_on_a_deeply_nested_file():
    """The editor's next step: a problem elsewhere in the file gets its quick fix (the fix's
    tree of the whole file is walked with room for the nesting too)."""
    text = (EXAMPLES / "pitfall_bare_scalar.py").read_text() + "\ny = " + "a[" * 200 + "0" + "]" * 200 + "\n"
    analysis = analyze(text)
    (problem,) = analysis.problems
    assert problem.code == "ADF002"
    assert len(code_actions(text, analysis, problem.range)) == 1


def test_without_room_for_a_large_stack_it_is_too_deep_not_a_crash():
    """Under an address-space limit the deep thread's stack cannot be mapped: the expression is
    reported as too deep to analyse, as before there was room."""
    script = (
        "import resource\n"
        "from allo_lsp.analysis import analyze\n"
        "resource.setrlimit(resource.RLIMIT_AS, (400 << 20, 400 << 20))\n"
        "(p,) = analyze('y = ' + 'a[' * 200 + '0' + ']' * 200 + '\\n').problems\n"
        "print(p.code, p.message)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ADF900 this expression is nested too deeply")
