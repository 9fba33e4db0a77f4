// Unit tests of the graph view's pure parts: the region graph -> ELK's graph (and laid out by
// elkjs itself), the overlays' styling, the cursor's node, the Graph lenses, and the SVG drawn.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import ELK from "elkjs/lib/elk.bundled.js";
import { allEdges, allNodes, DrawnNode, toElk } from "../graph/elkGraph";
import { GraphEdge, GraphNode, highlighted, highlightedAt, isRegionGraph, nodeAt, RegionGraph } from "../graph/graphModel";
import { withGraphLenses } from "../graph/graphLenses";
import { LABEL_CHAR_WIDTH } from "../graph/gridLayout";
import { edgeStyle, nodeStyle, wrapped } from "../graph/overlay";
import { ElementPath, exportSvg, renderSvg } from "../graph/render";
import { fitView, MIN_LABEL_PX, SMALLEST_FONT_PX } from "../graph/view";
import { contentSecurityPolicy, graphHtml } from "../graph/webviewHtml";
import { LensLike } from "../common/targets";

const range = (line: number, endLine = line, character = 4, endCharacter = 40) => ({
    start: { line, character },
    end: { line: endLine, character: endCharacter },
});

/** An answer of the real server (`allo-lsp graph FILE::top --format json [--expand]`, the JSON of `allo/regionGraph`). */
function fixture(name: string): RegionGraph {
    return JSON.parse(readFileSync(join(__dirname, "..", "client", "src", "test", "fixtures", name), "utf8"));
}

/**
 * A P0 x P1 grid in the server's shape (examples/systolic_gemm.py's `top` with other sizes): `gemm`
 * and, expanded, its PEs `gemm_i_j`, fifo_A flowing right and fifo_B down, ports A, B in and C out.
 */
function systolic(p0: number, p1: number, expand: boolean): RegionGraph {
    const ports: GraphNode[] = ["A", "B", "C"].map((name, i) => ({ id: `port:${name}`, name, kind: "port", range: range(21, 21, 8 + 16 * i, 9 + 16 * i) }));
    const kernel: GraphNode = { id: "gemm", name: "gemm", kind: "kernel", kernel: "gemm", peCount: p0 * p1, mapping: [p0, p1], range: range(27, 27, 8, 12) };
    const nodes: GraphNode[] = [kernel, ...ports];
    const edges: GraphEdge[] = [
        { id: "port:A->gemm", kind: "port", source: "port:A", target: "gemm", stream: null as unknown as string, direction: "in" },
        { id: "port:C->gemm", kind: "port", source: "gemm", target: "port:C", stream: null as unknown as string, direction: "out" },
    ];
    if (!expand) {
        edges.push({ id: "fifo_A:gemm->gemm", source: "gemm", target: "gemm", stream: "fifo_A", depth: 4, type: "int32", fifos: 20, range: range(23) });
        edges.push({ id: "fifo_B:gemm->gemm", source: "gemm", target: "gemm", stream: "fifo_B", depth: 4, type: "int32", fifos: 20, range: range(24) });
    } else {
        for (let i = 0; i < p0; i++) {
            for (let j = 0; j < p1; j++) {
                nodes.push({ id: `gemm_${i}_${j}`, name: `gemm_${i}_${j}`, kind: "pe", kernel: "gemm", pe: [i, j], parent: "gemm", role: j === 0 ? "meta_elif(j == 0)" : "meta_else()", range: kernel.range });
            }
        }
        for (let i = 0; i < p0; i++) {
            for (let j = 0; j < p1; j++) {
                if (j + 1 < p1) {
                    edges.push({ id: `fifo_A[${i},${j + 1}]`, source: `gemm_${i}_${j}`, target: `gemm_${i}_${j + 1}`, stream: "fifo_A", index: [i, j + 1], depth: 4, range: range(23) });
                }
                if (i + 1 < p0) {
                    edges.push({ id: `fifo_B[${i + 1},${j}]`, source: `gemm_${i}_${j}`, target: `gemm_${i + 1}_${j}`, stream: "fifo_B", index: [i + 1, j], depth: 4, range: range(24) });
                }
            }
        }
    }
    return {
        region: "top",
        range: range(20, 20, 4, 7),
        nodes,
        edges,
        ports: [
            { id: "port:A", name: "A", direction: "in", bundle: "gmem0", type: "int32[4, 4]" },
            { id: "port:B", name: "B", direction: "in", bundle: "gmem1" },
            { id: "port:C", name: "C", direction: "out", bundle: "gmem2" },
        ],
    };
}

async function layout(graph: RegionGraph): Promise<DrawnNode> {
    return (await new ELK().layout(toElk(graph))) as DrawnNode;
}

test("the graph's answer is recognised, anything else is not", () => {
    assert.ok(isRegionGraph(fixture("systolic_top.json")));
    assert.ok(!isRegionGraph(null));
    assert.ok(!isRegionGraph({ region: "top", nodes: [] }));
    assert.ok(!isRegionGraph({ markdown: "x" }));
});

test("collapsed systolic_gemm: one node per kernel and port, the streams self-loops held by the root, inputs first, outputs last", () => {
    const elk = toElk(fixture("systolic_top.json"));
    assert.deepEqual(allNodes(elk).map((n) => n.id).sort(), ["gemm", "port:A", "port:B", "port:C"]);
    assert.deepEqual((elk.edges ?? []).map((e) => e.id).sort(), ["fifo_A:gemm->gemm", "fifo_B:gemm->gemm", "port:A->gemm", "port:B->gemm", "port:C->gemm"]);
    const node = (id: string) => allNodes(elk).find((n) => n.id === id)!;
    const constraint = (id: string) => node(id).layoutOptions?.["elk.layered.layering.layerConstraint"];
    assert.equal(constraint("port:A"), "FIRST");
    assert.equal(constraint("port:C"), "LAST");
    assert.equal(constraint("gemm"), undefined);
    assert.deepEqual(node("gemm").drawn?.lines, ["6×6 · 36 PEs"]);
    assert.ok(node("gemm").width! > "6×6 · 36 PEs".length * 7, `room for the kernel's line: ${node("gemm").width}`);
    assert.deepEqual(node("port:A").drawn?.lines, ["in · m_axi gmem0"]);
    assert.ok(node("port:C").drawn?.classes.includes("direction-out"));
    const fifo = allEdges(elk).find((e) => e.id === "fifo_A:gemm->gemm")!;
    assert.equal(fifo.labels?.[0].text, "fifo_A");
    assert.match(fifo.drawn!.title, /fifo_A \(20 FIFOs\): int32, depth 4/);
    assert.equal(allEdges(elk).find((e) => e.id === "port:A->gemm")!.labels?.[0].text, "", "a port edge is named by its port");
});

test("expanded systolic_gemm: the 36 PEs inside their kernel with their roles, PE-to-PE edges held by the kernel", () => {
    const graph = fixture("systolic_top_expanded.json");
    const elk = toElk(graph);
    const kernel = allNodes(elk).find((n) => n.id === "gemm")!;
    assert.equal(kernel.children?.length, 36);
    assert.ok(kernel.drawn?.classes.includes("group"));
    assert.equal(kernel.width, undefined, "a group's size is ELK's to find");
    const inner = graph.edges.filter((e) => e.source?.startsWith("gemm_") && e.target?.startsWith("gemm_"));
    assert.ok(inner.length > 0);
    assert.deepEqual((kernel.edges ?? []).map((e) => e.id).sort(), inner.map((e) => e.id).sort());
    assert.equal(allEdges(elk).length, graph.edges.length);
    const loader = allNodes(elk).find((n) => n.id === "gemm_1_0")!;
    assert.deepEqual(loader.drawn?.lines, ["j == 0"], "a PE's meta_* branch is its role");
});

test("an edge whose end is not drawn is left out (a half-typed design); a null end is a stub beside the other", () => {
    const graph = systolic(2, 2, false);
    graph.edges.push({ id: "dangling", source: "gemm", target: "gone", stream: "s" });
    graph.edges.push({ id: "tap:gemm->", source: "gemm", target: null, stream: "tap" });
    const elk = toElk(graph);
    assert.ok(!allEdges(elk).some((e) => e.id === "dangling"));
    const tap = allEdges(elk).find((e) => e.id === "tap:gemm->")!;
    assert.deepEqual([tap.sources, tap.targets], [["gemm"], ["stub:tap:gemm->:target"]]);
    assert.ok(allNodes(elk).find((n) => n.id === "stub:tap:gemm->:target")?.drawn?.classes.includes("stub"));
});

test("a sub-region is a group holding its kernels and the edges between them", () => {
    const graph: RegionGraph = {
        region: "top",
        nodes: [
            { id: "load", name: "load", kind: "kernel" },
            { id: "wrapper", name: "wrapper", kind: "kernel" },
            { id: "wrapper/inner", name: "inner", kind: "region", parent: "wrapper" },
            { id: "wrapper/inner/a", name: "a", kind: "kernel", parent: "wrapper/inner" },
            { id: "wrapper/inner/b", name: "b", kind: "kernel", parent: "wrapper/inner" },
        ],
        edges: [
            { id: "s1", source: "load", target: "wrapper", stream: "s1" },
            { id: "s2", source: "wrapper/inner/a", target: "wrapper/inner/b", stream: "s2" },
            { id: "s3", source: "wrapper", target: "wrapper/inner/a", stream: "s3" },
        ],
    };
    const elk = toElk(graph);
    const inner = allNodes(elk).find((n) => n.id === "wrapper/inner")!;
    assert.deepEqual(inner.children?.map((c) => c.id), ["wrapper/inner/a", "wrapper/inner/b"]);
    assert.deepEqual(inner.edges?.map((e) => e.id), ["s2"]);
    assert.deepEqual(allNodes(elk).find((n) => n.id === "wrapper")!.edges?.map((e) => e.id), ["s3"], "a group's edge to its own child");
    assert.deepEqual(elk.edges?.map((e) => e.id), ["s1"]);
});

test("elkjs lays the 36-PE grid out without overlaps, in root coordinates, the same twice", async () => {
    const started = performance.now();
    const laid = await layout(fixture("systolic_top_expanded.json"));
    const ms = performance.now() - started;
    const pes = allNodes(laid).filter((n) => /^gemm_\d+_\d+$/.test(n.id));
    assert.equal(pes.length, 36);
    for (const a of pes) {
        for (const b of pes) {
            if (a !== b) {
                const apart = a.x! + a.width! <= b.x! || b.x! + b.width! <= a.x! || a.y! + a.height! <= b.y! || b.y! + b.height! <= a.y!;
                assert.ok(apart, `${a.id} overlaps ${b.id}`);
            }
        }
    }
    const kernel = allNodes(laid).find((n) => n.id === "gemm")!;
    for (const pe of pes) {
        assert.ok(pe.x! >= kernel.x! && pe.x! + pe.width! <= kernel.x! + kernel.width!, `${pe.id} inside its kernel (root coordinates)`);
        assert.ok(pe.y! >= kernel.y! && pe.y! + pe.height! <= kernel.y! + kernel.height!, `${pe.id} inside its kernel (root coordinates)`);
    }
    assert.ok(allEdges(laid).every((e) => e.sections?.length), "every edge routed");
    const again = await layout(fixture("systolic_top_expanded.json"));
    assert.deepEqual(allNodes(again).map((n) => [n.id, n.x, n.y]), allNodes(laid).map((n) => [n.id, n.x, n.y]));
    console.log(`elkjs layout of the 36-PE grid (node, first layout): ${ms.toFixed(0)} ms`);
});

type Box = { x: number; y: number; width: number; height: number };
const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Where render.ts writes each edge's text (a grid's edges: `drawn.at` from the route's start), as boxes. */
function labelBoxes(laid: DrawnNode): (Box & { id: string })[] {
    return allEdges(laid)
        .filter((e) => e.drawn?.at && e.drawn.text)
        .map((e) => {
            const start = e.sections![0].startPoint;
            return { id: e.id, x: start.x + e.drawn!.at!.x, y: start.y + e.drawn!.at!.y, width: e.drawn!.text!.length * LABEL_CHAR_WIDTH, height: 15 };
        });
}

test("an expanded 2-D kernel is drawn as its grid: PE (i, j) in row i and column j, neighbours joined by straight lines, no name over a PE or another name", async () => {
    const graph = fixture("systolic_top_expanded.json");
    const started = performance.now();
    const laid = await layout(graph);
    console.log(`the 36-PE grid laid out (node): ${(performance.now() - started).toFixed(0)} ms`);
    const pe = (i: number, j: number) => allNodes(laid).find((n) => n.id === `gemm_${i}_${j}`)!;
    for (let i = 0; i < 6; i++) {
        for (let j = 0; j < 6; j++) {
            assert.equal(pe(i, j).x, pe(0, j).x, `gemm_${i}_${j} in column ${j}`);
            assert.equal(pe(i, j).y, pe(i, 0).y, `gemm_${i}_${j} in row ${i}`);
            if (j > 0) {
                assert.ok(pe(i, j).x! > pe(i, j - 1).x! + pe(i, j - 1).width!, `gemm_${i}_${j} right of gemm_${i}_${j - 1}`);
            }
            if (i > 0) {
                assert.ok(pe(i, j).y! > pe(i - 1, j).y! + pe(i - 1, j).height!, `gemm_${i}_${j} below gemm_${i - 1}_${j}`);
            }
        }
    }
    const inner = allEdges(laid).filter((e) => e.id.startsWith("fifo_"));
    assert.equal(inner.length, 40);
    for (const e of inner) {
        const [section] = e.sections!;
        assert.equal(section.bendPoints?.length ?? 0, 0, `${e.id} straight`);
        const along = e.id.startsWith("fifo_A") ? "y" : "x"; // fifo_A flows right, fifo_B down
        assert.equal(section.startPoint[along], section.endPoint[along], `${e.id} straight along its row or column`);
    }
    const boxes = labelBoxes(laid);
    assert.equal(boxes.length, 40, "every stream's name placed");
    const pes = allNodes(laid).filter((n) => n.drawn?.classes.includes("kind-pe")) as Box[];
    for (const label of boxes) {
        assert.ok(!pes.some((p) => overlap(label, p)), `${label.id}'s name over a PE`);
        assert.ok(!boxes.some((other) => other !== label && overlap(label, other)), `${label.id}'s name over another`);
    }
    const kernel = allNodes(laid).find((n) => n.id === "gemm")!;
    for (const p of pes) {
        assert.ok(p.x >= kernel.x! && p.x + p.width <= kernel.x! + kernel.width! && p.y + p.height <= kernel.y! + kernel.height!, "inside its kernel");
    }
    assert.ok(kernel.width! / kernel.height! < 3.5, `a grid, not a band: ${kernel.width} x ${kernel.height}`);
    assert.ok(renderSvg(laid).includes(">fifo_B[3,2]</text>"));
});

test("a grid's edge between PEs that are not neighbours runs along the gaps, across no PE", async () => {
    const graph = systolic(3, 3, true);
    graph.edges.push({ id: "skip", source: "gemm_0_0", target: "gemm_2_2", stream: "skip", index: [2, 2] });
    graph.edges.push({ id: "back", source: "gemm_1_2", target: "gemm_1_0", stream: "back" });
    const laid = await layout(graph);
    const pes = allNodes(laid).filter((n) => n.drawn?.classes.includes("kind-pe")) as Box[];
    for (const id of ["skip", "back"]) {
        const section = allEdges(laid).find((e) => e.id === id)!.sections![0];
        const points = [section.startPoint, ...(section.bendPoints ?? []), section.endPoint];
        for (let k = 1; k < points.length; k++) {
            const [a, b] = [points[k - 1], points[k]];
            assert.ok(a.x === b.x || a.y === b.y, `${id}: orthogonal`);
            // A segment as a thin box, shrunk at its ends (which touch the two PEs' sides).
            const seg = { x: Math.min(a.x, b.x) + 0.5, y: Math.min(a.y, b.y) + 0.5, width: Math.max(Math.abs(a.x - b.x) - 1, 0.1), height: Math.max(Math.abs(a.y - b.y) - 1, 0.1) };
            assert.ok(!pes.some((p) => overlap(seg, p)), `${id}'s segment ${k} across a PE`);
        }
    }
});

test("a kernel that is not a plain 2-D grid keeps ELK's layered layout: a 3-D mapping, a PE holding a sub-region, an edge from outside into a PE", () => {
    const fixedGroups = (graph: RegionGraph) =>
        allNodes(toElk(graph))
            .filter((n) => n.layoutOptions?.["elk.algorithm"] === "fixed")
            .map((n) => n.id);
    assert.deepEqual(fixedGroups(systolic(2, 3, true)), ["gemm"]);
    assert.deepEqual(fixedGroups(systolic(2, 3, false)), [], "collapsed: no PEs");
    const cube = systolic(2, 2, true);
    cube.nodes[0].mapping = [2, 2, 1];
    cube.nodes.filter((n) => n.kind === "pe").forEach((n) => (n.pe = [...n.pe!, 0]));
    assert.deepEqual(fixedGroups(cube), []);
    const nested = systolic(2, 2, true);
    nested.nodes.push({ id: "gemm_0_0/inner", name: "inner", kind: "region", parent: "gemm_0_0" });
    assert.deepEqual(fixedGroups(nested), []);
    const fed = systolic(2, 2, true);
    fed.nodes.push({ id: "load", name: "load", kind: "kernel" });
    fed.edges.push({ id: "in", source: "load", target: "gemm_1_1", stream: "in" });
    assert.deepEqual(fixedGroups(fed), []);
});

test("the 256-PE grid (16 x 16) is laid out as a grid too, without overlaps", async () => {
    const graph = systolic(16, 16, true);
    const started = performance.now();
    const laid = await layout(graph);
    console.log(`the 256-PE grid laid out (node): ${(performance.now() - started).toFixed(0)} ms`);
    const pes = allNodes(laid).filter((n) => n.drawn?.classes.includes("kind-pe")) as Box[];
    assert.equal(pes.length, 256);
    assert.equal(new Set(pes.map((p) => p.x)).size, 16);
    assert.equal(new Set(pes.map((p) => p.y)).size, 16);
    const byRow = [...pes].sort((a, b) => a.y - b.y || a.x - b.x);
    for (let k = 1; k < byRow.length; k++) {
        assert.ok(!overlap(byRow[k - 1], byRow[k]));
    }
});

test("a long role is written over lines, before its ands and ors; a short one is one line", () => {
    assert.deepEqual(wrapped("i in {0, M + 1} and j in {0, N + 1}"), ["i in {0, M + 1}", "and j in {0, N + 1}"]);
    assert.deepEqual(wrapped("i == M + 1 and j > 0"), ["i == M + 1", "and j > 0"]);
    assert.deepEqual(wrapped("i == 0 or i == 3 or j == 1"), ["i == 0", "or i == 3", "or j == 1"]);
    assert.deepEqual(wrapped("j == 0"), ["j == 0"]);
    const corner = nodeStyle({ id: "gemm_0_0", name: "gemm_0_0", kind: "pe", role: "meta_if(i in {0, M + 1} and j in {0, N + 1})" });
    assert.deepEqual(corner.lines, ["i in {0, M + 1}", "and j in {0, N + 1}"]);
});

test("a role of many unclosed meta_if( is shown in linear time", () => {
    const started = Date.now();
    const role = "meta_if(".repeat(12_500);
    assert.deepEqual(nodeStyle({ id: "p", name: "p", kind: "pe", role }).lines, wrapped(role));
    const nested = "meta_if(" + "meta_elif(".repeat(10_000) + "i == 0)";
    assert.deepEqual(nodeStyle({ id: "p", name: "p", kind: "pe", role: nested }).lines, ["meta_elif(".repeat(10_000) + "i == 0"]);
    assert.deepEqual(nodeStyle({ id: "p", name: "p", kind: "pe", role: "a\nmeta_if(j == 0)" }).lines, wrapped("a\nj == 0"));
    assert.ok(Date.now() - started < 2000); // a stall bound: the old pattern took about 2.5 s on the first
});

test("the SVG has one shape per node and edge, ids for clicks, names escaped, no inline style", async () => {
    const graph = systolic(2, 3, true);
    graph.nodes[1].name = "A<&>";
    const svg = renderSvg(await layout(graph));
    assert.equal((svg.match(/<g class="node /g) ?? []).length, graph.nodes.length);
    assert.equal((svg.match(/<g class="edge[" ]/g) ?? []).length, graph.edges.length);
    assert.ok(svg.includes('data-id="gemm_1_2"'));
    assert.ok(svg.includes("A&lt;&amp;&gt;") && !svg.includes("A<&>"));
    assert.ok(!/style="/.test(svg), "no inline style: the webview's CSP forbids it");
    assert.ok(svg.indexOf('data-id="gemm"') < svg.indexOf('data-id="gemm_0_0"'), "a group is drawn under its children");
    assert.ok(!/^<svg [^>]*viewBox/.test(svg), "in the webview the viewport's transform alone scales it");
    assert.match(renderSvg(await layout(graph), true), /^<svg [^>]*width="[\d.]+" height="[\d.]+" viewBox="-?[\d.]+ -?[\d.]+ [\d.]+ [\d.]+"/);
});

/** The numbers of an attribute of each `tag` element of an SVG text (a file's own reading, no DOM). */
function attributes(svg: string, tag: string): Record<string, string>[] {
    return [...svg.matchAll(new RegExp(`<${tag}\\b([^>]*)>`, "g"))].map((m) => Object.fromEntries([...m[1].matchAll(/([\w:-]+)="([^"]*)"/g)].map((a) => [a[1], a[2]])));
}

test("Export SVG: the whole graph in its own coordinates (its box as the viewBox, no view transform), the theme's values written on each shape, no class left", async () => {
    const laid = await layout(fixture("systolic_top_expanded.json"));
    const seen: ElementPath[] = [];
    const paint = (path: ElementPath): Record<string, string> => {
        seen.push(structuredClone(path));
        const own = path[path.length - 1];
        const pe = path.some((p) => p.classes.includes("kind-pe"));
        return own.tag === "text" ? { fill: "#123456", "font-family": "Fira Code, monospace" } : own.tag === "rect" ? { fill: pe ? "#eeeeee" : "#ffffff", stroke: "#0000ff" } : {};
    };
    const svg = exportSvg(laid, paint, "#fafafa");
    assert.match(svg, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width/);
    assert.ok(!/transform=/.test(svg), "no transform: not the view's pan and zoom, nor any other");
    assert.ok(!/class=/.test(svg), "no class: a file has no stylesheet");
    const root = attributes(svg, "svg")[0];
    const [x0, y0, w, h] = root.viewBox.split(" ").map(Number);
    assert.deepEqual([Number(root.width), Number(root.height)], [w, h], "drawn at scale 1");
    const rects = attributes(svg, "rect").map((a) => ({ fill: a.fill, stroke: a.stroke, x: Number(a.x), y: Number(a.y), w: Number(a.width), h: Number(a.height) }));
    assert.deepEqual([rects[0].x, rects[0].y, rects[0].w, rects[0].h, rects[0].fill], [x0, y0, w, h, "#fafafa"], "the background fills the viewBox");
    const nodes = rects.slice(1);
    assert.equal(nodes.length, allNodes(laid).length, "one box per node");
    for (const b of nodes) {
        assert.ok(b.x >= x0 && b.y >= y0 && b.x + b.w <= x0 + w && b.y + b.h <= y0 + h, `a box inside the viewBox: ${JSON.stringify(b)}`);
        assert.equal(b.stroke, "#0000ff");
    }
    // The viewBox is the drawing's box: every node's name in it, and no more than a margin around.
    const texts = attributes(svg, "text");
    assert.ok(texts.every((t) => Number(t.x) >= x0 && Number(t.x) < x0 + w && Number(t.y) > y0 && Number(t.y) <= y0 + h));
    assert.ok(texts.every((t) => t.fill === "#123456" && t["font-family"] === "Fira Code, monospace"), "fonts named");
    assert.equal(Math.min(...nodes.map((b) => b.x)) - x0, 8, "a margin of 8 on the left");
    assert.ok(!svg.includes('class="hit"') && attributes(svg, "path").length === allEdges(laid).length + 1, "each edge's line (and the arrowhead), not the click targets");
    assert.equal(nodes.filter((b) => b.fill === "#eeeeee").length, 36, "a PE's box painted as a PE's: the painter sees its ancestors' classes");
    assert.ok(seen.some((p) => p[0].tag === "svg" && p[0].classes.includes("graph")), "the path starts at the svg.graph the theme's rules match");
});

test("Fit beside the code keeps the labels readable: never below 9 px, the start of the graph in view; a graph that fits is drawn whole, centred", async () => {
    const laid = await layout(fixture("systolic_top_expanded.json"));
    const [width, height] = [laid.width!, laid.height!];
    const beside = { width: 480, height: 760 }; // half of a laptop's screen
    const narrow = fitView(beside, width, height);
    assert.ok(narrow.k * SMALLEST_FONT_PX >= MIN_LABEL_PX, `the smallest label at ${(narrow.k * SMALLEST_FONT_PX).toFixed(1)} px`);
    assert.ok(width * narrow.k > beside.width, "the grid does not fit whole: the rest is a drag away");
    assert.equal(narrow.x, 12, "its left (the inputs) in view");
    const wide = fitView({ width: 4000, height: 3000 }, width, height);
    assert.ok(wide.k > narrow.k && wide.k <= 1.5);
    assert.ok(Math.abs(wide.x - (4000 - width * wide.k) / 2) < 1e-9 && Math.abs(wide.y - (3000 - height * wide.k) / 2) < 1e-9, "centred");
    const small = fitView(beside, 300, 200);
    assert.ok(small.x > 12 && small.y > 12 && 300 * small.k <= beside.width, "a small graph whole, centred");
});

test("a large grid: no ELK edge labels (their cost), the names written at the edges' middles", async () => {
    const graph = systolic(8, 8, true);
    const elk = toElk(graph);
    assert.ok(graph.edges.length > 40);
    assert.ok(allEdges(elk).every((e) => !e.labels?.length));
    const svg = renderSvg((await new ELK().layout(elk)) as DrawnNode);
    assert.ok(svg.includes(">fifo_A[3,4]</text>"), "each edge's name drawn");
});

test("a deadlock (a real reference run's overlay): the blocked PEs and the full and empty FIFOs blocked with occupancy, the depth fix on the edge", () => {
    const graph = fixture("deadlock_top.json");
    const node = (id: string) => nodeStyle(graph.nodes.find((n) => n.id === id)!);
    const edge = (id: string) => edgeStyle(graph.edges.find((e) => e.id === id)!);
    assert.ok(node("producer").classes.includes("blocked"));
    assert.deepEqual(node("producer").lines, ["blocked: put tap 4/4"]);
    assert.deepEqual(node("consumer").lines, ["blocked: get pipe 0/4"]);
    assert.ok(!node("port:A").classes.includes("blocked"));
    const tap = edge("tap:producer->");
    assert.ok(tap.classes.includes("blocked"));
    assert.deepEqual(tap.lines, ["full 4/4"]);
    assert.equal(tap.fixDepth, 16);
    assert.match(tap.title, /4 puts, 0 gets, 1 waits/);
    const pipe = edge("pipe:producer->consumer");
    assert.deepEqual(pipe.lines, ["empty 0/4"]);
    assert.equal(pipe.fixDepth, undefined);
    const expanded = fixture("deadlock_top_expanded.json");
    assert.ok(expanded.nodes.filter((n) => n.kind === "pe").some((n) => nodeStyle(n).classes.includes("blocked")), "the blocked PEs when expanded");
});

test("a passed run's overlay: highest occupancy over depth, puts and gets; no overlay, no extra", () => {
    const edge = edgeStyle({ id: "s", source: "a", target: "b", stream: "s", depth: 8, overlay: { run: { maxOccupancy: 3, depth: 8, puts: 1024, gets: 1024, blocked: [], sizedDepth: null } } });
    assert.deepEqual(edge.classes, ["edge", "kind-stream"]);
    assert.deepEqual(edge.lines, ["max 3/8"]);
    assert.match(edge.title, /1,024 puts, 1,024 gets/);
    assert.deepEqual(edgeStyle({ id: "s", source: "a", target: "b", stream: "s" }).lines, []);
    assert.deepEqual(nodeStyle({ id: "k", name: "k", kind: "kernel" }).classes, ["node", "kind-kernel"]);
});

test("a synthesis overlay: latency, II and the resources used on the kernel", () => {
    const styled = nodeStyle({
        id: "k",
        name: "gemm",
        kind: "kernel",
        overlay: { synthesis: { latency: { best: 1000, worst: 1208 }, interval: { min: 1003, max: 1003 }, resources: { LUT: 5200, FF: 0, DSP: 4 }, modules: ["gemm_0_0"] } },
    });
    assert.ok(styled.classes.includes("synthesized"));
    assert.deepEqual(styled.lines, ["1,208 cycles · II 1,003", "LUT 5,200 · DSP 4"]);
});

test("the cursor's node: the kernel whose definition (the server's extent) holds it, in its body too; its PEs with it; the innermost wins", () => {
    const graph = fixture("systolic_top_expanded.json"); // examples/systolic_gemm.py: `gemm` from line 26 to 55
    const kernel = graph.nodes.find((n) => n.id === "gemm")!;
    assert.deepEqual([kernel.extent?.start.line, kernel.extent?.end.line], [26, 55]);
    assert.equal(nodeAt(graph, { line: 45, character: 12 })?.id, "gemm", "in the kernel's body");
    assert.equal(nodeAt(graph, { line: 26, character: 4 })?.id, "gemm", "on its decorator");
    assert.equal(nodeAt(graph, { line: 27, character: 9 })?.id, "gemm", "on its name");
    assert.equal(nodeAt(graph, { line: 22, character: 8 }), undefined, "a port's word (the region's signature) is not a node to highlight");
    assert.equal(nodeAt(graph, { line: 58, character: 0 }), undefined, "after the kernel");
    assert.deepEqual(highlighted(graph, nodeAt(graph, { line: 45, character: 12 })), ["gemm", ...graph.nodes.filter((n) => n.kind === "pe").map((n) => n.id)]);
    assert.deepEqual(highlighted(graph, undefined), []);
    // A sub-region's definition holding kernels: the innermost holds the cursor.
    const nested: RegionGraph = {
        region: "top",
        nodes: [
            { id: "w", name: "w", kind: "kernel", range: range(34, 34, 8, 9), extent: range(33, 36, 4, 30) },
            { id: "w/inner", name: "inner", kind: "region", parent: "w", range: range(18, 18, 4, 9), extent: range(17, 28, 0, 40) },
            { id: "w/inner/scale", name: "scale", kind: "kernel", parent: "w/inner", range: range(22, 22, 8, 13), extent: range(21, 23, 4, 40) },
        ],
        edges: [],
    };
    assert.equal(nodeAt(nested, { line: 22, character: 20 })?.id, "w/inner/scale");
    assert.equal(nodeAt(nested, { line: 25, character: 0 })?.id, "w/inner");
    assert.equal(nodeAt(nested, { line: 35, character: 8 })?.id, "w");
    assert.equal(nodeAt({ ...nested, nodes: [{ ...nested.nodes[0], extent: undefined }] }, { line: 34, character: 8 })?.id, "w", "no extent (an older server): the name alone");
});

test("the cursor in a meta_* branch highlights the PEs that run it; elsewhere in the kernel, or collapsed, the whole kernel", () => {
    const graph = fixture("systolic_top_expanded.json"); // examples/systolic_gemm.py
    const pes = graph.nodes.filter((n) => n.kind === "pe");
    const ids = (pick: (i: number, j: number) => boolean) => pes.filter((n) => pick(n.pe![0], n.pe![1])).map((n) => n.id);
    assert.deepEqual(highlightedAt(graph, { line: 52, character: 16 }), ids((i, j) => i > 0 && i < 5 && j > 0 && j < 5), "`c += a * b` in meta_else: the 16 compute PEs");
    assert.deepEqual(highlightedAt(graph, { line: 47, character: 8 }), ids((i, j) => i > 0 && i < 5 && j > 0 && j < 5), "on its `with`");
    assert.deepEqual(highlightedAt(graph, { line: 31, character: 12 }), ids((i, j) => (i === 0 || i === 5) && (j === 0 || j === 5)), "`pass` in the meta_if: the corners");
    assert.deepEqual(highlightedAt(graph, { line: 35, character: 16 }), ids((i, j) => j === 0 && i > 0 && i < 5), "in meta_elif(j == 0): column 0's loaders");
    assert.deepEqual(highlightedAt(graph, { line: 28, character: 8 }), ["gemm", ...pes.map((n) => n.id)], "`i, j = df.get_pid()`, outside every branch: the kernel and its PEs");
    assert.deepEqual(highlightedAt(graph, { line: 58, character: 0 }), [], "outside the kernel");
    // A PE whose branch does not fold may run any: it stays lit; an older server (no branches): the kernel.
    const unknown = { ...graph, nodes: graph.nodes.map((n) => (n.id === "gemm_0_0" ? { ...n, branches: null } : n)) };
    assert.deepEqual(highlightedAt(unknown, { line: 52, character: 16 }), ["gemm_0_0", ...ids((i, j) => i > 0 && i < 5 && j > 0 && j < 5)]);
    const older = { ...graph, nodes: graph.nodes.map(({ branches, ...n }) => n) };
    assert.equal(highlightedAt(older, { line: 52, character: 16 }).length, 37);
    assert.deepEqual(highlightedAt(fixture("systolic_top.json"), { line: 52, character: 16 }), ["gemm"], "collapsed: the kernel stands for its PEs");
});

test("a Graph lens beside each region's first lens, none twice, none when the server sends its own", () => {
    const uri = "file:///w/d.py";
    const lens = (line: number, command: string, name: string): LensLike => ({ range: { start: { line } }, command: { command, arguments: [uri, name] } });
    const make = (l: LensLike, t: { uri: string; name: string }): LensLike => ({ range: l.range, command: { command: "alloDataflow.showGraph", arguments: [t.uri, t.name] } });
    const lenses = [lens(3, "alloDataflow.simulate", "top"), lens(3, "alloDataflow.showMlir", "top"), lens(9, "alloDataflow.run", "test_top"), lens(12, "alloDataflow.synthesize", "other")];
    const graphs = withGraphLenses(lenses, make).filter((l) => l.command?.command === "alloDataflow.showGraph");
    assert.deepEqual(graphs.map((l) => [l.range.start.line, l.command?.arguments?.[1]]), [
        [3, "top"],
        [12, "other"],
    ]);
    const own = [...lenses, make(lenses[0], { uri, name: "top" })];
    assert.equal(withGraphLenses(own, make).filter((l) => l.command?.command === "alloDataflow.showGraph").length, 2);
});

test("the webview's page: a nonce'd script, nothing remote, no inline style; ELK's worker from a blob of the extension's file", () => {
    const html = graphHtml("vscode-webview://x", "vscode-webview://x/graph.js", "vscode-webview://x/graph.css", "top graph", "vscode-webview://x/elk-worker.min.js");
    const csp = html.match(/Content-Security-Policy" content="([^"]+)"/)![1];
    const scriptNonce = csp.match(/script-src 'nonce-([A-Za-z0-9]+)'/)![1];
    assert.ok(html.includes(`<script nonce="${scriptNonce}" src="vscode-webview://x/graph.js" data-elk-worker="vscode-webview://x/elk-worker.min.js">`));
    assert.match(csp, /default-src 'none'/);
    assert.ok(!/unsafe-inline|unsafe-eval|https?:/.test(csp), csp);
    // The worker's file is read from the extension's resources only; the worker starts from its text.
    assert.ok(csp.split("; ").includes("connect-src vscode-webview://x"), csp);
    assert.ok(csp.split("; ").includes("worker-src blob:"), csp);
    assert.match(csp, /script-src 'nonce-[A-Za-z0-9]+'$/, "the script's directive last (tests/e2e/vscode_graph.test.mjs reads it so)");
    assert.notEqual(graphHtml("s", "a", "b", "t", "w").match(/nonce-([A-Za-z0-9]+)/)![1], scriptNonce, "a fresh nonce per page");
    const report = contentSecurityPolicy("s", undefined);
    assert.equal(report.includes("script-src 'none'"), true);
    assert.ok(!/connect-src|worker-src/.test(report), "a page without scripts fetches nothing and starts no worker");
});
