// A laid-out graph (elkGraph.ts after ELK) -> SVG markup. Colours are classes only (graph.css maps
// them to the theme's CSS variables; the webview's Content-Security-Policy allows no inline style),
// each shape carries `data-id` for clicks and a <title> for its tooltip. Pure: a string out, so
// the webview and the exported file draw the same. The file (exportSvg) is the graph in its own
// coordinates: the drawing's bounding box as its viewBox, never the view's pan and zoom, and the
// theme's values written on each shape (a file has no stylesheet and no CSS variables).
import { allEdges, allNodes, CHAR_WIDTH, DrawnEdge, DrawnNode, LINE_HEIGHT } from "./elkGraph";

export function escapeXml(text: string): string {
    return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

const r = (n: number | undefined) => Math.round((n ?? 0) * 10) / 10;

/** The drawing's bounding box, grown by each shape and text as it is drawn (a text's width estimated). */
class Bounds {
    x0 = Infinity;
    y0 = Infinity;
    x1 = -Infinity;
    y1 = -Infinity;

    add(x: number, y: number, width = 0, height = 0): void {
        this.x0 = Math.min(this.x0, x);
        this.y0 = Math.min(this.y0, y);
        this.x1 = Math.max(this.x1, x + width);
        this.y1 = Math.max(this.y1, y + height);
    }

    /** A text whose baseline starts at (x, y), `size` px high. */
    text(x: number, y: number, text: string, size = 12): void {
        this.add(x, y - size, text.length * CHAR_WIDTH * (size / 12), size + 4);
    }
}

function nodeMarkup(node: DrawnNode, bounds: Bounds): string {
    const drawn = node.drawn!;
    bounds.add(node.x ?? 0, node.y ?? 0, node.width ?? 0, node.height ?? 0);
    if (drawn.classes.includes("stub")) {
        return `<g class="stub"><title>${escapeXml(drawn.title)}</title><circle cx="${r((node.x ?? 0) + 5)}" cy="${r((node.y ?? 0) + 5)}" r="4"/></g>`;
    }
    const group = drawn.classes.includes("group");
    const x = r(node.x);
    const y = r(node.y);
    bounds.text(x + 10, y + 17, drawn.name, 13);
    drawn.lines.forEach((line, i) => bounds.text(x + 10, y + 17 + (i + 1) * LINE_HEIGHT, line));
    const text = [
        `<text class="name" x="${r(x + 10)}" y="${r(y + 17)}">${escapeXml(drawn.name)}</text>`,
        ...drawn.lines.map((line, i) => `<text class="detail" x="${r(x + 10)}" y="${r(y + 17 + (i + 1) * LINE_HEIGHT)}">${escapeXml(line)}</text>`),
    ].join("");
    return (
        `<g class="${drawn.classes.join(" ")}" data-id="${escapeXml(node.id)}"${group ? ' data-group="1"' : ""}>` +
        `<title>${escapeXml(drawn.title)}</title>` +
        `<rect x="${x}" y="${y}" width="${r(node.width)}" height="${r(node.height)}" rx="${group ? 6 : 4}"/>` +
        text +
        `</g>`
    );
}

function pathOf(edge: DrawnEdge): string {
    return (edge.sections ?? [])
        .map((s) => [s.startPoint, ...(s.bendPoints ?? []), s.endPoint].map((p, i) => `${i ? "L" : "M"}${r(p.x)} ${r(p.y)}`).join(" "))
        .join(" ");
}

/** The middle of an edge's longest segment: where its text goes when ELK placed no label. */
function middle(edge: DrawnEdge): { x: number; y: number } | undefined {
    let best: { x: number; y: number; length: number } | undefined;
    for (const s of edge.sections ?? []) {
        const points = [s.startPoint, ...(s.bendPoints ?? []), s.endPoint];
        for (let i = 1; i < points.length; i++) {
            const [a, b] = [points[i - 1], points[i]];
            const length = Math.abs(b.x - a.x) + Math.abs(b.y - a.y);
            if (!best || length > best.length) {
                best = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, length };
            }
        }
    }
    return best;
}

function edgeMarkup(edge: DrawnEdge, bounds: Bounds, file: boolean): string {
    const drawn = edge.drawn!;
    for (const s of edge.sections ?? []) {
        [s.startPoint, ...(s.bendPoints ?? []), s.endPoint].forEach((p) => bounds.add(p.x, p.y));
    }
    let label = edge.labels?.[0];
    if (!label && drawn.text) {
        const start = edge.sections?.[0]?.startPoint;
        const m = drawn.at && start ? { x: start.x + drawn.at.x - 3, y: start.y + drawn.at.y + LINE_HEIGHT - 2 } : middle(edge);
        label = m && { text: drawn.text, x: m.x + 3, y: m.y - LINE_HEIGHT + 2 };
    }
    if (label) {
        bounds.text(label.x ?? 0, (label.y ?? 0) + LINE_HEIGHT - 3, label.text ?? "", 11);
    }
    const labelText = label
        ? `<text class="label" x="${r(label.x)}" y="${r((label.y ?? 0) + LINE_HEIGHT - 3)}">${escapeXml(label.text ?? "")}</text>`
        : "";
    let fix = "";
    if (drawn.fixDepth !== undefined && label) {
        const words = `set depth to ${drawn.fixDepth} and re-run`;
        const fx = r(label.x);
        const fy = r((label.y ?? 0) + LINE_HEIGHT + 2);
        bounds.add(fx, fy, words.length * CHAR_WIDTH + 10, LINE_HEIGHT + 4);
        fix =
            `<g class="fix" data-fix-depth="${drawn.fixDepth}" role="button">` +
            `<rect x="${fx}" y="${fy}" width="${r(words.length * CHAR_WIDTH + 10)}" height="${LINE_HEIGHT + 4}" rx="3"/>` +
            `<text x="${r(fx + 5)}" y="${r(fy + LINE_HEIGHT)}">${escapeXml(words)}</text></g>`;
    }
    return (
        `<g class="${drawn.classes.join(" ")}" data-id="${escapeXml(edge.id)}">` +
        `<title>${escapeXml(drawn.title)}</title>` +
        // A wide transparent twin under the line: a 1.5 px line is hard to click (not in a file).
        (file ? "" : `<path class="hit" d="${pathOf(edge)}"/>`) +
        `<path class="line" d="${pathOf(edge)}" marker-end="url(#arrow)"/>` +
        labelText +
        fix +
        `</g>`
    );
}

/** The drawing's box (every node, edge and text, a margin around) as `[x, y, width, height]`. */
export type ViewBox = [number, number, number, number];
const MARGIN = 8;

function drawing(root: DrawnNode, file: boolean): { body: string; box: ViewBox } {
    const nodes = allNodes(root);
    const bounds = new Bounds();
    // Groups first: a group's box is under its children's.
    const ordered = [...nodes.filter((n) => n.drawn?.classes.includes("group")), ...nodes.filter((n) => !n.drawn?.classes.includes("group"))];
    const body = `<g class="nodes">${ordered.map((n) => nodeMarkup(n, bounds)).join("")}</g>` + `<g class="edges">${allEdges(root).map((e) => edgeMarkup(e, bounds, file)).join("")}</g>`;
    if (bounds.x0 > bounds.x1) {
        bounds.add(0, 0); // an empty graph
    }
    const box: ViewBox = [Math.floor(bounds.x0 - MARGIN), Math.floor(bounds.y0 - MARGIN), 0, 0];
    box[2] = Math.ceil(bounds.x1 + MARGIN) - box[0];
    box[3] = Math.ceil(bounds.y1 + MARGIN) - box[1];
    return { body, box };
}

const DEFS =
    `<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">` +
    `<path class="arrowhead" d="M0 0 L10 5 L0 10 z"/></marker></defs>`;

/**
 * The SVG of a laid-out graph. In the webview (`file` false) it fills its box and the viewport's
 * transform (pan, zoom: graph.ts sets it on `g.viewport`) maps the graph to it. A file gets the
 * drawing's box as its size and viewBox and no transform: the same picture whatever the view.
 */
export function renderSvg(root: DrawnNode, file = false): string {
    const { body, box } = drawing(root, file);
    const size = file ? ` width="${box[2]}" height="${box[3]}" viewBox="${box.join(" ")}"` : "";
    return `<svg xmlns="http://www.w3.org/2000/svg" class="graph"${size}>` + DEFS + `<g class="viewport">${body}</g></svg>`;
}

/** One element of the drawing and its ancestors from the root `svg`: what a theme's rules match. */
export type ElementPath = { tag: string; classes: string[] }[];
/** The theme's values for an element (the webview's computed style): attribute -> concrete value. */
export type Painter = (path: ElementPath) => Record<string, string>;

const TAG = /<(\/?)([A-Za-z]+)((?:\s+[\w:-]+="[^"]*")*)\s*(\/?)>/g;
const CLASS = /\s+class="([^"]*)"/;

/**
 * The graph as a file that renders outside VS Code: `renderSvg(root, true)` (its own coordinates,
 * no view transform) with no class left, each element given what `paint` says of it as
 * attributes (colours, stroke, font), over a `background` rectangle filling the viewBox.
 */
export function exportSvg(root: DrawnNode, paint: Painter, background: string): string {
    const svg = renderSvg(root, true);
    const box = svg.match(/viewBox="([^"]+)"/)![1].split(" ");
    const path: ElementPath = [];
    const out = svg.replace(TAG, (whole, closing: string, tag: string, attributes: string, selfClosing: string) => {
        if (closing) {
            path.pop();
            return whole;
        }
        const classes = attributes.match(CLASS)?.[1].split(" ").filter(Boolean) ?? [];
        path.push({ tag, classes });
        const painted = Object.entries(paint(path))
            .map(([name, value]) => ` ${name}="${escapeXml(value)}"`)
            .join("");
        if (selfClosing) {
            path.pop();
        }
        const backdrop = tag === "svg" ? `<rect x="${box[0]}" y="${box[1]}" width="${box[2]}" height="${box[3]}" fill="${escapeXml(background)}"/>` : "";
        return `<${tag}${attributes.replace(CLASS, "")}${painted}${selfClosing ? "/" : ""}>${backdrop}`;
    });
    return `<?xml version="1.0" encoding="UTF-8"?>\n${out}\n`;
}
