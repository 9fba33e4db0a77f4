"""A region's graph (graph.py) as Graphviz dot, for `allo-lsp graph --format dot`: for editors
without the webview and for papers.

Groups (a sub-region, an expanded kernel's PEs) are clusters holding their own node, so that an
edge to the group still has an end; a stream nobody gets (or puts) ends in a point. What the last
runs found is in the labels (`4/4` on a FIFO, cycles and II on a kernel) and in red on what a
deadlock blocked.
"""

from __future__ import annotations

from allo_lsp.ide.graph_model import Edge, Graph, Node, Port

_ERROR = "#d1242f"  # what a deadlock blocked
_SHAPES = {"kernel": "box", "pe": "box", "port": "cds", "region": "tab"}


def to_dot(graph: Graph) -> str:
    children: dict[str | None, list[Node]] = {}
    for node in graph.nodes:
        children.setdefault(node.parent, []).append(node)
    lines = [
        f"digraph {_quote(graph.region)} {{",
        "  rankdir=LR;",
        '  node [fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    lines += _nodes(children, None, "  ", {p.id: p for p in graph.ports})
    for edge in graph.edges:
        lines += _edge(edge)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _nodes(
    children: dict[str | None, list[Node]], parent: str | None, indent: str, ports: dict[str, Port]
) -> list[str]:
    out = []
    for node in children.get(parent, []):
        if node.id in children:
            out.append(f"{indent}subgraph {_quote('cluster_' + node.id)} {{")
            out.append(f"{indent}  label={_quote(node.name)};")
            out.append(f"{indent}  {_node(node, 'plaintext', ports)}")
            out += _nodes(children, node.id, indent + "  ", ports)
            out.append(f"{indent}}}")
        else:
            out.append(f"{indent}{_node(node, _SHAPES.get(node.kind, 'box'), ports)}")
    return out


def _node(node: Node, shape: str, ports: dict[str, Port]) -> str:
    attrs = {"label": _node_label(node, ports.get(node.id)), "shape": shape}
    if node.overlay and (node.overlay.get("run") or {}).get("blocked"):
        attrs |= {"color": _ERROR, "fontcolor": _ERROR, "penwidth": "2"}
    return f"{_quote(node.id)} [{_attrs(attrs)}];"


def _node_label(node: Node, port: Port | None) -> str:
    lines = [node.name]
    if port is not None:  # the region's own parameters (a sub-region's have no bundle of their own)
        lines = [f"{port.name}: {port.type or '?'}", ", ".join(filter(None, (port.bundle, port.direction)))]
    if node.kind == "kernel" and node.mapping is not None:
        count = f", {node.pe_count} PEs" if node.pe_count and node.pe_count > 1 else ""
        lines.append(f"mapping {list(node.mapping)}{count}")
    if node.role:
        lines.append(node.role)
    synthesis = (node.overlay or {}).get("synthesis")
    if synthesis:
        worst, ii = synthesis["latency"]["worst"], synthesis["interval"]["max"]
        lines.append(f"{_figure(worst)} cycles, II {_figure(ii)}")
    for wait in ((node.overlay or {}).get("run") or {}).get("blocked", []):
        lines.append(f"blocked: {wait['op']} {wait['fifo']} ({wait['state']})")
    return "\n".join(lines)


def _edge(edge: Edge) -> list[str]:
    out, source, target = [], edge.source, edge.target
    if source is None or target is None:  # a stub: put but never got, or got but never put
        stub = edge.id + ":stub"
        out.append(f'  {_quote(stub)} [shape=point, width=0.08, label=""];')
        source, target = source or stub, target or stub
    attrs = {"label": _edge_label(edge)}
    if edge.kind == "port":
        attrs |= {"style": "dashed", "arrowhead": "empty"}
    run = (edge.overlay or {}).get("run") or {}
    if run.get("blocked"):
        attrs |= {"color": _ERROR, "fontcolor": _ERROR, "penwidth": "2"}
    out.append(f"  {_quote(source)} -> {_quote(target)} [{_attrs(attrs)}];")
    return out


def _edge_label(edge: Edge) -> str:
    if edge.kind == "port":
        return edge.direction or ""
    name = edge.stream or ""
    if edge.index is not None:
        name += f"[{', '.join(map(str, edge.index))}]"
    elif edge.fifos > 1:
        name += f" ×{edge.fifos}"
    lines = [name, f"{edge.type or '?'}, depth {edge.depth if edge.depth is not None else '?'}"]
    run = (edge.overlay or {}).get("run") or {}
    for wait in run.get("blocked", []):
        lines.append(f"{wait['occupancy']}/{wait['depth']} {wait['state']}")
    if "maxOccupancy" in run:
        lines.append(f"max {run['maxOccupancy']}/{run['depth']}, {run['puts']} puts, {run['gets']} gets")
    if run.get("sizedDepth"):
        lines.append(f"completes with depth {run['sizedDepth']}")
    return "\n".join(lines)


def _figure(value) -> str:
    return "?" if value is None else f"{value:,.0f}" if float(value).is_integer() else f"{value:,.3g}"


def _attrs(attrs: dict[str, str]) -> str:
    return ", ".join(f"{k}={_quote(v)}" for k, v in attrs.items())


def _quote(text: str) -> str:
    """A dot ID as a double-quoted string; a line break in a label is dot's `\\n`."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
