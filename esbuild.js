// Bundles the client into dist/extension.js (one file, `vscode` left to the host).
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

async function main() {
  if (process.argv.includes("--tests")) {
    return buildTests();
  }
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
    await ctx.watch();
    return;
  }
  await ctx.rebuild();
  await ctx.dispose();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
