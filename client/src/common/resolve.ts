// Which interpreter runs the server: `alloDataflow.server.python` when the user set it, else the
// private environment (install.ts) made from the Python extension's interpreter or python3 with the
// versions this extension carries, installed once the user says so (the question never holds up a
// start: the status offers the same action). Jobs run in `alloDataflow.python`, whatever runs the
// server. Only a build that carries no server wheel (a development build) starts the server in an
// interpreter that happens to import it.
import * as fs from "fs";
import { commands, window } from "vscode";
import { bundledDependencies, bundledWheel, failureDetail, InstallError, installPrivateServer, run, venvPython, wheelVersion } from "./install";
import { insideUntrustedWorkspace, ISOLATED } from "./isolation";
import { traceError, traceInfo } from "./logger";
import { activeInterpreter } from "./python";
import { getServerSettings, SECTION } from "./settings";

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
    } catch (error) {
        return { error: (error as { code?: unknown }).code === "ENOENT" ? `${python} was not found` : failureDetail(error) };
    }
}

const usable = (p: Probe): boolean => Boolean(p.server && p.supported);

/** What starting needs: an interpreter, the user's yes to installing the private environment, or a
 * setting fixed (`undefined`: the user was told why). */
export type Resolved = { python: string } | { installNeeded: string } | undefined;

/** The interpreter to start the server with. `install`: the user already said yes to installing. */
export async function resolveServerPython(ctx: ServerContext, install = false): Promise<Resolved> {
    const { module } = ctx.info;
    const configured = getServerSettings().python;
    if (configured) {
        const found = await probe(configured, module);
        if (usable(found)) {
            return { python: configured };
        }
        explain(configuredPythonAdvice(configured, found.error ?? `Python ${found.python} is older than 3.10`,
            bundledWheel(ctx.extensionPath, module)));
        return undefined;
    }
    const base = outsideUntrusted(await activeInterpreter()) ?? "python3";
    const found = await probe(base, module);
    if (usable(found) && !bundledWheel(ctx.extensionPath, module)) {
        return { python: base };
    }
    traceInfo(`${base} cannot run the server: ${found.error ?? `Python ${found.python}`}`);
    return privateServer(ctx, base, found, install);
}

/** The Python extension's interpreter, unless it is inside this untrusted workspace (a `.venv`
 * there is the workspace's code: in Restricted Mode it is not run, not even probed). */
function outsideUntrusted(python: string | undefined): string | undefined {
    if (python && insideUntrustedWorkspace(python)) {
        traceInfo(`${python}, the Python extension's interpreter, is inside this untrusted workspace: not used to run the server`);
        return undefined;
    }
    return python;
}

/** What to do about an `alloDataflow.server.python` that cannot run the server. allo-lsp is not on
 * PyPI: the advice is the wheel this extension carries, or the private environment. */
export function configuredPythonAdvice(configured: string, why: string, wheel: string | undefined): string {
    const installThere = wheel ? ` or install the server there: ${configured} -m pip install "${wheel}"` : "";
    return (
        `alloDataflow.server.python is ${configured}, which cannot run the Allo language server: ${why}. ` +
        `Clear the setting to let the extension install its own copy into a private environment,${installThere}.`
    );
}

async function privateServer(ctx: ServerContext, base: string, baseProbe: Probe, install: boolean): Promise<Resolved> {
    const { module } = ctx.info;
    const wheel = bundledWheel(ctx.extensionPath, module);
    const python = venvPython(ctx.storageDir);
    const existing = fs.existsSync(python) ? await probe(python, module) : {};
    if (usable(existing) && (!wheel || existing.server === wheelVersion(wheel))) {
        return { python };
    }
    if (!wheel) {
        explain(`${base} cannot import ${module}, and this build of the extension carries no server wheel. ` +
            "Install the extension's .vsix (./dev.sh vsix builds it), or set alloDataflow.server.python to an " +
            "interpreter where allo-lsp is installed (pip install <allo-lsp checkout>).");
        return undefined;
    }
    if (!usable(existing) && (baseProbe.error?.includes("was not found") || !baseProbe.supported)) {
        explain(`No Python 3.10 or later to run the Allo language server: ${baseProbe.error ?? `${base} is Python ${baseProbe.python}`}. ` +
            "Install Python 3.10+, select it in the Python extension, or set alloDataflow.server.python.");
        return undefined;
    }
    // An existing environment is installed into with its own interpreter: its version picks the wheels.
    const dependencies = bundledDependencies(ctx.extensionPath, existing.python ?? baseProbe.python);
    if (!install && !usable(existing)) {
        const from = dependencies ? "the wheels this extension carries, no network needed" : "the package index";
        return {
            installNeeded:
                `The Allo language server (${module}) is not installed in ${base}. Install it into a private ` +
                `environment of this extension? (Its dependencies come from ${from}.)`,
        };
    }
    try {
        return { python: await installPrivateServer(base, ctx.storageDir, wheel, dependencies) };
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
