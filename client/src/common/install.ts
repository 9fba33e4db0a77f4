// The private environment: when no interpreter at hand can import the server, the extension
// installs the wheel it carries (client/wheels/) into a virtual environment in its global storage.
// The platform's .vsix (linux-x64) also carries every dependency's wheel for CPython 3.10-3.13
// (client/wheels/deps/), installed with `--no-index`: no network. The universal .vsix, a Python the
// bundled wheels do not cover, or a system they do not fit, takes the dependencies from the index.
import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { ProgressLocation, window } from "vscode";
import { insideUntrustedWorkspace, ISOLATED, UntrustedProgram } from "./isolation";
import { commandLine, traceError, traceInfo } from "./logger";

export function venvPython(storageDir: string): string {
    const venv = path.join(storageDir, "venv");
    return process.platform === "win32" ? path.join(venv, "Scripts", "python.exe") : path.join(venv, "bin", "python");
}

/** The server wheel inside the extension, if this build carries one. */
export function bundledWheel(extensionPath: string, module: string): string | undefined {
    const dir = path.join(extensionPath, "client", "wheels");
    const wheels = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.startsWith(`${module}-`) && f.endsWith(".whl")) : [];
    return wheels.length ? path.join(dir, wheels.sort().pop()!) : undefined;
}

/** `allo_lsp-0.1.0-py3-none-any.whl` -> `0.1.0` (the wheel file name format, PEP 427). */
export function wheelVersion(wheel: string): string | undefined {
    return path.basename(wheel).split("-")[1];
}

/** The dependencies' wheels inside the extension, when this build carries them for `pythonVersion`
 * ("3.11.7"): the compiled ones (libcst, numpy) are per CPython version (`-cp311-`). */
export function bundledDependencies(extensionPath: string, pythonVersion: string | undefined): string | undefined {
    const dir = path.join(extensionPath, "client", "wheels", "deps");
    const tag = pythonTag(pythonVersion);
    if (!tag || !fs.existsSync(dir)) {
        return undefined;
    }
    return fs.readdirSync(dir).some((f) => f.endsWith(".whl") && f.includes(`-${tag}-`)) ? dir : undefined;
}

/** "3.11.7" -> "cp311". */
export function pythonTag(version: string | undefined): string | undefined {
    const m = /^3\.(\d+)/.exec(version ?? "");
    return m ? `cp3${m[1]}` : undefined;
}

/** pip's own wheel among the bundled ones: it runs from the wheel file (`python pip.whl/pip`), so the
 * environment is made without pip (`venv --without-pip`: ensurepip's install of pip is most of the
 * time `venv` takes). */
export function bundledPip(dependencies: string | undefined): string | undefined {
    const pip = dependencies ? fs.readdirSync(dependencies).filter((f) => /^pip-.*\.whl$/.test(f)).sort().pop() : undefined;
    return pip && path.join(dependencies!, pip);
}

/** pip's arguments: from the bundled wheels only when there are some (`--no-index`: the index is
 * never asked, so a machine without network installs as fast as one with), else from the index.
 * `--no-compile`: byte-compiling numpy's thousand modules would take longer than installing them;
 * Python writes the cache of what it imports. */
export function pipInstallArgs(wheel: string, dependencies: string | undefined, pipWheel?: string): string[] {
    const source = dependencies ? ["--no-index", "--find-links", dependencies] : [];
    const pip = pipWheel ? [path.join(pipWheel, "pip")] : ["-m", "pip"];
    return [...pip, "install", "--disable-pip-version-check", "--no-compile", "--upgrade", ...source, wheel];
}

/** Whether the environment has pip installed in it (`venv --without-pip` made it without). */
export function hasPip(venv: string): boolean {
    if (fs.existsSync(path.join(venv, "Lib", "site-packages", "pip"))) {
        return true; // Windows
    }
    const lib = path.join(venv, "lib");
    return fs.existsSync(lib) && fs.readdirSync(lib).some((d) => fs.existsSync(path.join(lib, d, "site-packages", "pip")));
}

export class InstallError extends Error {}

/** What `run` says went wrong, from its rejection. */
export function failureDetail(error: unknown): string {
    const { detail } = (error ?? {}) as { detail?: unknown };
    return typeof detail === "string" ? detail : String(error);
}

/** Runs a program (never a shell, never one inside an untrusted workspace); rejects with `detail`, what went wrong. */
export function run(command: string, args: string[], timeoutMs = 600_000): Promise<string> {
    if (insideUntrustedWorkspace(command)) {
        const refused = new UntrustedProgram(command);
        traceInfo(refused.message);
        return Promise.reject(Object.assign(refused, { detail: refused.message }));
    }
    traceInfo(`> ${commandLine(command, args)}`);
    return new Promise((resolve, reject) => {
        execFile(command, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
            if (stdout.trim()) {
                traceInfo(stdout.trim());
            }
            if (stderr.trim()) {
                (error ? traceError : traceInfo)(stderr.trim());
            }
            if (error) {
                const last = (stderr || stdout || error.message).trim().split("\n").slice(-3).join(" ");
                reject(Object.assign(error, { detail: last }));
            } else {
                resolve(stdout);
            }
        });
    });
}

/** Creates (or refreshes) the private environment and installs the wheel; returns its interpreter. */
export async function installPrivateServer(
    basePython: string,
    storageDir: string,
    wheel: string,
    dependencies: string | undefined,
): Promise<string> {
    const python = venvPython(storageDir);
    await window.withProgress(
        { location: ProgressLocation.Notification, title: "Allo: installing the language server" },
        async (progress) => {
            fs.mkdirSync(storageDir, { recursive: true });
            const pipWheel = bundledPip(dependencies);
            const venv = path.dirname(path.dirname(python));
            if (!pipWheel && fs.existsSync(python) && !hasPip(venv)) {
                // Made from a linux-x64 .vsix's wheels (no pip of its own), now updated from the index: made again.
                fs.rmSync(venv, { recursive: true, force: true });
            }
            if (!fs.existsSync(python)) {
                progress.report({ message: `creating a virtual environment with ${basePython}` });
                const withoutPip = pipWheel ? ["--without-pip"] : [];
                try {
                    await run(basePython, [...ISOLATED, "-m", "venv", ...withoutPip, venv]);
                } catch (error) {
                    throw new InstallError(
                        `${basePython} -m venv failed (${failureDetail(error)}). Install the venv module ` +
                            "(on Debian or Ubuntu: apt install python3-venv), or set alloDataflow.server.python " +
                            "to an interpreter where allo-lsp is installed.",
                    );
                }
            }
            const from = dependencies ? "the wheels this extension carries" : "the package index";
            progress.report({ message: `installing ${path.basename(wheel)} and its dependencies from ${from}` });
            let bundledFailed = "";
            if (dependencies) {
                try {
                    await run(python, [...ISOLATED, ...pipInstallArgs(wheel, dependencies, pipWheel)]);
                    return;
                } catch (error) {
                    // A system the wheels do not fit (glibc older than theirs): the index may have ones that do.
                    bundledFailed = `the bundled wheels did not install (${failureDetail(error)}), then `;
                    progress.report({ message: "the bundled wheels do not fit this system: trying the package index" });
                }
            }
            try {
                await run(python, [...ISOLATED, ...pipInstallArgs(wheel, undefined, pipWheel)]);
            } catch (error) {
                throw new InstallError(
                    `pip could not install ${path.basename(wheel)}: ${bundledFailed}the package index (${failureDetail(error)}). ` +
                        "Check that the package index can be reached (or a proxy is configured for pip)" +
                        (dependencies ? "" : ", or install the linux-x64 build of the extension, which works offline") +
                        "; or set alloDataflow.server.python to an interpreter where allo-lsp is installed.",
                );
            }
        },
    );
    return python;
}
