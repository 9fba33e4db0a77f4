// What the UI scripts share: the browser on code-server's workbench, and the steps a user takes
// there (the palette, Quick Open, Go to Line) with waits on what the workbench shows.
// Environment (set by test_vscode.py):
//   ALLO_E2E_URL        the workbench URL (with ?folder=)
//   ALLO_E2E_WORKSPACE  the workspace folder
//   ALLO_E2E_ARTIFACTS  where the screenshots go
//   ALLO_E2E_CHROMIUM   Debian's chromium
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
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
    // The absolute path: Quick Open shows an existing file by its path at once, without the file
    // search, which may not list a file written a moment ago (it did not in CI, twice).
    await input.fill(join(WORKSPACE, name));
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
const EDITOR = ".editor-group-container.active .editor-instance .monaco-editor";
export const editor = () => page.locator(EDITOR).first();

/** The first code lens of the active editor whose title has `label` ("Simulate", /^MLIR/). */
export const codeLens = (label) => editor().locator(".codelens-decoration a", { hasText: label }).first();

// The status bar item the extension shows while its jobs run ("Allo: top simulate running…").
const JOB_ITEM = '.statusbar-item[id$="alloDataflow.jobs"]';
// A lens title once its job ended: "▶ Simulate: ✓ passed 0.4 s", ": ✗ assertion line 27", ": ⏱ timeout".
const OUTCOME = ": [✓✗⏱]";

/**
 * Starts a job from the lens `label` (a click on it, or `start`: the palette, say) and returns the
 * lens's title once it shows that job's outcome. Until the editor asks for lenses again after the
 * job, the lens still shows the run before's outcome, which may read the same; so only a lens the
 * workbench drew after the job's status bar item came and went counts (it draws lenses as new
 * elements each time it gets them, and the client's item shows for the whole job however short).
 */
export async function runFromLens(label /* a string */, start = () => codeLens(label).click(), timeout = 180 * SECOND) {
    await codeLens(label).waitFor({ timeout: 30 * SECOND });
    await page.evaluate(watchJob, JOB_ITEM);
    await start();
    let job = "not seen";
    try {
        return await waitUntil(`the ${label} lens to show the outcome of the job it started`, async () => {
            const seen = await page.evaluate(lensAfterJob, [EDITOR, label, OUTCOME]);
            job = seen.job;
            return seen.title;
        }, timeout);
    } catch (error) {
        error.message += ` (the job's status bar item: ${job})`;
        throw error;
    }
}

// In the page: notes when the job's status bar item appears and then goes, and marks the lenses
// drawn until then as drawn before the job's end.
function watchJob(item) {
    const job = { started: false, ended: false };
    window.alloJob = job;
    const added = (records) =>
        records.some((r) => [...r.addedNodes].some((n) => n.nodeType === 1 && (n.matches(item) || n.querySelector(item))));
    const observer = new MutationObserver((records) => {
        job.started ||= added(records) || document.querySelector(item) !== null;
        if (job.started && document.querySelector(item) === null) {
            job.ended = true;
            for (const lens of document.querySelectorAll(".codelens-decoration a")) {
                lens.dataset.drawnBeforeJobEnd = "";
            }
            observer.disconnect();
        }
    });
    observer.observe(document.body, { childList: true, subtree: true });
}

// In the page: the title of the editor's lens `label` if it was drawn after the job and shows an outcome.
function lensAfterJob([editorSelector, label, outcome]) {
    const job = window.alloJob;
    const lenses = [...(document.querySelector(editorSelector)?.querySelectorAll(".codelens-decoration a") ?? [])];
    const lens = lenses.find((a) => a.innerText.includes(label));
    const fresh = job.ended && lens !== undefined && !("drawnBeforeJobEnd" in lens.dataset);
    return {
        job: job.ended ? "came and went" : job.started ? "shown" : "not seen",
        title: fresh && new RegExp(outcome).test(lens.innerText) ? lens.innerText : undefined,
    };
}

/**
 * Opens the MLIR view of `region` in `file` from its lens, the workspace switched to
 * `alloDataflow.backend: auto` (the reference executor does not compile to MLIR; `auto` picks the
 * stand-in Allo on the job's PYTHONPATH). The server re-reads its settings a moment after the file
 * changes: the lens is clicked again while it still had `reference` (its outcome says ✗).
 */
export async function openMlirView(file, region) {
    mkdirSync(join(WORKSPACE, ".vscode"), { recursive: true });
    writeFileSync(join(WORKSPACE, ".vscode", "settings.json"), JSON.stringify({ "alloDataflow.backend": "auto" }));
    await openFile(file);
    const view = page.locator(".tab.active", { hasText: `${region}.mlir` });
    await waitUntil(`the MLIR view of ${region}`, async () => {
        if ((await view.count()) === 0) {
            await codeLens(/^MLIR/).click();
            await page.waitForTimeout(3 * SECOND);
        }
        return (await view.count()) > 0;
    }, 120 * SECOND);
}

/** The input of a setting in the Settings editor (opened by the palette's `openCommand`, "Preferences:
 * Open Workspace Settings"), searched for by `id`: the item that shows `text` (its title or description). */
export async function settingField(openCommand, id, text) {
    await command(openCommand);
    const search = page.locator(".settings-editor .suggest-input-container textarea, .settings-editor .suggest-input-container input").first();
    await search.waitFor({ timeout: 30 * SECOND });
    await search.fill(id);
    const field = page.locator(".settings-editor .setting-item-contents", { hasText: text }).locator("input").first();
    await field.waitFor({ timeout: 30 * SECOND });
    return field;
}

// The Problems panel's filter: a file's name there keeps that file's problems alone (the server
// reports the workspace's other files too, and the list draws only the rows in view).
export const problemsFilter = () => page.getByPlaceholder(/^Filter \(e\.g\. text/).first();

/** Shows the Problems panel with the problems of `file` alone. */
export async function showProblemsOf(file) {
    await command("View: Focus Problems");
    await problemsFilter().fill(file);
}

/** The errors and warnings the Problems panel lists, once its filter is applied: it lists `file`'s
 * problems alone or says that it has none (undefined before: the rows of another filter, or none yet). */
async function listedProblems(file) {
    const panel = page.locator(".markers-panel");
    const files = await panel.locator(".resource-label-container").allInnerTexts();
    const none = /No results found/.test((await panel.locator(".message-box-container").allInnerTexts()).join(" "));
    if (files.length ? !files.every((name) => name.includes(file)) : !none) {
        return undefined;
    }
    return { errors: await panel.locator(".marker-icon.error").count(), warnings: await panel.locator(".marker-icon.warning").count() };
}

/** Waits until the Problems panel lists, for each file of `expected`, its `{ errors, warnings }`; then hides the panel. */
export async function waitForProblems(expected) {
    await command("View: Focus Problems");
    for (const [file, { errors, warnings }] of Object.entries(expected)) {
        await problemsFilter().fill(file);
        let seen;
        await waitUntil(`the Problems panel to list ${errors} errors and ${warnings} warnings for ${file}`, async () => {
            seen = await listedProblems(file);
            return seen?.errors === errors && seen?.warnings === warnings;
        }, 15 * SECOND).catch((error) => {
            error.message += ` (it listed ${JSON.stringify(seen)})`;
            throw error;
        });
    }
    await problemsFilter().fill("");
    await command("View: Hide Panel");
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
