// The region graph as the server's `allo/regionGraph` answers it (server/allo_lsp/ide/graph.py),
// and what the client reads of it: the node under the cursor. Pure: no `vscode`, no DOM, so the
// unit tests and the webview bundle import it alike.

export interface LspPosition {
    line: number;
    character: number;
}

export interface LspRange {
    start: LspPosition;
    end: LspPosition;
}

/** What a run or a synthesis adds to a node or an edge; every field is optional (see overlay.ts). */
export type Overlay = Record<string, unknown>;

export type NodeKind = "kernel" | "pe" | "port" | "region";

export interface GraphNode {
    id: string;
    name: string;
    kind: NodeKind;
    kernel?: string | null;
    pe?: number[] | null;
    peCount?: number | null;
    mapping?: (number | null)[] | null;
    role?: string | null;
    roleLine?: number | null;
    range?: LspRange | null;
    /** The whole definition (decorators to the body's end) of a kernel (its PEs share it) or a sub-region; none for a port. */
    extent?: LspRange | null;
    /** A PE's `meta_*` branches (each kept `with` statement, outermost first): [] in none, null where one does not fold (it may run any). */
    branches?: LspRange[] | null;
    /** The node it is drawn inside (a PE's kernel when expanded, a sub-region's kernels); none at the top. */
    parent?: string | null;
    overlay?: Overlay | null;
}

export interface GraphEdge {
    id: string;
    kind?: "stream" | "port";
    /** Null for a stream nobody puts (`source`) or gets (`target`): a stub is drawn. */
    source: string | null;
    target: string | null;
    stream: string;
    /** The FIFOs a collapsed edge stands for. */
    fifos?: number | null;
    direction?: string | null;
    index?: number[] | null;
    depth?: number | null;
    type?: string | null;
    range?: LspRange | null;
    overlay?: Overlay | null;
}

/** A region parameter (its port node carries the same id or name). */
export interface GraphPort {
    id?: string;
    name: string;
    direction?: string | null;
    bundle?: string | null;
    type?: string | null;
    range?: LspRange | null;
}

export interface RegionGraph {
    region: string;
    range?: LspRange | null;
    nodes: GraphNode[];
    edges: GraphEdge[];
    ports?: GraphPort[];
    expanded?: boolean;
    /** What the last run and synthesis said of the region: `{run: {status, cause, message, deadlock}, synthesis: {title}}`. */
    overlay?: Overlay | null;
}

/** Whether an answer has the graph's shape (an older server, or an error, answers something else). */
export function isRegionGraph(value: unknown): value is RegionGraph {
    const graph = value as Partial<RegionGraph> | null | undefined;
    return !!graph && typeof graph.region === "string" && Array.isArray(graph.nodes) && Array.isArray(graph.edges);
}

function contains(range: LspRange, position: LspPosition): boolean {
    const after = (a: LspPosition, b: LspPosition) => a.line > b.line || (a.line === b.line && a.character >= b.character);
    return after(position, range.start) && after(range.end, position);
}

function size(range: LspRange): number {
    return (range.end.line - range.start.line) * 1e6 + (range.end.character - range.start.character);
}

/**
 * The kernel (or PE, or sub-region) whose definition holds `position`: its `extent` (the server's,
 * from the decorator to the body's end), else its name's range (an older server). The innermost
 * wins; a kernel's PEs share its extent, so the kernel (drawn first) stands for them. Ports are left
 * out (a parameter's name is in the region's signature, not in a kernel).
 */
export function nodeAt(graph: RegionGraph, position: LspPosition): GraphNode | undefined {
    let best: { node: GraphNode; extent: LspRange } | undefined;
    for (const node of graph.nodes) {
        const extent = node.kind === "port" ? undefined : (node.extent ?? node.range);
        if (extent && contains(extent, position) && (!best || size(extent) < size(best.extent))) {
            best = { node, extent };
        }
    }
    return best?.node;
}

/** The nodes that stand for `node` on the cursor: a kernel's PEs too when they are drawn. */
export function highlighted(graph: RegionGraph, node: GraphNode | undefined): string[] {
    if (!node) {
        return [];
    }
    const kernel = node.kind === "kernel" ? node.name : undefined;
    return graph.nodes.filter((n) => n.id === node.id || (kernel !== undefined && n.kind === "pe" && n.kernel === kernel)).map((n) => n.id);
}

const same = (a: LspRange, b: LspRange) => size(a) === size(b) && a.start.line === b.start.line && a.start.character === b.start.character;

/**
 * The ids the cursor at `position` highlights. In a kernel's `meta_*` branch (the innermost of its
 * PEs' `branches` holding the cursor): the PEs that run that branch, and those whose branch does
 * not fold (they may); elsewhere in the kernel, or collapsed (no PE drawn), the kernel and its PEs.
 */
export function highlightedAt(graph: RegionGraph, position: LspPosition): string[] {
    const node = nodeAt(graph, position);
    if (node?.kind !== "kernel") {
        return highlighted(graph, node);
    }
    const pes = graph.nodes.filter((n) => n.kind === "pe" && n.kernel === node.name);
    let branch: LspRange | undefined;
    for (const b of pes.flatMap((pe) => pe.branches ?? [])) {
        if (contains(b, position) && (!branch || size(b) < size(branch))) {
            branch = b;
        }
    }
    if (!branch) {
        return highlighted(graph, node);
    }
    return pes.filter((pe) => !pe.branches || pe.branches.some((b) => same(b, branch))).map((pe) => pe.id);
}
