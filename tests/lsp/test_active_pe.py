"""`alloDataflow/activePe` through the real server over stdio (pytest-lsp, VS Code and Neovim
capabilities): a kernel's PEs for a picker, the branches the chosen PE does not take, its
`get_pid()` values and stream elements, the hover on a put or get for it, the choice remembered
per document and kernel and cleared when the kernel's mapping changes."""

import pytest
from conftest import JOB_SETTINGS
from editor import find
from lsprotocol import types as lsp
from paths import EXAMPLES
from pygls.exceptions import JsonRpcInvalidParams
from test_jobs import change_settings
from test_region_graph import plain

METHOD = "alloDataflow/activePe"
SYSTOLIC = (EXAMPLES / "systolic_gemm.py").read_text()


async def active_pe(editor, uri: str, kernel: str, pe=None, region: str = "top", clear: bool | None = None):
    params: dict = {"textDocument": {"uri": uri}, "region": region, "kernel": kernel, "pe": pe}
    if clear is not None:
        params["clear"] = clear
    return plain(await editor.client.protocol.send_request_async(METHOD, params))


def first_lines(text: str, ranges: list[dict]) -> list[str]:
    lines = text.split("\n")
    return [f"{lines[r['start']['line']].strip()} +{r['end']['line'] - r['start']['line']}" for r in ranges]


def units(editor, text: str) -> int:
    """`text`'s length in the client's position encoding (Neovim offers UTF-8, which the server takes)."""
    return len(text.encode("utf-8")) if editor.name == "neovim" else len(text.encode("utf-16-le")) // 2


def sites(editor, text: str, answer: dict) -> list[tuple]:
    """Each stream site as the source it covers, its element and the peer."""
    lines, found = text.split("\n"), []
    for s in answer["streams"]:
        line = lines[s["range"]["start"]["line"]]
        start = next(c for c in range(len(line) + 1) if units(editor, line[:c]) == s["range"]["start"]["character"])
        end = next(c for c in range(len(line) + 1) if units(editor, line[:c]) == s["range"]["end"]["character"])
        found.append((line[start:end], s["op"], s["element"], s["peer"]))
    return found


async def test_pick_a_pe_of_the_systolic_grid(editor):
    uri = editor.open_example("systolic_gemm.py")
    await editor.analysed(uri)
    listed = await active_pe(editor, uri, "gemm")
    assert listed["active"] is None and (listed["inactive"], listed["hints"], listed["streams"]) == ([], [], [])
    assert len(listed["pes"]) == 36
    assert listed["pes"][0] == {
        "name": "gemm_0_0",
        "pid": [0, 0],
        "role": "meta_if(i in {0, M + 1} and j in {0, N + 1})",
    }
    roles = list(dict.fromkeys(p["role"] for p in listed["pes"]))  # grouped: each role's PEs together
    assert len(roles) == 6 and [p["role"] for p in listed["pes"]] == sorted(
        (p["role"] for p in listed["pes"]), key=roles.index
    )

    answer = await active_pe(editor, uri, "gemm", "gemm_1_2")
    assert answer["active"] == {"name": "gemm_1_2", "pid": [1, 2], "role": "meta_else()"}
    assert first_lines(SYSTOLIC, answer["inactive"]) == [
        "with allo.meta_if(i in {0, M + 1} and j in {0, N + 1}): +1",
        "with allo.meta_elif(j == 0): +2",
        "with allo.meta_elif(i == 0): +2",
        "with allo.meta_elif(i == M + 1 and j > 0): +2",
        "with allo.meta_elif(j == N + 1 and i > 0): +2",
    ]
    line, column = find(SYSTOLIC, "i, j = df.get_pid()", nth=1)  # the first is in the docstring
    assert answer["hints"][0] == {
        "position": {"line": line, "character": column + len("i, j = df.get_pid()")},
        "label": "i = 1, j = 2",
    }
    assert [h["label"] for h in answer["hints"][1:]] == ["= [1, 2]", "= [1, 2]", "= [1, 3]", "= [2, 2]"]
    assert sites(editor, SYSTOLIC, answer) == [
        ("fifo_A[i, j].get", "get", "fifo_A[1, 2]", "gemm_1_1"),
        ("fifo_B[i, j].get", "get", "fifo_B[1, 2]", "gemm_0_2"),
        ("fifo_A[i, j + 1].put", "put", "fifo_A[1, 3]", "gemm_1_3"),
        ("fifo_B[i + 1, j].put", "put", "fifo_B[2, 2]", "gemm_2_2"),
    ]

    # The hover on the put names the element and the PE at the other end; the stream's own
    # hover (on its name) keeps its text and adds the same line.
    line, column = find(SYSTOLIC, "fifo_A[i, j + 1].put(a)")
    on_put = await editor.hover(uri, line, column + len("fifo_A[i, j + 1]."))
    assert on_put == "PE `gemm_1_2` puts `fifo_A[1, 3]` -> `gemm_1_3`"
    on_name = await editor.hover(uri, line, column + 2)
    assert on_name.startswith("**stream `fifo_A`**") and on_name.endswith(
        "PE `gemm_1_2` puts `fifo_A[1, 3]` -> `gemm_1_3`"
    )
    line, column = find(SYSTOLIC, "fifo_A[i, j].get()", nth=1)
    assert await editor.hover(uri, line, column + len("fifo_A[i, j].g")) == (
        "Allo type `Int(32)` (Allo prints `i32`)\n\nPE `gemm_1_2` gets `fifo_A[1, 2]` <- `gemm_1_1`"
    )
    # A put this PE does not run (the loaders' branch) has no PE line.
    line, column = find(SYSTOLIC, "fifo_A[i, j + 1].put(local_A")
    assert await editor.hover(uri, line, column + len("fifo_A[i, j + 1].p")) is None

    # Remembered: asked again without a PE, the choice is the same; `clear` forgets it.
    again = await active_pe(editor, uri, "gemm")
    assert again["active"]["name"] == "gemm_1_2" and again["streams"] == answer["streams"]
    # A name that is not one of the kernel's PEs changes nothing.
    assert (await active_pe(editor, uri, "gemm", "gemm_7_7"))["active"]["name"] == "gemm_1_2"
    cleared = await active_pe(editor, uri, "gemm", clear=True)
    assert cleared["active"] is None and cleared["inactive"] == []
    line, column = find(SYSTOLIC, "fifo_A[i, j + 1].put(a)")
    assert await editor.hover(uri, line, column + len("fifo_A[i, j + 1].p")) is None


async def test_the_choice_follows_edits_and_a_new_mapping_clears_it(editor):
    uri = editor.open(SYSTOLIC, "systolic_follows.py")
    await editor.analysed(uri)
    before = await active_pe(editor, uri, "gemm", [2, 0])  # a pid picks too
    assert before["active"]["name"] == "gemm_2_0"
    # Two lines above the kernel: every range follows, the choice stays.
    edited = SYSTOLIC.replace("M, N, K = 4, 4, 4\n", "M, N, K = 4, 4, 4\n# a comment\n# another\n")
    version = editor.replace_all(uri, edited)
    await editor.diagnostics(uri, version)
    after = await active_pe(editor, uri, "gemm")
    assert after["active"]["name"] == "gemm_2_0"
    assert [r["start"]["line"] for r in after["inactive"]] == [r["start"]["line"] + 2 for r in before["inactive"]]
    assert first_lines(edited, after["inactive"]) == first_lines(SYSTOLIC, before["inactive"])
    line, column = find(edited, "fifo_A[i, j + 1].put(local_A")
    assert await editor.hover(uri, line, column + len("fifo_A[i, j + 1].p")) == (
        "PE `gemm_2_0` puts `fifo_A[2, 1]` -> `gemm_2_1`"
    )
    # A half-typed line above: the last text that parsed answers, its ranges moved to this text.
    broken = edited.replace("# a comment\n", "# a comment\nx = (\n")
    version = editor.replace_all(uri, broken)
    await editor.diagnostics(uri, version)
    moved = await active_pe(editor, uri, "gemm")
    assert moved["active"]["name"] == "gemm_2_0"
    assert first_lines(broken, moved["inactive"]) == first_lines(SYSTOLIC, before["inactive"])
    assert [r["start"]["line"] for r in moved["inactive"]] == [r["start"]["line"] + 3 for r in before["inactive"]]
    # Another grid: the PE the user chose is not the same PE any more.
    regrid = edited.replace("M, N, K = 4, 4, 4", "M, N, K = 3, 4, 4")
    version = editor.replace_all(uri, regrid)
    await editor.diagnostics(uri, version)
    assert (await active_pe(editor, uri, "gemm"))["active"] is None
    assert await editor.hover(uri, line, column + len("fifo_A[i, j + 1].p")) is None


def design(body: str, mapping: str = "[2, 2]") -> str:
    """A kernel `k` over `mapping` running `body` (indented 8) after `pi, pj = df.get_pid()`, and
    a sink for its stream array `s[2]`. The parameter 𠀀 (one code point, two UTF-16 units, four
    UTF-8 bytes) sits before the sites on their lines: the columns differ by encoding."""
    return f"""\
import allo
from allo.ir.types import int32, Stream
import allo.dataflow as df


@df.region()
def top(A: int32[4]):
    s: Stream[int32, 2][2]

    @df.kernel(mapping={mapping}, args=[A])
    def k(𠀀: int32[4]):
        pi, pj = df.get_pid()
{body}
    @df.kernel(mapping=[2], args=[A])
    def sink(local_A: int32[4]):
        p = df.get_pid()
        local_A[p] = s[p].get()
"""


NESTED_AND_SPLIT = design("""\
        with allo.meta_if(pi == 0):
            with allo.meta_if(pj == 0):
                𠀀[0] = 1; s[pj + 1].put(𠀀[0])
            with allo.meta_else():
                𠀀[0] = 2
        𠀀[1] = 0
        with allo.meta_else():
            with allo.meta_for(2) as t:
                with allo.meta_if(pj == 1):
                    𠀀[2] = t; s[pi + pj - 2].put(𠀀[2])
                𠀀[3] = 0
                with allo.meta_else():
                    𠀀[3] = t; s[t].put(𠀀[3])
""")


@pytest.mark.parametrize(
    "pe, inactive, hints, streams",
    [
        (
            "k_0_0",
            ["with allo.meta_else(): +1", "with allo.meta_else(): +6"],
            ["pi = 0, pj = 0", "= [1]"],
            [("s[pj + 1].put", "put", "s[1]", "sink_1")],
        ),
        (
            "k_1_1",  # the meta_else split from its meta_if by a statement, a meta_for's chain inside
            ["with allo.meta_if(pi == 0): +4", "with allo.meta_else(): +1"],
            ["pi = 1, pj = 1", "= [0]"],
            [("s[pi + pj - 2].put", "put", "s[0]", "sink_0")],
        ),
        (
            "k_1_0",
            ["with allo.meta_if(pi == 0): +4", "with allo.meta_if(pj == 1): +1"],
            ["pi = 1, pj = 0"],
            [("s[t].put", "put", None, None)],  # t is the meta_for's: not folded
        ),
    ],
)
async def test_nested_and_split_chains_and_meta_for(editor, pe, inactive, hints, streams):
    uri = editor.open(NESTED_AND_SPLIT, "nested.py")
    await editor.analysed(uri)
    answer = await active_pe(editor, uri, "k", pe)
    assert first_lines(NESTED_AND_SPLIT, answer["inactive"]) == inactive
    assert [h["label"] for h in answer["hints"]] == hints
    assert sites(editor, NESTED_AND_SPLIT, answer) == streams
    # Positions count the client's units: the hint after a subscript that follows 𠀀 on its line.
    for hint in answer["hints"][1:]:
        line = NESTED_AND_SPLIT.split("\n")[hint["position"]["line"]]
        column = line.index("].put") + 1
        assert hint["position"]["character"] == units(editor, line[:column])


async def test_a_sink_of_a_stream_array_indexed_by_pid_arithmetic(editor):
    uri = editor.open(NESTED_AND_SPLIT, "sink.py")
    await editor.analysed(uri)
    answer = await active_pe(editor, uri, "sink", "sink_1")
    # k_0_0 puts s[1]; k_1_* may put any element (their index does not fold): their kernel.
    assert [(s["element"], s["peers"]) for s in answer["streams"]] == [("s[1]", ["k_0_0", "k"])]
    assert answer["streams"][0]["peer"] is None  # more than one end: the list says who


async def test_a_hierarchical_region(editor):
    uri = editor.open_example("hierarchical.py")
    await editor.analysed(uri)
    outer = await active_pe(editor, uri, "wrapper", "wrapper_0")
    assert outer["active"]["name"] == "wrapper_0" and outer["streams"] == [] and outer["inactive"] == []
    inner = await active_pe(editor, uri, "offset", "offset_0", region="inner")
    text = (EXAMPLES / "hierarchical.py").read_text()
    assert sites(editor, text, inner) == [("doubled.get", "get", "doubled", "scale_0")]
    line, column = find(text, "doubled.get()")
    on_get = await editor.hover(uri, line, column + len("doubled.g"))  # the call's type, then the PE's line
    assert on_get == "Allo type `Int(32)` (Allo prints `i32`)\n\nPE `offset_0` gets `doubled` <- `scale_0`"
    # Each kernel has its own choice: the outer one is still chosen, until the document is closed.
    assert (await active_pe(editor, uri, "wrapper"))["active"]["name"] == "wrapper_0"
    editor.client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri)))
    uri = editor.open_example("hierarchical.py")
    await editor.analysed(uri)
    assert (await active_pe(editor, uri, "wrapper"))["active"] is None


async def test_no_such_kernel_is_null_and_bad_params_are_refused(editor):
    uri = editor.open_example("systolic_gemm.py")
    await editor.analysed(uri)
    assert await active_pe(editor, uri, "missing") is None
    assert await active_pe(editor, uri, "gemm", region="missing") is None
    assert await active_pe(editor, "file:///nowhere/never_opened.py", "gemm") is None
    with pytest.raises(JsonRpcInvalidParams, match="pe must be a PE's name or pid"):
        await active_pe(editor, uri, "gemm", 12)
    with pytest.raises(JsonRpcInvalidParams, match="kernel is missing"):
        await editor.client.protocol.send_request_async(METHOD, {"textDocument": {"uri": uri}, "region": "top"})


TRACED = """\
import allo
from allo.ir.types import int32, Stream
import allo.dataflow as df


@df.region()
def top(A: int32[2, 8], B: int32[2, 8]):
    s: Stream[int32, 2][2]

    @df.kernel(mapping=[2], args=[A])
    def producer(local_A: int32[2, 8]):
        p = df.get_pid()
        for i in range(8):
            s[p].put(local_A[p, i] * 10)

    @df.kernel(mapping=[2], args=[B])
    def consumer(local_B: int32[2, 8]):
        q = df.get_pid()
        for i in range(8):
            local_B[q, i] = s[1 - q].get()
"""


async def test_after_a_reference_run_the_hover_shows_the_first_values(job_editor, tmp_path):
    """While a PE is active, a simulation keeps a trace (the job's `trace` option) and the hover
    on a put or get shows what that PE put or got there."""
    await change_settings(job_editor, {**JOB_SETTINGS, "backend": "reference"})
    path = tmp_path / "traced.py"
    path.write_text(TRACED)
    uri = job_editor.open(TRACED, path=path)
    await job_editor.analysed(uri)
    line, column = find(TRACED, "s[p].put(")
    on_put = (line, column + len("s[p].p"))
    # A run while no PE is chosen keeps no trace: the hover says the element alone.
    assert (await plain_click(job_editor, uri))["status"] == "passed"
    answer = await active_pe(job_editor, uri, "producer", "producer_1")
    assert sites(job_editor, TRACED, answer) == [("s[p].put", "put", "s[1]", "consumer_0")]
    assert await job_editor.hover(uri, *on_put) == "PE `producer_1` puts `s[1]` -> `consumer_0`"
    assert (await plain_click(job_editor, uri))["status"] == "passed"
    # The PE put 8 values: A[1, :] * 10 as the test's inputs are made (the job's seeded arrays).
    hover = await job_editor.hover(uri, *on_put)
    head, run = hover.split("\n\n")
    assert head == "PE `producer_1` puts `s[1]` -> `consumer_0`"
    assert run.startswith("Last reference run: `producer_1` put 8 values: `") and run.count("`, `") == 7
    await active_pe(job_editor, uri, "consumer", "consumer_0")
    line, column = find(TRACED, "s[1 - q].get()")
    got = await job_editor.hover(uri, line, column + len("s[1 - q].g"))
    assert got.endswith(run.split("values: ")[1]) and "`consumer_0` got 8 values" in got  # what producer_1 put


async def plain_click(editor, uri: str) -> dict:
    return plain(await editor.click(uri, "▶ Simulate", "top"))
