// The settings the client itself reads, and what it adds to the ones the server reads.
//
// The server reads the `alloDataflow` section through `workspace/configuration` (and again after
// `workspace/didChangeConfiguration`); its keys and defaults are declared once, in package.json
// `contributes.configuration`. The client reads only `alloDataflow.server.*`, and adds `trusted`.
import * as os from "os";
import { ConfigurationChangeEvent, workspace } from "vscode";
import { getConfiguration } from "./vscodeapi";

export const SECTION = "alloDataflow";

export interface IServerSettings {
    /** The interpreter that runs the server; empty: the Python extension's, else python3. */
    python: string;
}

/** Settings whose change restarts the server (the server re-reads all the others itself). */
export const RESTART_SETTINGS = ["server.python"];

export function getServerSettings(): IServerSettings {
    const config = getConfiguration(SECTION);
    return { python: expandPath(config.get<string>("server.python", "").trim()) };
}

export function checkIfConfigurationChanged(e: ConfigurationChangeEvent): boolean {
    return RESTART_SETTINGS.some((name) => e.affectsConfiguration(`${SECTION}.${name}`));
}

/**
 * A path setting as the user means it: `~` alone or before `/` (not `~user`), `${userHome}`, and
 * `${workspaceFolder}`, the first folder's path (left as written when none is open); trimmed.
 *
 * The server expands `alloDataflow.python` and `llvmBuildDir` itself, the same forms the same way
 * (server/allo_lsp/settings.py `expand_path`; tests/lsp/path_settings.json is both sides' table),
 * and says which interpreter jobs run in (`allo/backend`'s `python`): what it says is shown once
 * it answers. This one is for what the client does without it: `server.python`, which starts the
 * server, and, for `python`, the status bar's probe before the server answers, the untrusted-
 * workspace check and the picker.
 */
export function expandPath(value: string, folder: string | undefined = workspace.workspaceFolders?.[0]?.uri.fsPath): string {
    const home = os.homedir();
    let out = value.trim();
    if (out === "~" || out.startsWith("~/")) {
        out = home + out.slice(1);
    }
    // split/join: a literal replacement, as Python's str.replace (`$&` in a path is not a pattern).
    out = out.split("${userHome}").join(home);
    return folder === undefined ? out : out.split("${workspaceFolder}").join(folder);
}

/**
 * The answer to `workspace/configuration` with the workspace's trust put into the server's section:
 * the server runs nothing unless `trusted` is true. It is not a user setting: whatever a settings
 * file says, the editor's trust wins.
 */
export function withTrust(items: readonly { section?: string }[], results: unknown[], trusted: boolean): unknown[] {
    return results.map((result, i) => {
        if (items[i]?.section !== SECTION) {
            return result;
        }
        const section = result !== null && typeof result === "object" ? (result as object) : {};
        return { ...section, trusted };
    });
}

/** What decides where jobs run and on what: `alloDataflow.python` (expanded) and `alloDataflow.backend`. */
export function getJobSettings(): { python: string; backend: string } {
    const config = getConfiguration(SECTION);
    return { python: expandPath(config.get<string>("python", "").trim()), backend: config.get<string>("backend", "auto") };
}

/** Settings whose change changes the Allo environment's status. */
export const ENVIRONMENT_SETTINGS = ["python", "backend"];
