// Which interpreter runs the server, and the language client over its stdio.
//
// Interpreter: `alloDataflow.server.python`, else the Python extension's, else python3. When the
// server cannot be imported there, the private environment (install.ts) is used, installed after
// asking the first time.
import * as fs from "fs";
import { commands, LogOutputChannel, Uri, window } from "vscode";
import { Executable, LanguageClient, LanguageClientOptions, Middleware, RevealOutputChannelOn } from "vscode-languageclient/node";
import { bundledWheel, InstallError, installPrivateServer, run, venvPython, wheelVersion } from "./install";
import { ISOLATED, serverArgs } from "./isolation";
import { traceError, traceInfo } from "./logger";
import { activeInterpreter } from "./python";
import { getServerSettings, SECTION } from "./settings";
import { MLIR_SCHEME } from "./views";

export interface IServerInfo {
    name: string;
    module: string;
}

export interface ServerContext {
    info: IServerInfo;
    extensionPath: string;
    storageDir: string;
}

interface Probe {
    python?: string;
    supported?: boolean;
    server?: string;
    error?: string;
}

// Prints what the interpreter is and whether it can import the server (argv[1]).
const PROBE = `
import importlib, json, sys
out = {"python": sys.version.split()[0], "supported": sys.version_info >= (3, 10)}
try:
    out["server"] = getattr(importlib.import_module(sys.argv[1]), "__version__", "?")
except Exception as exc:
    out["error"] = f"{type(exc).__name__}: {exc}"
print(json.dumps(out))
`;

async function probe(python: string, module: string): Promise<Probe> {
    try {
        return JSON.parse((await run(python, [...ISOLATED, "-c", PROBE, module], 60_000)).trim().split("\n").pop()!);
    } catch (error: any) {
        return { error: error.code === "ENOENT" ? `${python} was not found` : String(error.detail ?? error) };
    }
}

const usable = (p: Probe): boolean => Boolean(p.server && p.supported);

/** The interpreter to start the server with, or undefined after telling the user why there is none. */
export async function resolveServerPython(ctx: ServerContext): Promise<string | undefined> {
    const { module } = ctx.info;
    const configured = getServerSettings().python;
    if (configured) {
        const found = await probe(configured, module);
        if (usable(found)) {
            return configured;
        }
        const why = found.error ?? `Python ${found.python} is older than 3.10`;
        explain(
            `alloDataflow.server.python is ${configured}, which cannot run the Allo language server: ${why}. ` +
                `Install it there (${configured} -m pip install allo-lsp), or clear the setting to use a private environment.`,
        );
        return undefined;
    }
    const base = (await activeInterpreter()) ?? "python3";
    const found = await probe(base, module);
    if (usable(found)) {
        return base;
    }
    traceInfo(`${base} cannot run the server: ${found.error ?? `Python ${found.python}`}`);
    return privateServer(ctx, base, found);
}

async function privateServer(ctx: ServerContext, base: string, baseProbe: Probe): Promise<string | undefined> {
    const { module } = ctx.info;
    const wheel = bundledWheel(ctx.extensionPath, module);
    const python = venvPython(ctx.storageDir);
    const existing = fs.existsSync(python) ? await probe(python, module) : {};
    if (usable(existing) && (!wheel || existing.server === wheelVersion(wheel))) {
        return python;
    }
    if (!wheel) {
        explain(`${base} cannot import ${module}, and this build of the extension carries no server wheel. ` +
            `Install allo-lsp (pip install allo-lsp) and set alloDataflow.server.python to that interpreter.`);
        return undefined;
    }
    if (!usable(existing)) {
        if (baseProbe.error?.includes("was not found") || !baseProbe.supported) {
            explain(`No Python 3.10 or later to run the Allo language server: ${baseProbe.error ?? `${base} is Python ${baseProbe.python}`}. ` +
                "Install Python 3.10+, select it in the Python extension, or set alloDataflow.server.python.");
            return undefined;
        }
        const choice = await window.showWarningMessage(
            `The Allo language server (${module}) is not installed in ${base}. Install it into a private ` +
                "environment of this extension? (Its dependencies come from PyPI.)",
            "Install",
            "Open Settings",
        );
        if (choice === "Open Settings") {
            await commands.executeCommand("workbench.action.openSettings", `${SECTION}.server.python`);
        }
        if (choice !== "Install") {
            return undefined;
        }
    }
    try {
        return await installPrivateServer(base, ctx.storageDir, wheel);
    } catch (error) {
        explain(error instanceof InstallError ? error.message : `Installing the Allo language server failed: ${error}`);
        return undefined;
    }
}

/** Says why the server cannot start, without waiting for the user (a restart must not wait). */
function explain(message: string): void {
    traceError(message);
    void window.showErrorMessage(message, "Open Settings", "Show Output").then((choice) => {
        if (choice === "Open Settings") {
            void commands.executeCommand("workbench.action.openSettings", `${SECTION}.server.python`);
        } else if (choice === "Show Output") {
            void commands.executeCommand("alloDataflow.showOutput");
        }
    });
}

export function createClient(
    python: string,
    ctx: ServerContext,
    output: LogOutputChannel,
    middleware: Middleware,
    protocolUri: (uri: Uri) => string,
): LanguageClient {
    const server: Executable = {
        command: python,
        args: serverArgs(ctx.info.module),
        options: { env: { ...process.env, PYTHONUNBUFFERED: "1" } },
    };
    const options: LanguageClientOptions = {
        documentSelector: [
            { scheme: "file", language: "python" },
            { scheme: "untitled", language: "python" },
            // The read-only MLIR view: go to definition there leads back to the kernel.
            { scheme: MLIR_SCHEME },
        ],
        outputChannel: output,
        traceOutputChannel: output,
        revealOutputChannelOn: RevealOutputChannelOn.Never,
        middleware,
        uriConverters: { code2Protocol: protocolUri, protocol2Code: (value) => Uri.parse(value) },
    };
    traceInfo(`Starting ${ctx.info.name}: ${python} ${serverArgs(ctx.info.module).join(" ")}`);
    return new LanguageClient(SECTION, ctx.info.name, server, options);
}
