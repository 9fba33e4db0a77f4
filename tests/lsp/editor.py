"""An editor as the LSP tests use it: open, type, ask, and wait for what it is shown."""

import asyncio
from pathlib import Path

from lsprotocol import types as lsp
from paths import EXAMPLES
from pygls.protocol import default_converter
from pytest_lsp import LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features
from trusted import with_trust
from waiting import until_notified


class Editor:
    """What a test does with an editor: open, type, ask; and what it sees: diagnostics."""

    def __init__(self, client: LanguageClient, name: str) -> None:
        self.client = client
        self.name = name
        self.published: dict[str, list[lsp.PublishDiagnosticsParams]] = {}
        self.versions: dict[str, int] = {}
        self.texts: dict[str, str] = {}
        self.lens_refreshes = 0  # workspace/codeLens/refresh requests of the server
        self._arrived = asyncio.Condition()  # a publication or a lens refresh

    async def on_publish(self, params: lsp.PublishDiagnosticsParams) -> None:
        self.published.setdefault(params.uri, []).append(params)
        async with self._arrived:
            self._arrived.notify_all()

    async def on_lens_refresh(self) -> None:
        self.lens_refreshes += 1
        async with self._arrived:
            self._arrived.notify_all()

    def open(self, text: str, name: str = "design.py", path: Path | None = None) -> str:
        uri = (path or Path("/tmp/allo-lsp-tests") / name).as_uri()
        self.versions[uri] = 1
        self.texts[uri] = text
        self.client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
        )
        return uri

    def open_example(self, name: str) -> str:
        return self.open((EXAMPLES / name).read_text(), name)

    def replace_all(self, uri: str, text: str) -> int:
        self.versions[uri] += 1
        self.texts[uri] = text
        self.client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
                [lsp.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        return self.versions[uri]

    def type_at(self, uri: str, line: int, col: int, text: str) -> int:
        """An incremental edit, as editors send keystrokes."""
        self.versions[uri] += 1
        lines = self.texts[uri].split("\n")
        lines[line] = lines[line][:col] + text + lines[line][col:]
        self.texts[uri] = "\n".join(lines)
        pos = lsp.Position(line, col)
        self.client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri]),
                [lsp.TextDocumentContentChangePartial(range=lsp.Range(pos, pos), text=text)],
            )
        )
        return self.versions[uri]

    async def diagnostics(self, uri: str, version: int | None = None, timeout: float = 20) -> list[lsp.Diagnostic]:
        """The diagnostics published for `version` (default: the current one) of the document."""
        version = self.versions[uri] if version is None else version

        def ready():
            return [p for p in self.published.get(uri, []) if p.version == version]

        async with self._arrived:
            await asyncio.wait_for(self._arrived.wait_for(ready), timeout)
        return list(ready()[-1].diagnostics)

    async def analysed(self, uri: str) -> None:
        """Until the server has analysed the document once: it answers the symbols after its first
        analysis. Its diagnostics do not tell: with the editor's storage, the problems kept of an
        earlier server's analysis of the same text are published before (`session/problem_cache.py`)."""
        await self.client.text_document_document_symbol_async(lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(uri)))

    async def until_lenses_refreshed(self, count: int, timeout: float = 20) -> None:
        """Until the server has asked for the lenses again `count` times in all."""
        await until_notified(
            self._arrived,
            lambda: self.lens_refreshes >= count,
            what=f"{count} codeLens/refresh requests",
            seen=lambda: self.lens_refreshes,
            timeout=timeout,
        )

    async def until_published(self, uri: str, ready, what: str, timeout: float = 20):
        """`ready()`'s value once a publication makes it truthy; failing, the last one for `uri`."""

        def seen():
            last = self.published.get(uri, [])[-1:]
            return [(p.version, [(d.source, d.code, d.message[:100]) for d in p.diagnostics]) for p in last]

        return await until_notified(self._arrived, ready, what=what, seen=seen, timeout=timeout)

    async def hover(self, uri: str, line: int, col: int) -> str | None:
        result = await self.client.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line, col))
        )
        return result.contents.value if result else None

    async def lenses(self, uri: str) -> list[lsp.CodeLens]:
        return await self.client.text_document_code_lens_async(lsp.CodeLensParams(lsp.TextDocumentIdentifier(uri)))

    async def lens_titles(self, uri: str) -> list[str]:
        return [lens.command.title for lens in await self.lenses(uri)]

    async def click(self, uri: str, title_prefix: str, name: str):
        """Execute the command of the lens whose title starts with `title_prefix` for `name`."""
        lens = next(
            lens
            for lens in await self.lenses(uri)
            if lens.command.title.startswith(title_prefix) and lens.command.arguments[1] == name
        )
        return await self.client.workspace_execute_command_async(
            lsp.ExecuteCommandParams(command=lens.command.command, arguments=lens.command.arguments)
        )

    def run_diagnostics(self, uri: str) -> list[lsp.Diagnostic]:
        published = self.published.get(uri, [])
        return [d for d in (published[-1].diagnostics if published else []) if d.source == "allo-lsp run"]


def find(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """(line, column) of the nth occurrence of `needle` in `text`."""
    index = -1
    for _ in range(nth + 1):
        index = text.index(needle, index + 1)
    line = text.count("\n", 0, index)
    return line, index - (text.rfind("\n", 0, index) + 1)


def make_client() -> LanguageClient:
    """pytest-lsp's client, except that published diagnostics keep their document version, and
    a diagnostic refresh is answered after `refresh_delay` seconds (a slow client)."""
    client = LanguageClient(converter_factory=default_converter)
    features = dict(DEFAULT_CLIENT_FEATURES)
    del features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS], features[lsp.WORKSPACE_DIAGNOSTIC_REFRESH]
    del features[lsp.WORKSPACE_CONFIGURATION]
    register_lsp_features(client, features)
    client.editor, client.refresh_delay, client.refreshes_answered, client.adds_trust = None, 0.0, 0, True

    @client.feature(lsp.WORKSPACE_CONFIGURATION)
    def configuration(params: lsp.ConfigurationParams):  # a trusted workspace's, as VS Code's client
        answers = [client.get_configuration(section=i.section, scope_uri=i.scope_uri) for i in params.items]
        if not client.adds_trust:  # a test that answers exactly what it wants
            return answers
        return [with_trust(item.section, answer) for item, answer in zip(params.items, answers)]

    @client.feature(lsp.WORKSPACE_DIAGNOSTIC_REFRESH)
    async def refresh_diagnostics(params):
        client.diagnostic_refresh_count += 1
        await asyncio.sleep(client.refresh_delay)  # not a wait for an event: the client's own slowness
        client.refreshes_answered += 1

    client.asked = []  # the window/showMessageRequest the server sent (a job's environment failure)

    @client.feature(lsp.WINDOW_SHOW_MESSAGE_REQUEST)
    def show_message_request(params: lsp.ShowMessageRequestParams):
        client.asked.append(params)  # shown by VS Code as a message with buttons; none is pressed
        return None

    @client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: lsp.RegistrationParams):
        return None  # editors accept dynamic registrations; pytest-lsp's client has no handler

    @client.feature(lsp.WORKSPACE_CODE_LENS_REFRESH)
    async def refresh_lenses(params):
        client.lens_refreshes = getattr(client, "lens_refreshes", 0) + 1
        if client.editor is not None:
            await client.editor.on_lens_refresh()

    @client.feature(lsp.WORKSPACE_INLAY_HINT_REFRESH)
    def refresh_inlay_hints(params):
        client.inlay_refreshes = getattr(client, "inlay_refreshes", 0) + 1

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    async def publish(params: lsp.PublishDiagnosticsParams):
        client.diagnostics[params.uri] = params.diagnostics
        if client.editor is not None:
            await client.editor.on_publish(params)

    return client
