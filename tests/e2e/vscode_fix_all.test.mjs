// The linter's conventions in VS Code (issue 19), as a user sets them up: with
// "editor.codeActionsOnSave": {"source.fixAll.allo-lsp": "explicit"} a save applies the safe fixes
// (pitfall_mapping_order.py: mapping= moved first), and a diagnostic's code in the Problems panel
// opens its rule's page rendered and read-only (a Markdown preview). Run by tests/e2e/test_vscode_fix_all.py.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe } from "node:test";
import { command, editor, openFile, page, SECOND, uiTest, useWorkbench, waitUntil, WORKSPACE } from "./workbench.mjs";

const FILE = "pitfall_mapping_order.py";
const onDisk = () => readFileSync(join(WORKSPACE, FILE), "utf8");

describe("Allo Dataflow: fix-all on save, rule pages", { timeout: 10 * 60 * SECOND }, () => {
    useWorkbench();

    uiTest("a diagnostic's code opens its rule's page", async () => {
        await openFile(FILE);
        await editor().locator(".squiggly-error").first().waitFor({ timeout: 60 * SECOND });
        await command("View: Focus Problems");
        const code = page.locator(".markers-panel a", { hasText: "ADF011" }).first();
        await code.waitFor({ timeout: 30 * SECOND });
        await code.click();
        // Rendered (the Markdown preview of the read-only allo-rule: page), not the raw, editable
        // file in the server's site-packages that it used to open.
        await page.locator(".tab", { hasText: "Preview ADF011.md" }).first().waitFor({ timeout: 30 * SECOND });
        const preview = page.frameLocator("iframe.webview.ready").last().frameLocator("#active-frame");
        await preview.locator("h1", { hasText: /ADF011\s+mapping-not-first/ }).waitFor({ timeout: 30 * SECOND });
        const tabs = await page.locator(".tab").allInnerTexts();
        assert.ok(!tabs.some((t) => /ADF011\.md/.test(t) && !/Preview/.test(t)), `no text editor on the page: ${tabs.join(" | ")}`);
        const sources = await page.locator(".tab").evaluateAll((els) => els.map((e) => e.getAttribute("title") ?? ""));
        assert.ok(!sources.some((t) => t.includes("site-packages")), `nothing opened in site-packages: ${sources.join(" | ")}`);
        await command("View: Hide Panel");
    }, 120 * SECOND);

    uiTest("saving applies the safe fixes", async () => {
        assert.match(onDisk(), /@df\.kernel\(args=\[A\], mapping=\[1\]\)/);
        await openFile(FILE);
        await editor().locator(".squiggly-error").first().waitFor({ timeout: 60 * SECOND });
        await editor().click();
        await page.keyboard.press("Control+End");
        await page.keyboard.type("\n# saved\n");
        await page.keyboard.press("Control+S");
        await waitUntil("the saved file to have mapping= first", () => onDisk().includes("@df.kernel(mapping=[1], args=[A])"), 60 * SECOND);
        assert.ok(onDisk().endsWith("# saved\n"), "the user's own edit is saved with the fix");
        await editor().locator(".squiggly-error").first().waitFor({ state: "detached", timeout: 60 * SECOND });
    }, 180 * SECOND);
});
