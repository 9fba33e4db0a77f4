"""Soak: a client drives the real server over stdio with thousands of random operations.

Shared by the CI test (`test_soak.py`, ~1,000 operations) and the full run
(`bench/reliability/soak.py`, 20,000). Several documents are open; each operation is, at
random (seeded):

- an edit sent as an incremental change: typing a token or random text, deleting a range,
  breaking the syntax (an open bracket, a half `def`), fixing it again (the text goes back to a
  known good one through a minimal range edit), pasting a kernel, joining or splitting lines;
- a request at a random position of the current text: hover, definition, references, document
  symbols, inlay hints, code lenses, code actions;
- a configuration change (debounce, alloBuild, backend, trust; now and then an invalid value);
- closing a document and opening it again (or another example);
- a pause: waiting until the diagnostics of the current version are published, then comparing
  them with an analysis of the client's text in this process (the server's text must be the
  client's: a desynchronised document shows here).

What must hold: no error response and no specification warning; the server never exits; every
response lies inside the text of the version it answered (ranges, code-action edits, whose
document version must be the current one); published diagnostics only move forward in version
and lie inside their version's text; nothing logged as an error. Measured: latency per request
(p50/p95/p99), the server's RSS from /proc after a warm-up and at the end.
"""

from __future__ import annotations

import asyncio
import random
import re
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

import lsp_session
from lsp_session import lsp_lines, range_ok, rss_kib, to_client, units
from lsprotocol import types as lsp

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
DOCUMENTS = ["producer_consumer.py", "systolic_gemm.py", "pitfall_arg_order.py", "hierarchical.py"]
# One larger document too: several examples one after the other (about 500 lines).
LARGE = [
    "tiled_gemm.py",
    "unsigned_streams.py",
    "pitfall_swapped_call.py",
    "pitfall_removed_syntax.py",
    "pitfall_merged_names.py",
    "region_in_test.py",
    "pitfall_deadlock_stream.py",
    "pitfall_mapping_order.py",
    "pitfall_bare_scalar.py",
    "systolic_gemm.py",
]
TOKENS = [
    "(",
    ")",
    "[",
    "]",
    ":",
    ",",
    ".",
    "=",
    "@",
    "\n",
    "\n    ",
    "    ",
    "#",
    "'",
    '"',
    "def ",
    "for ",
    "in ",
    "if ",
    "return",
    "pass",
    "lambda",
    "mapping=[2]",
    "args=[A]",
    ".put(",
    ".get()",
    "int32",
    "int32[16]",
    "Stream[int32, 4]",
    "@df.kernel(mapping=[1], args=[A])",
    "allo.meta_if(",
    "x",
    "A",
    "n",
    "local_A",
    "0",
    "1",
    "10**6",
    "é",
    "λ",
    "😀",
    "𝔘",
    "\t",
    " ",
    "\x0c",
    "\u2028",
]
BREAKERS = ["(", "[", "def f(:", "@df.kernel(", "'''", "if x", ")", "\\", "for i in"]
SETTINGS_POOL = {
    "debounceMs": [0, 10, 50, 100],
    "alloBuild": ["auto", "fixed", "legacy"],
    "backend": ["auto", "reference"],
    "trusted": [True, False],
}
INVALID = {"debounceMs": -5, "alloBuild": "newest", "timeout": "soon", "backend": 7, "trusted": "maybe"}
WEIGHTS = {
    "type": 14,
    "delete": 8,
    "break": 6,
    "fix": 6,
    "paste": 2,
    "lines": 3,
    "hover": 14,
    "definition": 5,
    "references": 5,
    "symbols": 6,
    "inlay": 5,
    "lens": 9,
    "action": 9,
    "configure": 1.5,
    "reopen": 1.5,
    "pause": 4,
}
SLOW_MS = 50.0


@dataclass
class Doc:
    uri: str
    text: str
    version: int
    good: str  # a text that parses: what "fix" goes back to
    history: dict[int, str] = field(default_factory=dict)  # version -> text (recent ones)
    open: bool = True


@dataclass
class Report:
    operations: int = 0
    requests: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    timings: dict[str, list[float]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # everything that must not happen
    rss_start_kib: int | None = None  # after the warm-up
    rss_end_kib: int | None = None
    rss_max_kib: int = 0
    rss_samples: list[tuple[int, int]] = field(default_factory=list)  # (operation, KiB)
    seconds: float = 0.0
    server_alive: bool = True
    compared: int = 0  # pauses whose diagnostics were compared with an in-process analysis

    def request_latencies(self) -> dict:
        """Percentiles over the LSP requests (the pauses' waits for diagnostics excluded)."""
        return _percentiles([t for k, ts in self.timings.items() if k.startswith("textDocument/") for t in ts])

    def latencies(self) -> dict:
        everything = [t for ts in self.timings.values() for t in ts]
        out = {"all": _percentiles(everything)}
        for method, ts in sorted(self.timings.items()):
            out[method] = _percentiles(ts)
        return out

    @property
    def rss_growth_kib(self) -> int | None:
        if self.rss_start_kib is None or self.rss_end_kib is None:
            return None
        return self.rss_end_kib - self.rss_start_kib


def _percentiles(values: list[float]) -> dict:
    if len(values) < 2:
        return {"n": len(values)}
    q = statistics.quantiles(values, n=100, method="inclusive")
    return {
        "n": len(values),
        "p50_ms": round(q[49] * 1000, 2),
        "p95_ms": round(q[94] * 1000, 2),
        "p99_ms": round(q[98] * 1000, 2),
        "max_ms": round(max(values) * 1000, 2),
    }


class Soak:
    def __init__(
        self,
        operations: int,
        seed: int = 0,
        client_name: str = "visual_studio_code",
        warmup: int | None = None,
        progress=None,
    ) -> None:
        self.operations = operations
        self.rng = random.Random(seed)
        self.client_name = client_name
        self.warmup = warmup if warmup is not None else max(operations // 10, 50)
        self.report = Report()
        self.docs: list[Doc] = []
        self.settings = {"debounceMs": 50}
        self.progress = progress or (lambda op, report: None)
        self._kinds = list(WEIGHTS)
        self._weights = [WEIGHTS[k] for k in self._kinds]

    # -- the run ----------------------------------------------------------------------------

    async def run(self) -> Report:
        started = time.monotonic()
        async with lsp_session.session(dict(self.settings), self.client_name) as s:
            self.s = s
            texts = {name: (EXAMPLES / name).read_text() for name in DOCUMENTS}
            texts["large.py"] = "\n".join((EXAMPLES / n).read_text() for n in LARGE)
            for name, text in texts.items():
                doc = Doc(f"file:///tmp/allo-lsp-soak/{name}", text, 1, text)
                self.docs.append(doc)
                self._open(doc)
            for doc in self.docs:
                await s.diagnostics(doc.uri, doc.version, timeout=60)
            for op in range(self.operations):
                kind = self.rng.choices(self._kinds, self._weights)[0]
                try:
                    await self._operation(kind)
                except Exception as exc:  # noqa: BLE001 - an error response is a finding
                    self.report.problems.append(f"op {op} {kind}: {type(exc).__name__}: {str(exc)[:500]}")
                self.report.operations += 1
                self.report.counts[kind] = self.report.counts.get(kind, 0) + 1
                if s.process.returncode is not None:
                    self.report.problems.append(f"the server exited (status {s.process.returncode}) at operation {op}")
                    self.report.server_alive = False
                    break
                if op == self.warmup:
                    self.report.rss_start_kib = rss_kib(s.pid)
                if op % 100 == 0:
                    rss = rss_kib(s.pid) or 0
                    self.report.rss_samples.append((op, rss))
                    self.report.rss_max_kib = max(self.report.rss_max_kib, rss)
                    self.progress(op, self.report)
            if self.report.server_alive:
                await self._settle()
                self.report.rss_end_kib = rss_kib(s.pid)
            self.report.problems += [f"logged as an error: {m[:2000]}" for m in s.errors_logged()]
            self._check_published()
        self.report.seconds = round(time.monotonic() - started, 1)
        return self.report

    async def _operation(self, kind: str) -> None:
        if kind in ("configure",):
            return self._configure()
        if kind == "reopen":
            return await self._reopen()
        doc = self.rng.choice([d for d in self.docs if d.open] or self.docs)
        if not doc.open:
            return await self._reopen(doc)
        if kind in ("type", "delete", "break", "fix", "paste", "lines"):
            return self._edit(doc, kind)
        if kind == "pause":
            return await self._pause(doc)
        await self._request(doc, kind)

    # -- edits ------------------------------------------------------------------------------

    def _edit(self, doc: Doc, kind: str) -> None:
        text, rng = doc.text, self.rng
        at = rng.randint(0, len(text))
        at = _not_inside_pair(text, at)
        if kind == "type":
            new = (
                rng.choice(TOKENS)
                if rng.random() < 0.8
                else "".join(rng.choice("abc_ ():[]=.,0123\n") for _ in range(rng.randint(1, 8)))
            )
            self._replace(doc, at, at, new)
        elif kind == "delete":
            end = _not_inside_pair(text, min(len(text), at + rng.choice([1, 1, 2, 5, 20, 80])))
            self._replace(doc, at, end, "")
        elif kind == "break":
            self._replace(doc, at, at, rng.choice(BREAKERS))
        elif kind == "fix":
            self._replace_all_minimally(doc, doc.good)
        elif kind == "paste":
            source = (EXAMPLES / rng.choice(DOCUMENTS)).read_text()
            start = source.find("    @df.kernel")
            block = source[start : source.find("\n\n", start) + 2] if start >= 0 else "x = 1\n"
            line_start = text.rfind("\n", 0, at) + 1
            self._replace(doc, line_start, line_start, block)
        elif kind == "lines":
            newline = text.find("\n", at)
            if newline >= 0 and rng.random() < 0.5:
                self._replace(doc, newline, newline + 1, " ")  # join two lines
            else:
                self._replace(doc, at, at, "\n")  # split one

    def _replace(self, doc: Doc, start: int, end: int, new: str) -> None:
        """One incremental change: [start, end) of the current text (string offsets) -> new."""
        text = doc.text
        start_pos = self._position(text, start)
        end_pos = self._position(text, end)
        doc.text = text[:start] + new + text[end:]
        doc.version += 1
        doc.history[doc.version] = doc.text
        for old in [v for v in doc.history if v < doc.version - 400]:
            del doc.history[old]
        self.s.client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(uri=doc.uri, version=doc.version),
                [lsp.TextDocumentContentChangePartial(range=lsp.Range(start_pos, end_pos), text=new)],
            )
        )

    def _replace_all_minimally(self, doc: Doc, target: str) -> None:
        """Go to `target` with one range edit over what differs (as an undo does)."""
        a, b = doc.text, target
        prefix = 0
        limit = min(len(a), len(b))
        while prefix < limit and a[prefix] == b[prefix]:
            prefix += 1
        suffix = 0
        while suffix < limit - prefix and a[len(a) - 1 - suffix] == b[len(b) - 1 - suffix]:
            suffix += 1
        # Never split a surrogate pair or a CRLF between the kept and the replaced part.
        while prefix and (_low_surrogate_or_lf(a, prefix) or _low_surrogate_or_lf(b, prefix)):
            prefix -= 1
        while suffix and (_low_surrogate_or_lf(a, len(a) - suffix) or _low_surrogate_or_lf(b, len(b) - suffix)):
            suffix -= 1
        self._replace(doc, prefix, len(a) - suffix, b[prefix : len(b) - suffix])

    def _position(self, text: str, offset: int) -> lsp.Position:
        line = len(re.findall(r"\r\n|\r|\n", text[:offset]))
        line_start = max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1
        return lsp.Position(line, units(text[line_start:offset], self.s.encoding))

    # -- requests ---------------------------------------------------------------------------

    def _random_position(self, doc: Doc) -> lsp.Position:
        lines = lsp_lines(doc.text)
        line = self.rng.randrange(len(lines))
        column = self.rng.randint(0, len(lines[line]))
        return to_client(doc.text, line, column, self.s.encoding)

    async def _request(self, doc: Doc, kind: str) -> None:
        s, ident, timings = self.s, lsp.TextDocumentIdentifier(doc.uri), self.report.timings
        text, version = doc.text, doc.version
        lines = lsp_lines(text)
        self.report.requests += 1

        def check(r: lsp.Range | None, what: str) -> None:
            if r is not None and not range_ok(text, r, s.encoding, lines):
                self.report.problems.append(f"{what} range {r} outside version {version} ({len(lines)} lines)")

        if kind == "hover":
            result = await s.request(
                lsp.TEXT_DOCUMENT_HOVER,
                lsp.HoverParams(text_document=ident, position=self._random_position(doc)),
                timings,
            )
            check(result.range if result else None, "hover")
        elif kind == "definition":
            result = await s.request(
                lsp.TEXT_DOCUMENT_DEFINITION,
                lsp.DefinitionParams(text_document=ident, position=self._random_position(doc)),
                timings,
            )
            for loc in result if isinstance(result, list) else [result] if result else []:
                check(loc.range, "definition")
        elif kind == "references":
            result = await s.request(
                lsp.TEXT_DOCUMENT_REFERENCES,
                lsp.ReferenceParams(
                    text_document=ident,
                    position=self._random_position(doc),
                    context=lsp.ReferenceContext(include_declaration=self.rng.random() < 0.5),
                ),
                timings,
            )
            for loc in result or []:
                check(loc.range, "reference")
        elif kind == "symbols":
            result = await s.request(
                lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL, lsp.DocumentSymbolParams(text_document=ident), timings
            )
            pending = list(result or [])
            while pending:
                symbol = pending.pop()
                check(symbol.range, f"symbol {symbol.name}")
                check(symbol.selection_range, f"symbol {symbol.name} selection")
                pending += list(symbol.children or [])
        elif kind == "inlay":
            window = self._random_range(doc)
            result = await s.request(
                lsp.TEXT_DOCUMENT_INLAY_HINT, lsp.InlayHintParams(text_document=ident, range=window), timings
            )
            for hint in result or []:
                check(lsp.Range(hint.position, hint.position), f"inlay hint {hint.label}")
        elif kind == "lens":
            result = await s.request(lsp.TEXT_DOCUMENT_CODE_LENS, lsp.CodeLensParams(text_document=ident), timings)
            for lens in result or []:
                check(lens.range, "code lens")
        elif kind == "action":
            diagnostics = self._current_diagnostics(doc)
            result = await s.request(
                lsp.TEXT_DOCUMENT_CODE_ACTION,
                lsp.CodeActionParams(
                    text_document=ident,
                    range=self._random_range(doc),
                    context=lsp.CodeActionContext(diagnostics=diagnostics),
                ),
                timings,
            )
            for action in result or []:
                self._check_action(doc, version, text, action)

    def _random_range(self, doc: Doc) -> lsp.Range:
        a, b = self._random_position(doc), self._random_position(doc)
        return lsp.Range(*sorted([a, b], key=lambda p: (p.line, p.character)))

    def _current_diagnostics(self, doc: Doc) -> list[lsp.Diagnostic]:
        published = [p for p in self.s.published.get(doc.uri, []) if p.version == doc.version]
        return list(published[-1].diagnostics) if published else []

    def _check_action(self, doc: Doc, version: int, text: str, action) -> None:
        edit = getattr(action, "edit", None)
        if edit is None:
            return
        for change in edit.document_changes or []:
            if not isinstance(change, lsp.TextDocumentEdit):
                continue
            if change.text_document.uri == doc.uri and change.text_document.version != version:
                self.report.problems.append(
                    f"code action '{action.title}' for version {change.text_document.version}, "
                    f"the document is at {version}"
                )
            for e in change.edits:
                if not range_ok(text, e.range, self.s.encoding):
                    self.report.problems.append(
                        f"code action '{action.title}' edits {e.range} outside version {version}"
                    )

    # -- configuration, open and close --------------------------------------------------------

    def _configure(self) -> None:
        settings = {k: self.rng.choice(v) for k, v in SETTINGS_POOL.items() if self.rng.random() < 0.5}
        if self.rng.random() < 0.15:
            key = self.rng.choice(list(INVALID))
            settings[key] = INVALID[key]
        self.settings = {"debounceMs": 50, **settings}
        self.s.configure(self.settings)

    async def _reopen(self, doc: Doc | None = None) -> None:
        doc = doc or self.rng.choice(self.docs)
        if doc.open:
            self.s.client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(doc.uri)))
            doc.open = False
            if self.rng.random() < 0.5:
                return  # stays closed for a while
        if self.rng.random() < 0.3:
            doc.text = doc.good = (EXAMPLES / self.rng.choice(DOCUMENTS)).read_text()
        doc.version += 1  # versions keep increasing across a close, so stale ones stay detectable
        doc.history[doc.version] = doc.text
        self._open(doc)

    def _open(self, doc: Doc) -> None:
        doc.open = True
        doc.history[doc.version] = doc.text
        self.s.client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(
                lsp.TextDocumentItem(uri=doc.uri, language_id="python", version=doc.version, text=doc.text)
            )
        )

    # -- pauses: the published diagnostics against an analysis of the client's text -----------

    async def _pause(self, doc: Doc, timeout: float = 20) -> None:
        version = doc.version
        start = time.perf_counter()
        try:
            diagnostics = await self.s.diagnostics(doc.uri, version, timeout)
        except asyncio.TimeoutError:
            self.report.problems.append(f"no diagnostics for {doc.uri} version {version} within {timeout} s")
            return
        self.report.timings.setdefault("(diagnostics after a pause)", []).append(time.perf_counter() - start)
        self._compare(doc, doc.history.get(version, doc.text), diagnostics)

    def _compare(self, doc: Doc, text: str, diagnostics: list[lsp.Diagnostic]) -> None:
        """The server's diagnostics of this version against `analyze` of the client's text: all
        of them when it parses, the syntax errors when not (the rest come from the last text that
        parsed, moved)."""
        from allo_lsp.analysis import Options, analyze

        # The settings may have changed just before (the server pulls them asynchronously): the
        # diagnostics must match the analysis under one of the Allo builds.
        candidates = []
        for build in ("auto", "fixed", "legacy"):
            mine = analyze(text, Options(allo_build=build)).problems
            syntax = any(p.code == "ADF900" for p in mine)
            if syntax:
                mine = [p for p in mine if p.code == "ADF900"]
            candidates.append(sorted((p.code, *_start(text, p, self.s.encoding)) for p in mine))
        theirs = [d for d in diagnostics if d.source == "allo-lsp" and (d.code == "ADF900" or not syntax)]
        got = sorted((d.code, d.range.start.line, d.range.start.character) for d in theirs)
        expected = candidates[0]
        self.report.compared += 1
        if got not in candidates:
            self.report.problems.append(
                f"diagnostics of {doc.uri} version {doc.version} differ from an analysis of the client's text: "
                f"expected {expected[:6]}, got {got[:6]}"
            )

    async def _settle(self) -> None:
        """The end: every document back to a text that parses, then its diagnostics compared."""
        for doc in self.docs:
            if not doc.open:
                doc.version += 1
                self._open(doc)
            self._replace_all_minimally(doc, doc.good)
        for doc in self.docs:
            await self._pause(doc, timeout=60)

    def _check_published(self) -> None:
        """Published diagnostics: versions never go back, ranges inside their version's text."""
        for uri, published in self.s.published.items():
            doc = next(d for d in self.docs if d.uri == uri)
            last = 0
            for p in published:
                if p.version is None:
                    continue  # the empty list sent on close
                if p.version < last:
                    self.report.problems.append(
                        f"{uri}: diagnostics for version {p.version} published after version {last}"
                    )
                last = max(last, p.version)
                text = doc.history.get(p.version)
                if text is None:
                    continue  # older than the history kept
                lines = lsp_lines(text)
                for d in p.diagnostics:
                    if not range_ok(text, d.range, self.s.encoding, lines):
                        self.report.problems.append(
                            f"{uri} version {p.version}: {d.code} at {d.range} outside the text"
                        )


def _start(text: str, problem, encoding: str) -> tuple[int, int]:
    p = to_client(text, problem.range.start.line, problem.range.start.column, encoding)
    return p.line, p.character


def _low_surrogate_or_lf(text: str, i: int) -> bool:
    """Would cutting `text` at `i` split a CRLF (or a pair of UTF-16 surrogates)?"""
    return 0 < i < len(text) and (text[i - 1] == "\r" and text[i] == "\n")


def _not_inside_pair(text: str, i: int) -> int:
    return i - 1 if _low_surrogate_or_lf(text, i) else i
