// Unit tests of the private environment's install (install.ts) and of which interpreter runs the
// server (resolve.ts): `npm run test:unit`. The interpreters are small scripts run as real
// subprocesses; the editor's API is the stub's, filled in here.
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync as makeTempDir, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import * as vscode from "vscode";
import { bundledDependencies, bundledPip, hasPip, InstallError, installPrivateServer, pipInstallArgs, pythonTag } from "../common/install";
import { resolveServerPython, ServerContext } from "../common/resolve";

const WHEEL = "allo_lsp-0.1.0-py3-none-any.whl";

// Every temporary directory of these tests, removed when they end (they were left in /tmp by the hundred).
const temporary: string[] = [];
function mkdtempSync(prefix: string): string {
    const dir = makeTempDir(prefix);
    temporary.push(dir);
    return dir;
}
after(() => temporary.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** An extension directory as the linux-x64 .vsix unpacks (`deps`: the dependencies' wheels), or the universal one. */
function extensionDir(deps: string[] | undefined): string {
    const root = mkdtempSync(join(tmpdir(), "allo-ext-"));
    mkdirSync(join(root, "client", "wheels"), { recursive: true });
    writeFileSync(join(root, "client", "wheels", WHEEL), "");
    if (deps) {
        mkdirSync(join(root, "client", "wheels", "deps"));
        deps.forEach((name) => writeFileSync(join(root, "client", "wheels", "deps", name), ""));
    }
    return root;
}

/** An interpreter that answers the probe as a Python 3.11 without allo_lsp does. */
function pythonWithoutServer(): string {
    const path = join(mkdtempSync(join(tmpdir(), "allo-py-")), "python3");
    writeFileSync(path, `#!/bin/sh\necho '{"python": "3.11.7", "supported": true, "error": "ModuleNotFoundError: No module named allo_lsp"}'\n`);
    chmodSync(path, 0o755);
    return path;
}

/** An interpreter that answers the probe as a Python 3.12 where allo_lsp imports does. */
function pythonWithServer(): string {
    const path = join(mkdtempSync(join(tmpdir(), "allo-py-")), "python3");
    writeFileSync(path, `#!/bin/sh\necho '{"python": "3.12.1", "supported": true, "server": "0.0.9"}'\n`);
    chmodSync(path, 0o755);
    return path;
}

/** The stub's editor: these settings, the Python extension's interpreter `python`, notifications recorded. */
function editor(settings: Record<string, string>, python: string | undefined): { shown: string[] } {
    const shown: string[] = [];
    Object.assign(vscode.workspace, { getConfiguration: () => ({ get: (key: string, fallback: unknown) => settings[key] ?? fallback }) });
    const api = {
        environments: {
            getActiveEnvironmentPath: () => ({ path: python }),
            resolveEnvironment: async () => ({ executable: { uri: { fsPath: python } } }),
            onDidChangeActiveEnvironmentPath: () => ({ dispose() {} }),
        },
    };
    Object.assign(vscode.extensions, { getExtension: () => (python ? { isActive: true, exports: api } : undefined) });
    const record = (message: string) => {
        shown.push(message);
        return Promise.resolve(undefined);
    };
    Object.assign(vscode.window, { showErrorMessage: record, showWarningMessage: record, showInformationMessage: record });
    return { shown };
}

const context = (extensionPath: string): ServerContext => ({
    info: { name: "Allo Dataflow", module: "allo_lsp" },
    extensionPath,
    storageDir: mkdtempSync(join(tmpdir(), "allo-storage-")),
});

const CP311 = ["libcst-1.9.0-cp311-cp311-manylinux_2_28_x86_64.whl", "pygls-2.1.1-py3-none-any.whl", "pip-25.3-py3-none-any.whl"];

test("the bundled dependencies are used only for a CPython they have compiled wheels for", () => {
    const root = extensionDir(CP311);
    const deps = join(root, "client", "wheels", "deps");
    assert.equal(pythonTag("3.11.7"), "cp311");
    assert.equal(pythonTag(undefined), undefined);
    assert.equal(bundledDependencies(root, "3.11.7"), deps);
    assert.equal(bundledDependencies(root, "3.12.1"), undefined); // pure wheels alone do not make an environment
    assert.equal(bundledDependencies(extensionDir(undefined), "3.11.7"), undefined); // the universal .vsix
    assert.equal(bundledPip(deps), join(deps, "pip-25.3-py3-none-any.whl"));
    assert.equal(bundledPip(undefined), undefined);
});

test("with bundled wheels pip never asks the index, and runs from its own wheel", () => {
    const args = pipInstallArgs("/x/allo_lsp.whl", "/x/deps", "/x/deps/pip-25.3-py3-none-any.whl");
    assert.equal(args[0], "/x/deps/pip-25.3-py3-none-any.whl/pip");
    assert.deepEqual(args.slice(args.indexOf("--no-index"), args.indexOf("--no-index") + 3), ["--no-index", "--find-links", "/x/deps"]);
    assert.equal(args.at(-1), "/x/allo_lsp.whl");
    const online = pipInstallArgs("/x/allo_lsp.whl", undefined);
    assert.deepEqual(online.slice(0, 3), ["-m", "pip", "install"]);
    assert.ok(!online.includes("--no-index"));
});

test("an environment made without pip (from the bundled wheels) is told from one with pip", () => {
    const venv = mkdtempSync(join(tmpdir(), "allo-venv-"));
    mkdirSync(join(venv, "lib", "python3.11", "site-packages"), { recursive: true });
    assert.equal(hasPip(venv), false);
    mkdirSync(join(venv, "lib", "python3.11", "site-packages", "pip"));
    assert.equal(hasPip(venv), true);
});

test("a start that needs the install returns with the question at once, never waiting on it (D14)", async () => {
    const { shown } = editor({}, pythonWithoutServer());
    const resolved = await resolveServerPython(context(extensionDir(CP311)));
    assert.ok(resolved && "installNeeded" in resolved, JSON.stringify(resolved));
    assert.match(resolved.installNeeded, /not installed/);
    assert.match(resolved.installNeeded, /no network needed/);
    assert.deepEqual(shown, []); // the caller shows it, without awaiting the answer
    const universal = await resolveServerPython(context(extensionDir(undefined)));
    assert.ok(universal && "installNeeded" in universal && /package index/.test(universal.installNeeded));
});

test("the server runs in the private environment, not in an interpreter that happens to import it (item 2)", async () => {
    const python = pythonWithServer();
    editor({}, python);
    const resolved = await resolveServerPython(context(extensionDir(CP311)));
    assert.ok(resolved && "installNeeded" in resolved, JSON.stringify(resolved));
    editor({ "server.python": python }, undefined); // unless the user says so
    assert.deepEqual(await resolveServerPython(context(extensionDir(CP311))), { python });
});

test("a bad server.python is told what works: not `pip install allo-lsp`, which is not published (D4)", async () => {
    const { shown } = editor({ "server.python": "/nonexistent/bin/python3" }, undefined);
    const root = extensionDir(CP311);
    assert.equal(await resolveServerPython(context(root)), undefined);
    assert.equal(shown.length, 1);
    assert.doesNotMatch(shown[0], /pip install allo-lsp/);
    assert.match(shown[0], /Clear the setting/);
    assert.ok(shown[0].includes(`/nonexistent/bin/python3 -m pip install "${join(root, "client", "wheels", WHEEL)}"`), shown[0]);
});

/** A base interpreter whose `-m venv` makes an environment whose python is this same script, and
 * whose pip fails with the bundled wheels (as on a glibc older than theirs) and, when `indexWorks`
 * is false, from the index too. Every pip command line goes to the returned log. */
function pythonWithOldGlibc(indexWorks: boolean): { python: string; log: string } {
    const dir = mkdtempSync(join(tmpdir(), "allo-py-"));
    const python = join(dir, "python3");
    const log = join(dir, "pip.log");
    writeFileSync(python, `#!/bin/sh
if [ "$2" = "-m" ] && [ "$3" = "venv" ]; then
  for last; do :; done
  mkdir -p "$last/bin" && cp "$0" "$last/bin/python" && exit 0
fi
echo "$*" >> "${log}"
case "$*" in
  *--no-index*) echo "ERROR: No matching distribution found for libcst" >&2; exit 1 ;;
esac
${indexWorks ? "exit 0" : 'echo "ERROR: Could not find a version that satisfies the requirement libcst" >&2; exit 1'}
`);
    chmodSync(python, 0o755);
    return { python, log };
}

test("bundled wheels that do not fit the system: the index is tried next, and a failure names both", async () => {
    Object.assign(vscode.window, { withProgress: (_options: unknown, task: (p: { report(): void }) => unknown) => task({ report() {} }) });
    const root = extensionDir(CP311);
    const deps = join(root, "client", "wheels", "deps");
    const wheel = join(root, "client", "wheels", WHEEL);
    const works = pythonWithOldGlibc(true);
    const storage = mkdtempSync(join(tmpdir(), "allo-storage-"));
    const python = await installPrivateServer(works.python, storage, wheel, deps);
    assert.ok(existsSync(python));
    const tried = readFileSync(works.log, "utf8").trim().split("\n");
    assert.equal(tried.length, 2);
    assert.match(tried[0], /--no-index --find-links/);
    assert.doesNotMatch(tried[1], /--no-index/);
    assert.ok(tried[1].startsWith(`-I ${join(deps, "pip-25.3-py3-none-any.whl", "pip")} install`), tried[1]); // the same bundled pip
    const fails = pythonWithOldGlibc(false);
    await assert.rejects(installPrivateServer(fails.python, mkdtempSync(join(tmpdir(), "allo-storage-")), wheel, deps), (error: Error) => {
        assert.ok(error instanceof InstallError);
        assert.match(error.message, /bundled wheels did not install \(ERROR: No matching distribution found for libcst\)/);
        assert.match(error.message, /package index \(ERROR: Could not find a version/);
        return true;
    });
});
