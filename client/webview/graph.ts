// The dataflow graph's webview (a browser script, bundled with elkjs's API into dist/webview/graph.js).
// The extension sends the region's graph; this lays it out (ELK in its worker, elk-worker.min.js
// beside this script; in this page if the worker cannot start: layoutWorker.ts; no remote
// content), draws it (render.ts), and answers clicks with messages the extension acts on:
// reveal a node's or an edge's declaration, expand or collapse the PEs, export the SVG, set a
// FIFO's depth and re-run. Pan with a drag, zoom with the wheel, Fit to see it all (at a readable
// scale: view.ts).
import ELK from "elkjs/lib/elk-api.js";
import { DrawnNode, toElk } from "../src/graph/elkGraph";
import { RegionGraph } from "../src/graph/graphModel";
import { FallbackWorker, LayoutWorker } from "../src/graph/layoutWorker";
import { ElementPath, exportSvg, Painter, renderSvg } from "../src/graph/render";
import { fitView } from "../src/graph/view";

declare function acquireVsCodeApi(): { postMessage(message: unknown): void; getState(): unknown; setState(state: unknown): void };

interface GraphMessage {
    type: "graph";
    graph: RegionGraph;
    expanded: boolean;
    highlight: string[];
}

type Incoming = GraphMessage | { type: "highlight"; ids: string[] } | { type: "error"; message: string };

const vscode = acquireVsCodeApi();
// The worker's file, in the webview's resources (another origin: fetched, then started from a blob).
const workerUrl = (document.currentScript as HTMLScriptElement | null)?.dataset.elkWorker ?? "";

async function startWorker(failed: (why: string) => void): Promise<LayoutWorker> {
    if (!workerUrl) {
        throw new Error("the page names no worker file");
    }
    const response = await fetch(workerUrl);
    if (!response.ok) {
        throw new Error(`${workerUrl}: ${response.status} ${response.statusText}`);
    }
    const source = URL.createObjectURL(new Blob([await response.text()], { type: "text/javascript" }));
    const worker = new Worker(source);
    worker.addEventListener("error", (event) => failed(event.message || "the worker failed"));
    const started: LayoutWorker = { onmessage: null, postMessage: (message) => worker.postMessage(message), terminate: () => worker.terminate() };
    worker.onmessage = (event) => started.onmessage?.(event);
    return started;
}

const layoutWorker = new FallbackWorker({
    start: startWorker,
    // elkjs's in-page ELK, evaluated only when it is needed (esbuild keeps the module lazy).
    inPage: async () => new (await import("elkjs/lib/elk-worker.min.js")).Worker(),
    fellBack: (why) => {
        console.warn(`ELK's worker did not start (${why}): laying out in the page`);
        vscode.postMessage({ type: "layoutInPage", why });
    },
});
// elk-api types the factory's worker as the DOM's; it uses postMessage and onmessage only.
const elk = new ELK({ workerFactory: () => layoutWorker as unknown as Worker });
const canvas = document.getElementById("canvas")!;
const status = document.getElementById("status")!;
const expandButton = document.getElementById("expand") as HTMLButtonElement;

let view = { x: 0, y: 0, k: 1 };
let laidOut: DrawnNode | undefined;
let expanded = false;
let highlight = new Set<string>();
let fitted = false;
// Whether the user panned or zoomed since the last fit: a resize then keeps their view.
let moved = false;
let lastKey = "";
let lastMs = 0;
let pending: GraphMessage | undefined;
let busy = false;

function applyView(): void {
    canvas.querySelector("g.viewport")?.setAttribute("transform", `translate(${view.x} ${view.y}) scale(${view.k})`);
}

function fit(): void {
    if (!laidOut) {
        return;
    }
    view = fitView(canvas.getBoundingClientRect(), laidOut.width ?? 1, laidOut.height ?? 1);
    moved = false;
    applyView();
}

function applyHighlight(): void {
    canvas.querySelectorAll(".node").forEach((el) => el.classList.toggle("cursor", highlight.has(el.getAttribute("data-id") ?? "")));
}

async function draw(message: GraphMessage): Promise<void> {
    const started = performance.now();
    const input = toElk(message.graph);
    const key = JSON.stringify(input);
    const relaid = key !== lastKey || message.expanded !== expanded;
    if (relaid) {
        laidOut = (await elk.layout(input)) as DrawnNode;
        const svg = renderSvg(laidOut);
        canvas.innerHTML = svg;
        const wasExpanded = expanded;
        expanded = message.expanded;
        lastKey = key;
        // The first drawing and a change of expansion fit the view; an edit's redraw keeps it (a stable picture).
        if (!fitted || wasExpanded !== expanded) {
            fitted = true;
            fit();
        } else {
            applyView();
        }
    }
    highlight = new Set(message.highlight);
    applyHighlight();
    // The time of the last layout: a graph that came back the same (an edit elsewhere) is not laid out again.
    if (relaid) {
        lastMs = performance.now() - started;
    }
    const ms = lastMs;
    const nodes = canvas.querySelectorAll(".node").length;
    const edges = canvas.querySelectorAll(".edge").length;
    const layout = layoutWorker.place;
    Object.assign(canvas.dataset, { renderMs: ms.toFixed(1), nodes: String(nodes), edges: String(edges), expanded: String(expanded), region: message.graph.region, layout });
    expandButton.textContent = expanded ? "Collapse PEs" : "Expand PEs";
    expandButton.setAttribute("aria-pressed", String(expanded));
    status.textContent = `${message.graph.region}: ${nodes} nodes, ${edges} edges · laid out and drawn in ${ms.toFixed(0)} ms`;
    vscode.postMessage({ type: "rendered", ms, nodes, edges, expanded, layout });
}

/** One drawing at a time; of the graphs that came during one, only the newest is drawn next. */
async function schedule(message: GraphMessage): Promise<void> {
    pending = message;
    if (busy) {
        return;
    }
    busy = true;
    try {
        while (pending) {
            const next = pending;
            pending = undefined;
            try {
                await draw(next);
            } catch (error) {
                status.textContent = `The graph could not be laid out: ${error}`;
            }
        }
    } finally {
        busy = false;
    }
}

window.addEventListener("message", (event: MessageEvent<Incoming>) => {
    const message = event.data;
    if (message.type === "graph") {
        void schedule(message);
    } else if (message.type === "highlight") {
        highlight = new Set(message.ids);
        applyHighlight();
    } else if (message.type === "error") {
        status.textContent = message.message;
    }
});

// Clicks: a node or an edge reveals its declaration; the fix button of an edge sets its depth.
let dragged = false;
canvas.addEventListener("click", (event) => {
    if (dragged) {
        return;
    }
    const target = event.target as Element;
    const fix = target.closest(".fix");
    const shape = target.closest(".node, .edge");
    if (fix && shape) {
        vscode.postMessage({ type: "setDepth", id: shape.getAttribute("data-id"), depth: Number(fix.getAttribute("data-fix-depth")) });
    } else if (shape) {
        canvas.querySelectorAll(".selected").forEach((el) => el.classList.remove("selected"));
        shape.classList.add("selected");
        vscode.postMessage({ type: "reveal", id: shape.getAttribute("data-id"), what: shape.classList.contains("edge") ? "edge" : "node" });
    }
});

// Pan: drag anywhere; a drag is not a click.
let drag: { x: number; y: number; vx: number; vy: number } | undefined;
canvas.addEventListener("pointerdown", (event) => {
    drag = { x: event.clientX, y: event.clientY, vx: view.x, vy: view.y };
    dragged = false;
});
window.addEventListener("pointermove", (event) => {
    if (!drag) {
        return;
    }
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) {
        dragged = true;
        canvas.setPointerCapture?.(event.pointerId);
    }
    if (dragged) {
        moved = true;
        view = { ...view, x: drag.vx + dx, y: drag.vy + dy };
        applyView();
    }
});
window.addEventListener("pointerup", () => {
    drag = undefined;
});

function zoom(factor: number, cx: number, cy: number): void {
    const k = Math.min(8, Math.max(0.05, view.k * factor));
    const f = k / view.k;
    moved = true;
    view = { k, x: cx - (cx - view.x) * f, y: cy - (cy - view.y) * f };
    applyView();
}

canvas.addEventListener(
    "wheel",
    (event) => {
        event.preventDefault();
        const box = canvas.getBoundingClientRect();
        zoom(Math.exp(-event.deltaY * 0.0015), event.clientX - box.left, event.clientY - box.top);
    },
    { passive: false },
);

const centre = () => {
    const box = canvas.getBoundingClientRect();
    return [box.width / 2, box.height / 2] as const;
};
document.getElementById("fit")!.addEventListener("click", fit);
document.getElementById("zoomIn")!.addEventListener("click", () => zoom(1.25, ...centre()));
document.getElementById("zoomOut")!.addEventListener("click", () => zoom(0.8, ...centre()));
expandButton.addEventListener("click", () => vscode.postMessage({ type: "expand", expanded: !expanded }));

// What a file's shapes and texts need of the theme (the rest is geometry, in the markup).
const SHAPE = ["fill", "fill-opacity", "stroke", "stroke-width", "stroke-dasharray", "opacity"];
const TEXT = ["fill", "font-family", "font-size", "font-weight"];
const PAINTED: Record<string, string[]> = { rect: SHAPE, circle: SHAPE, path: SHAPE, text: TEXT };
const GENERIC_FONTS = /\b(monospace|sans-serif|serif|system-ui)\b/;

/**
 * The theme's values for an element of the drawing: the computed style of a stand-in with the same
 * tags and classes, built in a hidden corner of this page (so graph.css and the theme's variables
 * apply), read once per path.
 */
function themePainter(): Painter {
    const probe = document.getElementById("probe")!;
    const cache = new Map<string, Record<string, string>>();
    return (path: ElementPath) => {
        const properties = PAINTED[path[path.length - 1].tag];
        if (!properties) {
            return {};
        }
        const key = JSON.stringify(path);
        let found = cache.get(key);
        if (!found) {
            let parent: Element = probe;
            for (const step of path) {
                const el = document.createElementNS("http://www.w3.org/2000/svg", step.tag);
                el.setAttribute("class", step.classes.join(" "));
                parent = parent.appendChild(el);
            }
            const computed = getComputedStyle(parent);
            found = {};
            for (const p of properties) {
                const value = computed.getPropertyValue(p);
                if (value) {
                    found[p] = value;
                }
            }
            // The editor's font by name, and a generic family where it is not installed.
            if (found["font-family"] && !GENERIC_FONTS.test(found["font-family"])) {
                found["font-family"] += ", monospace";
            }
            probe.replaceChildren();
            cache.set(key, found);
        }
        return found;
    };
}

document.getElementById("export")!.addEventListener("click", () => {
    if (laidOut) {
        vscode.postMessage({ type: "export", svg: exportSvg(laidOut!, themePainter(), getComputedStyle(document.body).backgroundColor) });
    }
});
window.addEventListener("resize", () => {
    if (!moved) {
        fit();
    }
});

vscode.postMessage({ type: "ready" });
