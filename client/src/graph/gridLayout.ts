// An expanded kernel on a two-dimensional mapping drawn as the grid its PEs are: PE (i, j) in row
// i and column j, each column as wide as its widest PE, each row as tall as its tallest, the gaps
// between them wide enough for the stream names. ELK's layered algorithm drew such a grid as a
// diagonal band of overlapping boxes and labels (a systolic array's edges go right and down, and
// layers are one direction only) and spent most of its time on it. Here the group uses ELK's
// `fixed` algorithm: the PEs' positions and the edges' routes are given (relative to the group),
// ELK sizes the group from them and lays out the rest of the graph around it. Pure arithmetic.
import type { ElkPoint } from "elkjs/lib/elk-api";
import type { DrawnEdge, DrawnNode } from "./elkGraph";
import { GraphEdge, GraphNode } from "./graphModel";

export const LABEL_CHAR_WIDTH = 6.7; // graph.css: edge labels are 11px
const LABEL_HEIGHT = 15;
const MIN_GAP = 28;
const PAD = 12;
// Two streams between the same two PEs, one each way: side by side, not on one line.
const OPPOSITE = 8;

/** Whether `kernel`'s PEs can be drawn as a grid: all of them, each at a two-index `pe` inside the
 * mapping, none holding a group of its own (a sub-region), and every edge at a PE joining two of
 * them (an edge from outside would have to reach into the group, which the fixed layout cannot route). */
export function isGrid(kernel: GraphNode, children: readonly GraphNode[], nodes: readonly GraphNode[], edges: readonly GraphEdge[]): boolean {
    const mapping = kernel.mapping;
    if (kernel.kind !== "kernel" || mapping?.length !== 2 || mapping.some((m) => typeof m !== "number" || m < 1) || children.length < 2) {
        return false;
    }
    const [rows, cols] = mapping as number[];
    const ids = new Set(children.map((c) => c.id));
    const cells = new Set<string>();
    for (const c of children) {
        const [i, j] = c.pe ?? [];
        if (c.kind !== "pe" || c.pe?.length !== 2 || !(i >= 0 && i < rows && j >= 0 && j < cols) || cells.has(`${i},${j}`)) {
            return false;
        }
        cells.add(`${i},${j}`);
    }
    if (nodes.some((n) => n.parent && ids.has(n.parent))) {
        return false;
    }
    return edges.every((e) => {
        const inside = [e.source, e.target].filter((end) => end != null && ids.has(end)).length;
        return inside === 0 || (inside === 2 && e.source !== e.target);
    });
}

interface Box {
    x: number;
    y: number;
    width: number;
    height: number;
}

/**
 * Places `pes` (ELK nodes of `kernel`'s PEs, their sizes set) and routes `edges` (the ELK edges
 * between them) in a group whose content starts below `header`: positions relative to the group,
 * edges without ELK labels, their text's place in `drawn.at` (from the route's start). `index` gives each PE's (row, column).
 */
export function placeGrid(pes: DrawnNode[], edges: DrawnEdge[], index: (id: string) => [number, number], header: number): void {
    const cells = new Map(pes.map((p) => [p.id, index(p.id)]));
    const rows = Math.max(...[...cells.values()].map(([i]) => i)) + 1;
    const cols = Math.max(...[...cells.values()].map(([, j]) => j)) + 1;
    const colWidth = new Array<number>(cols).fill(0);
    const rowHeight = new Array<number>(rows).fill(0);
    for (const p of pes) {
        const [i, j] = cells.get(p.id)!;
        colWidth[j] = Math.max(colWidth[j], p.width ?? 0);
        rowHeight[i] = Math.max(rowHeight[i], p.height ?? 0);
    }
    const labelWidth = (e: DrawnEdge) => (e.drawn?.text?.length ?? 0) * LABEL_CHAR_WIDTH;
    // Across a column gap go the edges within a row; their names sit above them, in the gap.
    const sameRow = edges.filter((e) => cells.get(e.sources[0])![0] === cells.get(e.targets[0])![0]);
    const gapX = Math.max(MIN_GAP, ...sameRow.map((e) => labelWidth(e) + 14));
    const gapY = Math.max(MIN_GAP, LABEL_HEIGHT + 14);
    const colX = [PAD];
    colWidth.forEach((w, j) => colX.push(colX[j] + w + gapX));
    const rowY = [header];
    rowHeight.forEach((h, i) => rowY.push(rowY[i] + h + gapY));
    const box = new Map<string, Box>();
    for (const p of pes) {
        const [i, j] = cells.get(p.id)!;
        // A cell's box fills its column and row: the grid reads as one.
        Object.assign(p, { x: colX[j], y: rowY[i], width: colWidth[j], height: rowHeight[i] });
        box.set(p.id, { x: colX[j], y: rowY[i], width: colWidth[j], height: rowHeight[i] });
    }
    for (const e of edges) {
        const [s, t] = [box.get(e.sources[0])!, box.get(e.targets[0])!];
        const [[si, sj], [ti, tj]] = [cells.get(e.sources[0])!, cells.get(e.targets[0])!];
        const { points, at } = route(s, t, si, sj, ti, tj, { colX, rowY, gapX, gapY, labelWidth: labelWidth(e) });
        e.sections = [{ id: `${e.id}#grid`, startPoint: points[0], endPoint: points[points.length - 1], bendPoints: points.slice(1, -1) }];
        e.labels = [];
        if (e.drawn) {
            // From the route's start, which ELK moves with the group (this field it keeps as it is).
            e.drawn.at = { x: at.x - points[0].x, y: at.y - points[0].y };
        }
    }
}

interface Lanes {
    colX: number[];
    rowY: number[];
    gapX: number;
    gapY: number;
    labelWidth: number;
}

/** An edge's points and its label's top left: straight to a neighbour, else along the gaps (never across a PE). */
function route(s: Box, t: Box, si: number, sj: number, ti: number, tj: number, lanes: Lanes): { points: ElkPoint[]; at: ElkPoint } {
    const midY = (b: Box, shift: number) => b.y + b.height / 2 + shift;
    const midX = (b: Box, shift: number) => b.x + b.width / 2 + shift;
    if (si === ti && Math.abs(sj - tj) === 1) {
        const right = tj > sj;
        const y = midY(s, right ? 0 : OPPOSITE);
        const [x1, x2] = right ? [s.x + s.width, t.x] : [s.x, t.x + t.width];
        const left = Math.min(x1, x2);
        return { points: [{ x: x1, y }, { x: x2, y }], at: { x: left + (Math.abs(x2 - x1) - lanes.labelWidth) / 2, y: y - LABEL_HEIGHT - 1 } };
    }
    if (sj === tj && Math.abs(si - ti) === 1) {
        const down = ti > si;
        const x = midX(s, down ? 0 : OPPOSITE);
        const [y1, y2] = down ? [s.y + s.height, t.y] : [s.y, t.y + t.height];
        return { points: [{ x, y: y1 }, { x, y: y2 }], at: { x: x + 4, y: (y1 + y2) / 2 - LABEL_HEIGHT / 2 } };
    }
    // Out of the source's right side into the gap after its column, along the gap above the
    // target's row, down the gap before the target's column, into the target's left side.
    const outX = lanes.colX[sj + 1] - lanes.gapX / 2;
    const laneY = lanes.rowY[ti] - Math.min(lanes.gapY, lanes.rowY[0]) / 2; // the first row's: under the group's name
    const inX = Math.max(PAD / 2, lanes.colX[tj] - lanes.gapX / 2 + OPPOSITE / 2); // the first column's: the group's margin
    const points = [
        { x: s.x + s.width, y: midY(s, -OPPOSITE / 2) },
        { x: outX, y: midY(s, -OPPOSITE / 2) },
        { x: outX, y: laneY },
        { x: inX, y: laneY },
        { x: inX, y: midY(t, OPPOSITE / 2) },
        { x: t.x, y: midY(t, OPPOSITE / 2) },
    ];
    return { points, at: { x: Math.min(outX, inX) + 4, y: laneY - LABEL_HEIGHT } };
}
