// Unit tests of what the client reads from the Python extension (python.ts, through
// @vscode/python-extension): `npm run test:unit`. The extension is the stub's, filled in here.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as vscode from "vscode";
import { registerLogger } from "../common/logger";
import { activeInterpreter, knownEnvironments, onDidChangeInterpreter } from "../common/python";

/** The warnings the client writes while `body` runs. */
async function warnings(body: () => Promise<void>): Promise<string[]> {
    const lines: string[] = [];
    const record = (message: string) => void lines.push(message);
    const output = { logLevel: 3, onDidChangeLogLevel: () => ({ dispose() {} }), trace: record, debug: record, info: record, warn: record, error: record };
    const logger = registerLogger(output as never);
    try {
        await body();
    } finally {
        logger.dispose();
    }
    return lines;
}

/** The Python extension as `getExtension` answers it: `undefined` (not installed), or one whose activation gives `exports`. */
function pythonExtension(extension: { isActive?: boolean; exports?: unknown; activate?: () => Promise<unknown> } | undefined): string[] {
    const asked: string[] = [];
    Object.assign(vscode.extensions, {
        getExtension: (id: string) => {
            asked.push(id);
            return extension && { isActive: false, activate: async () => extension.exports, ...extension };
        },
    });
    return asked;
}

const environments = {
    getActiveEnvironmentPath: () => ({ id: "venv", path: "/w/.venv" }),
    resolveEnvironment: async (e: { path: string }) => (e.path === "/w/.venv" ? { executable: { uri: { fsPath: "/w/.venv/bin/python" } } } : undefined),
    onDidChangeActiveEnvironmentPath: () => ({ dispose() {} }),
    known: [
        { path: "/opt/conda/envs/allo", executable: { uri: { fsPath: "/opt/conda/envs/allo/bin/python" } }, environment: { name: "allo" } },
        { path: "/usr/bin/python3", executable: { uri: undefined } },
    ],
};

test("the Python extension's active interpreter and known environments, read through its API (activated when it is not yet)", async () => {
    const asked = pythonExtension({ exports: { environments } });
    assert.equal(await activeInterpreter(), "/w/.venv/bin/python");
    assert.deepEqual(await knownEnvironments(), [
        { python: "/opt/conda/envs/allo/bin/python", name: "allo" },
        { python: "/usr/bin/python3", name: undefined },
    ]);
    assert.ok(await onDidChangeInterpreter(() => undefined));
    assert.ok(asked.length > 0 && asked.every((id) => id === "ms-python.python"), asked.join());
});

test("without the Python extension: no interpreter, no environments, and no warning (the ordinary case)", async () => {
    pythonExtension(undefined);
    const lines = await warnings(async () => {
        assert.equal(await activeInterpreter(), undefined);
        assert.deepEqual(await knownEnvironments(), []);
        assert.equal(await onDidChangeInterpreter(() => undefined), undefined);
    });
    assert.deepEqual(lines, []);
});

test("a Python extension whose activation fails or whose API throws: python3's fallback, with a warning", async () => {
    pythonExtension({ activate: async () => Promise.reject(new Error("activation failed")) });
    let lines = await warnings(async () => assert.equal(await activeInterpreter(), undefined));
    assert.equal(lines.length, 1);
    assert.match(lines[0], /The Python extension's API is not available: Error: activation failed/);
    const broken = { ...environments, resolveEnvironment: async () => Promise.reject(new Error("no such environment")) };
    pythonExtension({ isActive: true, exports: { environments: broken } });
    lines = await warnings(async () => assert.equal(await activeInterpreter(), undefined));
    assert.match(lines.join("\n"), /Could not read the interpreter selected in the Python extension: Error: no such environment/);
});
