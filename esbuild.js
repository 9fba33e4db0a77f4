// Bundles the client into dist/extension.js (one file, `vscode` left to the host), and the
// webviews' scripts and styles into dist/webview/ (graph.js carries elkjs's API, and its in-page
// ELK for when the worker cannot start; elkjs's worker file is copied beside it: the panel loads
// nothing from the network).
// node esbuild.js [--production] [--watch]
// node esbuild.js --tests: the unit tests (client/src/test/*.test.ts, one bundle each: node --test
// runs each in its own process, so a test file may fill in the stub for `vscode`) into dist-test/.
const esbuild = require("esbuild");
const fs = require("fs");

const production = process.argv.includes("--production");
const watch = process.argv.includes("--watch");

async function buildTests() {
  await esbuild.build({
    entryPoints: fs.readdirSync("client/src/test").filter((f) => f.endsWith(".test.ts")).map((f) => `client/src/test/${f}`),
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    outdir: "dist-test",
    alias: { vscode: "./client/src/test/vscode-stub.ts" },
    logLevel: "warning",
  });
}

// Browser code for the webviews: one iife per page, and their stylesheets.
const webviewOptions = {
  entryPoints: ["client/webview/graph.ts", "client/webview/graph.css", "client/webview/report.css"],
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2022",
  outdir: "dist/webview",
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: "warning",
};

// ELK's web worker, as elkjs ships it (client/src/graph/layoutWorker.ts starts it in the graph's page).
function copyElkWorker() {
  fs.mkdirSync("dist/webview", { recursive: true });
  fs.copyFileSync(require.resolve("elkjs/lib/elk-worker.min.js"), "dist/webview/elk-worker.min.js");
}

async function main() {
  if (process.argv.includes("--tests")) {
    return buildTests();
  }
  copyElkWorker();
  const webview = await esbuild.context(webviewOptions);
  const ctx = await esbuild.context({
    entryPoints: ["client/src/extension.ts"],
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    outfile: "dist/extension.js",
    external: ["vscode"],
    minify: production,
    sourcemap: !production,
    sourcesContent: false,
    logLevel: "warning",
  });
  if (watch) {
    await Promise.all([ctx.watch(), webview.watch()]);
    return;
  }
  await Promise.all([ctx.rebuild(), webview.rebuild()]);
  await Promise.all([ctx.dispose(), webview.dispose()]);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
