// The extension in a real VS Code (code-server) driven through its UI by headless Chromium, in a
// trusted workspace: diagnostics, Problems, hover, quick fix, Simulate (lens and palette), a run
// that passes clearing the failure of the run before (D2), the synthesis report and the MLIR view. Run by tests/e2e/test_vscode.py; each step leaves a
// screenshot, also when it fails.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe } from "node:test";
import {
    codeLens,
    command,
    editor,
    find,
    goTo,
    openFile,
    openMlirView,
    page,
    problemsFilter,
    runFromLens,
    SECOND,
    settingField,
    shot,
    showProblemsOf,
    uiTest,
    useWorkbench,
    waitForProblems,
    waitUntil,
    WORKSPACE,
} from "./workbench.mjs";

// The reference executor (`alloDataflow.backend: reference`) runs the designs without Allo, so the
// Simulate lens must say "✓ passed". (Set to false to accept any outcome, ✓ or ✗, while the
// executor is being reworked.)
const REFERENCE_BACKEND_PASSES = true;
// The stand-in Vitis HLS (tests/standin/bin), put on a synthesis' PATH by the launcher prefix.
const STANDIN_BIN = join(import.meta.dirname, "..", "standin", "bin");

/** Sets `alloDataflow.timeout` as a user does: in the Settings editor's Workspace tab. */
async function setJobTimeout(seconds) {
    const field = await settingField("Preferences: Open Workspace Settings", "alloDataflow.timeout", "Seconds before a job's process group is killed");
    await field.fill(String(seconds));
    await field.press("Tab");
    await waitUntil(`alloDataflow.timeout ${seconds} in the workspace's settings.json`, async () => {
        try {
            return JSON.parse(readFileSync(join(WORKSPACE, ".vscode", "settings.json"), "utf8"))["alloDataflow.timeout"] === seconds;
        } catch {
            return false; // not written yet
        }
    }, 30 * SECOND);
    // Back to the design (from the Settings editor's field Quick Open did not open).
    await page.locator(".tab", { hasText: "pitfall_arg_order.py" }).first().click();
}

/**
 * Simulates the region until its lens shows `expected`: the server reads changed settings when the
 * client tells it, a moment after settings.json is written, and a run started before that ran with
 * the setting before (its outcome is another one). Returns the last title.
 */
async function simulateUntil(expected, timeout = 120 * SECOND) {
    const deadline = Date.now() + timeout;
    for (let run = 1; ; run++) {
        const title = await runFromLens("Simulate");
        if (expected.test(title) || Date.now() > deadline) {
            console.log(`  run ${run}: ${title}`);
            return title;
        }
        console.log(`  run ${run}: ${title}, again (the server had the setting before)`);
    }
}

/** How many squiggles of `severity` ("error", "warning", "info") the active editor draws on the line with `text`. */
async function squigglesOn(text, severity) {
    const line = await editor().locator(".view-line", { hasText: text }).first().boundingBox();
    let count = 0;
    for (const squiggle of await editor().locator(`.squiggly-${severity}`).all()) {
        const box = await squiggle.boundingBox();
        count += box !== null && box.y >= line.y - 1 && box.y + box.height <= line.y + line.height + 1 ? 1 : 0;
    }
    return count;
}

describe("Allo Dataflow in VS Code (code-server)", { timeout: 10 * 60 * SECOND }, () => {
    useWorkbench();

    uiTest("diagnostics of a bare scalar region argument", async () => {
        await openFile("pitfall_bare_scalar.py");
        // ADF002 on `n` in the producer's args=[A, n], once: Allo rejects a bound scalar there
        // only, so the parameter `n: int32` itself is not flagged again (ADF001).
        await editor().locator(".squiggly-error").first().waitFor({ timeout: 60 * SECOND });
        assert.equal(await editor().locator(".squiggly-error").count(), 1);
        assert.equal(await editor().locator(".squiggly-warning").count(), 0);
        await waitForProblems({ "pitfall_bare_scalar.py": { errors: 1, warnings: 0 } });
    });

    uiTest("the Problems panel lists them", async () => {
        await command("View: Focus Problems");
        const rows = page.locator(".markers-panel .monaco-list-row");
        await rows.filter({ hasText: "ADF002" }).first().waitFor();
        const text = (await rows.allInnerTexts()).join("\n");
        assert.doesNotMatch(text, /ADF001/);
        assert.match(text, /ADF002/);
        assert.match(text, /pitfall_bare_scalar\.py/);
        await command("View: Hide Panel");
    });

    uiTest("the argument order hazard, and the region's hover", async () => {
        await openFile("pitfall_arg_order.py");
        await editor().locator(".squiggly-warning").first().waitFor({ timeout: 60 * SECOND });
        assert.equal(await editor().locator(".squiggly-warning").count(), 1);
        assert.equal(await editor().locator(".squiggly-error").count(), 0);
        await waitForProblems({
            "pitfall_bare_scalar.py": { errors: 1, warnings: 0 },
            "pitfall_arg_order.py": { errors: 0, warnings: 1 },
        });
        const name = editor().locator(".view-line", { hasText: "def top(" }).locator("span", { hasText: /^top$/ }).first();
        const hover = page.locator(".monaco-hover:visible");
        await waitUntil("the hover of region top", async () => {
            const box = await name.boundingBox();
            await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 3 });
            return (await hover.count()) > 0 && /memref<16xi32>/.test(await hover.first().innerText());
        }, 30 * SECOND);
        const text = await hover.first().innerText();
        assert.match(text, /memref<16xi32>/);
        assert.match(text, /Older Allo builds compile/);
        assert.match(text, /arr_in/);
        await shot("hover");
        await page.mouse.move(5, 5);
        await page.keyboard.press("Escape");
    });

    uiTest("the quick fix declares the scalar as a 1-element array", async () => {
        await openFile("pitfall_bare_scalar.py");
        const at = find("pitfall_bare_scalar.py", "args=[A, n])"); // the decorator, not the docstring
        await goTo(at.line, at.column + 9);
        const title = "Declare 'n' as int32[1]";
        const item = page.locator(".action-widget .monaco-list-row", { hasText: title });
        await waitUntil("the quick fix menu", async () => {
            await page.keyboard.press("Control+.");
            try {
                await item.first().waitFor({ timeout: 3 * SECOND });
                return true;
            } catch {
                await page.keyboard.press("Escape");
                return false;
            }
        }, 30 * SECOND);
        // Pick it with the keyboard, as a user of Ctrl+. does (the menu re-renders under a mouse).
        const focused = page.locator(".action-widget .monaco-list-row.focused");
        for (let i = 0; i < 10 && !(await focused.innerText().catch(() => "")).includes(title); i++) {
            await page.keyboard.press("ArrowDown");
        }
        assert.match(await focused.innerText(), /Declare 'n' as int32\[1\]/);
        await page.keyboard.press("Enter");
        await editor().locator(".view-line", { hasText: "n: int32[1], B" }).waitFor({ timeout: 10 * SECOND });
        await editor().locator(".view-line", { hasText: "local_n[0]" }).first().waitFor({ timeout: 10 * SECOND });
        await waitUntil("the errors to go", async () => (await editor().locator(".squiggly-error").count()) === 0, 30 * SECOND);
        await waitForProblems({
            "pitfall_bare_scalar.py": { errors: 0, warnings: 0 },
            "pitfall_arg_order.py": { errors: 0, warnings: 1 },
        });
    });

    uiTest("Simulate from the code lens shows the outcome in the lens", async () => {
        await openFile("pitfall_arg_order.py");
        const title = await runFromLens("Simulate");
        console.log(`Simulate lens: ${title}`);
        // ENABLE-WHEN-REFERENCE-BACKEND-PASSES: the reference executor runs this design to the end.
        if (REFERENCE_BACKEND_PASSES) {
            assert.match(title, /✓ passed/);
        }
    }, 240 * SECOND);

    uiTest("Simulate from the command palette acts on the region at the cursor", async () => {
        await openFile("pitfall_bare_scalar.py");
        const at = find("pitfall_bare_scalar.py", "pipe: Stream");
        await goTo(at.line, at.column);
        assert.equal(await codeLens("Simulate").innerText(), "▶ Simulate");
        const title = await runFromLens("Simulate", () => command("Allo: Simulate Region"));
        console.log(`Simulate (palette) lens: ${title}`);
        if (REFERENCE_BACKEND_PASSES) {
            assert.match(title, /✓ passed/); // the quick-fixed design
        }
    }, 240 * SECOND);

    uiTest("Show Synthesis Report opens the report (or says the server has none)", async () => {
        await command("Allo: Show Synthesis Report");
        const preview = page.locator(".tab", { hasText: "top synthesis report" });
        const unavailable = page.locator(".notification-toast", { hasText: "not available in this server version" });
        await waitUntil("the report preview or the notice", async () => (await preview.count()) + (await unavailable.count()) > 0, 60 * SECOND);
        if (await preview.count()) {
            // The markdown preview is a webview: an iframe in an iframe.
            const body = page.frameLocator("iframe.webview.ready").last().frameLocator("#active-frame").locator("body");
            await body.getByText(/synthesis report/i).first().waitFor({ timeout: 30 * SECOND });
            console.log(`Synthesis report preview: ${(await body.innerText()).slice(0, 200)}`);
        }
    });

    uiTest("a run that passes clears the failure of the run before, in the editor and in Problems (D2)", async () => {
        const region = find("pitfall_arg_order.py", "def top(");
        // The build named, so that no probe of it runs with either timeout: a probe's answer
        // publishes the document's problems again, which would hide a stale one.
        mkdirSync(join(WORKSPACE, ".vscode"), { recursive: true });
        writeFileSync(join(WORKSPACE, ".vscode", "settings.json"), JSON.stringify({ "alloDataflow.alloBuild": "fixed" }));
        await setJobTimeout(0.001);
        await openFile("pitfall_arg_order.py");
        await goTo(region.line, 1); // in view above the Problems panel
        const timedOut = await simulateUntil(/⏱ timeout/);
        console.log(`Simulate lens with alloDataflow.timeout 0.001: ${timedOut}`);
        assert.match(timedOut, /⏱ timeout/);
        await waitUntil("the timeout's squiggle on def top", async () => (await squigglesOn("def top(", "error")) === 1, 15 * SECOND);
        await showProblemsOf("pitfall_arg_order.py");
        const jobRows = page.locator(".markers-panel .monaco-list-row", { hasText: "allo-lsp run" });
        await jobRows.first().waitFor({ timeout: 15 * SECOND });
        const row = await jobRows.first().innerText();
        console.log(`Problems row of the timeout: ${row.replace(/\s+/g, " ")}`);
        assert.match(row, /no result within 0\.001 s/);
        assert.match(row, new RegExp(`Ln ${region.line}, Col`));
        await command("Notifications: Clear All Notifications"); // the timeout's message, over the panel
        await shot("d2-timeout-problems");

        await setJobTimeout(300);
        await openFile("pitfall_arg_order.py");
        await goTo(region.line, 1);
        const passed = await simulateUntil(/✓ passed/);
        console.log(`Simulate lens with alloDataflow.timeout 300: ${passed}`);
        assert.match(passed, /✓ passed/);
        await waitUntil("no error squiggle on def top", async () => (await squigglesOn("def top(", "error")) === 0, 15 * SECOND);
        // The analysis' information on the same line stays: ADF003 (the build is a fixed one) and
        // ADF005 (built for the simulator only; Synthesize builds vitis_hls, which wants outputs last).
        assert.equal(await squigglesOn("def top(", "info"), 2);
        await showProblemsOf("pitfall_arg_order.py");
        await jobRows.first().waitFor({ state: "detached", timeout: 15 * SECOND });
        await page.locator(".markers-panel .monaco-list-row", { hasText: "ADF003" }).first().waitFor({ timeout: 15 * SECOND });
        await command("Notifications: Clear All Notifications");
        await shot("d2-passed-problems");
        await problemsFilter().fill("");
        await command("View: Hide Panel");
    }, 300 * SECOND);

    uiTest("Show MLIR opens a read-only view, and go to definition there leads back to the region", async () => {
        await openMlirView("pitfall_arg_order.py", "top");
        const signature = editor().locator(".view-line", { hasText: "func.func @top(" });
        await signature.waitFor({ timeout: 30 * SECOND });
        await page.locator("#status\\.editor\\.mode", { hasText: "MLIR" }).waitFor({ timeout: 10 * SECOND });
        await shot("mlir-view");
        // The server checks only Python: nothing of it is published on the view.
        assert.equal(await editor().locator(".squiggly-error, .squiggly-warning").count(), 0);
        await signature.locator("span", { hasText: /^@top$/ }).first().click();
        await page.keyboard.press("F12");
        // In the MLIR view's group (the source's own group has it active too: matching both tabs
        // passed before F12 had done anything, or failed as ambiguous once it had).
        await page.locator(".editor-group-container.active .tab.active", { hasText: "pitfall_arg_order.py" }).waitFor({ timeout: 30 * SECOND });
        const region = find("pitfall_arg_order.py", "def top(");
        await page.locator("#status\\.editor\\.selection", { hasText: `Ln ${region.line},` }).waitFor({ timeout: 10 * SECOND });
    }, 180 * SECOND);

    uiTest("the running synthesis lens cancels Vitis (issue 26, item 5); the lens sits above the decorator", async () => {
        // A design whose (stand-in) Vitis never ends, and that Vitis on the job's PATH through the
        // launcher prefix, as `srun ...` would run it.
        const source = readFileSync(join(WORKSPACE, "producer_consumer.py"), "utf8");
        writeFileSync(join(WORKSPACE, "synth_hangs.py"), `${source}\nVITIS_STANDIN = "hang"\n`);
        const settingsPath = join(WORKSPACE, ".vscode", "settings.json");
        const settings = JSON.parse(readFileSync(settingsPath, "utf8"));
        settings["alloDataflow.vitis.launcherPrefix"] = `env PATH=${STANDIN_BIN}:/usr/bin:/bin`;
        writeFileSync(settingsPath, JSON.stringify(settings));
        await openFile("synth_hangs.py");
        const decorator = find("synth_hangs.py", "@df.region()");
        await goTo(decorator.line, 1);
        await codeLens("Synthesize").waitFor({ timeout: 30 * SECOND });
        // The lens line is drawn above the decorator's line, not between it and the `def`.
        const above = await page.evaluate(([selector, line]) => {
            const root = document.querySelector(selector);
            const lens = root.querySelector(".codelens-decoration").getBoundingClientRect().top;
            const rows = [...root.querySelectorAll(".view-line")].filter((l) => l.textContent.trim() === line);
            return rows.length > 0 && lens < rows[0].getBoundingClientRect().top;
        }, [".editor-group-container.active .editor-instance .monaco-editor", "@df.region()"]);
        await shot("lens-above-the-decorator");
        assert.ok(above, "the lens above `@df.region()`");
        await codeLens("Synthesize").click();
        const running = codeLens("running");
        await running.waitFor({ timeout: 60 * SECOND });
        await waitUntil("the stand-in Vitis running", async () => {
            try {
                return readFileSync(join(WORKSPACE, "vitis_pid.txt"), "utf8").length > 0;
            } catch {
                return false;
            }
        }, 120 * SECOND);
        const pid = Number(readFileSync(join(WORKSPACE, "vitis_pid.txt"), "utf8"));
        await shot("synthesis-running");
        await running.click();
        await codeLens(/Synthesize: cancelled/).waitFor({ timeout: 30 * SECOND });
        await waitUntil(`Vitis (pid ${pid}) gone`, async () => {
            try {
                process.kill(pid, 0);
                return false;
            } catch {
                return true;
            }
        }, 30 * SECOND);
        console.log(`Synthesis lens after the cancel: ${await codeLens(/Synthesize/).innerText()}`);
    }, 300 * SECOND);

    uiTest("after Restart Server, breadcrumbs and Outline show the design without an edit (issue 26, item 17)", async () => {
        await command("View: Close All Editors"); // one group: the MLIR view's is gone
        await openFile("pitfall_arg_order.py");
        const consumer = find("pitfall_arg_order.py", "def consumer(");
        await goTo(consumer.line + 1, 9);
        const crumbs = page.locator(".editor-group-container.active .breadcrumbs-control");
        await crumbs.locator(".monaco-icon-label", { hasText: /^consumer/ }).first().waitFor({ timeout: 60 * SECOND });
        await command("Allo: Restart Server");
        // The new server is asked for the symbols right after the document is opened to it; an empty
        // answer then would stay until the next edit (the bug). No edit here: only the cursor moves.
        await page.waitForTimeout(3 * SECOND);
        const producer = find("pitfall_arg_order.py", "def producer(");
        await goTo(producer.line + 1, 9);
        await crumbs.locator(".monaco-icon-label", { hasText: /^producer/ }).first().waitFor({ timeout: 60 * SECOND });
        const path = (await crumbs.innerText()).replace(/\s+/g, " ");
        console.log(`Breadcrumbs after Restart Server: ${path}`);
        assert.match(path, /top.*producer/);
        await command("Explorer: Focus on Outline View");
        const outline = page.locator(".outline-pane .monaco-list-row");
        await outline.filter({ hasText: /^top/ }).first().waitFor({ timeout: 30 * SECOND });
        await outline.filter({ hasText: /consumer/ }).first().waitFor({ timeout: 30 * SECOND });
        await shot("outline-after-restart");
    }, 180 * SECOND);
});
