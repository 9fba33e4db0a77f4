"""What the stream rules (ADF023-ADF027) share: the builds that compile a region, and the graph
its kernels make through streams, read from the model alone (not a rule: no `adf` prefix)."""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

from allo_lsp.analysis.model import Build, FileModel, Region

VITIS_HLS = "vitis_hls"
# The platforms that hand Allo's HLS code to the Xilinx dataflow checker (Vitis HLS, Vivado HLS,
# and PYNQ's Vivado flow): one producer and one consumer per stream, one reader and one writer
# per array.
XILINX_HLS = (VITIS_HLS, "vhls", "pynq")
CSIM = "csim"  # `df.build`'s default mode


def builds_reaching(model: FileModel, region: Region) -> list[Build]:
    """The region's own builds, and those of every region whose kernels call it: a region called
    from a kernel is compiled into its caller's build."""
    found, seen, todo = [], {id(region)}, [region]
    while todo:
        current = todo.pop()
        found += model.builds_of(current)
        for caller in model.callers_of(current):
            if id(caller) not in seen:
                seen.add(id(caller))
                todo.append(caller)
    return found


def built_for(model: FileModel, region: Region, targets: tuple[str, ...]) -> list[Build]:
    """The builds reaching the region whose target is one of `targets`. A region the file does not
    build for them is not checked: what it will be built for is not known here."""
    return [b for b in builds_reaching(model, region) if b.target in targets]


@dataclass
class StreamGraph:
    """Kernel `producer` -> kernel `consumer` when `producer` puts a stream that `consumer` gets.
    A stream array links two kernels only when the direction is clear: a kernel that both gets
    and puts elements of the array while the other does too (a chain of relays) says nothing
    about their order without folding each PE's indices."""

    kernels: list[str]  # definition order
    edges: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # -> streams, declaration order

    @staticmethod
    def of(region: Region) -> StreamGraph:
        graph = StreamGraph(list(dict.fromkeys(k.name for k in region.kernels)))
        for s in region.streams:
            if s.type is None:
                continue
            putters = list(dict.fromkeys(u.kernel for u in s.puts))
            getters = list(dict.fromkeys(u.kernel for u in s.gets))
            for p in putters:
                for c in getters:
                    if p == c or (s.type.dims and p in getters and c in putters):
                        continue
                    if p not in graph.kernels or c not in graph.kernels:  # a model half made of broken code
                        continue
                    graph.edges.setdefault((p, c), []).append(s.name)
        return graph

    def successors(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {k: [] for k in self.kernels}
        for p, c in self.edges:
            out[p].append(c)
        return out

    def components(self) -> list[list[str]]:
        """Strongly connected components (Tarjan's, without recursion: a generated design may
        chain many kernels), each in definition order."""
        succ = self.successors()
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        on_stack: set[str] = set()
        found: list[list[str]] = []
        for root in self.kernels:
            if root in index:
                continue
            work = [(root, 0)]
            while work:
                node, i = work.pop()
                if i == 0:
                    index[node] = low[node] = len(index)
                    stack.append(node)
                    on_stack.add(node)
                if i < len(succ[node]):
                    work.append((node, i + 1))
                    nxt = succ[node][i]
                    if nxt not in index:
                        work.append((nxt, 0))
                    elif nxt in on_stack:
                        low[node] = min(low[node], index[nxt])
                    continue
                if low[node] == index[node]:
                    members = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.append(member)
                        if member == node:
                            break
                    found.append(members)
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
        position = {k: i for i, k in enumerate(self.kernels)}
        return [sorted(c, key=position.__getitem__) for c in found]

    def producers_first(self) -> list[str]:
        """The kernels ordered so that every producer comes before its consumers, kernels of one
        cycle together in their order, and otherwise as close to definition order as can be."""
        components = self.components()
        position = {k: i for i, k in enumerate(self.kernels)}
        of = {k: i for i, c in enumerate(components) for k in c}
        after: dict[int, set[int]] = {i: set() for i in range(len(components))}
        waiting = [0] * len(components)
        for p, c in self.edges:
            a, b = of[p], of[c]
            if a != b and b not in after[a]:
                after[a].add(b)
                waiting[b] += 1
        ready = [(position[c[0]], i) for i, c in enumerate(components) if not waiting[i]]
        heapq.heapify(ready)
        order: list[str] = []
        while ready:
            _, i = heapq.heappop(ready)
            order += components[i]
            for j in after[i]:
                waiting[j] -= 1
                if not waiting[j]:
                    heapq.heappush(ready, (position[components[j][0]], j))
        return order
