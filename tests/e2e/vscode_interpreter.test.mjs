// The Allo environment through the UI: the status bar item, "Allo: Select Interpreter" (a stand-in
// conda's `allo` environment with Allo 0.5.1 and numpy, the workspace's bare .venv), the choice
// driving jobs; the job commands' context menu (D7); one status item per job in the running lens's
// words, the running lens cancelling (D12). Run by tests/e2e/test_vscode.py
// (test_select_interpreter_and_the_job_commands), with `alloDataflow.backend: auto`.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe } from "node:test";
import { editor, find, goTo, openFile, page, SECOND, shot, uiTest, useWorkbench, waitUntil, WORKSPACE } from "./workbench.mjs";

const ALLO_ENV = process.env.ALLO_E2E_ALLO_ENV;
const VENV = join(WORKSPACE, ".venv", "bin", "python");
const environmentItem = () => page.locator('.statusbar-item[id$="alloDataflow.environment"]');
const mlirLens = () => editor().locator(".codelens-decoration a", { hasText: /^MLIR/ }).first();
const pickerRow = (label) => page.locator(".quick-input-list .monaco-list-row", { hasText: label });
/** A row's text with the workbench's spacing (no-break spaces around icons) as plain spaces. */
const textOf = async (locator) => (await locator.innerText().catch(() => "")).replace(/\s+/g, " ");

function workspaceSetting(name) {
    try {
        return JSON.parse(readFileSync(join(WORKSPACE, ".vscode", "settings.json"), "utf8"))[name];
    } catch {
        return undefined;
    }
}

/** Opens the picker from the status bar item and picks the row `label`, once its marks say `marked`
 * and every interpreter has answered (the rows regroup once then), typing the label first as a user
 * finds a row in a long list (this machine's pyenv versions too). */
async function pick(label, marked) {
    await environmentItem().click();
    await page.locator(".quick-input-widget .quick-input-title", { hasText: "Allo: Select Interpreter" }).waitFor({ timeout: 10 * SECOND });
    await waitUntil("every interpreter to answer", async () => {
        const rows = await page.locator(".quick-input-list .monaco-list-row").allInnerTexts();
        return rows.length > 0 && !rows.some((r) => /asking what it can import/.test(r));
    }, 60 * SECOND);
    await page.locator(".quick-input-widget input").fill(label);
    const row = pickerRow(label).first();
    await waitUntil(`the picker's row ${label} marked ${marked}`, async () => marked.test(await textOf(row)), 60 * SECOND);
    await row.click();
    await page.locator(".quick-input-widget").waitFor({ state: "hidden", timeout: 10 * SECOND });
}

/** Writes a workspace file and waits for the explorer to list it (Quick Open finds it then). */
async function writeWorkspaceFile(name, text) {
    writeFileSync(join(WORKSPACE, name), text);
    await page.locator(".explorer-folders-view .monaco-list-row", { hasText: name }).first().waitFor({ timeout: 30 * SECOND });
}

async function contextMenuItems() {
    const line = editor().locator(".view-line").first();
    await line.click({ button: "right" });
    const menu = page.locator(".context-view .monaco-menu");
    await menu.waitFor({ timeout: 10 * SECOND });
    const labels = await menu.locator(".action-label").allInnerTexts();
    await page.keyboard.press("Escape");
    await menu.waitFor({ state: "hidden" });
    return labels.map((l) => l.trim()).filter(Boolean);
}

describe("The Allo environment in VS Code (code-server)", { timeout: 12 * 60 * SECOND }, () => {
    useWorkbench();

    uiTest("an Allo file shows which environment jobs run in", async () => {
        await openFile("pitfall_arg_order.py");
        await editor().locator(".squiggly-warning").first().waitFor({ timeout: 60 * SECOND });
        // Nothing chosen yet: jobs run in the language server's interpreter (numpy, no Allo there).
        const text = await waitUntil("the Allo environment item", async () => {
            const t = await environmentItem().innerText().catch(() => "");
            // The server's answer names the backend; the client's own probe stands in until then.
            return /reference executor · server env/.test(t) ? t : undefined;
        }, 60 * SECOND);
        console.log(`Environment item: ${text}`);
        assert.match(text, /reference executor · server env/);
    });

    uiTest("Select Interpreter lists conda's and the workspace's environments, marked with what they import", async () => {
        await environmentItem().click();
        await page.locator(".quick-input-widget .quick-input-title", { hasText: "Allo: Select Interpreter" }).waitFor({ timeout: 10 * SECOND });
        const allo = pickerRow("env allo").first();
        const venv = pickerRow(".venv").first();
        await waitUntil("both rows marked", async () => /Allo 0\.5\.1/.test(await textOf(allo)) && /neither Allo nor numpy/.test(await textOf(venv)), 60 * SECOND);
        const allRows = await page.locator(".quick-input-list .monaco-list-row").allInnerTexts();
        console.log(`Picker rows:\n${allRows.join("\n---\n")}`);
        assert.match(await textOf(allo), /Allo 0\.5\.1 · numpy \S+ · Python 3\.\d+/);
        assert.match(await textOf(venv), /Python 3\.\d+\S* with neither Allo nor numpy: jobs cannot run here/);
        assert.ok(allRows.some((r) => /conda/.test(r)) && allRows.some((r) => /workspace/i.test(r)), "each row says its source");
        await shot("picker");
        // The list is long (this machine's pyenv versions too): the actions, found by filtering.
        await page.locator(".quick-input-widget input").fill("language server");
        await pickerRow("Use the language server's interpreter").first().waitFor({ timeout: 10 * SECOND });
        await page.keyboard.press("Escape");
    });

    uiTest("the workspace's bare .venv: the status says so, and a job run there fails for it", async () => {
        await pick(".venv", /neither Allo nor numpy/);
        await waitUntil("alloDataflow.python to be the .venv", async () => workspaceSetting("alloDataflow.python") === VENV, 10 * SECOND);
        await environmentItem().filter({ hasText: "no Allo, no numpy · .venv" }).waitFor({ timeout: 30 * SECOND });
        await mlirLens().click();
        const title = await waitUntil("the MLIR lens to show an outcome", async () => {
            const t = await mlirLens().innerText().catch(() => "");
            return /[✓✗⏱]/.test(t) ? t : undefined;
        }, 120 * SECOND);
        console.log(`MLIR lens in .venv: ${title}`);
        assert.match(title, /✗/);
    }, 180 * SECOND);

    uiTest("conda's allo environment: the status says Allo 0.5.1, and the job runs there", async () => {
        await pick("env allo", /Allo 0\.5\.1/);
        await waitUntil("alloDataflow.python to be env allo", async () => workspaceSetting("alloDataflow.python") === ALLO_ENV, 10 * SECOND);
        await environmentItem().filter({ hasText: "Allo 0.5.1 · env allo" }).waitFor({ timeout: 30 * SECOND });
        await shot("status-bar");
        const view = page.locator(".tab", { hasText: "top.mlir" });
        await waitUntil("the MLIR view", async () => {
            if ((await view.count()) === 0) {
                await mlirLens().click(); // again while the server may still have had the .venv
                await page.waitForTimeout(3 * SECOND);
            }
            return (await view.count()) > 0;
        }, 120 * SECOND);
        await page.keyboard.press("Control+1"); // back to the source
    }, 180 * SECOND);

    uiTest("the job commands are in an Allo file's context menu, prefixed, and not in other Python files", async () => {
        await writeWorkspaceFile("plain_script.py", "import os\n\nprint(os.getcwd())\n");
        await openFile("plain_script.py");
        const plain = await contextMenuItems();
        console.log(`Context menu of a plain Python file: ${plain.join(" | ")}`);
        assert.ok(!plain.some((l) => /Simulate|Run Test|Synthesize|MLIR|Synthesis Report/.test(l)), plain.join(" | "));
        await openFile("pitfall_arg_order.py");
        const allo = await contextMenuItems();
        console.log(`Context menu of an Allo file: ${allo.join(" | ")}`);
        for (const item of ["Allo: Simulate Region", "Allo: Run Test", "Allo: Synthesize Region", "Allo: Show MLIR", "Allo: Show Synthesis Report"]) {
            assert.ok(allo.includes(item), `${item} in ${allo.join(" | ")}`);
        }
        assert.ok(!allo.some((l) => /^(Simulate Region|Run Test|Synthesize Region|Show MLIR)$/.test(l)), "no un-prefixed item");
    });

    uiTest("a running job: one status item in the lens's words, and the running lens cancels it", async () => {
        // The stand-in Allo never returns from this design's module call: the job runs until cancelled.
        const source = readFileSync(join(WORKSPACE, "pitfall_arg_order.py"), "utf8");
        await writeWorkspaceFile("slow_design.py", `${source}\nALLO_STANDIN = "hang"\n`);
        await openFile("slow_design.py");
        const at = find("slow_design.py", "def top(");
        await goTo(at.line, 1);
        const simulate = editor().locator(".codelens-decoration a", { hasText: "Simulate" }).first();
        await simulate.waitFor({ timeout: 60 * SECOND });
        await simulate.click();
        const running = editor().locator(".codelens-decoration a", { hasText: "running… (click to cancel)" }).first();
        await running.waitFor({ timeout: 30 * SECOND });
        // "Allo: top simulate running…", or with the job's phase once reported ("Allo: top simulate: simulating").
        const item = page.locator(".statusbar-item", { hasText: /Allo: top simulate( running…|: )/ });
        await item.first().waitFor({ timeout: 30 * SECOND });
        await shot("job-running");
        const jobItems = await page.locator(".statusbar-item").allInnerTexts();
        console.log(`Status bar while the job runs: ${jobItems.join(" | ")}`);
        assert.equal(jobItems.filter((t) => /\btop\b/.test(t)).length, 1, `one item for the job: ${jobItems.join(" | ")}`);
        assert.equal(await page.locator("#status\\.progress").count(), 0, "no progress item of the server's besides");
        await running.click();
        const title = await waitUntil("the lens to say the job was cancelled", async () => {
            const t = await simulate.innerText().catch(() => "");
            return /Simulate: /.test(t) ? t : undefined;
        }, 60 * SECOND);
        console.log(`Simulate lens after the click: ${title}`);
        assert.match(title, /cancel/i);
        await item.first().waitFor({ state: "detached", timeout: 30 * SECOND });
    }, 180 * SECOND);
});
