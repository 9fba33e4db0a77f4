// What the UI scripts share: the browser on code-server's workbench, and the steps a user takes
// there (the palette, Quick Open, Go to Line) with waits on what the workbench shows.
// Environment (set by test_vscode.py):
//   ALLO_E2E_URL        the workbench URL (with ?folder=)
//   ALLO_E2E_WORKSPACE  the workspace folder
//   ALLO_E2E_ARTIFACTS  where the screenshots go
//   ALLO_E2E_CHROMIUM   Debian's chromium
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { chromium } from "playwright-core";

export const WORKSPACE = process.env.ALLO_E2E_WORKSPACE;
const URL = process.env.ALLO_E2E_URL;
const ARTIFACTS = process.env.ALLO_E2E_ARTIFACTS;
const CHROMIUM = process.env.ALLO_E2E_CHROMIUM ?? "/usr/bin/chromium";
export const SECOND = 1000;

let browser;
export let page;
let step = 0;

/** Opens the workbench before the suite's steps, and closes the browser after them. */
export function useWorkbench() {
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
}

export async function shot(name) {
    step += 1;
    await page.screenshot({ path: join(ARTIFACTS, `${String(step).padStart(2, "0")}-${name}.png`) });
}

/** Runs one step and leaves a screenshot of how it ended. */
export function uiTest(name, body, timeout = 90 * SECOND) {
    test(name, { timeout }, async () => {
        try {
            await body();
        } finally {
            await shot(name.replace(/[^a-z0-9]+/gi, "-").toLowerCase()).catch(() => undefined);
        }
    });
}

export async function command(name) {
    await page.keyboard.press("Control+Shift+P");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible" });
    await input.fill(`>${name}`);
    await page.locator(".quick-input-list .monaco-list-row.focused", { hasText: name }).waitFor();
    await page.keyboard.press("Enter");
}

export async function openFile(name) {
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
export async function goTo(line, column) {
    await page.keyboard.press("Control+G");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible" });
    await input.fill(`:${line}:${column}`);
    await page.keyboard.press("Enter");
    await input.waitFor({ state: "hidden" });
}

/** 1-based line and column of the first `text` in a workspace file. */
export function find(file, text) {
    const lines = readFileSync(join(WORKSPACE, file), "utf8").split("\n");
    const line = lines.findIndex((l) => l.includes(text));
    assert.ok(line >= 0, `${text} not in ${file}`);
    return { line: line + 1, column: lines[line].indexOf(text) + 1 };
}

// The editor of the active group (the MLIR view opens in a second group).
export const editor = () => page.locator(".editor-group-container.active .editor-instance .monaco-editor").first();

/** The counts of the status bar's problems item ("Errors: 2, Warnings: 1", "Warnings: 1", "No Problems"). */
export async function problemCounts() {
    const label = (await page.locator("#status\\.problems").first().getAttribute("aria-label")) ?? "";
    const count = (kind) => Number(label.match(new RegExp(`${kind}: (\\d+)`))?.[1] ?? 0);
    return { errors: count("Errors"), warnings: count("Warnings") };
}

export async function waitForProblems(errors, warnings) {
    await waitUntil(`the status bar to count ${errors} errors and ${warnings} warnings`, async () => {
        const counts = await problemCounts();
        return counts.errors === errors && counts.warnings === warnings;
    }, 15 * SECOND);
}

export async function waitUntil(what, predicate, timeout) {
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
