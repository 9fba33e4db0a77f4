// How every interpreter of ours starts: isolated (`-I`), so that neither the working directory
// (the workspace, for the server) nor a script's directory is on `sys.path`, and `PYTHON*`
// variables and the user site are ignored: an `allo_lsp/` or `pygls/` package in an untrusted
// workspace must not run when the server starts. A venv or site-packages install of allo-lsp
// imports under `-I`; one reachable only through PYTHONPATH does not (the probe says so).
//
// And whether a program may start at all: in an untrusted workspace (Restricted Mode) nothing that
// lives inside it runs, not even to be asked what it is (a `.venv`'s python runs its `.pth` files,
// `-I` or not). `insideUntrustedWorkspace` is that one test, made where the client starts programs
// (install.ts `run`, interpreters.ts `execProgram`) and where it chooses them (resolve.ts, picker.ts).
import * as fs from "fs";
import * as path from "path";
import { isTrusted, workspaceFolderPaths } from "./vscodeapi";

export const ISOLATED = ["-I"];

/** The server's command line; `-u` because `-I` ignores PYTHONUNBUFFERED. */
export function serverArgs(module: string): string[] {
    return [...ISOLATED, "-u", "-m", module, "serve"];
}

/** The editor's trust in its workspace, and the workspace's folders. */
export interface WorkspaceTrust {
    trusted: boolean;
    folders: readonly string[];
}

export function currentTrust(): WorkspaceTrust {
    return { trusted: isTrusted() === true, folders: workspaceFolderPaths() };
}

/** What starting `program` starts: a bare name is looked up on PATH as the system would (an
 * empty or relative entry is the working directory); otherwise the path itself. */
function located(program: string, env: NodeJS.ProcessEnv): string {
    if (program.includes("/") || program.includes(path.sep)) {
        return path.resolve(program);
    }
    for (const dir of (env.PATH ?? "").split(path.delimiter)) {
        const candidate = path.resolve(dir, program);
        try {
            fs.accessSync(candidate, fs.constants.X_OK);
            if (fs.statSync(candidate).isFile()) {
                return candidate;
            }
        } catch {
            // not in this directory
        }
    }
    return path.resolve(program);
}

function realpath(file: string): string {
    try {
        return fs.realpathSync(file);
    } catch {
        return path.resolve(file);
    }
}

/**
 * Whether starting `program` would run code of an untrusted workspace: the workspace is not
 * trusted and the program is inside one of its folders, as written or through symbolic links
 * (either way round: a link out of the workspace, a folder that is itself a link).
 */
export function insideUntrustedWorkspace(program: string, workspace: WorkspaceTrust = currentTrust(), env = process.env): boolean {
    if (workspace.trusted) {
        return false;
    }
    const where = located(program, env);
    const places = [where, realpath(where)];
    const roots = workspace.folders.flatMap((folder) => [path.resolve(folder), realpath(folder)]);
    return places.some((place) => roots.some((root) => place === root || place.startsWith(root.endsWith(path.sep) ? root : root + path.sep)));
}

/** Why `program` is not started: it is inside this untrusted workspace. */
export class UntrustedProgram extends Error {
    constructor(readonly program: string) {
        super(`${program} is inside this untrusted workspace: in Restricted Mode Allo does not run it`);
    }
}
