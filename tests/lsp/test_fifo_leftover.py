"""Elements a reference run leaves unread in a FIFO, through the server (issue 26 item 3).

A put/get imbalance is not a FIFO-depth problem: a deadlock whose deeper re-run completes with
elements left unread offers no depth, names the leftover in the result and puts a diagnostic on
the stream; a run that completes with elements left passes with a warning in the lens and on
the stream's declaration; a balanced deadlock still offers the depth, and the fixed design
passes with every FIFO empty. Each lens names the backend that ran.
"""

from conftest import JOB_SETTINGS
from designs import line_of
from lsprotocol import types as lsp
from paths import EXAMPLES
from test_jobs import change_settings, run_problems

HEADER = (EXAMPLES / "pitfall_deadlock_stream.py").read_text().split("@df.region()")[0]

# `s1` put twice per iteration and got once (ADF026): 4 deep, the producer blocks after the
# consumer ended; 16 deep the run completes with 8 elements never read.
PUT_TWICE = """\
@df.region()
def top(A: int32[8], B: int32[8]):
    s1: Stream[int32, DEPTH]

    @df.kernel(mapping=[1], args=[A])
    def producer(local_A: int32[8]):
        for i in range(8):
            s1.put(local_A[i])
            s1.put(local_A[i] + 1)

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: int32[8]):
        for i in range(8):
            local_B[i] = s1.get()
"""

# Balanced (M puts, M gets on `tap`) but `tap` too shallow: the consumer first waits on `ctl`,
# which the producer puts only after all of `tap`'s.
SHALLOW = """\
@df.region()
def top(A: int32[M], B: int32[M]):
    tap: Stream[int32, 2]
    ctl: Stream[int32, 2]

    @df.kernel(mapping=[1], args=[A])
    def producer(local_A: int32[M]):
        for i in range(M):
            tap.put(local_A[i])
        ctl.put(1)

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: int32[M]):
        go = ctl.get()
        for i in range(M):
            local_B[i] = tap.get() + go
"""


async def simulate(editor, tmp_path, text: str, name: str = "design.py"):
    """`text` saved and opened, simulated on the reference executor through the lens's command."""
    await change_settings(editor, {**JOB_SETTINGS, "backend": "reference", "trusted": True})
    path = tmp_path / name
    path.write_text(text)
    uri = editor.open(text, path=path)
    await editor.diagnostics(uri)
    return path, uri, await editor.click(uri, "▶ Simulate", "top")


async def actions_at(editor, uri: str, diagnostic: lsp.Diagnostic) -> list[str]:
    actions = await editor.client.text_document_code_action_async(
        lsp.CodeActionParams(
            lsp.TextDocumentIdentifier(uri), diagnostic.range, lsp.CodeActionContext(diagnostics=[diagnostic])
        )
    )
    return [a.title for a in actions or []]


async def assert_an_imbalance_without_a_depth(editor, uri, path, result, stream: str, elements: int):
    assert (result["status"], result["cause"], result["backend"]) == ("failed", "deadlock", "reference")
    # The result says it (its details stay with the server: the CLI's JSON has them).
    assert f"but leaves {elements} elements unread in `{stream}`: a put/get imbalance" in result["message"]
    assert "completes with depth" not in result["message"]
    await run_problems(editor, uri)
    (left,) = [d for d in editor.run_diagnostics(uri) if d.code == "fifo_leftover"]
    assert left.range.start.line + 1 == line_of(path, f"{stream}: Stream")
    assert left.severity == lsp.DiagnosticSeverity.Error
    assert f"leaves {elements} elements unread in `{stream}`" in left.message
    assert not [d for d in editor.run_diagnostics(uri) if d.code == "fifo_depth"]
    assert not [t for t in await actions_at(editor, uri, left) if t.startswith("Set the depth")]
    title = (await editor.lens_titles(uri))[0]
    assert title.startswith("▶ Simulate: ✗ deadlock line") and title.endswith(" · reference")


async def test_the_deadlock_example_is_an_imbalance_and_offers_no_depth(job_editor, tmp_path):
    text = (EXAMPLES / "pitfall_deadlock_stream.py").read_text()
    path, uri, result = await simulate(job_editor, tmp_path, text)
    await assert_an_imbalance_without_a_depth(job_editor, uri, path, result, "tap", 16)


async def test_a_stream_put_twice_and_got_once_offers_no_depth(job_editor, tmp_path):
    path, uri, result = await simulate(job_editor, tmp_path, HEADER + PUT_TWICE.replace("DEPTH", "4"))
    await assert_an_imbalance_without_a_depth(job_editor, uri, path, result, "s1", 8)


async def test_a_run_that_completes_with_elements_unread_passes_with_a_warning(job_editor, tmp_path):
    path, uri, result = await simulate(job_editor, tmp_path, HEADER + PUT_TWICE.replace("DEPTH", "16"))
    assert (result["status"], result["backend"]) == ("passed", "reference")
    hover = await job_editor.hover(uri, line_of(path, "s1: Stream") - 1, 5)
    assert "Last reference run: 16 puts, 8 gets" in hover and "**8 elements left unread**" in hover
    title = (await job_editor.lens_titles(uri))[0]
    assert title.startswith("▶ Simulate: ⚠ passed, 8 elements left unread in s1 · ") and title.endswith(" · reference")
    (left,) = await run_problems(job_editor, uri)
    assert (left.code, left.severity) == ("fifo_leftover", lsp.DiagnosticSeverity.Warning)
    assert left.range.start.line + 1 == line_of(path, "s1: Stream")
    assert left.message.startswith("8 elements left unread in `s1` when the run completed (16 puts, 8 gets)")


async def test_a_balanced_deadlock_offers_the_depth_and_the_fixed_design_passes_with_every_fifo_empty(
    job_editor, tmp_path
):
    path, uri, result = await simulate(job_editor, tmp_path, HEADER + SHALLOW)
    assert (result["status"], result["cause"]) == ("failed", "deadlock")
    assert "Larger FIFOs: completes with depth of `tap` >= 16 (declared 2)" in result["message"]
    await run_problems(job_editor, uri)
    (sized,) = [d for d in job_editor.run_diagnostics(uri) if d.code == "fifo_depth"]
    assert sized.message == "deadlock: completes with depth of `tap` >= 16 (declared 2)"
    assert not [d for d in job_editor.run_diagnostics(uri) if d.code == "fifo_leftover"]
    assert "Set the depth of `tap` to 16 (the smallest that does not deadlock)" in await actions_at(
        job_editor, uri, sized
    )
    fixed = (HEADER + SHALLOW).replace("tap: Stream[int32, 2]", "tap: Stream[int32, 16]")
    path.write_text(fixed)
    version = job_editor.replace_all(uri, fixed)
    await job_editor.diagnostics(uri, version)
    result = await job_editor.click(uri, "▶ Simulate", "top")
    assert (result["status"], result["backend"]) == ("passed", "reference")
    hover = await job_editor.hover(uri, line_of(path, "tap: Stream") - 1, 5)
    assert "Last reference run: 16 puts, 16 gets" in hover and "unread" not in hover
    title = (await job_editor.lens_titles(uri))[0]
    assert title.startswith("▶ Simulate: ✓ passed") and title.endswith(" · reference")
    assert job_editor.run_diagnostics(uri) == []
