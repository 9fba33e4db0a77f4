"""The real server over stdio for the reliability tests and benchmarks, without pytest fixtures.

`session(...)` starts `allo-lsp serve` in a subprocess with a pytest-lsp client (so responses are
checked against the client's capabilities), initialises it with VS Code's or Neovim's
capabilities and the given settings, and yields a `Session`: the client, the server's pid, what
the server printed on stderr, the diagnostics it published (with their versions), its log and
show-message notifications and progress reports. Helpers convert between code-point columns
and the negotiated position encoding, and read the server's RSS from /proc.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types as lsp
from pygls.protocol import default_converter
from pytest_lsp import LanguageClient, LspSpecificationWarning, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features
from trusted import with_trust

ROOT = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, "-m", "allo_lsp", "serve"]
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def lsp_lines(text: str) -> list[str]:
    """The document's lines as LSP counts them: `\\r\\n`, `\\r` and `\\n` end a line."""
    return _LINE_BREAK.split(text)


def units(text: str, encoding: str) -> int:
    """Length of `text` in the negotiated position encoding's code units."""
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def to_client(text: str, line: int, column: int, encoding: str) -> lsp.Position:
    """(line, code-point column) -> LSP position in the negotiated encoding."""
    lines = lsp_lines(text)
    return lsp.Position(line, units(lines[line][:column], encoding) if line < len(lines) else 0)


def offset_of(text: str, position: lsp.Position, encoding: str) -> int:
    """String offset of an LSP position in `text` (LSP line breaks; a column past the end of a
    line is the end of the line, as the specification says)."""
    starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]
    lines = lsp_lines(text)
    line = min(position.line, len(lines) - 1)
    count, column = 0, 0
    for ch in lines[line]:
        if count >= position.character:
            break
        count += units(ch, encoding)
        column += 1
    return starts[line] + column


def position_ok(text: str, position: lsp.Position, encoding: str, lines: list[str] | None = None) -> bool:
    lines = lsp_lines(text) if lines is None else lines
    return 0 <= position.line < len(lines) and 0 <= position.character <= units(lines[position.line], encoding)


def range_ok(text: str, r: lsp.Range, encoding: str, lines: list[str] | None = None) -> bool:
    lines = lsp_lines(text) if lines is None else lines
    return (
        position_ok(text, r.start, encoding, lines)
        and position_ok(text, r.end, encoding, lines)
        and (r.start.line, r.start.character) <= (r.end.line, r.end.character)
    )


def rss_kib(pid: int) -> int | None:
    """Resident set size of a process, from /proc (KiB)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie is dead for our purposes
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@dataclass
class Session:
    client: LanguageClient
    name: str  # the client whose capabilities were sent
    encoding: str  # the negotiated position encoding
    stderr: list[str] = field(default_factory=list)
    published: dict[str, list[lsp.PublishDiagnosticsParams]] = field(default_factory=dict)
    arrived: asyncio.Condition = field(default_factory=asyncio.Condition)

    @property
    def pid(self) -> int:
        return self.client._server.pid

    @property
    def process(self) -> asyncio.subprocess.Process:
        return self.client._server

    def errors_logged(self, shown: bool = True) -> list[str]:
        """What the server reported as an error: Error log messages, tracebacks on stderr and,
        with `shown`, Error messages shown to the user (a failed job shows one on purpose)."""
        out = [m.message for m in self.client.log_messages if m.type == lsp.MessageType.Error]
        if shown:
            out += [m.message for m in self.client.messages if m.type == lsp.MessageType.Error]
        text = "".join(self.stderr)
        if "Traceback" in text or " ERROR " in text:
            out.append(text[-4000:])
        return out

    async def diagnostics(self, uri: str, version: int, timeout: float = 20) -> list[lsp.Diagnostic]:
        def ready():
            return [p for p in self.published.get(uri, []) if p.version == version]

        async with self.arrived:
            await asyncio.wait_for(self.arrived.wait_for(ready), timeout)
        return list(ready()[-1].diagnostics)

    async def request(self, method: str, params, timings: dict[str, list[float]] | None = None):
        """A request, timed; an error response or a specification warning raises."""
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("error", LspSpecificationWarning)
            result = await self.client.protocol.send_request_async(method, params)
        if timings is not None:
            timings.setdefault(method, []).append(time.perf_counter() - start)
        return result

    def configure(self, settings: dict) -> None:
        self.client.set_configuration(settings, section="alloDataflow")
        self.client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={}))


def _make_client(session_box: list, configuration_delay: float = 0.0) -> LanguageClient:
    """pytest-lsp's client (as tests/lsp/conftest.py makes it), with published diagnostics kept
    per document with their versions, and `workspace/configuration` answered after a delay (an
    editor busy starting up)."""
    client = LanguageClient(converter_factory=default_converter)
    features = dict(DEFAULT_CLIENT_FEATURES)
    del features[lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]
    del features[lsp.WORKSPACE_CONFIGURATION]
    register_lsp_features(client, features)

    @client.feature(lsp.WORKSPACE_CONFIGURATION)
    async def configuration(params: lsp.ConfigurationParams):
        await asyncio.sleep(configuration_delay)
        return [
            with_trust(i.section, client.get_configuration(section=i.section, scope_uri=i.scope_uri))
            for i in params.items
        ]

    @client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def register_capability(params: lsp.RegistrationParams):
        return None

    @client.feature(lsp.WORKSPACE_CODE_LENS_REFRESH)
    def refresh_lenses(params):
        return None

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    async def publish(params: lsp.PublishDiagnosticsParams):
        client.diagnostics[params.uri] = params.diagnostics
        s = session_box[0] if session_box else None
        if s is not None:
            s.published.setdefault(params.uri, []).append(params)
            async with s.arrived:
                s.arrived.notify_all()

    return client


async def _read_stderr(process: asyncio.subprocess.Process, sink: list[str]) -> None:
    while line := await process.stderr.readline():
        sink.append(line.decode("utf-8", "replace"))


@contextlib.asynccontextmanager
async def session(
    settings: dict | None = None,
    client_name: str = "visual_studio_code",
    env: dict[str, str] | None = None,
    shutdown: bool = True,
    configuration_delay: float = 0.0,
):
    """A started and initialised server; shut down (shutdown + exit) at the end unless told not
    to (a test that ends the server itself)."""
    box: list[Session] = []
    client = _make_client(box, configuration_delay)
    base_env = dict(os.environ)
    base_env.pop("LLVM_BUILD_DIR", None)
    # Start the server ourselves (pygls' start_io) so that its stderr is kept, not forwarded.
    await super(LanguageClient, client).start_io(*SERVER, env={**base_env, **(env or {})})
    s = Session(client, client_name, "utf-16")
    box.append(s)
    reader = asyncio.ensure_future(_read_stderr(client._server, s.stderr))
    client.set_configuration(dict(settings or {}), section="alloDataflow")
    result = await client.initialize_session(lsp.InitializeParams(capabilities=client_capabilities(client_name)))
    encoding = result.capabilities.position_encoding
    s.encoding = str(getattr(encoding, "value", encoding) or "utf-16")
    try:
        yield s
    finally:
        try:
            if shutdown and client._server.returncode is None:
                await asyncio.wait_for(client.shutdown_session(), 15)
        finally:
            with contextlib.suppress(ProcessLookupError):
                if client._server.returncode is None:
                    client._server.kill()
            await client._server.wait()
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(reader, 2)
            await client.stop()
