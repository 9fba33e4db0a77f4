// Bundles the client into dist/extension.js (one file, `vscode` left to the host).
// node esbuild.js [--production] [--watch]
// node esbuild.js --tests: the unit tests into dist-test/ (with a stub for `vscode`).
const esbuild = require("esbuild");

const production = process.argv.includes("--production");
const watch = process.argv.includes("--watch");

async function buildTests() {
  await esbuild.build({
    entryPoints: ["client/src/test/unit.test.ts"],
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
