// The region graph -> the graph ELK lays out (elkjs, layered): kernels, PEs and ports as nodes,
// sub-regions (and a kernel's PEs when expanded) as nodes with children, streams as edges held by
// the lowest node that contains both ends (ELK's rule for edges in nested graphs); the PEs of a
// two-dimensional mapping placed as their grid (gridLayout.ts). Inputs in the
// first layer, outputs in the last. Positions come back in root coordinates (`elk.json.*Coords`),
// so drawing needs no sums of parents' offsets. Pure: sizes come from the text's length.
import type { ElkExtendedEdge, ElkLabel, ElkNode } from "elkjs/lib/elk-api";
import { GraphNode, GraphPort, RegionGraph } from "./graphModel";
import { isGrid, placeGrid } from "./gridLayout";
import { edgeStyle, nodeStyle } from "./overlay";

// The drawing's font metrics (graph.css: 12px, names 13px bold): an estimate, so that ELK reserves the room.
export const CHAR_WIDTH = 7.2;
export const LINE_HEIGHT = 15;
const PADDING_X = 12;
const NAME_HEIGHT = 20;
const GROUP_HEADER = 28;

export const LAYOUT_OPTIONS: Record<string, string> = {
    "elk.algorithm": "layered",
    "elk.direction": "RIGHT",
    "elk.hierarchyHandling": "INCLUDE_CHILDREN",
    "elk.json.shapeCoords": "ROOT",
    "elk.json.edgeCoords": "ROOT",
    "elk.edgeRouting": "ORTHOGONAL",
    "elk.layered.spacing.nodeNodeBetweenLayers": "48",
    "elk.spacing.nodeNode": "24",
    "elk.spacing.edgeLabel": "4",
    "elk.layered.spacing.edgeNodeBetweenLayers": "16",
    // The answer's order is the source's (kernels as declared, PEs in order): kept, so that an
    // edit that changes nothing of the structure redraws the same picture.
    "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES",
    "elk.layered.crossingMinimization.forceNodeModelOrder": "false",
    "elk.edgeLabels.inline": "false",
    "elk.layered.edgeLabels.sideSelection": "SMART_DOWN",
};

// Above this many edges (an expanded grid) ELK places no edge labels and spends one pass per
// step (thoroughness 1): each costs more than the rest of the layout (36 PEs: 0.9 s against 0.35 s
// on a loaded machine); render.ts writes such an edge's name at its middle instead.
export const LARGE_EDGES = 40;
const LARGE_OPTIONS: Record<string, string> = { "elk.layered.thoroughness": "1" };

/** What the drawing needs of each ELK shape, next to it (ELK keeps unknown fields). */
export interface Drawn {
    kind: "node" | "edge";
    classes: string[];
    name: string;
    lines: string[];
    title: string;
    fixDepth?: number;
    /** An edge's text when ELK placed no label for it (a large graph, a grid's edge). */
    text?: string;
    /** Where that text's top left goes from the edge's start point (a grid's edge), else at the edge's middle. */
    at?: { x: number; y: number };
}

export type DrawnNode = ElkNode & { drawn?: Drawn; children?: DrawnNode[]; edges?: DrawnEdge[] };
export type DrawnEdge = ElkExtendedEdge & { drawn?: Drawn };

function textWidth(lines: readonly string[], nameLength: number): number {
    return Math.ceil(Math.max(nameLength * (CHAR_WIDTH + 0.6), ...lines.map((l) => l.length * CHAR_WIDTH)) + 2 * PADDING_X);
}

function portOf(graph: RegionGraph, node: GraphNode): GraphPort | undefined {
    return (graph.ports ?? []).find((p) => (p.id !== undefined && p.id === node.id) || p.name === node.name);
}

/** The node's drawn lines: a port's direction and bundle, else what overlay.ts says. */
function describe(graph: RegionGraph, node: GraphNode): Drawn {
    const styled = nodeStyle(node);
    const drawn: Drawn = { kind: "node", classes: styled.classes, name: node.name, lines: styled.lines, title: styled.title };
    if (node.kind === "port") {
        const port = portOf(graph, node);
        const direction = port?.direction ?? "";
        drawn.classes.push(`direction-${direction || "unknown"}`);
        const words = [direction, port?.bundle ? `m_axi ${port.bundle}` : ""].filter(Boolean).join(" · ");
        if (words) {
            drawn.lines = [words, ...drawn.lines];
        }
        drawn.title = [`parameter ${node.name}${port?.type ? `: ${port.type}` : ""}`, ...drawn.lines].join("\n");
    }
    return drawn;
}

/** The node's ancestors from itself up (ids), within the graph's nodes. */
function chain(id: string, parents: ReadonlyMap<string, string | undefined>): string[] {
    const out: string[] = [];
    let current: string | undefined = id;
    while (current !== undefined && !out.includes(current)) {
        out.push(current);
        current = parents.get(current);
    }
    return out;
}

/** The graph as ELK's input (ELK is deterministic: the same graph, the same picture). */
export function toElk(graph: RegionGraph): DrawnNode {
    const ids = new Set(graph.nodes.map((n) => n.id));
    const parents = new Map<string, string | undefined>(
        graph.nodes.map((n) => [n.id, n.parent && ids.has(n.parent) && n.parent !== n.id ? n.parent : undefined]),
    );
    // Expanded kernels on a two-dimensional mapping: their PEs placed as a grid (gridLayout.ts).
    const childrenOf = new Map<string, GraphNode[]>();
    for (const node of graph.nodes) {
        const parent = parents.get(node.id);
        if (parent !== undefined) {
            childrenOf.set(parent, childrenOf.get(parent) ?? []).get(parent)!.push(node);
        }
    }
    const grids = new Set(
        graph.nodes.filter((n) => n.kind === "kernel" && isGrid(n, childrenOf.get(n.id) ?? [], graph.nodes, graph.edges)).map((n) => n.id),
    );
    const large = graph.edges.length > LARGE_EDGES;
    const root: DrawnNode = { id: "root", layoutOptions: large ? { ...LAYOUT_OPTIONS, ...LARGE_OPTIONS } : LAYOUT_OPTIONS, children: [], edges: [] };
    const elk = new Map<string, DrawnNode>();
    for (const node of graph.nodes) {
        const drawn = describe(graph, node);
        const width = textWidth(drawn.lines, node.name.length);
        const height = NAME_HEIGHT + drawn.lines.length * LINE_HEIGHT + 8;
        const layoutOptions: Record<string, string> = {};
        if (node.kind === "port" && !parents.get(node.id)) {
            const direction = portOf(graph, node)?.direction;
            if (direction === "in") {
                layoutOptions["elk.layered.layering.layerConstraint"] = "FIRST";
            } else if (direction === "out") {
                layoutOptions["elk.layered.layering.layerConstraint"] = "LAST";
            }
        }
        elk.set(node.id, { id: node.id, width, height, drawn, layoutOptions });
    }
    for (const node of graph.nodes) {
        const parent = parents.get(node.id);
        const container = parent !== undefined ? elk.get(parent)! : root;
        (container.children ??= []).push(elk.get(node.id)!);
    }
    const stub = (edgeId: string, side: string): string => {
        const id = `stub:${edgeId}:${side}`;
        const other = parents.get(side === "source" ? graph.edges.find((e) => e.id === edgeId)!.target! : graph.edges.find((e) => e.id === edgeId)!.source!);
        parents.set(id, other);
        const node: DrawnNode = { id, width: 10, height: 10, drawn: { kind: "node", classes: ["stub"], name: "", lines: [], title: `no ${side === "source" ? "producer" : "consumer"}` } };
        elk.set(id, node);
        (other !== undefined ? elk.get(other)! : root).children!.push(node);
        return id;
    };
    // A node with children is a group: its size is ELK's to find; room at the top for its name and lines.
    for (const node of elk.values()) {
        if (node.children?.length) {
            const lines = node.drawn!.lines.length;
            node.drawn!.classes.push("group");
            // ELK's fixed layout sizes a group as its content's extent plus the padding: a grid's
            // positions already start below the header.
            const padding = grids.has(node.id) ? "[top=0,left=0,bottom=12,right=12]" : `[top=${GROUP_HEADER + lines * LINE_HEIGHT},left=12,bottom=12,right=12]`;
            node.layoutOptions = {
                ...node.layoutOptions,
                ...(grids.has(node.id) ? { "elk.algorithm": "fixed" } : {}),
                "elk.padding": padding,
                "elk.nodeSize.constraints": "MINIMUM_SIZE",
                "elk.nodeSize.minimum": `(${node.width}, ${node.height})`,
            };
            delete node.width;
            delete node.height;
        }
    }
    for (const edge of graph.edges) {
        const known = [edge.source, edge.target].filter((end): end is string => end !== null && end !== undefined);
        if (!known.length || known.some((end) => !elk.has(end))) {
            continue; // an end the answer does not draw: a half-typed design
        }
        // A stream nobody gets (or puts): a stub beside the one end, where the missing one would be.
        const [source, target] = [edge.source ?? stub(edge.id, "source"), edge.target ?? stub(edge.id, "target")];
        const styled = edgeStyle(edge);
        // A port edge is named by its port; a stream edge by its stream (and element).
        const name = edge.stream ? `${edge.stream}${edge.index?.length ? `[${edge.index.join(",")}]` : ""}` : "";
        const text = [name, ...styled.lines].filter(Boolean).join(" ");
        const labels: ElkLabel[] = large ? [] : [{ id: `${edge.id}#label`, text, width: text.length * CHAR_WIDTH * 0.92, height: LINE_HEIGHT }];
        const drawn: Drawn = { kind: "edge", classes: styled.classes, name, lines: styled.lines, title: styled.title, fixDepth: styled.fixDepth, text };
        // The lowest node holding both ends; an edge between a group and its own child lives in the group.
        const up = chain(source, parents);
        const common = chain(target, parents).find((id) => up.includes(id));
        const held = source === target ? parents.get(source) : common;
        const container = held !== undefined ? elk.get(held)! : root;
        (container.edges ??= []).push({ id: edge.id, sources: [source], targets: [target], labels, drawn });
    }
    const byId = new Map(graph.nodes.map((n) => [n.id, n]));
    for (const id of grids) {
        const group = elk.get(id)!;
        const header = GROUP_HEADER + group.drawn!.lines.length * LINE_HEIGHT;
        placeGrid(group.children ?? [], group.edges ?? [], (pe) => byId.get(pe)!.pe as [number, number], header);
    }
    return root;
}

/** Every node of a laid-out graph, parents before children. */
export function allNodes(root: DrawnNode): DrawnNode[] {
    const out: DrawnNode[] = [];
    const visit = (node: DrawnNode) => {
        for (const child of node.children ?? []) {
            out.push(child);
            visit(child);
        }
    };
    visit(root);
    return out;
}

/** Every edge of a laid-out graph, wherever it is held. */
export function allEdges(root: DrawnNode): DrawnEdge[] {
    return [...(root.edges ?? []), ...allNodes(root).flatMap((n) => n.edges ?? [])];
}
