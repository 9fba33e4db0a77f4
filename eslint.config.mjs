// eslint for the client's TypeScript, as ruff is for the server's Python: typescript-eslint's
// recommended rules over client/ (the extension, its webview script, the unit tests) and the build
// script. `npm run lint`; types are tsc's (`npm run typecheck`).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
    // The Python side, the builds and the e2e tests' scripts are not the client's.
    { ignores: ["dist/**", "dist-test/**", "node_modules/**", ".venv/**", ".cache/**", "server/**", "tests/**", "bench/**", "examples/**", "docs/**"] },
    js.configs.recommended,
    tseslint.configs.recommended,
    {
        rules: {
            // `const { dropped, ...kept } = x` is how a key is left out of a copy.
            "@typescript-eslint/no-unused-vars": ["error", { ignoreRestSiblings: true }],
        },
    },
    {
        // Test doubles stand in for vscode's and vscode-languageclient's objects with only the
        // members a test reads: they are cast, not typed out in full.
        files: ["client/src/test/**/*.ts"],
        rules: { "@typescript-eslint/no-explicit-any": "off" },
    },
    {
        // The build script is Node's CommonJS.
        files: ["esbuild.js"],
        languageOptions: { sourceType: "commonjs", globals: { require: "readonly", process: "readonly", console: "readonly" } },
        rules: { "@typescript-eslint/no-require-imports": "off" },
    },
);
