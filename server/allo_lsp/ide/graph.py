"""The dataflow graph of a region: kernels (or their PEs), the streams between them, the region's
ports, its sub-regions as nested groups, and what the last runs found drawn on them.

Plain data in editor terms (`Range`s of the analysed model, moved to the current text). The
`allo/regionGraph` request (lsp/features.py; params `{"textDocument": {"uri"}, "region": name or
absent (the file's first module-level region), "expand": bool}`, answer the JSON below or null
when there is no such region or no analysis yet) and `allo-lsp graph FILE::REGION --format json`
(cli.py) return the same JSON, written by `Graph.to_json` (graph_model.py) with the caller's range
conversion. It is the contract with the VS Code webview (client/src) and the dot output
(graph_dot.py):

```
{"region": name, "range": R, "expanded": bool,
 "nodes": [{"id", "name", "kind", "kernel", "pe", "peCount", "mapping", "role", "roleLine",
            "branches": [R] or null, "range": R, "extent": R, "parent", "overlay"}],
 "edges": [{"id", "kind", "source", "target", "stream", "index", "depth", "type", "fifos",
            "direction", "range": R, "overlay"}],
 "ports": [{"id", "name", "type", "bundle", "direction", "range": R}],
 "overlay": {"run": {...} or null, "synthesis": {...} or null}}
```
- R is an LSP range (`{"start": {"line", "character"}, "end": {...}}`, 0-based lines, characters
  in the position encoding the session negotiated: UTF-16 unless the client chose another, and
  UTF-16 in the CLI's JSON), or null when its line was edited since the analysis. A kernel's and a PE's range is the kernel's name, a sub-region's its
  name, a port's the parameter's name; a stream edge's is the stream's declaration, a port edge's
  the parameter's name. The graph's own is the region's name. A node's `extent` is its whole
  definition, from the first decorator to the body's last line (a kernel's, which its PEs share;
  a sub-region's), null for a port: the cursor anywhere in it is in that node (the innermost wins).
- Node `kind`: "kernel" | "pe" | "port" | "region". `id` is unique in the graph and the same
  across edits that keep the names: a kernel's name (`gemm`), a PE's instance name (`gemm_1_2`),
  a port `port:A`; inside a sub-region they are prefixed with the path of the node that calls it
  (`wrapper/inner`, `wrapper/inner/scale`, expanded `wrapper_0/inner/scale_0`). `name`: the
  kernel's name for a kernel, the instance name for a PE, the parameter's for a port, the region's
  for a region. `kernel`: the kernel's name (null for ports and regions); `pe`: a PE's
  `get_pid()` as a list (`[1, 2]`; null unless a PE); `peCount`: the kernel's PE count (null when
  its mapping does not fold); `mapping`: the folded mapping as a list (an entry null where it does
  not fold; the whole null when there is none).
- `role`: a PE's `allo.meta_*` branches where `get_pid()` folds (`"meta_elif(j == 0)"`, nested
  ones joined by " / "), null for a PE in no branch or whose branch does not fold, and for every
  other node; `roleLine`: the 0-based line of the innermost branch. `branches`: a PE's branches
  as ranges (each kept `with allo.meta_*(...):` statement, its `with` to its body's end,
  outermost first): [] for a PE in no branch, null when a branch around it does not fold (it may
  run any) and for every other node. The cursor in a branch is in the PEs that run it (the
  innermost branch holding the cursor wins); outside every branch, in the whole kernel.
- `parent`: the node's group, null at the top. Collapsed (the default) a sub-region's node has the
  calling kernel as parent and holds that region's kernels and ports. Expanded (`expand: true`)
  every kernel is a group holding its PEs (a kernel whose PEs are not known, or over 4096, stays a
  plain node) and a sub-region is instantiated under each PE of the calling kernel. A graph holds
  at most `MAX_NODES` nodes: past it a kernel stays collapsed and a sub-region is left out.
- Edge `kind`: "stream" | "port". A stream edge's `source` puts and its `target` gets; one of them
  is null for a stream nobody gets (or nobody puts): draw a stub. Expanded, an edge joins two PEs
  when both uses fold to the same element (`index`, a list; null for a plain stream); a use whose
  element (or meta branch) does not fold may reach any element: it is joined at its kernel node
  (the group) to every node at the other end. Collapsed, the element edges
  between two kernels are one edge per stream: `fifos` the number of FIFOs it stands for (1 for a
  PE-level edge), `index` the element when there is only one. `depth`: the declared depth (null
  when it does not fold); `type`: the element type (`int32`). A port edge goes port -> kernel for a
  parameter the kernel reads ("in"), kernel -> port for one it only writes ("out"), port -> kernel
  for both ("inout"): `direction`, null on stream edges; `type` is the parameter's.
- Ports (`ports`): the region's parameters in the top function's order: `type`, `bundle` (the
  m_axi bundle `gmem0`..., null for a scalar), `direction` "in" | "out" | "inout" | "unused". The
  port nodes of the same ids are what port edges join (a sub-region's ports are nodes only).
- Overlays, null when nothing ran (every key: graph_overlay.py): a node's `{"run": {"blocked":
  [...]}, "synthesis": {"latency", "interval", "resources", "modules"}}`, an edge's `{"run":
  {"puts", "gets", "maxOccupancy", "depth", "fifos", "waits", "blocked": [...], "sizedDepth"}}`,
  the graph's `{"run": {"status", "cause", "message", "target", "deadlock"}, "synthesis": {"title",
  "latency", "interval", "clock"}}`; either part of an overlay may be absent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from allo_lsp.analysis.model import Direction, Kernel, Range, Region
from allo_lsp.ide import graph_fold
from allo_lsp.ide.document import DocumentAnalysis, range_forward
from allo_lsp.ide.graph_model import Edge, Graph, Node, Port
from allo_lsp.ide.graph_overlay import add_overlays
from allo_lsp.protocol.messages import JobResult

REGION_GRAPH = "allo/regionGraph"  # the custom request (its params: `{textDocument: {uri}, region?, expand?}`)
MAX_NODES = 20_000  # a bound on what one answer draws: sub-regions under many PEs multiply
_DIRECTIONS = {Direction.IN: "in", Direction.OUT: "out", Direction.INOUT: "inout"}


def document_graph(
    result: DocumentAnalysis,
    text: str,
    region: str | None,
    expand: bool,
    outcomes: Iterable[JobResult] = (),
    reports: Mapping[str, dict] | None = None,
) -> Graph | None:
    """The graph of the module-level region `region` (None: the file's first) of a document, on
    its current `text`: built on the analysed text, its ranges moved to `text`."""
    analysis, base, shift = result.view(text)
    graph = region_graph(analysis.model.regions, base, region, expand, outcomes, reports)
    if graph is not None and shift is not None:
        graph.range = range_forward(shift, graph.range) if graph.range else None
        for item in (*graph.nodes, *graph.edges, *graph.ports):
            item.range = range_forward(shift, item.range) if item.range else None
        for node in graph.nodes:
            node.extent = range_forward(shift, node.extent) if node.extent else None
            node.role_line = shift.forward(node.role_line) if node.role_line is not None else None
            if node.branches is not None:  # a branch whose lines were edited: not known any more
                moved = [range_forward(shift, b) for b in node.branches]
                node.branches = moved if None not in moved else None
    return graph


def region_graph(
    regions: list[Region],
    text: str,
    name: str | None,
    expand: bool,
    outcomes: Iterable[JobResult] = (),
    reports: Mapping[str, dict] | None = None,
) -> Graph | None:
    """The graph of the module-level region `name` (None: the first) among `regions`, analysed
    from `text`; None when there is no such region. Outcomes and reports add the overlays."""
    top = [r for r in regions if not r.scope_path]
    region = next((r for r in top if name is None or r.name == name), None)
    if region is None:
        return None
    graph = Graph(region.name, region.range, expand)
    _Builder(graph, graph_fold.parse(text), graph_fold.source_lines(text), expand).region(
        region, prefix="", parent=None, outer=frozenset()
    )
    graph.ports = [
        Port(f"port:{a.param.name}", a.param.name, _type(a.param), a.bundle, _direction(a.param), a.param.range)
        for a in region.top_signature
    ]
    add_overlays(graph, region, list(outcomes), (reports or {}).get(region.name))
    return graph


def _type(param) -> str | None:
    return param.type.resolved if param.type is not None else (param.annotation or None)


def _direction(param) -> str:
    return _DIRECTIONS.get(param.direction, "unused")


class _Builder:
    def __init__(self, graph: Graph, tree, lines: list[str], expand: bool) -> None:
        self.graph, self.tree, self.lines, self.expand = graph, tree, lines, expand

    def add(self, node: Node) -> None:
        self.graph.nodes.append(node)

    def room(self, count: int) -> bool:
        """Whether `count` more PEs or a sub-region's nodes fit under `MAX_NODES`: past it a kernel
        stays collapsed and a sub-region is left out, whole (no edge ends at a missing node)."""
        return len(self.graph.nodes) + count <= MAX_NODES

    def region(self, region: Region, prefix: str, parent: str | None, outer: frozenset[int]) -> None:
        """The region's nodes and edges, their ids prefixed with `prefix` (a sub-region's path)."""
        region_def, env = graph_fold.region_env(self.tree, region) if self.tree is not None else (None, {})
        streams = {s.name for s in region.streams}
        views: dict[str, list[graph_fold.PeView]] = {}
        ids: dict[str, str] = {}  # kernel name -> its node id
        pe_ids: dict[str, list[str]] = {}  # kernel name -> its PEs' node ids, in instance order
        for kernel in region.kernels:
            if kernel.name in ids:  # a name defined twice: the model keeps both, the graph the first
                continue
            kid = ids[kernel.name] = prefix + kernel.name
            if region_def is not None:
                views[kernel.name] = graph_fold.kernel_pes(region_def, env, kernel, streams)
            self.add(self._kernel_node(kernel, kid, parent, region.name))
            pe_ids[kernel.name] = []
            names = kernel.instance_names
            if self.expand and names and len(names) == kernel.pe_count and self.room(len(names)):
                pe_ids[kernel.name] = [prefix + n for n in names]
                indices = graph_fold.row_major([m or 0 for m in kernel.mapping or ()])
                pes = views.get(kernel.name) or [None] * len(names)
                for pid, pe_name, index, view in zip(pe_ids[kernel.name], names, indices, pes):
                    self.add(self._pe_node(kernel, pid, pe_name, kid, index, view, region.name))
        for param in region.params:
            self.add(Node(f"{prefix}port:{param.name}", param.name, "port", param.range, parent, region=region.name))
            for kernel_name in dict.fromkeys(param.kernels):
                if kernel_name in ids:
                    self._port_edge(param, prefix, ids[kernel_name], region)
        for stream in region.streams:
            _StreamEdges(self, region, stream, ids, pe_ids, views).add()
        self._subregions(region, prefix, ids, pe_ids, outer | {id(region)})

    def _kernel_node(self, kernel: Kernel, kid: str, parent: str | None, region: str) -> Node:
        return Node(
            kid,
            kernel.name,
            "kernel",
            kernel.range,
            parent,
            kernel.name,
            None,
            kernel.pe_count,
            kernel.mapping,
            region=region,
            extent=_extent(kernel),
        )

    def _pe_node(self, kernel: Kernel, pid: str, name: str, parent: str, index, view, region: str) -> Node:
        role, line = (view.role, view.role_line) if view is not None else (None, None)
        branches = view.branches if view is not None else None
        return Node(
            pid,
            name,
            "pe",
            kernel.range,
            parent,
            kernel.name,
            index,
            kernel.pe_count,
            kernel.mapping,
            role,
            line,
            region=region,
            extent=_extent(kernel),
            branches=[self._range(b) for b in branches] if branches is not None else None,
        )

    def _range(self, node) -> Range:
        return graph_fold.ast_range(self.lines, node)

    def _port_edge(self, param, prefix: str, kernel_id: str, region: Region) -> None:
        kernel = region.kernel(kernel_id[len(prefix) :])
        access = [kp.access for kp in kernel.params if kp.bound_to == param.name] if kernel else []
        reads, writes = any(a.reads for a in access), any(a.writes for a in access)
        port = f"{prefix}port:{param.name}"
        direction = "inout" if reads and writes else "out" if writes else "in"
        source, target = (kernel_id, port) if direction == "out" else (port, kernel_id)
        self.graph.edges.append(
            Edge(
                f"{port}->{kernel_id}",
                "port",
                source,
                target,
                param.range,
                type=_type(param),
                direction=direction,
                region=region.name,
            )
        )

    def _subregions(self, region: Region, prefix: str, ids, pe_ids, outer: frozenset[int]) -> None:
        for kernel in region.kernels:
            callers = pe_ids.get(kernel.name) or [ids[kernel.name]] if kernel.name in ids else []
            for sub in kernel.subregions:
                if id(sub) in outer:  # a region reached through itself: Allo cannot build it
                    continue
                for caller in callers:
                    if not self.room(_size(sub, self.expand)):
                        return
                    group = f"{caller}/{sub.name}"
                    extent = Range(sub.decorator_range.start, sub.def_range.end)  # def_range starts at `def`
                    self.add(Node(group, sub.name, "region", sub.range, caller, region=sub.name, extent=extent))
                    self.region(sub, prefix=group + "/", parent=group, outer=outer)


def _extent(kernel: Kernel) -> Range:
    """A kernel's definition: its decorator to its body's end (its name alone when the body is unknown)."""
    end = (kernel.body_range or kernel.range).end
    return Range(kernel.decorator_range.start, end)


def _size(region: Region, expand: bool) -> int:
    """The nodes one instance of `region` adds (its own, its kernels', their PEs', its ports'),
    sub-regions aside: those are budgeted when reached."""
    pes = sum(k.pe_count or 0 for k in region.kernels) if expand else 0
    return 1 + len(region.kernels) + pes + len(region.params)


class _StreamEdges:
    """One stream's edges: element by element where the uses fold, at the kernels otherwise."""

    def __init__(self, builder: _Builder, region: Region, stream, ids, pe_ids, views) -> None:
        self.builder, self.region, self.stream = builder, region, stream
        self.ids, self.pe_ids, self.views = ids, pe_ids, views
        self.put: dict[Any, list[str]] = {}  # element -> its producers (PE ids, or kernel ids when collapsed)
        self.got: dict[Any, list[str]] = {}
        self.loose_put: list[str] = []  # kernel ids whose use names no known element
        self.loose_got: list[str] = []
        self.kernel_of: dict[str, str] | None = None

    def add(self) -> None:
        for kernel_name, kid in self.ids.items():
            views = self.views.get(kernel_name)
            if views:
                pes = self.pe_ids.get(kernel_name) or [kid] * len(views)
                for pid, view in zip(pes, views):
                    for use in view.uses:
                        if use.stream == self.stream.name:
                            self._use(use.op, use.index if use.placed else graph_fold.UNKNOWN, pid, kid)
            else:  # not folded: the model's uses, at the kernel
                for use in (*self.stream.puts, *self.stream.gets):
                    if use.kernel == kernel_name:
                        self._use(use.op, graph_fold.UNKNOWN, kid, kid)
        self._edges()

    def _use(self, op: str, index, node: str, kernel_id: str) -> None:
        if index is graph_fold.UNKNOWN:
            target = self.loose_put if op == "put" else self.loose_got
            if kernel_id not in target:
                target.append(kernel_id)
            return
        ends = (self.put if op == "put" else self.got).setdefault(index, [])
        if node not in ends:
            ends.append(node)

    def _edges(self) -> None:
        pairs: dict[tuple[str | None, str | None], list] = {}  # (source, target) -> the elements
        for element in dict.fromkeys([*self.put, *self.got]):
            sources, targets = self.put.get(element, []), self.got.get(element, [])
            for s in sources or ([None] if not self.loose_put else []):
                for t in targets or ([None] if not self.loose_got else []):
                    if s is not None or t is not None:
                        pairs.setdefault(self._ends(s, t), []).append(element)
        # A use that names no known element may reach any: it joins every node at the other end.
        producers = list(dict.fromkeys([n for ns in self.put.values() for n in ns] + self.loose_put))
        consumers = list(dict.fromkeys([n for ns in self.got.values() for n in ns] + self.loose_got))
        for s in self.loose_put:
            for t in consumers or [None]:
                pairs.setdefault(self._ends(s, t), [])
        for t in self.loose_got:
            for s in producers or [None]:
                pairs.setdefault(self._ends(s, t), [])
        stream, stype = self.stream, self.stream.type
        depth = stype.depth if stype is not None and isinstance(stype.depth, int) else None
        element_type = stype.element.resolved if stype is not None else None
        for (s, t), elements in pairs.items():
            distinct = list(dict.fromkeys(elements))
            index = distinct[0] if len(distinct) == 1 and distinct[0] is not None else None
            label = f"{stream.name}[{', '.join(map(str, index))}]" if index is not None else stream.name
            self.builder.graph.edges.append(
                Edge(
                    f"{label}:{s or ''}->{t or ''}",
                    "stream",
                    s,
                    t,
                    stream.range,
                    stream.name,
                    index,
                    depth,
                    element_type,
                    max(len(distinct), 1),
                    region=self.region.name,
                )
            )

    def _ends(self, s: str | None, t: str | None) -> tuple[str | None, str | None]:
        if self.builder.expand:
            return s, t
        kernel_of = self._kernel_of()
        return (kernel_of[s] if s else None), (kernel_of[t] if t else None)

    def _kernel_of(self) -> dict[str, str]:
        """Node id -> its kernel's node id (made once per stream)."""
        if self.kernel_of is None:
            self.kernel_of = {kid: kid for kid in self.ids.values()}
            for name, pes in self.pe_ids.items():
                self.kernel_of.update((p, self.ids[name]) for p in pes)
        return self.kernel_of
