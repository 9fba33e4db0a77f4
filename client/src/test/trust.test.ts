// Restricted Mode: nothing inside an untrusted workspace runs, whichever path would start it (the
// server's interpreter, the probes, conda, the install). `npm run test:unit`. Each "interpreter"
// is a script that leaves a mark when it runs, run as a real subprocess; the editor's API is the
// stub's, filled in here.
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, beforeEach, test } from "node:test";
import * as vscode from "vscode";
import { installPrivateServer } from "../common/install";
import { condaEnvironments, discover, outside as notInside, probeInterpreter, thisMachine } from "../common/interpreters";
import { insideUntrustedWorkspace } from "../common/isolation";
import { resolveServerPython, ServerContext } from "../common/resolve";

const root = mkdtempSync(join(tmpdir(), "allo-trust-"));
after(() => rmSync(root, { recursive: true, force: true }));
const savedPath = process.env.PATH;

let count = 0;
/** A directory of its own for one test: `workspace/` (the folder the editor has open) and `outside/`. */
function place(): { workspace: string; outside: string; marks: string } {
    const dir = join(root, `t${count++}`);
    const paths = { workspace: join(dir, "workspace"), outside: join(dir, "outside"), marks: join(dir, "marks") };
    Object.values(paths).forEach((p) => mkdirSync(p, { recursive: true }));
    return paths;
}

/** A program at `path` that leaves `marks/<name>` when it runs, then answers as a Python 3.12 where
 * allo_lsp imports (the server's probe) and `conda env list --json` would. */
function program(path: string, marks: string, name: string): string {
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(
        path,
        `#!/bin/sh\ntouch "${join(marks, name)}"\necho '{"python": "3.12.1", "supported": true, "server": "0.0.9", "envs": []}'\n`,
    );
    chmodSync(path, 0o755);
    return path;
}

/** The stub's editor: the workspace's trust and folder, these settings, the Python extension's interpreter. */
function editor(trusted: boolean, folder: string, settings: Record<string, string>, active?: string): { shown: string[] } {
    const shown: string[] = [];
    Object.assign(vscode.workspace, {
        isTrusted: trusted,
        workspaceFolders: [{ uri: { fsPath: folder } }],
        getConfiguration: () => ({ get: (key: string, fallback: unknown) => settings[key] ?? fallback }),
    });
    const api = {
        environments: {
            getActiveEnvironmentPath: () => ({ path: active }),
            resolveEnvironment: async () => ({ executable: { uri: { fsPath: active } } }),
            onDidChangeActiveEnvironmentPath: () => ({ dispose() {} }),
        },
    };
    Object.assign(vscode.extensions, { getExtension: () => (active ? { isActive: true, exports: api } : undefined) });
    const record = (message: string) => {
        shown.push(message);
        return Promise.resolve(undefined);
    };
    Object.assign(vscode.window, {
        showErrorMessage: record,
        showWarningMessage: record,
        showInformationMessage: record,
        withProgress: (_options: unknown, task: (p: { report(): void }) => unknown) => task({ report() {} }),
    });
    return { shown };
}

/** A development build (no server wheel): an interpreter that imports the server is used as it is. */
const context = (): ServerContext => ({
    info: { name: "Allo Dataflow", module: "allo_lsp" },
    extensionPath: mkdtempSync(join(root, "ext-")),
    storageDir: mkdtempSync(join(root, "storage-")),
});

beforeEach(() => {
    process.env.PATH = savedPath;
});

test("Restricted Mode: the Python extension's interpreter inside the workspace is not run; python3 is used", async () => {
    const { workspace, outside, marks } = place();
    const venv = program(join(workspace, ".venv", "bin", "python"), marks, "venv");
    program(join(outside, "python3"), marks, "python3");
    process.env.PATH = `${outside}:${savedPath}`;
    editor(false, workspace, {}, venv);
    assert.deepEqual(await resolveServerPython(context()), { python: "python3" });
    assert.ok(!existsSync(join(marks, "venv")), "the workspace's interpreter ran");
    assert.ok(existsSync(join(marks, "python3")));
    // Trusted, the same interpreter runs the server.
    editor(true, workspace, {}, venv);
    assert.deepEqual(await resolveServerPython(context()), { python: venv });
    assert.ok(existsSync(join(marks, "venv")));
});

test("Restricted Mode: through a symbolic link either way, the workspace's interpreter is not run", async () => {
    const { workspace, outside, marks } = place();
    const venv = program(join(workspace, ".venv", "bin", "python"), marks, "venv");
    const link = join(outside, "python-link");
    symlinkSync(venv, link); // a link outside to an interpreter inside
    const linkedFolder = join(outside, "folder-link");
    symlinkSync(workspace, linkedFolder); // the folder the editor opened is a link to the workspace
    program(join(outside, "python3"), marks, "python3");
    process.env.PATH = `${outside}:${savedPath}`;
    for (const [folder, active] of [[workspace, link], [linkedFolder, venv]]) {
        editor(false, folder, {}, active);
        assert.deepEqual(await resolveServerPython(context()), { python: "python3" });
    }
    assert.ok(!existsSync(join(marks, "venv")), "the workspace's interpreter ran");
    // Nor does the picker list the link (it would probe it).
    assert.deepEqual(notInside([{ python: link, name: "link", source: "setting" }], [workspace]), []);
});

test("Restricted Mode: a server.python inside the workspace is not run, and the user is told why", async () => {
    const { workspace, marks } = place();
    const venv = program(join(workspace, "env", "bin", "python"), marks, "venv");
    const { shown } = editor(false, workspace, { "server.python": venv });
    assert.equal(await resolveServerPython(context()), undefined);
    assert.ok(!existsSync(join(marks, "venv")), "the workspace's interpreter ran");
    assert.equal(shown.length, 1);
    assert.match(shown[0], /inside this untrusted workspace/);
});

test("Restricted Mode: a python3 that PATH finds inside the workspace is not run", async () => {
    const { workspace, marks } = place();
    program(join(workspace, "bin", "python3"), marks, "python3");
    process.env.PATH = `${join(workspace, "bin")}:${savedPath}`;
    editor(false, workspace, {});
    assert.equal(insideUntrustedWorkspace("python3"), true);
    assert.equal(await resolveServerPython(context()), undefined);
    assert.ok(!existsSync(join(marks, "python3")), "the workspace's python3 ran");
});

test("Restricted Mode: the probe of an interpreter inside the workspace does not run it", async () => {
    const { workspace, outside, marks } = place();
    const venv = program(join(workspace, ".venv", "bin", "python"), marks, "venv");
    editor(false, workspace, {});
    const probed = await probeInterpreter(venv);
    assert.match(probed.error ?? "", /inside this untrusted workspace/);
    assert.ok(!existsSync(join(marks, "venv")), "the workspace's interpreter ran");
    // One outside runs (and answers: it is asked), and inside runs once trusted.
    const other = program(join(outside, "python"), marks, "outside");
    await probeInterpreter(other);
    assert.ok(existsSync(join(marks, "outside")));
    editor(true, workspace, {});
    await probeInterpreter(venv);
    assert.ok(existsSync(join(marks, "venv")));
});

test("Restricted Mode: a conda inside the workspace ($CONDA_EXE) is not run to list environments", async () => {
    const { workspace, marks } = place();
    const conda = program(join(workspace, "tools", "conda"), marks, "conda");
    editor(false, workspace, {});
    const machine = { ...thisMachine, env: { CONDA_EXE: conda }, home: join(workspace, "home") };
    assert.deepEqual(await condaEnvironments(machine), []);
    assert.deepEqual(await discover([], [], machine), []);
    assert.ok(!existsSync(join(marks, "conda")), "the workspace's conda ran");
});

test("Restricted Mode: the private environment is not made with an interpreter inside the workspace", async () => {
    const { workspace, marks } = place();
    const venv = program(join(workspace, ".venv", "bin", "python"), marks, "venv");
    editor(false, workspace, {});
    await assert.rejects(installPrivateServer(venv, mkdtempSync(join(root, "storage-")), "/x/allo_lsp-0.1.0-py3-none-any.whl", undefined),
        /inside this untrusted workspace/);
    assert.ok(!existsSync(join(marks, "venv")), "the workspace's interpreter ran");
});

test("inside means inside: a sibling folder whose name starts the same is outside", () => {
    const { workspace, outside } = place();
    const untrusted = { trusted: false, folders: [workspace] };
    assert.equal(insideUntrustedWorkspace(join(workspace, "x", "python"), untrusted), true);
    assert.equal(insideUntrustedWorkspace(`${workspace}-other/bin/python`, untrusted), false);
    assert.equal(insideUntrustedWorkspace(join(outside, "python"), untrusted), false);
    assert.equal(insideUntrustedWorkspace(join(workspace, "x", "python"), { trusted: true, folders: [workspace] }), false);
});
