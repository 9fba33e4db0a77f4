"""The graph's records (graph.py's docstring is their JSON contract), and that JSON."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from allo_lsp.analysis.model import Range


@dataclass
class Node:
    id: str
    name: str
    kind: str  # kernel, pe, port, region
    range: Range | None
    parent: str | None = None
    kernel: str | None = None
    pe: tuple[int, ...] | None = None
    pe_count: int | None = None
    mapping: tuple[int | None, ...] | None = None
    role: str | None = None
    role_line: int | None = None
    overlay: dict | None = None
    region: str = ""  # the region it belongs to (what a run's figures are keyed by)
    extent: Range | None = None  # the whole definition (decorators to the body's end): the cursor's kernel
    # A PE's meta branches (each `with allo.meta_*` statement it keeps, outermost first): the cursor's
    # PEs. [] in none; None when not a PE or a branch does not fold.
    branches: list[Range] | None = None


@dataclass
class Edge:
    id: str
    kind: str  # stream, port
    source: str | None
    target: str | None
    range: Range | None
    stream: str | None = None
    index: tuple[int, ...] | None = None
    depth: int | None = None
    type: str | None = None
    fifos: int = 1
    direction: str | None = None
    overlay: dict | None = None
    region: str = ""


@dataclass
class Port:
    id: str
    name: str
    type: str | None
    bundle: str | None
    direction: str
    range: Range | None


@dataclass
class Graph:
    region: str
    range: Range | None
    expanded: bool
    nodes: list[Node] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    ports: list[Port] = field(default_factory=list)
    overlay: dict = field(default_factory=lambda: {"run": None, "synthesis": None})

    def to_json(self, range_json: Callable[[Range], dict]) -> dict:
        def r(value: Range | None) -> dict | None:
            return range_json(value) if value is not None else None

        return {
            "region": self.region,
            "range": r(self.range),
            "expanded": self.expanded,
            "nodes": [
                {
                    "id": n.id,
                    "name": n.name,
                    "kind": n.kind,
                    "kernel": n.kernel,
                    "pe": list(n.pe) if n.pe is not None else None,
                    "peCount": n.pe_count,
                    "mapping": list(n.mapping) if n.mapping is not None else None,
                    "role": n.role,
                    "roleLine": n.role_line,
                    "range": r(n.range),
                    "extent": r(n.extent),
                    "branches": [r(b) for b in n.branches] if n.branches is not None else None,
                    "parent": n.parent,
                    "overlay": n.overlay,
                }
                for n in self.nodes
            ],
            "edges": [
                {
                    "id": e.id,
                    "kind": e.kind,
                    "source": e.source,
                    "target": e.target,
                    "stream": e.stream,
                    "index": list(e.index) if e.index is not None else None,
                    "depth": e.depth,
                    "type": e.type,
                    "fifos": e.fifos,
                    "direction": e.direction,
                    "range": r(e.range),
                    "overlay": e.overlay,
                }
                for e in self.edges
            ],
            "ports": [
                {
                    "id": p.id,
                    "name": p.name,
                    "type": p.type,
                    "bundle": p.bundle,
                    "direction": p.direction,
                    "range": r(p.range),
                }
                for p in self.ports
            ],
            "overlay": self.overlay,
        }
