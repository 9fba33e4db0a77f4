// The extension in a real VS Code (code-server) driven through its UI by headless Chromium.
// Run by tests/e2e/test_vscode.py, which starts code-server with the extension installed and a
// copy of examples/ as the workspace, and passes:
//   ALLO_E2E_URL        the workbench URL (with ?folder=)
//   ALLO_E2E_WORKSPACE  the workspace folder
//   ALLO_E2E_ARTIFACTS  where the screenshots go
// Each step leaves a screenshot, also when it fails.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { chromium } from "playwright-core";

// The reference executor (`alloDataflow.backend: reference`) runs the design without Allo. Set
// to true once it is in the server: the Simulate lens must then say "✓ passed".
const REFERENCE_BACKEND_PASSES = false;

const URL = process.env.ALLO_E2E_URL;
const WORKSPACE = process.env.ALLO_E2E_WORKSPACE;
const ARTIFACTS = process.env.ALLO_E2E_ARTIFACTS;
const CHROMIUM = process.env.ALLO_E2E_CHROMIUM ?? "/usr/bin/chromium";
const SECOND = 1000;

let browser;
let page;
let step = 0;

async function shot(name) {
    step += 1;
    await page.screenshot({ path: join(ARTIFACTS, `${String(step).padStart(2, "0")}-${name}.png`) });
}

/** Runs one step and leaves a screenshot of how it ended. */
function uiTest(name, body, timeout = 90 * SECOND) {
    test(name, { timeout }, async () => {
        try {
            await body();
        } finally {
            await shot(name.replace(/[^a-z0-9]+/gi, "-").toLowerCase()).catch(() => undefined);
        }
    });
}

async function command(name) {
    await page.keyboard.press("Control+Shift+P");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible" });
    await input.fill(`>${name}`);
    await page.locator(".quick-input-list .monaco-list-row.focused", { hasText: name }).waitFor();
    await page.keyboard.press("Enter");
}

async function openFile(name) {
    await page.keyboard.press("Control+P");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible" });
    await input.fill(name);
    // Enter opens the focused row: wait until the list has been filtered down to the file.
    await page.locator(".quick-input-list .monaco-list-row.focused", { hasText: name }).waitFor();
    await page.keyboard.press("Enter");
    await page.locator(".tab.active", { hasText: name }).waitFor();
    await page.locator(".monaco-editor .view-lines").first().waitFor();
}

/** Puts the cursor at a 1-based line and column (Go to Line accepts `line:column`). */
async function goTo(line, column) {
    await page.keyboard.press("Control+G");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible" });
    await input.fill(`:${line}:${column}`);
    await page.keyboard.press("Enter");
    await input.waitFor({ state: "hidden" });
}

/** 1-based line and column of the first `text` in a workspace file. */
function find(file, text) {
    const lines = readFileSync(join(WORKSPACE, file), "utf8").split("\n");
    const line = lines.findIndex((l) => l.includes(text));
    assert.ok(line >= 0, `${text} not in ${file}`);
    return { line: line + 1, column: lines[line].indexOf(text) + 1 };
}

const editor = () => page.locator(".editor-instance .monaco-editor").first();

/** The counts of the status bar's problems item ("Errors: 2, Warnings: 1", "Warnings: 1", "No Problems"). */
async function problemCounts() {
    const label = (await page.locator("#status\\.problems").first().getAttribute("aria-label")) ?? "";
    const count = (kind) => Number(label.match(new RegExp(`${kind}: (\\d+)`))?.[1] ?? 0);
    return { errors: count("Errors"), warnings: count("Warnings") };
}

async function waitForProblems(errors, warnings) {
    await waitUntil(`the status bar to count ${errors} errors and ${warnings} warnings`, async () => {
        const counts = await problemCounts();
        return counts.errors === errors && counts.warnings === warnings;
    }, 15 * SECOND);
}

async function waitUntil(what, predicate, timeout) {
    const deadline = Date.now() + timeout;
    let last;
    while (Date.now() < deadline) {
        last = await predicate();
        if (last) {
            return last;
        }
        await page.waitForTimeout(250);
    }
    assert.fail(`timed out after ${timeout / SECOND} s waiting for ${what}`);
}

describe("Allo Dataflow in VS Code (code-server)", { timeout: 10 * 60 * SECOND }, () => {
    before(async () => {
        browser = await chromium.launch({
            executablePath: CHROMIUM,
            headless: true,
            args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        });
        page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        await page.goto(URL);
        await page.locator(".monaco-workbench").waitFor({ timeout: 120 * SECOND });
        await page.locator(".explorer-folders-view").waitFor({ timeout: 60 * SECOND });
    });

    after(async () => {
        await browser?.close();
    });

    uiTest("diagnostics of a bare scalar region argument", async () => {
        await openFile("pitfall_bare_scalar.py");
        // ADF001 on `n: int32` in the region, ADF002 on `n` in the producer's args=[A, n].
        await editor().locator(".squiggly-error").nth(1).waitFor({ timeout: 60 * SECOND });
        assert.equal(await editor().locator(".squiggly-error").count(), 2);
        assert.equal(await editor().locator(".squiggly-warning").count(), 0);
        await waitForProblems(2, 0);
    });

    uiTest("the Problems panel lists them", async () => {
        await command("View: Focus Problems");
        const rows = page.locator(".markers-panel .monaco-list-row");
        await rows.filter({ hasText: "ADF002" }).first().waitFor();
        const text = (await rows.allInnerTexts()).join("\n");
        assert.match(text, /ADF001/);
        assert.match(text, /ADF002/);
        assert.match(text, /pitfall_bare_scalar\.py/);
        await command("View: Hide Panel");
    });

    uiTest("the argument order hazard, and the region's hover", async () => {
        await openFile("pitfall_arg_order.py");
        await editor().locator(".squiggly-warning").first().waitFor({ timeout: 60 * SECOND });
        assert.equal(await editor().locator(".squiggly-warning").count(), 1);
        assert.equal(await editor().locator(".squiggly-error").count(), 0);
        await waitForProblems(2, 1); // both files
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
        const at = find("pitfall_bare_scalar.py", "n: int32,");
        await goTo(at.line, at.column + 4);
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
        await waitForProblems(0, 1); // only pitfall_arg_order.py's
    });

    uiTest("Simulate from the code lens shows the outcome in the lens", async () => {
        await openFile("pitfall_arg_order.py");
        const lens = editor().locator(".codelens-decoration a", { hasText: "Simulate" }).first();
        await lens.waitFor({ timeout: 30 * SECOND });
        await lens.click();
        const title = await waitUntil("the lens to show an outcome", async () => {
            const text = await lens.innerText().catch(() => "");
            return /Simulate: [✓✗⏱]/.test(text) ? text : undefined;
        }, 180 * SECOND);
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
        const lens = editor().locator(".codelens-decoration a", { hasText: "Simulate" }).first();
        assert.equal(await lens.innerText(), "▶ Simulate");
        await command("Allo: Simulate Region");
        const title = await waitUntil("the lens to show an outcome", async () => {
            const text = await lens.innerText().catch(() => "");
            return /Simulate: [✓✗⏱]/.test(text) ? text : undefined;
        }, 180 * SECOND);
        console.log(`Simulate (palette) lens: ${title}`);
        if (REFERENCE_BACKEND_PASSES) {
            assert.match(title, /✓ passed/); // the quick-fixed design
        }
    }, 240 * SECOND);
});
