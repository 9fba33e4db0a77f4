// A laid-out graph (elkGraph.ts after ELK) -> SVG markup. Colours are classes only (graph.css maps
// them to the theme's CSS variables; the webview's Content-Security-Policy allows no inline style),
// each shape carries `data-id` for clicks and a <title> for its tooltip. Pure: a string out, so
// the webview and the exported file draw the same.
import { allEdges, allNodes, CHAR_WIDTH, DrawnEdge, DrawnNode, LINE_HEIGHT } from "./elkGraph";

export function escapeXml(text: string): string {
    return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

const r = (n: number | undefined) => Math.round((n ?? 0) * 10) / 10;

function nodeMarkup(node: DrawnNode): string {
    const drawn = node.drawn!;
    if (drawn.classes.includes("stub")) {
        return `<g class="stub"><title>${escapeXml(drawn.title)}</title><circle cx="${r((node.x ?? 0) + 5)}" cy="${r((node.y ?? 0) + 5)}" r="4"/></g>`;
    }
    const group = drawn.classes.includes("group");
    const x = r(node.x);
    const y = r(node.y);
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

function edgeMarkup(edge: DrawnEdge): string {
    const drawn = edge.drawn!;
    let label = edge.labels?.[0];
    if (!label && drawn.text) {
        const start = edge.sections?.[0]?.startPoint;
        const m = drawn.at && start ? { x: start.x + drawn.at.x - 3, y: start.y + drawn.at.y + LINE_HEIGHT - 2 } : middle(edge);
        label = m && { text: drawn.text, x: m.x + 3, y: m.y - LINE_HEIGHT + 2 };
    }
    const labelText = label
        ? `<text class="label" x="${r(label.x)}" y="${r((label.y ?? 0) + LINE_HEIGHT - 3)}">${escapeXml(label.text ?? "")}</text>`
        : "";
    let fix = "";
    if (drawn.fixDepth !== undefined && label) {
        const words = `set depth to ${drawn.fixDepth} and re-run`;
        const fx = r(label.x);
        const fy = r((label.y ?? 0) + LINE_HEIGHT + 2);
        fix =
            `<g class="fix" data-fix-depth="${drawn.fixDepth}" role="button">` +
            `<rect x="${fx}" y="${fy}" width="${r(words.length * CHAR_WIDTH + 10)}" height="${LINE_HEIGHT + 4}" rx="3"/>` +
            `<text x="${r(fx + 5)}" y="${r(fy + LINE_HEIGHT)}">${escapeXml(words)}</text></g>`;
    }
    return (
        `<g class="${drawn.classes.join(" ")}" data-id="${escapeXml(edge.id)}">` +
        `<title>${escapeXml(drawn.title)}</title>` +
        // A wide transparent twin under the line: a 1.5 px line is hard to click.
        `<path class="hit" d="${pathOf(edge)}"/><path class="line" d="${pathOf(edge)}" marker-end="url(#arrow)"/>` +
        labelText +
        fix +
        `</g>`
    );
}

/**
 * The SVG of a laid-out graph. In the webview (`sized` false) it fills its box and the viewport's
 * transform (pan, zoom) maps the graph to it: a viewBox would scale it a second time. A file
 * (`sized`) gets the graph's own size.
 */
export function renderSvg(root: DrawnNode, sized = false): string {
    const width = r((root.width ?? 0) + 2);
    const height = r((root.height ?? 0) + 2);
    const size = sized ? ` width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"` : "";
    const nodes = allNodes(root);
    // Groups first: a group's box is under its children's.
    const ordered = [...nodes.filter((n) => n.drawn?.classes.includes("group")), ...nodes.filter((n) => !n.drawn?.classes.includes("group"))];
    return (
        `<svg xmlns="http://www.w3.org/2000/svg" class="graph"${size}>` +
        `<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">` +
        `<path class="arrowhead" d="M0 0 L10 5 L0 10 z"/></marker></defs>` +
        `<g class="viewport">` +
        `<g class="nodes">${ordered.map(nodeMarkup).join("")}</g>` +
        `<g class="edges">${allEdges(root).map(edgeMarkup).join("")}</g>` +
        `</g></svg>`
    );
}
