// The dataflow graph and the report view in a real VS Code (code-server), through the UI: the
// Graph lens of examples/systolic_gemm.py opens the webview, whose nodes and edges are counted in
// its DOM against the server's own graph (`allo-lsp graph`, ALLO_E2E_EXPECTED); Expand PEs draws
// the 36 PEs (timed); a click on a PE moves the editor's cursor to its kernel and makes it the
// kernel's active PE, the PE lens picks another (the branches it does not take dimmed, its values as
// inlay hints: issue 30); the cursor in the
// kernel highlights it; Fit beside the code keeps labels >= 9 px; the cursor in a meta_* branch
// highlights the PEs that run it; an edit of the grid's size redraws it (256 PEs, timed); the deadlock
// example simulated on the reference executor marks its blocked PEs and full FIFO (no depth for a
// stream nobody gets), a too shallow FIFO's edge "set depth to 16 and re-run" fixes the
// declaration and runs again; Export SVG writes a file
// through the save dialog (its own coordinates: no view transform, the drawing's viewBox); screenshots in the dark, light and high contrast themes. Run by
// tests/e2e/test_vscode_graph.py.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe } from "node:test";
import { codeLens, command, editor, find, goTo, openFile, page, runFromLens, SECOND, shot, uiTest, useWorkbench, waitUntil, WORKSPACE } from "./workbench.mjs";

const EXPECTED = JSON.parse(process.env.ALLO_E2E_EXPECTED);
const ARTIFACTS = process.env.ALLO_E2E_ARTIFACTS;

// The graph's webview: an iframe (VS Code's) holding the page's iframe. The graph panel is the
// newest webview: the one of `title`'s tab is the visible one.
const graphFrame = () => page.frameLocator("iframe.webview.ready").last().frameLocator("#active-frame");
const canvas = () => graphFrame().locator("#canvas");

/** The canvas' figures once it shows `region` drawn with `expanded` (the page writes them after each drawing). */
async function drawn(region, expanded, extra = () => true, timeout = 60 * SECOND) {
    return waitUntil(`the graph of ${region} (expanded: ${expanded})`, async () => {
        // The figures and the drawing read at once: a drawing may come between two reads.
        const data = await canvas()
            .evaluate((el) => ({ ...el.dataset, drawnNodes: el.querySelectorAll("svg.graph .node").length, drawnEdges: el.querySelectorAll("svg.graph .edge").length }))
            .catch(() => undefined);
        if (!data || data.region !== region || data.expanded !== String(expanded)) {
            return undefined;
        }
        const figures = { nodes: data.drawnNodes, edges: data.drawnEdges, renderMs: Number(data.renderMs), layout: data.layout };
        return extra(figures) ? figures : undefined;
    }, timeout);
}

/** Expands (or collapses) the PEs; returns the webview's own layout-and-draw time and the click-to-drawn time. */
async function toggleExpand(region, expanded, expected) {
    const started = Date.now();
    await graphFrame().locator("#expand").click();
    const figures = await drawn(region, expanded, (f) => f.nodes === expected.nodes);
    return { ...figures, wallMs: Date.now() - started };
}

/** Sets `workbench.colorTheme` in the workspace's settings.json, which the workbench applies at once. */
async function setTheme(name) {
    const file = join(WORKSPACE, ".vscode", "settings.json");
    mkdirSync(join(WORKSPACE, ".vscode"), { recursive: true });
    const settings = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
    writeFileSync(file, JSON.stringify({ ...settings, "workbench.colorTheme": name }, null, 2));
    await waitUntil(`the ${name} theme`, async () => {
        const kind = (await page.locator(".monaco-workbench").getAttribute("class")) ?? "";
        const expected = /high contrast/i.test(name) ? /\bhc-black\b/ : /light/i.test(name) ? /\bvs\b(?!-dark)/ : /\bvs-dark\b/;
        return expected.test(kind);
    }, 30 * SECOND);
}

/** A picture of the graph's (or the report's) editor group alone, maximized (the docs' pictures). */
async function shotOfPanel(name, fitted = true) {
    const group = page.locator(".editor-group-container", { has: page.locator(".tab.active", { hasText: /graph|synthesis report/ }) }).last();
    await group.locator(".tab.active").click();
    const before = (await group.boundingBox()).width;
    const toggle = async () => {
        await page.keyboard.press("Control+K");
        await page.keyboard.press("Control+M"); // View: Toggle Maximized Editor Group
    };
    await toggle();
    await waitUntil("the group maximized", async () => (await group.boundingBox()).width > before + 100, 10 * SECOND);
    if (fitted) {
        await graphFrame().locator("#fit").click();
    }
    await group.screenshot({ path: `${ARTIFACTS}/${name}.png` });
    await toggle();
    await waitUntil("the group back to its size", async () => (await group.boundingBox()).width < before + 20, 10 * SECOND);
}

/** Gives the keyboard back to `file`'s editor (a click in the webview took it). */
async function focusEditor(file) {
    await page.locator(".tab", { hasText: file }).first().click();
    await page.locator(".tab.active", { hasText: file }).first().waitFor();
}

/** Types `typed` over the `length` characters after `prefix` on the line that starts with it, as a user does. */
async function typeOver(file, prefix, length, typed) {
    await focusEditor(file);
    const at = find(file, prefix); // the line on disk: the edits change only what follows the prefix
    await goTo(at.line, at.column + prefix.length);
    await page.keyboard.down("Shift");
    for (let i = 0; i < length; i++) {
        await page.keyboard.press("ArrowRight");
    }
    await page.keyboard.up("Shift");
    await page.keyboard.type(typed);
}

describe("The dataflow graph in VS Code (code-server)", { timeout: 12 * 60 * SECOND }, () => {
    useWorkbench();

    uiTest("the Graph lens opens the region's graph, collapsed by kernel: the server's nodes and edges in the DOM", async () => {
        await openFile("systolic_gemm.py");
        await codeLens("Graph").waitFor({ timeout: 90 * SECOND });
        await codeLens("Graph").click();
        await page.locator(".tab", { hasText: "top graph" }).waitFor({ timeout: 30 * SECOND });
        const figures = await drawn("top", false, (f) => f.nodes > 0);
        console.log(`collapsed graph: ${figures.nodes} nodes, ${figures.edges} edges, drawn in ${figures.renderMs} ms`);
        assert.deepEqual([figures.nodes, figures.edges], [EXPECTED.collapsed.nodes, EXPECTED.collapsed.edges]);
        assert.equal(figures.layout, "worker"); // ELK laid it out in its web worker, not on the page's thread
        // The page is the extension's alone: a nonce'd script and no remote source.
        await shotOfPanel("graph-collapsed-light");
        const csp = await graphFrame().locator('meta[http-equiv="Content-Security-Policy"]').getAttribute("content");
        assert.match(csp, /default-src 'none'/);
        assert.match(csp, /script-src 'nonce-[A-Za-z0-9]+'$/);
        // Every other source is the webview's own (`cspSource`: the extension's files as VS Code
        // serves them, 'self' and its resource host), data: images, or the blob: the layout's
        // worker starts from (ELK's worker, fetched from the extension's files).
        const sources = csp.split(";").flatMap((d) => d.trim().split(/\s+/).slice(1));
        const own = (source) => ["'none'", "'self'", "data:", "blob:", "https://*.vscode-cdn.net"].includes(source) || /^'nonce-/.test(source);
        assert.match(csp, /worker-src blob:/);
        assert.deepEqual(sources.filter((source) => !own(source)), [], csp);
    });

    // The time is printed for the note, not asserted: a test is no benchmark (it took 558 ms once in a
    // CI run beside four other jobs, 49-188 ms otherwise).
    uiTest("Expand PEs draws the 36 PEs of the systolic array", async () => {
        const figures = await toggleExpand("top", true, EXPECTED.expanded);
        console.log(`expanded 36-PE graph: ${figures.nodes} nodes, ${figures.edges} edges; laid out and drawn in ${figures.renderMs} ms (webview), ${figures.wallMs} ms from the click (request, layout, drawing)`);
        assert.deepEqual([figures.nodes, figures.edges], [EXPECTED.expanded.nodes, EXPECTED.expanded.edges]);
        assert.equal(await graphFrame().locator('svg.graph .node.kind-pe').count(), 36);
        await shot("graph-expanded-light");
    });

    uiTest("a click on a PE reveals its kernel in the editor; the cursor in the kernel highlights it", async () => {
        await focusEditor("systolic_gemm.py");
        await goTo(1, 1);
        const kernel = find("systolic_gemm.py", "def gemm(");
        // A PE in view: Fit beside the code shows the grid's first columns at a readable size.
        await graphFrame().locator('svg.graph .node[data-id="gemm_2_1"] rect').click();
        await page.locator("#status\\.editor\\.selection", { hasText: `Ln ${kernel.line},` }).waitFor({ timeout: 15 * SECOND });
        // In the kernel's body outside its meta branches (`get_pid()`, below its `def`): the kernel
        // and its PEs highlighted (the graph's extents, not the document's symbols); outside every kernel: none.
        const body = find("systolic_gemm.py", "        i, j = df.get_pid()"); // the code's, not the docstring's
        await goTo(body.line, body.column + 10);
        let lit = 0;
        await waitUntil("the kernel under the cursor (in its body) highlighted", async () => {
            lit = await graphFrame().locator("svg.graph .node.cursor").count();
            return lit === EXPECTED.expanded.kernelAndPes;
        }, 15 * SECOND).catch((error) => {
            error.message += ` (${lit} nodes highlighted)`;
            throw error;
        });
        assert.equal(await graphFrame().locator('svg.graph .node.cursor[data-id="gemm"]').count(), 1, "the kernel itself highlighted");
        await goTo(1, 1);
        await waitUntil("no highlight outside the kernels", async () => (await graphFrame().locator("svg.graph .node.cursor").count()) === 0, 15 * SECOND);
        await shotOfPanel("graph-expanded-light");
    });

    // Issue 30: the click on gemm_2_1 above made it its kernel's active PE; the PE lens picks another.
    uiTest("the active PE: a PE clicked in the graph or picked from the PE lens dims the branches it does not take and shows its values", async () => {
        await focusEditor("systolic_gemm.py");
        await codeLens(/^◎ PE \(2, 1\) of 6x6$/).waitFor({ timeout: 30 * SECOND }); // the graph's click
        await codeLens(/^◎ PE /).click();
        const input = page.locator(".quick-input-widget input");
        await input.waitFor({ state: "visible" });
        await input.fill("gemm_1_2");
        await page.locator(".quick-input-list .monaco-list-row.focused", { hasText: "gemm_1_2" }).waitFor();
        await page.keyboard.press("Enter");
        await codeLens(/^◎ PE \(1, 2\) of 6x6$/).waitFor({ timeout: 30 * SECOND });
        const body = find("systolic_gemm.py", "        i, j = df.get_pid()");
        await goTo(body.line, 1);
        // What each line shows: dimmed (a span of the branch at the decoration's opacity) and its text with the inlay hints.
        const lines = async () => editor().locator(".view-line").evaluateAll((els) => els.map((el) => ({
            text: el.textContent.replace(/\u00a0/g, " "),
            dimmed: [...el.querySelectorAll("span")].some((span) => getComputedStyle(span).opacity === "0.4"),
        })));
        const seen = await waitUntil("gemm_1_2's values as inlay hints and the other branches dimmed", async () => {
            const shown = await lines();
            const hint = shown.find((l) => l.text.includes("i, j = df.get_pid()") && l.text.includes("i = 1, j = 2"));
            const dimmed = shown.find((l) => l.text.includes("with allo.meta_elif(j == 0):") && l.dimmed);
            return hint && dimmed ? shown : undefined;
        }, 30 * SECOND);
        const kept = seen.find((l) => l.text.includes("with allo.meta_else():"));
        assert.ok(kept && !kept.dimmed, `gemm_1_2's own branch is not dimmed: ${JSON.stringify(kept)}`);
        console.log(`active PE gemm_1_2: ${seen.filter((l) => l.dimmed).length} of ${seen.length} lines in view dimmed`);
        await shot("active-pe-gemm_1_2");
        // "All PEs" gives every branch back.
        await codeLens(/^◎ PE /).click();
        await input.waitFor({ state: "visible" });
        await input.fill("All PEs");
        await page.locator(".quick-input-list .monaco-list-row.focused", { hasText: "All PEs" }).waitFor();
        await page.keyboard.press("Enter");
        await codeLens(/^◎ PE: all 36 of 6x6$/).waitFor({ timeout: 30 * SECOND });
        await waitUntil("no line dimmed", async () => !(await lines()).some((l) => l.dimmed), 15 * SECOND);
    });

    uiTest("beside the code, Fit keeps every label readable (>= 9 px), the rest a drag away", async () => {
        await graphFrame().locator("#fit").click();
        const sizes = await waitUntil("the view fitted", async () => {
            const measured = await canvas().evaluate((el) => {
                // A text's drawn size: its font size times the screen's scale of its coordinates.
                const px = (t) => t.getScreenCTM().a * parseFloat(getComputedStyle(t).fontSize);
                const labels = [...el.querySelectorAll("svg.graph text")].map(px);
                const graph = el.querySelector("svg.graph g.viewport").getBoundingClientRect();
                return { smallest: Math.min(...labels), texts: labels.length, canvas: el.getBoundingClientRect().width, graph: graph.width };
            });
            return measured.texts > 0 ? measured : undefined;
        }, 15 * SECOND);
        console.log(`Fit beside the code: the canvas ${sizes.canvas.toFixed(0)} px wide, the graph ${sizes.graph.toFixed(0)} px, the smallest of ${sizes.texts} texts ${sizes.smallest.toFixed(1)} px`);
        assert.ok(sizes.canvas < 800, `the panel beside the editor: ${sizes.canvas} px`);
        assert.ok(sizes.smallest >= 8.99, `labels readable after Fit: the smallest ${sizes.smallest.toFixed(2)} px`);
        await shot("graph-beside-code-fit");
    });

    uiTest("the cursor in a meta_if branch highlights only the PEs that run it; in meta_else the compute PEs", async () => {
        await focusEditor("systolic_gemm.py");
        const lit = () => graphFrame().locator("svg.graph .node.cursor").evaluateAll((els) => els.map((e) => e.getAttribute("data-id")).sort());
        const corner = find("systolic_gemm.py", "with allo.meta_if(i in {0, M + 1}");
        await goTo(corner.line + 1, corner.column + 4); // its `pass`
        const corners = await waitUntil("the meta_if's PEs highlighted", async () => {
            const ids = await lit();
            return JSON.stringify(ids) === JSON.stringify(EXPECTED.expanded.cornerPes) ? ids : undefined;
        }, 15 * SECOND);
        console.log(`cursor in the meta_if branch: ${corners.join(", ")} highlighted`);
        const multiply = find("systolic_gemm.py", "c += a * b");
        await goTo(multiply.line, multiply.column);
        await waitUntil("the meta_else's 16 compute PEs highlighted", async () => (await lit()).length === EXPECTED.expanded.computePes, 15 * SECOND);
        assert.deepEqual((await lit()).filter((id) => !/^gemm_[1-4]_[1-4]$/.test(id)), [], "the inner PEs alone, not the kernel");
        await goTo(corner.line + 1, corner.column + 4);
        await waitUntil("the corners again", async () => (await lit()).length === 4, 15 * SECOND);
        await shot("graph-meta-if-cursor");
    });

    uiTest("an edit of the grid's size redraws the graph (the 256-PE grid timed), the view kept", async () => {
        await typeOver("systolic_gemm.py", "M, N, K = ", "4, 4".length, "2, 4");
        const smaller = await drawn("top", true, (f) => f.nodes === EXPECTED.edited.nodes);
        console.log(`after the edit (M = 2): ${smaller.nodes} nodes, ${smaller.edges} edges in ${smaller.renderMs} ms`);
        assert.equal(smaller.edges, EXPECTED.edited.edges);
        await shot("graph-edited");
        await typeOver("systolic_gemm.py", "M, N, K = ", "2, 4".length, "14, 14");
        const large = await drawn("top", true, (f) => f.nodes === EXPECTED.grid256.nodes, 120 * SECOND);
        console.log(`256-PE grid (M = N = 14): ${large.nodes} nodes, ${large.edges} edges; laid out and drawn in ${large.renderMs} ms (webview)`);
        assert.equal(large.edges, EXPECTED.grid256.edges);
        await shot("graph-256-pes");
        await typeOver("systolic_gemm.py", "M, N, K = ", "14, 14".length, "4, 4");
        await drawn("top", true, (f) => f.nodes === EXPECTED.expanded.nodes);
        // Saved with the text it had: the next steps close it without a question.
        await focusEditor("systolic_gemm.py");
        await page.keyboard.press("Control+S");
        await page.locator(".tab.active.dirty", { hasText: "systolic_gemm.py" }).waitFor({ state: "detached", timeout: 15 * SECOND });
    }, 240 * SECOND);

    uiTest("dark theme: the graph drawn in the theme's colours", async () => {
        const light = await graphFrame().locator('svg.graph .node.kind-pe rect').first().evaluate((el) => getComputedStyle(el).fill);
        await setTheme("Default Dark Modern");
        await waitUntil("the graph's colours to follow the theme", async () => {
            const dark = await graphFrame().locator('svg.graph .node.kind-pe rect').first().evaluate((el) => getComputedStyle(el).fill);
            return light !== dark;
        }, 15 * SECOND);
        await shot("graph-expanded-dark");
        await shotOfPanel("graph-expanded-dark");
    });

    uiTest("Export SVG writes the graph to the path typed in the save dialog: a valid SVG with every node's name", async () => {
        const path = join(WORKSPACE, "exported", "top_grid.svg");
        mkdirSync(join(WORKSPACE, "exported"), { recursive: true });
        await graphFrame().locator("#export").click();
        // code-server's save dialog is VS Code's simple one: a path in the quick input.
        const input = page.locator(".quick-input-widget input");
        await waitUntil("the save dialog's path", async () => /\.svg$/.test((await input.inputValue().catch(() => "")) ?? ""), 15 * SECOND);
        await input.fill(path);
        // Its OK button: Enter there opens the list's focused entry (`..`) rather than saving.
        await page.locator(".quick-input-widget .monaco-button", { hasText: /^OK$/ }).click();
        await page.locator(".notifications-toasts", { hasText: "was saved to" }).waitFor({ timeout: 15 * SECOND });
        const text = await waitUntil("the SVG file written", async () => (existsSync(path) ? readFileSync(path, "utf8") : undefined), 15 * SECOND);
        const parsed = await page.evaluate((svg) => {
            const doc = new DOMParser().parseFromString(svg, "image/svg+xml");
            const root = doc.documentElement;
            return {
                error: doc.getElementsByTagName("parsererror").length > 0,
                root: root.nodeName,
                namespace: root.namespaceURI,
                width: Number(root.getAttribute("width")),
                height: Number(root.getAttribute("height")),
                viewBox: (root.getAttribute("viewBox") ?? "").split(" ").map(Number),
                transforms: root.querySelectorAll("[transform]").length,
                boxes: [...root.querySelectorAll("rect")].map((r) => ["x", "y", "width", "height"].map((a) => Number(r.getAttribute(a)))),
                fonts: [...new Set([...doc.getElementsByTagName("text")].map((t) => t.getAttribute("font-family")))],
                vars: /var\(--/.test(svg),
                texts: [...doc.getElementsByTagName("text")].map((t) => t.textContent),
                classes: root.querySelectorAll("[class]").length,
                filled: root.querySelectorAll("rect[fill][stroke]").length,
            };
        }, text);
        console.log(`exported SVG: ${text.length} bytes, ${parsed.width} px wide, ${parsed.texts.length} texts`);
        assert.equal(parsed.error, false, "the file parses as XML");
        assert.deepEqual([parsed.root, parsed.namespace], ["svg", "http://www.w3.org/2000/svg"]);
        assert.ok(parsed.width > 100, `its own size: ${parsed.width}`);
        // In its own coordinates: no transform of the view's (pan, zoom), the viewBox the drawing's
        // box at scale 1, every box inside it.
        assert.equal(parsed.transforms, 0, "no transform in the file");
        const [x0, y0, w, h] = parsed.viewBox;
        assert.deepEqual([w, h], [parsed.width, parsed.height], `viewBox ${parsed.viewBox}`);
        const outside = parsed.boxes.filter(([x, y, bw, bh]) => x < x0 || y < y0 || x + bw > x0 + w || y + bh > y0 + h);
        assert.deepEqual(outside, [], "every node's box inside the viewBox");
        assert.ok(parsed.boxes.length >= 38, `${parsed.boxes.length} boxes`);
        assert.equal(parsed.vars, false, "the theme's colours resolved: no CSS variable left");
        console.log(`exported SVG's viewBox ${parsed.viewBox.join(" ")}; fonts ${parsed.fonts.join(" | ")}`);
        assert.ok(parsed.fonts.every((f) => f && /monospace|sans-serif|serif/.test(f)), `fonts named: ${parsed.fonts.join(" | ")}`);
        const names = ["gemm", "A", "B", "C", ...Array.from({ length: 36 }, (_, k) => `gemm_${Math.floor(k / 6)}_${k % 6}`)];
        assert.deepEqual(names.filter((n) => !parsed.texts.includes(n)), [], "every node's name in the file");
        assert.ok(parsed.texts.includes("fifo_A[1,2]"), "the streams' names too");
        assert.equal(parsed.classes, 0, "no class left to a stylesheet the file does not have");
        assert.ok(parsed.filled >= 40, `the theme's colours written in: ${parsed.filled} boxes with a fill and a stroke`);
    });

    uiTest("high contrast theme: the graph drawn with the theme's contrast borders", async () => {
        await setTheme("Default High Contrast");
        await waitUntil("the PEs' borders in the contrast colour", async () => {
            const width = await graphFrame().locator("svg.graph .node.kind-pe rect").first().evaluate((el) => getComputedStyle(el).strokeWidth);
            return width === "2px";
        }, 15 * SECOND);
        await shotOfPanel("graph-expanded-high-contrast");
        await setTheme("Default Dark Modern");
    });

    uiTest("Simulate the deadlock example (reference executor): its blocked PEs and full FIFO marked, no depth offered for a stream nobody gets", async () => {
        await command("View: Close All Editors");
        await openFile("pitfall_deadlock_stream.py");
        await codeLens("Graph").waitFor({ timeout: 60 * SECOND });
        await codeLens("Graph").click();
        await page.locator(".tab", { hasText: "top graph" }).last().waitFor({ timeout: 30 * SECOND });
        await drawn("top", false, (f) => f.nodes === EXPECTED.deadlock.nodes && f.edges === EXPECTED.deadlock.edges);
        assert.equal(await graphFrame().locator("svg.graph .blocked").count(), 0, "nothing blocked before a run");
        await openFile("pitfall_deadlock_stream.py");
        const title = await runFromLens("Simulate");
        console.log(`Simulate lens: ${title}`);
        assert.match(title, /deadlock/);
        // The example's producer blocks on its put of the full `tap`, its consumer on its get of `pipe`.
        await waitUntil("the blocked PEs marked", async () => (await graphFrame().locator("svg.graph .node.blocked").count()) > 0, 30 * SECOND);
        for (const kernel of ["producer", "consumer"]) {
            assert.equal(await graphFrame().locator(`svg.graph .node.blocked[data-id="${kernel}"]`).count(), 1, `${kernel} marked blocked`);
        }
        assert.equal(await graphFrame().locator("svg.graph .node.blocked").count(), 2);
        const texts = (selector) => graphFrame().locator(selector).evaluateAll((els) => els.map((e) => e.textContent.replace(/\s+/g, " ")));
        const edges = await texts("svg.graph .edge.blocked");
        console.log(`blocked edges: ${edges.join(" | ")}`);
        console.log(`blocked nodes: ${(await texts("svg.graph .node.blocked")).join(" | ")}`);
        // `tap` is put and never got: an imbalance, which no depth fixes (issue 26 item 3).
        assert.ok(edges.some((t) => /tap full 4\/4/.test(t)), edges.join(" | "));
        assert.ok(!edges.some((t) => /set depth/.test(t)), edges.join(" | "));
        assert.ok(edges.some((t) => /pipe empty 0\/4/.test(t)), edges.join(" | "));
        // The stub where tap ends (nobody gets it) drawn in the edges' colour, not SVG's default black on the dark theme.
        const stub = await graphFrame().locator("svg.graph .stub circle").first().evaluate((el) => getComputedStyle(el).fill);
        const background = await graphFrame().locator("body").evaluate((el) => getComputedStyle(el).backgroundColor);
        assert.ok(stub !== "rgb(0, 0, 0)" && stub !== background, `the stub's fill ${stub} on ${background}`);
        await shot("graph-deadlock-light");
        await setTheme("Default Light Modern");
        await shotOfPanel("graph-deadlock-light");
        await setTheme("Default Dark Modern");
        await shot("graph-deadlock-dark");
        await shotOfPanel("graph-deadlock-dark");
    }, 240 * SECOND);

    uiTest("a FIFO too shallow (balanced puts and gets): its edge's 'set depth to 16 and re-run' edits the declaration, runs again, the graph no longer red", async () => {
        // tests/lsp/test_fifo_leftover.py's SHALLOW: the consumer first waits on `ctl`, which the
        // producer puts after all 16 of `tap`'s, 2 deep.
        const header = readFileSync(join(WORKSPACE, "pitfall_deadlock_stream.py"), "utf8").split("@df.region()")[0];
        const file = join(WORKSPACE, "shallow_fifo.py");
        writeFileSync(file, header + [
            "@df.region()",
            "def top(A: int32[M], B: int32[M]):",
            "    tap: Stream[int32, 2]",
            "    ctl: Stream[int32, 2]",
            "",
            "    @df.kernel(mapping=[1], args=[A])",
            "    def producer(local_A: int32[M]):",
            "        for i in range(M):",
            "            tap.put(local_A[i])",
            "        ctl.put(1)",
            "",
            "    @df.kernel(mapping=[1], args=[B])",
            "    def consumer(local_B: int32[M]):",
            "        go = ctl.get()",
            "        for i in range(M):",
            "            local_B[i] = tap.get() + go",
            "",
        ].join("\n"));
        await command("View: Close All Editors");
        await openFile("shallow_fifo.py");
        await codeLens("Graph").waitFor({ timeout: 60 * SECOND });
        await codeLens("Graph").click();
        await page.locator(".tab", { hasText: "top graph" }).last().waitFor({ timeout: 30 * SECOND });
        await drawn("top", false, (f) => f.nodes === 4);
        await openFile("shallow_fifo.py");
        assert.match(await runFromLens("Simulate"), /deadlock/);
        await graphFrame().locator("svg.graph .edge.blocked .fix", { hasText: "set depth to 16 and re-run" }).click({ timeout: 60 * SECOND });
        await waitUntil("the depth saved in the file", async () => /tap: Stream\[int32, 16\]/.test(readFileSync(file, "utf8")), 30 * SECOND);
        assert.match(readFileSync(file, "utf8"), /ctl: Stream\[int32, 2\]/, "only the full FIFO's depth changed");
        // The re-run's overlay: nothing blocked, the tap's occupancy over its new depth.
        const edges = await waitUntil("the graph after the re-run", async () => {
            const blocked = await graphFrame().locator("svg.graph .blocked").count();
            const texts = await graphFrame().locator("svg.graph .edge").evaluateAll((els) => els.map((e) => e.textContent.replace(/\s+/g, " ")));
            return blocked === 0 && texts.some((t) => /tap.*max \d+\/16/.test(t)) ? texts : undefined;
        }, 120 * SECOND);
        console.log(`after set depth and re-run: ${edges.join(" | ")}`);
        await focusEditor("shallow_fifo.py");
        await codeLens(/Simulate.*✓/).waitFor({ timeout: 30 * SECOND });
        await shotOfPanel("graph-deadlock-fixed-dark");
    }, 240 * SECOND);

    uiTest("Show Synthesis Report after a synthesis (the stand-in Vitis HLS): the report view with its tree, bars and timing", async () => {
        await command("View: Close All Editors");
        await openFile("producer_consumer.py");
        await codeLens("Synthesize").waitFor({ timeout: 60 * SECOND });
        await codeLens("Synthesize").click();
        // A synthesis that passed shows its figures on the lens (`⚙ 3,624 cycles · II 1,813 · ...`).
        await codeLens(/cycles/).waitFor({ timeout: 180 * SECOND });
        await command("Allo: Show Synthesis Report");
        await page.locator(".tab", { hasText: "top synthesis report" }).waitFor({ timeout: 30 * SECOND });
        const view = page.frameLocator("iframe.webview.ready").last().frameLocator("#active-frame");
        await view.locator("h1", { hasText: "top synthesis report" }).waitFor({ timeout: 30 * SECOND });
        const csp = await view.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute("content");
        assert.match(csp, /script-src 'none'/, "the report view runs no script");
        const resources = await view.locator("tr.resource").count();
        const modules = await view.locator("tr.module-latency").count();
        const tree = await view.locator("details.tree-node.module").count();
        console.log(`report view: ${resources} resource bars, ${modules} module latencies, ${tree} open modules; timing: ${await view.locator(".timing").innerText()}`);
        assert.ok(resources >= 4 && modules >= 1 && tree >= 1, `${resources} ${modules} ${tree}`);
        // Collapsible: a click on the top module's summary closes its subtree.
        const top = view.locator("details.tree-node.module").first();
        await top.locator("summary").first().click();
        assert.equal(await top.getAttribute("open"), null);
        await top.locator("summary").first().click();
        await shot("report-view-dark");
        await shotOfPanel("report-view-dark", false);
        await setTheme("Default Light Modern");
        await shotOfPanel("report-view-light", false);
    }, 300 * SECOND);

    uiTest("the Files lens beside Report opens what the synthesis kept: the HLS project, vitis.log, kernel.cpp (issue 26, item 6)", async () => {
        await page.locator(".tab", { hasText: "producer_consumer.py" }).first().click();
        await codeLens(/^Files$/).click({ timeout: 30 * SECOND });
        const rows = page.locator(".quick-input-list .monaco-list-row");
        await rows.filter({ hasText: "kernel.cpp" }).first().waitFor({ timeout: 30 * SECOND });
        const labels = (await rows.locator(".label-name").allInnerTexts()).map((l) => l.trim());
        console.log(`Files lens offers: ${labels.join(" | ")}`);
        assert.deepEqual(labels, ["HLS project", "vitis.log", "kernel.cpp"]);
        await shot("synthesis-files");
        await rows.filter({ hasText: "vitis.log" }).first().click();
        await page.locator(".tab.active", { hasText: "vitis.log" }).waitFor({ timeout: 30 * SECOND });
    }, 120 * SECOND);

    uiTest("Allo: Sweep Region… (the stand-in Vitis HLS, the local pool): the sweep view's table, front and chart; a kept point opens its report", async () => {
        await command("View: Close All Editors");
        await openFile("producer_consumer.py");
        await codeLens("Synthesize").waitFor({ timeout: 60 * SECOND });
        await command("Allo: Sweep Region…");
        // The parameters: the file's constants and the synthesis settings, several picked at once.
        const rows = page.locator(".quick-input-list .monaco-list-row");
        await rows.filter({ hasText: "clock" }).first().waitFor({ timeout: 30 * SECOND });
        const offered = await rows.locator(".label-name").allInnerTexts();
        console.log(`sweep parameters offered: ${offered.join(", ")}`);
        assert.ok(["M", "N", "clock", "part"].every((name) => offered.includes(name)), offered.join(", "));
        await page.locator(".quick-input-widget input").fill("clock");
        await rows.filter({ hasText: "clock" }).first().click(); // a multi-select list: a click toggles the row
        await page.locator(".quick-input-widget", { hasText: "1 Selected" }).waitFor({ timeout: 10 * SECOND });
        await page.keyboard.press("Enter");
        const input = page.locator(".quick-input-widget input");
        await page.locator(".quick-input-widget", { hasText: "values of clock" }).waitFor({ timeout: 10 * SECOND });
        await input.fill("3.33, 5, 10");
        const started = Date.now();
        await page.keyboard.press("Enter");
        await page.locator(".tab", { hasText: "top sweep" }).waitFor({ timeout: 240 * SECOND });
        const view = page.frameLocator("iframe.webview.ready").last().frameLocator("#active-frame");
        await view.locator("h1", { hasText: "top sweep" }).waitFor({ timeout: 30 * SECOND });
        console.log(`sweep of 3 points (stand-in Vitis HLS): ${Date.now() - started} ms from Enter to the view`);
        const csp = await view.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute("content");
        assert.match(csp, /script-src 'none'/, "the sweep view runs no script");
        assert.equal(await view.locator("tr.point").count(), 3);
        // Equal cycles: 5 ns is faster in real time than 10 ns, and 3.33 ns misses timing (slack -0.05 ns).
        assert.equal(await view.locator("tr.point.passed.front").count(), 1);
        assert.equal(await view.locator("tr.point.passed.timing").count(), 1);
        const clocks = await view.locator("tr.point td:nth-child(1)").allInnerTexts();
        assert.deepEqual(clocks, ["3.33", "5", "10"]);
        // One chart shown, the most used resource's; LUT's after its radio button.
        assert.equal(await view.locator("svg.chart:visible").count(), 1);
        assert.equal(await view.locator("svg.chart.res-most_used circle.pt.front").count(), 1);
        await view.locator('label[for="res-LUT"]').click();
        await view.locator("svg.chart.res-LUT").waitFor({ state: "visible", timeout: 10 * SECOND });
        // Pictures of the view's group alone, maximized (View: Toggle Maximized Editor Group), in both themes.
        const group = page.locator(".editor-group-container", { has: page.locator(".tab.active", { hasText: "top sweep" }) }).last();
        await group.locator(".tab.active").click(); // the keyboard back to the workbench (the click above gave it to the webview)
        const width = async () => (await group.boundingBox())?.width ?? 0; // none while the layout changes
        const narrow = await width();
        const maximize = async () => {
            await page.keyboard.press("Control+K");
            await page.keyboard.press("Control+M");
        };
        await maximize();
        await waitUntil("the sweep's group maximized", async () => (await width()) > narrow + 100, 10 * SECOND);
        await group.screenshot({ path: `${ARTIFACTS}/sweep-view-light.png` });
        await setTheme("Default Dark Modern");
        await group.screenshot({ path: `${ARTIFACTS}/sweep-view-dark.png` });
        await maximize();
        await waitUntil("the sweep's group back to its size", async () => (await width()) > 0 && (await width()) < narrow + 20, 10 * SECOND);
        // A point's row opens its report.
        await view.locator("tr.point").first().locator("a").first().click();
        await page.locator(".tab", { hasText: "top clock=3.33 synthesis report" }).waitFor({ timeout: 30 * SECOND });
    }, 360 * SECOND);
});
