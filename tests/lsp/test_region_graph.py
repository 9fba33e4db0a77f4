"""`allo/regionGraph` through the real server over stdio (pytest-lsp, VS Code and Neovim
capabilities): the graph of a region as the webview receives it, collapsed and expanded, its
ranges in UTF-16, following edits, and a deadlocked reference run drawn on it."""

from paths import EXAMPLES
from test_jobs import change_settings

METHOD = "allo/regionGraph"


def plain(value):
    """The answer as JSON values (pygls hands a custom request's result over as it came, or as
    named tuples)."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


async def region_graph(editor, uri: str, region: str | None = "top", expand: bool | None = None):
    params: dict = {"textDocument": {"uri": uri}}
    if region is not None:
        params["region"] = region
    if expand is not None:
        params["expand"] = expand
    return plain(await editor.client.protocol.send_request_async(METHOD, params))


def stream_edges(graph: dict) -> set[tuple]:
    return {(e["stream"], e["source"], e["target"]) for e in graph["edges"] if e["kind"] == "stream"}


async def test_the_systolic_grid_collapsed_and_expanded(editor):
    uri = editor.open_example("systolic_gemm.py")
    await editor.diagnostics(uri)
    collapsed = await region_graph(editor, uri)
    assert (collapsed["region"], collapsed["expanded"]) == ("top", False)
    assert [(n["id"], n["kind"], n["peCount"]) for n in collapsed["nodes"] if n["kind"] != "port"] == [
        ("gemm", "kernel", 36)
    ]
    assert stream_edges(collapsed) == {("fifo_A", "gemm", "gemm"), ("fifo_B", "gemm", "gemm")}
    expanded = await region_graph(editor, uri, expand=True)
    pes = [n for n in expanded["nodes"] if n["kind"] == "pe"]
    assert len(pes) == 36 and {n["parent"] for n in pes} == {"gemm"}
    inner = next(n for n in pes if n["name"] == "gemm_2_3")
    assert (inner["pe"], inner["role"]) == ([2, 3], "meta_else()")
    edges = {e["id"]: e for e in expanded["edges"]}
    edge = edges["fifo_A[2, 3]:gemm_2_2->gemm_2_3"]
    assert (edge["index"], edge["depth"], edge["type"], edge["overlay"]) == ([2, 3], 4, "int32", None)
    # Ranges point at the source: the kernel's name, the stream's declaration.
    lines = (EXAMPLES / "systolic_gemm.py").read_text().split("\n")
    start = inner["range"]["start"]
    assert lines[start["line"]][start["character"] :].startswith("gemm(")
    start = edge["range"]["start"]
    assert lines[start["line"]][start["character"] :].startswith("fifo_A: Stream")


# 𠀀 (U+20000) is one code point, two UTF-16 units and four UTF-8 bytes: every column after it
# differs by what the client counts in (Neovim's capabilities offer UTF-8, which the server takes).
WIDE = """\
@df.region()
def top(𠀀: int32[8], B: int32[8]):
    pipe: Stream[int32, 2]

    @df.kernel(mapping=[1], args=[𠀀])
    def producer(local_A: int32[8]):
        for i in range(8):
            pipe.put(local_A[i])

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: int32[8]):
        for i in range(8):
            local_B[i] = pipe.get()
"""


async def test_ranges_count_utf16_units(editor):
    uri = editor.open(WIDE, "wide.py")
    await editor.diagnostics(uri)
    graph = await region_graph(editor, uri)
    port = next(p for p in graph["ports"] if p["name"] == "B")
    before = WIDE.split("\n")[1].split("B:")[0]  # the line up to the parameter's name
    units = len(before.encode("utf-8" if editor.name == "neovim" else "utf-16-le")) // (
        1 if editor.name == "neovim" else 2
    )
    assert port["range"]["start"] == {"line": 1, "character": units}
    assert port["range"]["end"] == {"line": 1, "character": units + 1}
    assert stream_edges(graph) == {("pipe", "producer", "consumer")}


async def test_the_graph_follows_an_edit(editor):
    text = (EXAMPLES / "producer_consumer.py").read_text()
    uri = editor.open(text, "follows.py")
    await editor.diagnostics(uri)
    before = await region_graph(editor, uri, region=None)  # no name: the file's first region
    assert stream_edges(before) == {("pipe", "producer", "consumer")}
    relay = (
        "    @df.kernel(mapping=[1])\n"
        "    def relay():\n"
        "        for i in range(M * N):\n"
        "            pipe2.put(pipe.get())\n\n"
    )
    edited = text.replace("    pipe: Stream[int32, 4]\n", "    pipe: Stream[int32, 4]\n    pipe2: Stream[int32, 4]\n")
    edited = edited.replace("    @df.kernel(mapping=[1], args=[B])", relay + "    @df.kernel(mapping=[1], args=[B])")
    edited = edited.replace("v: int32 = pipe.get()", "v: int32 = pipe2.get()")
    version = editor.replace_all(uri, edited)
    await editor.diagnostics(uri, version)
    after = await region_graph(editor, uri)
    assert stream_edges(after) == {("pipe", "producer", "relay"), ("pipe2", "relay", "consumer")}
    relay_node = next(n for n in after["nodes"] if n["id"] == "relay")
    assert edited.split("\n")[relay_node["range"]["start"]["line"]].strip().startswith("def relay(")


async def test_no_such_region_or_document_is_null(editor):
    uri = editor.open_example("hierarchical.py")
    await editor.diagnostics(uri)
    assert await region_graph(editor, uri, region="missing") is None
    assert await region_graph(editor, "file:///nowhere/never_opened.py") is None
    graph = await region_graph(editor, uri, region="top")
    assert {n["id"]: n["parent"] for n in graph["nodes"] if n["kind"] == "region"} == {"wrapper/inner": "wrapper"}


async def test_a_deadlocked_reference_run_is_drawn_on_the_graph(job_editor, tmp_path):
    await change_settings(job_editor, {"debounceMs": 50, "backend": "reference"})
    path = tmp_path / "deadlock.py"
    path.write_text((EXAMPLES / "pitfall_deadlock_stream.py").read_text())
    uri = job_editor.open(path.read_text(), path=path)
    await job_editor.diagnostics(uri)
    assert (await region_graph(job_editor, uri))["overlay"]["run"] is None  # nothing ran yet
    result = plain(await job_editor.click(uri, "▶ Simulate", "top"))
    assert (result["status"], result["cause"]) == ("failed", "deadlock")
    graph = await region_graph(job_editor, uri, expand=True)
    assert graph["overlay"]["run"]["deadlock"] is True
    blocked = {n["name"]: n["overlay"]["run"]["blocked"][0] for n in graph["nodes"] if n["overlay"]}
    assert {name: (w["op"], w["fifo"], w["state"]) for name, w in blocked.items()} == {
        "producer_0": ("put", "tap", "full"),
        "consumer_0": ("get", "pipe", "empty"),
    }
    tap = next(e for e in graph["edges"] if e["stream"] == "tap")
    assert (tap["source"], tap["target"]) == ("producer_0", None)
    (wait,) = tap["overlay"]["run"]["blocked"]
    assert (wait["occupancy"], wait["depth"]) == (4, 4)
    # A deeper `tap` completes but leaves its 16 elements unread: an imbalance, no depth offered
    # (tests/lsp/test_fifo_leftover.py: a balanced deadlock's depth).
    assert tap["overlay"]["run"]["sizedDepth"] is None
