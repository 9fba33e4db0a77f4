"use strict";
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));

// client/src/test/unit.test.ts
var import_strict = __toESM(require("node:assert/strict"));
var import_node_test = require("node:test");

// client/src/common/settings.ts
var SECTION = "alloDataflow";
function withTrust(items, results, trusted) {
  return results.map((result, i) => {
    if (items[i]?.section !== SECTION) {
      return result;
    }
    const section = result !== null && typeof result === "object" ? result : {};
    return { ...section, trusted };
  });
}

// client/src/common/targets.ts
function explicitTarget(args) {
  const [uri2, name] = args;
  return typeof uri2 === "string" && typeof name === "string" ? { uri: uri2, name } : void 0;
}
function pickTarget(lenses, lensCommands, line) {
  for (const command of lensCommands) {
    const candidates = lenses.filter((lens2) => lens2.command?.command === command && explicitTarget(lens2.command.arguments ?? [])).sort((a, b) => a.range.start.line - b.range.start.line);
    if (!candidates.length) {
      continue;
    }
    const above = candidates.filter((lens2) => lens2.range.start.line <= line).pop();
    const chosen = above ?? (candidates.length === 1 ? candidates[0] : void 0);
    return chosen && explicitTarget(chosen.command.arguments);
  }
  return void 0;
}
var ALLO_DATAFLOW = /^\s*(import\s+allo\.dataflow\b|from\s+allo\.dataflow\s+import\b|from\s+allo\s+import\s+[^\n#]*\bdataflow\b)|@\s*df\.(region|kernel)\b/m;
function usesAlloDataflow(text) {
  return ALLO_DATAFLOW.test(text);
}

// client/src/test/unit.test.ts
var uri = "file:///w/design.py";
var lens = (line, command, name) => ({
  range: { start: { line } },
  command: { command, arguments: [uri, name] }
});
var LENSES = [
  lens(40, "alloDataflow.run", "test_top"),
  lens(10, "alloDataflow.simulate", "top"),
  lens(10, "alloDataflow.showMlir", "top"),
  lens(25, "alloDataflow.simulate", "other")
];
(0, import_node_test.test)("the lens nearest at or above the cursor is the target", () => {
  import_strict.default.deepEqual(pickTarget(LENSES, ["alloDataflow.simulate"], 10), { uri, name: "top" });
  import_strict.default.deepEqual(pickTarget(LENSES, ["alloDataflow.simulate"], 24), { uri, name: "top" });
  import_strict.default.deepEqual(pickTarget(LENSES, ["alloDataflow.simulate"], 60), { uri, name: "other" });
  import_strict.default.deepEqual(pickTarget(LENSES, ["alloDataflow.run"], 60), { uri, name: "test_top" });
});
(0, import_node_test.test)("above every lens: the only one, else nothing", () => {
  import_strict.default.deepEqual(pickTarget(LENSES, ["alloDataflow.run"], 0), { uri, name: "test_top" });
  import_strict.default.equal(pickTarget(LENSES, ["alloDataflow.simulate"], 0), void 0);
});
(0, import_node_test.test)("a command without lenses of its own falls back to the next lens command", () => {
  import_strict.default.deepEqual(pickTarget(LENSES, ["alloDataflow.synthesize", "alloDataflow.simulate"], 30), { uri, name: "other" });
  import_strict.default.equal(pickTarget([], ["alloDataflow.simulate"], 3), void 0);
});
(0, import_node_test.test)("only [uri, name] string arguments are an explicit target", () => {
  import_strict.default.deepEqual(explicitTarget([uri, "top"]), { uri, name: "top" });
  import_strict.default.equal(explicitTarget([]), void 0);
  import_strict.default.equal(explicitTarget([{ scheme: "file" }]), void 0);
});
(0, import_node_test.test)("Allo dataflow documents are recognised", () => {
  import_strict.default.ok(usesAlloDataflow("import allo\nimport allo.dataflow as df\n"));
  import_strict.default.ok(usesAlloDataflow("from allo import dataflow as df\n"));
  import_strict.default.ok(usesAlloDataflow("from allo.dataflow import region\n"));
  import_strict.default.ok(usesAlloDataflow("x = 1\n@df.region()\ndef top(): pass\n"));
  import_strict.default.ok(!usesAlloDataflow("import allo\nimport numpy as np\n"));
  import_strict.default.ok(!usesAlloDataflow("# allo.dataflow is great\nimport os\n"));
});
(0, import_node_test.test)("the workspace's trust is put into the server's section, whatever the settings say", () => {
  const items = [{ section: "alloDataflow" }, { section: "python" }];
  import_strict.default.deepEqual(withTrust(items, [{ backend: "reference", trusted: true }, { x: 1 }], false), [
    { backend: "reference", trusted: false },
    { x: 1 }
  ]);
  import_strict.default.deepEqual(withTrust([{ section: "alloDataflow" }], [null], true), [{ trusted: true }]);
});
