// Unit tests of the client's pure helpers (node's test runner): `npm run test:unit`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { serverArgs } from "../common/isolation";
import { withTrust } from "../common/settings";
import { explicitTarget, isUnknownCommand, LensLike, pickTarget, usesAlloDataflow } from "../common/targets";

const uri = "file:///w/design.py";
const lens = (line: number, command: string, name: string): LensLike => ({
    range: { start: { line } },
    command: { command, arguments: [uri, name] },
});
const LENSES = [
    lens(40, "alloDataflow.run", "test_top"),
    lens(10, "alloDataflow.simulate", "top"),
    lens(10, "alloDataflow.showMlir", "top"),
    lens(25, "alloDataflow.simulate", "other"),
];

test("the lens nearest at or above the cursor is the target", () => {
    assert.deepEqual(pickTarget(LENSES, ["alloDataflow.simulate"], 10), { uri, name: "top" });
    assert.deepEqual(pickTarget(LENSES, ["alloDataflow.simulate"], 24), { uri, name: "top" });
    assert.deepEqual(pickTarget(LENSES, ["alloDataflow.simulate"], 60), { uri, name: "other" });
    assert.deepEqual(pickTarget(LENSES, ["alloDataflow.run"], 60), { uri, name: "test_top" });
});

test("above every lens: the only one, else nothing", () => {
    assert.deepEqual(pickTarget(LENSES, ["alloDataflow.run"], 0), { uri, name: "test_top" });
    assert.equal(pickTarget(LENSES, ["alloDataflow.simulate"], 0), undefined);
});

test("a command without lenses of its own falls back to the next lens command", () => {
    assert.deepEqual(pickTarget(LENSES, ["alloDataflow.synthesize", "alloDataflow.simulate"], 30), { uri, name: "other" });
    assert.equal(pickTarget([], ["alloDataflow.simulate"], 3), undefined);
});

test("only [uri, name] string arguments are an explicit target", () => {
    assert.deepEqual(explicitTarget([uri, "top"]), { uri, name: "top" });
    assert.equal(explicitTarget([]), undefined);
    assert.equal(explicitTarget([{ scheme: "file" }]), undefined); // a menu passes the editor's Uri
});

test("Allo dataflow documents are recognised", () => {
    assert.ok(usesAlloDataflow("import allo\nimport allo.dataflow as df\n"));
    assert.ok(usesAlloDataflow("from allo import dataflow as df\n"));
    assert.ok(usesAlloDataflow("from allo.dataflow import region\n"));
    assert.ok(usesAlloDataflow("x = 1\n@df.region()\ndef top(): pass\n"));
    assert.ok(!usesAlloDataflow("import allo\nimport numpy as np\n"));
    assert.ok(!usesAlloDataflow("# allo.dataflow is great\nimport os\n"));
});

test("the workspace's trust is put into the server's section, whatever the settings say", () => {
    const items = [{ section: "alloDataflow" }, { section: "python" }];
    assert.deepEqual(withTrust(items, [{ backend: "reference", trusted: true }, { x: 1 }], false), [
        { backend: "reference", trusted: false },
        { x: 1 },
    ]);
    assert.deepEqual(withTrust([{ section: "alloDataflow" }], [null], true), [{ trusted: true }]);
});

test("a server without a command is told apart from a command that failed", () => {
    assert.ok(isUnknownCommand({ code: -32602, message: "Command name 'alloDataflow.synthesize' is not defined" }));
    assert.ok(isUnknownCommand({ code: -32601, message: "Unknown command alloDataflow.showReport" }));
    assert.ok(!isUnknownCommand({ code: -32602, message: "expected the arguments [uri, name]" }));
    assert.ok(!isUnknownCommand({ code: -32603, message: "Command name 'x' is not defined" }));
    assert.ok(!isUnknownCommand(undefined));
});

test("the server starts isolated: the workspace (its working directory) is not on sys.path", () => {
    assert.deepEqual(serverArgs("allo_lsp"), ["-I", "-u", "-m", "allo_lsp", "serve"]);
});
