"""The linter's conventions in the editor, through the real server over stdio: noqa comments,
[tool.allo-lsp] (read from the document's project, reloaded when the client reports the file
changed, its mistakes shown on the pyproject.toml), fix-all (`source.fixAll.allo-lsp`, as
`editor.codeActionsOnSave` asks for it), "Disable ADF011 for this line", and each diagnostic's
link to its rule's page."""

from pathlib import Path
from urllib.parse import unquote, urlparse

from allo_lsp.lsp import convert
from lsprotocol import types as lsp
from paths import EXAMPLES

MAPPING = (EXAMPLES / "pitfall_mapping_order.py").read_text()  # one ADF011, with a safe fix
MAPPING_LINE = "    @df.kernel(args=[A], mapping=[1])"
FIXED_LINE = "    @df.kernel(mapping=[1], args=[A])"


def codes(diagnostics) -> list[str]:
    return [d.code for d in diagnostics if d.source == "allo-lsp"]


def apply(text: str, edits) -> str:
    """LSP edits on an ASCII text (UTF-16 columns are code points), from the end backwards."""
    lines = text.split("\n")
    starts = [sum(len(line) + 1 for line in lines[:i]) for i in range(len(lines))]
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start = starts[e.range.start.line] + e.range.start.character
        end = starts[e.range.end.line] + e.range.end.character
        text = text[:start] + e.new_text + text[end:]
    return text


async def actions(editor, uri: str, r: lsp.Range, diagnostics, only=None) -> list[lsp.CodeAction]:
    context = lsp.CodeActionContext(diagnostics=diagnostics, only=only)
    found = await editor.client.text_document_code_action_async(
        lsp.CodeActionParams(lsp.TextDocumentIdentifier(uri), r, context)
    )
    return found or []


def whole(text: str) -> lsp.Range:
    lines = text.split("\n")
    return lsp.Range(lsp.Position(0, 0), lsp.Position(len(lines) - 1, len(lines[-1])))


def write_config(root: Path, body: str) -> str:
    path = root / "pyproject.toml"
    path.write_text(f"[project]\nname = 'demo'\n\n[tool.allo-lsp]\n{body}")
    return path.as_uri()


def last(editor, uri: str) -> list | None:
    """The diagnostics last published for `uri`, None before any."""
    published = editor.published.get(uri)
    return list(published[-1].diagnostics) if published else None


def changed(editor, uri: str) -> None:
    editor.client.workspace_did_change_watched_files(
        lsp.DidChangeWatchedFilesParams(changes=[lsp.FileEvent(uri=uri, type=lsp.FileChangeType.Changed)])
    )


async def test_each_diagnostic_links_its_rules_page(editor):
    uri = editor.open(MAPPING, "mapping.py")
    (diagnostic,) = await editor.diagnostics(uri)
    assert diagnostic.code == "ADF011"
    page = Path(unquote(urlparse(diagnostic.code_description.href).path))
    assert page.name == "ADF011.md" and page.read_text().startswith("# ADF011 mapping-not-first")


async def test_a_noqa_comment_hides_its_code(editor):
    uri = editor.open(MAPPING.replace(MAPPING_LINE, MAPPING_LINE + "  # noqa: ADF011"), "quiet.py")
    assert codes(await editor.diagnostics(uri)) == []


async def test_disable_for_this_line_adds_the_noqa_comment(editor):
    uri = editor.open(MAPPING, "disable.py")
    (diagnostic,) = await editor.diagnostics(uri)
    found = await actions(editor, uri, diagnostic.range, [diagnostic])
    disable = next(a for a in found if a.title == "Disable ADF011 for this line")
    assert disable.kind == lsp.CodeActionKind.QuickFix and [d.code for d in disable.diagnostics] == ["ADF011"]
    text = apply(editor.texts[uri], disable.edit.document_changes[0].edits)
    assert MAPPING_LINE + "  # noqa: ADF011\n" in text
    editor.replace_all(uri, text)
    assert codes(await editor.diagnostics(uri)) == []


async def test_fix_all_is_offered_to_a_request_for_its_kind_and_applies_the_safe_fixes(editor):
    # VS Code asks on save only a server whose codeActionProvider names the kind.
    assert "source.fixAll.allo-lsp" in convert.CODE_ACTION_OPTIONS.code_action_kinds
    uri = editor.open(MAPPING, "fix_all.py")
    diagnostics = await editor.diagnostics(uri)
    everywhere = whole(MAPPING)
    assert all(a.kind != "source.fixAll.allo-lsp" for a in await actions(editor, uri, everywhere, diagnostics))
    for only in (["source.fixAll"], ["source.fixAll.allo-lsp"]):  # what codeActionsOnSave sends
        (fix_all,) = await actions(editor, uri, everywhere, [], only=only)
        assert fix_all.kind == "source.fixAll.allo-lsp"
    text = apply(MAPPING, fix_all.edit.document_changes[0].edits)
    assert text == MAPPING.replace(MAPPING_LINE, FIXED_LINE)
    editor.replace_all(uri, text)
    assert codes(await editor.diagnostics(uri)) == []
    assert await actions(editor, uri, whole(text), [], only=["source.fixAll"]) == []  # nothing left


async def test_the_projects_configuration_is_read_and_reloaded_when_it_changes(editor, tmp_path):
    config = write_config(tmp_path, 'ignore = ["ADF011"]\n')
    uri = editor.open(MAPPING, path=tmp_path / "src" / "design.py")
    assert codes(await editor.diagnostics(uri)) == []
    write_config(tmp_path, 'severity = { ADF011 = "information" }\n')
    changed(editor, config)
    shown = await editor.until_published(
        uri,
        lambda: [d for d in editor.published[uri][-1].diagnostics if d.code == "ADF011"],
        what="ADF011 once the configuration no longer ignores it",
    )
    assert shown[0].severity == lsp.DiagnosticSeverity.Information


async def test_a_bad_configuration_is_a_diagnostic_on_the_pyproject_toml(editor, tmp_path):
    config = write_config(tmp_path, 'ignore = ["ADF011"]\nselct = ["ADF0"]\n')
    uri = editor.open(MAPPING, path=tmp_path / "design.py")
    assert codes(await editor.diagnostics(uri)) == []  # the rest of the configuration holds
    (problem,) = await editor.until_published(config, lambda: last(editor, config), what="the configuration's problem")
    assert problem.severity == lsp.DiagnosticSeverity.Error and "unknown key 'selct'" in problem.message
    assert problem.range.start == lsp.Position(5, 0)
    write_config(tmp_path, 'ignore = ["ADF011"]\n')
    changed(editor, config)
    await editor.until_published(config, lambda: last(editor, config) == [], what="the problem withdrawn once fixed")
