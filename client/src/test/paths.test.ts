// `~`, `${userHome}` and `${workspaceFolder}` in a path setting: expanded by the client as the
// server expands them (tests/lsp/path_settings.json, the table both sides' tests read), and the
// status bar showing the interpreter the server says jobs run in once it answers (issue 28
// finding 5). `npm run test:unit`; the editor's API is the stub's, filled in here.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import * as vscode from "vscode";
import { AlloFiles } from "../common/alloFiles";
import { AlloEnvironment } from "../common/picker";
import { expandPath } from "../common/settings";
import { BackendChoice } from "../common/status";
import { changeSettings } from "./vscode-stub";

const table = JSON.parse(readFileSync("tests/lsp/path_settings.json", "utf8")) as {
    home: string;
    folder: string;
    cases: [string, string, string][];
};

function withHome<T>(home: string, body: () => T): T {
    const saved = process.env.HOME;
    process.env.HOME = home; // what os.homedir() reads, as the server's os.path.expanduser
    try {
        return body();
    } finally {
        process.env.HOME = saved;
    }
}

test("a path setting is expanded as the server expands it (settings.py expand_path)", () => {
    withHome(table.home, () => {
        for (const [written, withFolder, without] of table.cases) {
            assert.equal(expandPath(written, table.folder), withFolder, written);
            assert.equal(expandPath(written, undefined), without, written);
        }
    });
});

test("with no folder argument, the editor's first workspace folder is ${workspaceFolder}", () => {
    const stub = vscode.workspace as unknown as { workspaceFolders?: { uri: { fsPath: string } }[] };
    stub.workspaceFolders = [{ uri: { fsPath: "/first" } }, { uri: { fsPath: "/second" } }];
    try {
        assert.equal(expandPath("${workspaceFolder}/.venv/bin/python"), "/first/.venv/bin/python");
        stub.workspaceFolders = [];
        assert.equal(expandPath("${workspaceFolder}/.venv/bin/python"), "${workspaceFolder}/.venv/bin/python");
    } finally {
        delete stub.workspaceFolders;
    }
});

test("once the server answers, the status bar shows the interpreter it says jobs run in", async () => {
    const item = { text: "", tooltip: "" as unknown, show() {}, hide() {}, dispose() {} };
    const none = () => ({ dispose() {} });
    Object.assign(vscode.window, { createStatusBarItem: () => item, onDidChangeActiveTextEditor: none, activeTextEditor: undefined });
    Object.assign(vscode.workspace, { isTrusted: true, onDidGrantWorkspaceTrust: none });
    const files = { onDidChange: none, has: () => false } as unknown as AlloFiles;
    // A setting the client cannot probe (no such file here): the server's word is what counts.
    changeSettings({ python: "~/envs/allo/bin/python", backend: "auto" });
    const environment = new AlloEnvironment(files);
    const resolved = "/srv/home/envs/allo/bin/python";
    const answer: BackendChoice = { backend: "allo", reason: "Allo 0.5.1 with the LLVM build at /llvm", python: resolved, allo: "0.5.1" };
    let answered!: () => void;
    const asked = new Promise<void>((resolve) => (answered = resolve));
    environment.setBackendSource(async () => {
        setImmediate(answered); // after refresh has shown the answer
        return answer;
    });
    await asked;
    assert.match(String(item.tooltip), new RegExp(`^Jobs run in ${resolved} \\(alloDataflow\\.python\\)\\.`));
    assert.equal(item.text, "$(chip) Allo 0.5.1 · env allo");
    environment.dispose();
});
