"""`alloDataflow.ompThreads` reaches the analysis: below a region's PE count it is ADF051."""

from lsprotocol import types as lsp


async def test_omp_threads_below_the_pe_count_is_reported(editor):
    uri = editor.open_example("producer_consumer.py")  # one region, 2 PEs
    assert await editor.diagnostics(uri) == []
    editor.client.set_configuration({"ompThreads": 1, "debounceMs": 50}, section="alloDataflow")
    editor.client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={}))

    def adf051():
        return [d for d in editor.published[uri][-1].diagnostics if d.code == "ADF051"]

    (found,) = await editor.until_published(uri, adf051, "ADF051 once ompThreads is 1")
    assert "runs 2 PE instances but ompThreads is 1" in found.message
    assert found.severity == lsp.DiagnosticSeverity.Warning
    # As many threads as PEs: nothing to report.
    editor.client.set_configuration({"ompThreads": 2, "debounceMs": 50}, section="alloDataflow")
    editor.client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={}))
    await editor.until_published(uri, lambda: not adf051(), "no ADF051 once ompThreads is 2")
