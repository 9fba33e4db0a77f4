// What a run or a synthesis adds to the drawing (issue 20 item 3): a node's or an edge's overlay
// (the server's `overlay` field) -> CSS classes, the extra text drawn and the tooltip. After a
// deadlock the blocked PEs and the full or empty FIFOs of the wait are `blocked` (the error
// colour) with their occupancy `4/4`; after any reference run an edge shows its highest occupancy
// over its depth and its puts and gets; after synthesis a kernel shows latency, II and resources.
// Pure, and tolerant: a field it does not know is left out, never an error.
import { GraphEdge, GraphNode, Overlay } from "./graphModel";

export interface Styled {
    classes: string[];
    /** Lines drawn under the name (a node) or beside the stream's name (an edge). */
    lines: string[];
    title: string;
}

export interface EdgeStyled extends Styled {
    /** The depth a deadlock's diagnosis found to complete: the edge's "set depth to N and re-run". */
    fixDepth?: number;
}

function num(value: unknown): number | undefined {
    if (value && typeof value === "object") {
        // A range (`{best, worst}`, `{min, max}`): the worst case is what a user plans for.
        const range = value as Record<string, unknown>;
        return num(range.worst ?? range.max ?? range.best ?? range.min);
    }
    return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** `1208` -> `1,208`; `0.5` -> `0.5`. */
export function figure(n: number): string {
    return Number.isInteger(n) ? n.toLocaleString("en-US") : n.toLocaleString("en-US", { maximumSignificantDigits: 3 });
}

/** A wait that never ended (graph_overlay.py): `{pe, op, fifo, line, occupancy, depth, state}`. */
interface Wait {
    pe?: string;
    op?: string;
    fifo?: string;
    occupancy?: number;
    depth?: number;
    state?: string;
}

function part(overlay: Overlay | null | undefined, key: "run" | "synthesis"): Record<string, unknown> | undefined {
    const value = overlay?.[key];
    return value && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
}

function waits(run: Record<string, unknown> | undefined): Wait[] {
    return Array.isArray(run?.blocked) ? (run.blocked as Wait[]).filter((w) => w && typeof w === "object") : [];
}

function occupancy(w: Wait): string {
    return num(w.occupancy) !== undefined && num(w.depth) !== undefined ? `${figure(w.occupancy!)}/${figure(w.depth!)}` : "";
}

function synthesisLines(synthesis: Record<string, unknown>): string[] {
    const lines: string[] = [];
    const latency = num(synthesis.latency);
    const ii = num(synthesis.interval);
    const head = [latency !== undefined ? `${figure(latency)} cycles` : "", ii !== undefined ? `II ${figure(ii)}` : ""].filter(Boolean);
    if (head.length) {
        lines.push(head.join(" · "));
    }
    const resources = synthesis.resources;
    if (resources && typeof resources === "object") {
        const parts = Object.entries(resources as Record<string, unknown>).flatMap(([name, value]) => {
            const used = num(value && typeof value === "object" ? (value as Record<string, unknown>).used : value);
            return used !== undefined && used > 0 ? [`${name} ${figure(used)}`] : [];
        });
        if (parts.length) {
            lines.push(parts.slice(0, 3).join(" · "));
        }
    }
    return lines;
}

// A role longer than this is written over lines, broken before its `and`s and `or`s: a PE's box
// stays about as wide as its name (a grid's column is as wide as its widest PE).
const ROLE_WIDTH = 16;

/** `i in {0, M + 1} and j in {0, N + 1}` -> `i in {0, M + 1}`, `and j in {0, N + 1}`. */
export function wrapped(role: string): string[] {
    if (role.length <= ROLE_WIDTH) {
        return [role];
    }
    return role.split(/ (?=(?:and|or) )/);
}

/** `meta_elif(j == 0)` -> `j == 0`: the condition is what tells PEs apart. Only the last line,
 * and only when it ends in `)`, can hold the match: elsewhere `(.*)\)$` was retried from each
 * `meta_if(` to the line's end (quadratic). */
function condition(role: string): string {
    const cut = Math.max(...["\n", "\r", "\u2028", "\u2029"].map((b) => role.lastIndexOf(b))) + 1;
    const last = role.slice(cut);
    return last.endsWith(")") ? role.slice(0, cut) + last.replace(/\bmeta_(if|elif)\((.*)\)$/, "$2") : role;
}

export function nodeStyle(node: GraphNode): Styled {
    const classes = ["node", `kind-${node.kind}`];
    const lines: string[] = [];
    const title = [node.kind === "pe" ? `PE ${node.name} of ${node.kernel ?? "?"}` : `${node.kind} ${node.name}`];
    if (node.kind === "kernel" && node.peCount && node.peCount > 1) {
        const mapping = node.mapping?.length ? node.mapping.map((m) => (m == null ? "?" : m)).join("×") : String(node.peCount);
        lines.push(`${mapping} · ${figure(node.peCount)} PEs`);
    }
    if (node.role) {
        const role = condition(node.role).replace(/\bmeta_else\(\)/, "else");
        lines.push(...wrapped(role));
        title.push(`role: ${node.role}`);
    }
    const blocked = waits(part(node.overlay, "run"));
    if (blocked.length) {
        classes.push("blocked");
        const w = blocked[0];
        const pes = new Set(blocked.map((b) => b.pe)).size;
        const more = node.kind === "pe" || pes <= 1 ? "" : ` (${pes} PEs)`;
        lines.push(["blocked:", w.op ?? "", w.fifo ?? "", occupancy(w)].filter(Boolean).join(" ") + more);
        title.push(...blocked.map((b) => `${b.pe ?? "?"} waits on ${b.op ?? "?"} of ${b.fifo ?? "?"} (${b.state ?? "?"} ${occupancy(b)})`));
    }
    const synthesis = part(node.overlay, "synthesis");
    if (synthesis) {
        const figures = synthesisLines(synthesis);
        if (figures.length) {
            classes.push("synthesized");
            lines.push(...figures);
        }
    }
    return { classes, lines, title: [...title, ...lines].join("\n") };
}

export function edgeStyle(edge: GraphEdge): EdgeStyled {
    const classes = ["edge", `kind-${edge.kind ?? "stream"}`];
    const index = edge.index?.length ? `[${edge.index.join(", ")}]` : "";
    const fifos = edge.fifos && edge.fifos > 1 ? ` (${figure(edge.fifos)} FIFOs)` : "";
    const title = [`${edge.stream}${index}${fifos}${edge.type ? `: ${edge.type}` : ""}${edge.depth != null ? `, depth ${edge.depth}` : ""}`];
    const lines: string[] = [];
    const run = part(edge.overlay, "run");
    let fixDepth: number | undefined;
    if (run) {
        const blocked = waits(run);
        const depth = num(run.depth) ?? num(edge.depth);
        if (blocked.length) {
            classes.push("blocked");
            const w = blocked[0];
            lines.push(`${w.state ?? (w.op === "put" ? "full" : "empty")} ${occupancy({ depth, ...w })}`.trim());
            title.push(...blocked.map((b) => `${b.pe ?? "?"} blocked on ${b.op ?? "?"} of ${b.fifo ?? "?"}`));
        } else {
            const max = num(run.maxOccupancy);
            if (max !== undefined && depth !== undefined) {
                lines.push(`max ${figure(max)}/${figure(depth)}`);
            }
        }
        const puts = num(run.puts);
        const gets = num(run.gets);
        if (puts !== undefined || gets !== undefined) {
            title.push(`last run: ${figure(puts ?? 0)} puts, ${figure(gets ?? 0)} gets${num(run.waits) ? `, ${figure(num(run.waits)!)} waits` : ""}`);
        }
        fixDepth = num(run.sizedDepth);
        if (fixDepth !== undefined) {
            title.push(`completes with depth ${figure(fixDepth)}`);
        }
    }
    return { classes, lines, title: [...title, ...lines].join("\n"), fixDepth };
}
