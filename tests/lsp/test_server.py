"""The language server as an editor uses it: what the user sees for each feature."""

from editor import find
from lsprotocol import types as lsp
from paths import EXAMPLES
from waiting import notification, until

# The example passes its bare scalar in `args` as well, which is reported as that alone (ADF002);
# a scalar the kernel captures from the region is ADF001's case, the one these tests follow.
BARE_SCALAR = (
    (EXAMPLES / "pitfall_bare_scalar.py")
    .read_text()
    .replace("args=[A, n]", "args=[A]")
    .replace("def producer(local_A: int32[M], local_n: int32)", "def producer(local_A: int32[M])")
    .replace("local_A[i] + local_n", "local_A[i] + n")
)


def codes(diagnostics):
    return [(d.code, d.range.start.line, d.range.start.character) for d in diagnostics]


async def test_diagnostics_on_open_point_at_the_offending_text(editor):
    uri = editor.open(BARE_SCALAR, "pitfall_bare_scalar.py")
    diags = await editor.diagnostics(uri)
    text = BARE_SCALAR
    line, col = find(text, " n: int32,")
    scalar = next(d for d in diags if d.code == "ADF001")
    assert (scalar.range.start.line, scalar.range.start.character) == (line, col + 4)
    assert (scalar.range.end.character - scalar.range.start.character) == len("int32")
    assert scalar.severity == lsp.DiagnosticSeverity.Error and scalar.source == "allo-lsp"
    assert sorted(d.code for d in diags) == ["ADF001"]

    clean = editor.open_example("systolic_gemm.py")
    assert await editor.diagnostics(clean) == []


async def test_region_hover_shows_the_compiled_signature_and_the_older_order(editor):
    uri = editor.open_example("pitfall_arg_order.py")
    await editor.diagnostics(uri)
    line, col = find(editor.texts[uri], "def top(")
    markdown = await editor.hover(uri, line, col + 5)
    assert "**region `top`** · 2 kernels · 2 PEs" in markdown
    assert "| 1 | `arr_in` | `int32[16]` | `memref<16xi32>` | m_axi `gmem0` | in | producer |" in markdown
    assert "| 3 | `n` | `int32[1]` | `memref<1xi32>` | m_axi `gmem2` | in | producer |" in markdown
    assert "mod(arr_in, arr_out, n)" in markdown
    assert "**Older Allo builds compile `top(arr_in, n, arr_out)`**" in markdown
    # The decorator answers too.
    line, col = find(editor.texts[uri], "@df.region()")
    assert (await editor.hover(uri, line, col + 3)).startswith("**region `top`**")


async def test_kernel_stream_call_and_args_hovers(editor):
    uri = editor.open_example("producer_consumer.py")
    await editor.diagnostics(uri)
    text = editor.texts[uri]
    kernel = await editor.hover(uri, *find(text, "def producer"))
    assert kernel is None or "kernel" in kernel  # `def` keyword itself is not the name
    kernel = await editor.hover(uri, *_after(find(text, "def producer"), 5))
    assert "**kernel `producer`** in region `top` · mapping `[1]` · 1 PE" in kernel
    assert "`local_n <- n`, #2" in kernel and "PEs: `producer_0`" in kernel
    stream = await editor.hover(uri, *find(text, "pipe.put"))
    assert "**stream `pipe`**: element `int32` · depth 4" in stream
    assert "put by: producer" in stream and "got by: consumer" in stream
    arg = await editor.hover(uri, *_after(find(text, "args=[A, n]"), 9))
    assert arg.startswith("region parameter `n`, #2 of `top(A, n, B)`: `int32[1]`")
    call = await editor.hover(uri, *find(text, "mod(A"))
    assert "| 2 | `n` | `int32[1]` |" in call


async def test_symbols_definition_references_and_inlay_hints(editor):
    uri = editor.open_example("producer_consumer.py")
    await editor.diagnostics(uri)
    text = editor.texts[uri]
    doc = lsp.TextDocumentIdentifier(uri)
    symbols = await editor.client.text_document_document_symbol_async(lsp.DocumentSymbolParams(doc))
    assert [(s.name, [c.name for c in s.children]) for s in symbols] == [("top", ["pipe", "producer", "consumer"])]

    target = await editor.client.text_document_definition_async(
        lsp.DefinitionParams(doc, lsp.Position(*_after(find(text, "args=[A, n]"), 9)))
    )
    assert (target.range.start.line, target.range.start.character) == find(text, "n: int32[1]")

    refs = await editor.client.text_document_references_async(
        lsp.ReferenceParams(
            context=lsp.ReferenceContext(include_declaration=True),
            text_document=doc,
            position=lsp.Position(*find(text, "n: int32[1]")),
        )
    )
    lines = sorted({r.range.start.line for r in refs})
    assert find(text, "local_n: int32[1]")[0] in lines and find(text, "args=[A, n]")[0] in lines
    assert find(text, "local_n[0]")[0] in lines

    hints = await editor.client.text_document_inlay_hint_async(
        lsp.InlayHintParams(doc, lsp.Range(lsp.Position(0, 0), lsp.Position(len(text.splitlines()), 0)))
    )
    assert "1 PE" in [h.label for h in hints]


async def test_a_syntax_error_keeps_the_rest_of_the_file_as_it_was(editor):
    uri = editor.open(BARE_SCALAR, "pitfall_bare_scalar.py")
    before = await editor.diagnostics(uri)
    scalar_line = next(d for d in before if d.code == "ADF001").range.start.line
    # Break a line below the region parameter, then insert a line above it.
    line, col = find(editor.texts[uri], "def consumer")
    editor.type_at(uri, line, col, "(")
    broken = await editor.diagnostics(uri)
    assert [d.code for d in broken].count("ADF900") == 1
    assert ("ADF001", scalar_line) in [(d.code, d.range.start.line) for d in broken]
    editor.type_at(uri, 0, 0, "\n")
    shifted = await editor.diagnostics(uri)
    assert ("ADF001", scalar_line + 1) in [(d.code, d.range.start.line) for d in shifted]
    # Hovers answer from the last good analysis, moved to the edited text.
    top_line, top_col = find(editor.texts[uri], "def top(")
    assert (await editor.hover(uri, top_line, top_col + 5)).startswith("**region `top`**")


async def test_typing_a_region_character_by_character(editor):
    uri = editor.open(
        "import allo\nfrom allo.ir.types import int32, Stream\nimport allo.dataflow as df\n\n", "typed.py"
    )
    await editor.diagnostics(uri)
    source = BARE_SCALAR
    region = source[source.index("@df.region()") : source.index("def test_")]
    line, col = 4, 0
    for i, ch in enumerate(region):
        version = editor.type_at(uri, line, col, ch)
        line, col = (line + 1, 0) if ch == "\n" else (line, col + 1)
        if i % 37 == 0:
            await editor.hover(uri, max(line - 1, 0), 4)  # never an error, whatever the state
    final = await editor.diagnostics(uri, version)
    assert sorted(d.code for d in final) == ["ADF001"]
    # Never published for a stale version: versions only increase.
    versions = [p.version for p in editor.published[uri]]
    assert versions == sorted(versions)
    assert len(versions) < len(region) / 2  # debounced, not one analysis per keystroke


async def test_settings_are_reread_on_change(editor):
    uri = editor.open_example("pitfall_arg_order.py")
    hazard = [d.severity for d in await editor.diagnostics(uri) if d.code == "ADF003"]
    assert hazard == [lsp.DiagnosticSeverity.Warning]
    editor.client.set_configuration({"alloBuild": "legacy", "debounceMs": 50}, section="alloDataflow")
    editor.client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={}))

    def an_error():
        published = editor.published[uri][-1]
        return published.diagnostics and published.diagnostics[0].severity == lsp.DiagnosticSeverity.Error

    await editor.until_published(uri, an_error, "the legacy build's error")
    assert editor.published[uri][-1].diagnostics[0].severity == lsp.DiagnosticSeverity.Error
    # A bad value is reported and ignored.
    editor.client.set_configuration({"alloBuild": "newest"}, section="alloDataflow")
    editor.client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={}))
    await until(
        lambda: editor.client.messages,
        what="a message about the bad value",
        wake=notification(editor.client, "window/showMessage"),
    )
    assert "alloBuild must be one of auto, fixed, legacy" in editor.client.messages[-1].message


async def test_quick_fix_round_trip(editor):
    uri = editor.open(BARE_SCALAR, "pitfall_bare_scalar.py")
    diags = await editor.diagnostics(uri)
    scalar = next(d for d in diags if d.code == "ADF001")
    actions = await editor.client.text_document_code_action_async(
        lsp.CodeActionParams(lsp.TextDocumentIdentifier(uri), scalar.range, lsp.CodeActionContext(diagnostics=[scalar]))
    )
    fix = next(a for a in actions if "ADF001" in [d.code for d in a.diagnostics or []])
    edits = fix.edit.document_changes[0].edits
    text = _apply(editor.texts[uri], edits)
    editor.replace_all(uri, text)
    after = await editor.diagnostics(uri)
    assert "ADF001" not in [d.code for d in after] and "ADF002" not in [d.code for d in after]


async def test_utf16_columns(editor):
    source = BARE_SCALAR.replace("def top(", "def top(  # 😀 émoji\n        ")
    uri = editor.open(source, "unicode.py")
    diags = await editor.diagnostics(uri)
    scalar = next(d for d in diags if d.code == "ADF001")
    line = source.splitlines()[scalar.range.start.line]
    assert line.encode("utf-16-le")[2 * scalar.range.start.character :].decode("utf-16-le").startswith("int32")


async def test_any_line_ending_lsp_knows(editor):
    """CRLF (Windows), lone CR (classic Mac) and mixed: the diagnostics, hovers and quick-fix
    edits are those of the LF file, lines counted as the client counts them."""
    source = BARE_SCALAR
    line, col = find(source, "def top(")

    async def seen(uri):
        diags = await editor.diagnostics(uri)
        scalar = next(d for d in diags if d.code == "ADF001")
        actions = await editor.client.text_document_code_action_async(
            lsp.CodeActionParams(
                lsp.TextDocumentIdentifier(uri), scalar.range, lsp.CodeActionContext(diagnostics=[scalar])
            )
        )
        fix = next(a for a in actions if "ADF001" in [d.code for d in a.diagnostics or []])
        edits = [(e.range, e.new_text) for e in fix.edit.document_changes[0].edits]
        return codes(diags), await editor.hover(uri, line, col + 4), edits

    expected = await seen(editor.open(source, "lf.py"))
    assert "top" in expected[1] and expected[2]
    lines = source.split("\n")
    mixed = "".join(line + ("\r", "\r\n", "\n")[i % 3] for i, line in enumerate(lines[:-1])) + lines[-1]
    for name, text in [
        ("crlf.py", source.replace("\n", "\r\n")),
        ("cr.py", source.replace("\n", "\r")),
        ("mixed.py", mixed),
    ]:
        assert await seen(editor.open(text, name)) == expected, name


def _after(position, columns):
    return position[0], position[1] + columns


def _apply(text: str, edits) -> str:
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line.encode("utf-16-le")) // 2 + 1)
    utf16 = text.encode("utf-16-le")

    def index(p):
        return offsets[p.line] + p.character

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start, end = index(edit.range.start), index(edit.range.end)
        utf16 = utf16[: 2 * start] + edit.new_text.encode("utf-16-le") + utf16[2 * end :]
    return utf16.decode("utf-16-le")


async def test_check_and_the_server_report_the_same_diagnostics(editor):
    import json
    import subprocess
    import sys

    for path in sorted(EXAMPLES.glob("pitfall_*.py")):
        uri = editor.open_example(path.name)
        served = [
            (
                d.code,
                d.range.start.line + 1,
                d.range.start.character + 1,
                d.range.end.line + 1,
                d.range.end.character + 1,
                d.message,
            )
            for d in await editor.diagnostics(uri)
        ]
        out = subprocess.run(
            [sys.executable, "-m", "allo_lsp", "check", str(path), "--format", "json"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        checked = [
            (d["code"], d["line"], d["column"], d["end_line"], d["end_column"], d["message"])
            for d in json.loads(out.stdout)["files"][0]["diagnostics"]
        ]
        assert served == checked, path.name
