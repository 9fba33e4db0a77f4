"""The code as one PE runs it: the active-PE view of a kernel (slang-server's "active instance").

Given a kernel and one of its PEs (its instance name, `gemm_1_2`, or its `get_pid()`, `(1, 2)`),
what Allo's compiler keeps of the kernel's body for that PE, folded by `graph_fold.py` (nothing
runs; the same folding as the graph's PE nodes):
- `inactive`: the `with allo.meta_if/elif/else` branches the PE does not take (the whole statement,
  its `with` to its body's end). A branch whose condition does not fold, or that an unrolled
  `meta_for` may pair otherwise on a later iteration, is not inactive: the PE may run it.
  `kept`: the branches it takes, outermost first.
- `hints`: each `df.get_pid()` with the PE's values (`i = 1, j = 2`), and each stream subscript
  whose index is an expression (`fifo_A[i, j + 1]`) with the element it addresses (`= [1, 3]`).
- `streams`: each put and get the PE reaches, the element it names (null where its index does
  not fold: a loop variable, a `meta_for`'s) and the PEs at the other end: those of the region
  whose opposite use names the same element (`graph.py`'s element edges), or, where such a use
  does not fold, its kernel (it may be any of its PEs).
- `pes`: the kernel's PEs for a picker, grouped by role (the graph's `role`: the meta branches a
  PE keeps), the groups in the order of their first PE, each in row-major order.

Ranges are the analysed text's; `forward` moves them to the current one. `ACTIVE_PE` is the
custom request that answers it (lsp/features.py); `to_json` its answer. `hover_markdown` is what
the hover on a put or get adds (with what the newest traced reference run saw that PE put or get
there), `listing` what `allo-lsp graph FILE::REGION --pe NAME` prints.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from allo_lsp.analysis.model import Kernel, Position, Range, Region
from allo_lsp.ide import graph_fold
from allo_lsp.ide.document import LineShift, range_forward
from allo_lsp.ide.types import InlayHint
from allo_lsp.protocol.details import SimulateDetails, TracedValues, details_as
from allo_lsp.protocol.messages import JobResult

ACTIVE_PE = "alloDataflow/activePe"
# The first values per PE and FIFO a reference run is asked to keep while a document has an
# active PE (the job's `trace` option; the executor keeps at most 16: runner/reference/scheduler.py).
TRACE_VALUES = 16


@dataclass(frozen=True)
class PeChoice:
    name: str  # the instance name, `gemm_1_2`
    pid: tuple[int, ...]
    role: str | None  # the meta branches it keeps (`meta_elif(j == 0)`); None: in none, or unknown


@dataclass(frozen=True)
class StreamSite:
    range: Range  # what the call names: `fifo_A[i, j + 1].put`
    stream: str
    op: str  # "put" or "get"
    index: tuple[int, ...] | None  # the element of a stream array; None: a plain stream or not folded
    folded: bool  # False: the index does not fold (the element is not known)
    peers: tuple[str, ...]  # the other end: PE names, or a kernel's name where its use does not fold

    @property
    def element(self) -> str | None:
        """`fifo_A[1, 3]`, the stream's name for a plain stream; None where the index does not fold."""
        if not self.folded:
            return None
        return f"{self.stream}[{', '.join(map(str, self.index))}]" if self.index is not None else self.stream


@dataclass(frozen=True)
class ActivePe:
    region: str
    kernel: str
    pe: PeChoice | None  # None: no PE chosen (only `pes` is filled)
    pes: tuple[PeChoice, ...]
    inactive: tuple[Range, ...] = ()
    hints: tuple[InlayHint, ...] = ()
    streams: tuple[StreamSite, ...] = ()
    kept: tuple[Range, ...] = ()  # the branches it takes, outermost first

    def forward(self, shift: LineShift | None) -> ActivePe:
        """On the current text: what sits on a line edited since the analysis is left out."""
        if shift is None:
            return self
        inactive = tuple(r for r in (range_forward(shift, r) for r in self.inactive) if r is not None)
        kept = tuple(r for r in (range_forward(shift, r) for r in self.kept) if r is not None)
        hints = []
        for hint in self.hints:
            line = shift.forward(hint.position.line)
            if line is not None:
                hints.append(replace(hint, position=Position(line, hint.position.column)))
        streams = tuple(replace(s, range=r) for s in self.streams if (r := range_forward(shift, s.range)) is not None)
        return replace(self, inactive=inactive, hints=tuple(hints), streams=streams, kept=kept)

    def site_at(self, pos: Position) -> StreamSite | None:
        return next((s for s in self.streams if s.range.contains(pos)), None)

    def to_json(self, range_json: Callable[[Range], dict]) -> dict:
        """The answer of `alloDataflow/activePe` (its shape: README, "Which PE am I looking at?"),
        with the caller's range conversion (a hint's position: an empty range's start)."""

        def pe(choice: PeChoice) -> dict:
            return {"name": choice.name, "pid": list(choice.pid), "role": choice.role}

        return {
            "region": self.region,
            "kernel": self.kernel,
            "active": pe(self.pe) if self.pe is not None else None,
            "pes": [pe(p) for p in self.pes],
            "inactive": [range_json(r) for r in self.inactive],
            "kept": [range_json(r) for r in self.kept],
            "hints": [
                {"position": range_json(Range(h.position, h.position))["start"], "label": h.label} for h in self.hints
            ],
            "streams": [
                {
                    "range": range_json(s.range),
                    "stream": s.stream,
                    "op": s.op,
                    "element": s.element,
                    "index": list(s.index) if s.index is not None else None,
                    "peer": s.peers[0] if len(s.peers) == 1 else None,
                    "peers": list(s.peers),
                }
                for s in self.streams
            ],
        }


def find_kernel(regions: Iterable[Region], region: str, kernel: str) -> tuple[Region, Kernel] | None:
    """The kernel `kernel` of the region named `region`: a module-level region first (the names
    the graph and the jobs use), else the first nested one (a region defined in a test) that has it."""
    named = sorted((r for r in regions if r.name == region), key=lambda r: bool(r.scope_path))
    for found in named:
        if (k := found.kernel(kernel)) is not None:
            return found, k
    return None


def active_pe(
    regions: Iterable[Region], text: str, region: str, kernel: str, pe: str | list | tuple | None
) -> ActivePe | None:
    """The view of `kernel` in `region` for the PE `pe` (its name or its pid), on `text` (the
    analysed text); None without such a kernel. A PE that is not the kernel's, or None, gives the
    PE list alone (`pe` None)."""
    found = find_kernel(regions, region, kernel)
    if found is None:
        return None
    where, k = found
    tree = graph_fold.parse(text)
    region_def, env = graph_fold.region_env(tree, where) if tree is not None else (None, {})
    views = _views(where, region_def, env)
    mine = views.get(k.name, [])
    pids = graph_fold.row_major([m or 0 for m in k.mapping or ()]) if k.instance_names else []
    names = k.instance_names
    roles = {view.index: view.role for view in mine}
    choices = [PeChoice(n, p, roles.get(p)) for n, p in zip(names, pids)]
    groups: dict[str | None, list[PeChoice]] = {}
    for choice in choices:
        groups.setdefault(choice.role, []).append(choice)
    listed = tuple(c for group in groups.values() for c in group)
    chosen = next((c for c in choices if pe in (c.name, c.pid, list(c.pid))), None) if pe is not None else None
    view = next((v for v in mine if chosen is not None and v.index == chosen.pid), None)
    if chosen is None or view is None:
        return ActivePe(where.name, k.name, chosen if view is not None else None, listed)
    lines = graph_fold.source_lines(text)
    inactive = tuple(graph_fold.ast_range(lines, w) for w, taken in view.decisions if taken is False)
    kept = tuple(graph_fold.ast_range(lines, w) for w, taken in view.decisions if taken is True)
    found = [_pid_hint(lines, stmt, bound) for stmt, bound in view.pids] + [_element_hint(lines, u) for u in view.uses]
    hints = sorted((h for h in found if h is not None), key=lambda h: h.position)
    streams = _sites(lines, view, _Ends(views, where))
    inactive = tuple(sorted(inactive, key=_start))
    return ActivePe(where.name, k.name, chosen, listed, inactive, tuple(hints), streams, kept)


def _start(r: Range) -> Position:
    return r.start


def _views(region: Region, region_def: ast.FunctionDef | None, env: dict) -> dict[str, list[graph_fold.PeView]]:
    """Each kernel's PEs folded (a name defined twice: the first, as the graph keeps it)."""
    if region_def is None:
        return {}
    streams, views = {s.name for s in region.streams}, {}
    for kernel in region.kernels:
        if kernel.name not in views:
            views[kernel.name] = graph_fold.kernel_pes(region_def, env, kernel, streams)
    return views


class _Ends:
    """Who puts and gets each element of the region's streams: PE names where a use folds, the
    kernel's name where one does not (it may name any element), as the graph joins them."""

    def __init__(self, views: dict[str, list[graph_fold.PeView]], region: Region) -> None:
        self.placed: dict[tuple[str, str, tuple | None], list[str]] = {}
        self.loose: dict[tuple[str, str], list[str]] = {}
        for kernel in region.kernels:
            for name, view in zip(kernel.instance_names, views.get(kernel.name) or ()):
                for use in view.uses:
                    ends = (
                        self.placed.setdefault((use.stream, use.op, use.index), [])
                        if use.placed
                        else self.loose.setdefault((use.stream, use.op), [])
                    )
                    end = name if use.placed else kernel.name
                    if end not in ends:
                        ends.append(end)

    def other(self, stream: str, op: str, index: tuple | None) -> tuple[str, ...]:
        other = "get" if op == "put" else "put"
        return (*self.placed.get((stream, other, index), ()), *self.loose.get((stream, other), ()))


def _sites(lines: list[str], view: graph_fold.PeView, ends: _Ends) -> tuple[StreamSite, ...]:
    sites = []
    for use in view.uses:
        if use.site is None:
            continue
        folded = use.index is not None or not isinstance(use.site.func.value, ast.Subscript)  # type: ignore[attr-defined]
        peers = ends.other(use.stream, use.op, use.index) if folded else ()
        where = graph_fold.ast_range(lines, use.site.func)
        sites.append(StreamSite(where, use.stream, use.op, use.index, folded, peers))
    return tuple(sorted(sites, key=lambda s: s.range.start))


def _pid_hint(lines: list[str], stmt: ast.Assign, bound: tuple) -> InlayHint | None:
    shown = [f"{name} = {value}" for name, value in bound if type(value) is int]
    if not shown:
        return None
    return InlayHint(graph_fold.ast_range(lines, stmt.value).end, ", ".join(shown), "type", padding_left=True)


def _element_hint(lines: list[str], use: graph_fold.PeUse) -> InlayHint | None:
    """`= [1, 3]` after a subscript written as an expression (a literal one says it already)."""
    subscript = use.site.func.value if use.site is not None else None  # type: ignore[attr-defined]
    if use.index is None or not isinstance(subscript, ast.Subscript):
        return None
    parts = subscript.slice.elts if isinstance(subscript.slice, ast.Tuple) else [subscript.slice]
    if all(isinstance(p, ast.Constant) for p in parts):
        return None
    label = f"= [{', '.join(map(str, use.index))}]"
    return InlayHint(graph_fold.ast_range(lines, subscript).end, label, "type", padding_left=True)


def hover_markdown(site: StreamSite, pe: str, region: str, outcomes: Iterable[JobResult] = ()) -> str:
    """What the hover on a put or get adds for the active PE: the element and the other end, and
    what the newest reference run of `region` that kept a trace saw that PE put or get there."""
    element = site.element
    if element is None:
        return f"PE `{pe}`: the index of `{site.stream}` does not fold here (a loop variable): any element"
    arrow = "->" if site.op == "put" else "<-"
    peers = ", ".join(f"`{p}`" for p in site.peers) or ("nobody gets it" if site.op == "put" else "nobody puts it")
    text = f"PE `{pe}` {site.op}s `{element}` {arrow} {peers}"
    trace = _newest_trace(outcomes, region)
    if trace is None:
        return text
    found = next((t for t in trace if (t.fifo, t.pe, t.op) == (element, pe, site.op)), None)
    verb = "put" if site.op == "put" else "got"
    if found is None:
        return f"{text}\n\nLast reference run: `{pe}` {verb} nothing there"
    shown = ", ".join(f"`{v}`" for v in found.values)
    more = f" (the first {len(found.values)})" if found.count > len(found.values) else ""
    return f"{text}\n\nLast reference run: `{pe}` {verb} {found.count:,} value{'s' * (found.count != 1)}: {shown}{more}"


def _newest_trace(outcomes: Iterable[JobResult], region: str) -> list[TracedValues] | None:
    """The trace of the newest run of `region` that kept one, among the outcomes' runs (oldest first)."""
    found = None
    for outcome in outcomes:
        for run in details_as(outcome.details, SimulateDetails).fifo_statistics:
            if run.region == region and run.trace:
                found = run.trace
    return found


def listing(found: ActivePe, text: str, kernel: Kernel) -> str:
    """The PE as `allo-lsp graph FILE::REGION --pe NAME` prints it: the branches it keeps (1-based
    lines), the lines of its kernel (decorators to the body's end) it runs, each with its values
    and stream ends, and its streams (element -> peer)."""
    pe, lines = found.pe, text.split("\n")
    extent = Range(kernel.decorator_range.start, (kernel.body_range or kernel.range).end)
    assert pe is not None
    out = [f"PE {pe.name} of kernel {found.kernel} (region {found.region}): pid {pe.pid}, role {pe.role or '-'}"]
    out += ["", "kept branches:"] + [
        f"  lines {r.start.line + 1}-{r.end.line + 1}: {lines[r.start.line].strip()}" for r in found.kept
    ]
    if not found.kept:
        out.append("  (none: it runs no meta_if/elif/else branch, or none folds)")
    notes: dict[int, list[str]] = {}
    for hint in found.hints:
        if not hint.label.startswith("="):  # get_pid's values; an element is said with its peer below
            notes.setdefault(hint.position.line, []).append(hint.label)
    for site in found.streams:
        notes.setdefault(site.range.start.line, []).append(_end(site))
    out += ["", "runs:"]
    for row in range(extent.start.line, min(extent.end.line + 1, len(lines))):
        skipped = next((r for r in found.inactive if r.start.line <= row <= r.end.line), None)
        if skipped is None:
            note = f"  # {'; '.join(notes[row])}" if row in notes else ""
            out.append(f"{row + 1:5} | {lines[row]}{note}")
        elif row == skipped.start.line:
            out.append(f"      ~ lines {row + 1}-{skipped.end.line + 1}: a branch it does not take")
    out += ["", "streams:"] + [f"  {_end(s)} (line {s.range.start.line + 1})" for s in found.streams]
    if not found.streams:
        out.append("  (none)")
    return "\n".join(out) + "\n"


def _end(site: StreamSite) -> str:
    arrow = "->" if site.op == "put" else "<-"
    peers = ", ".join(site.peers) or "nobody"
    return f"{site.element} {arrow} {peers}" if site.element is not None else f"{site.stream}[?] {arrow} any"
