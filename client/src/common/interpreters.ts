// The interpreters a user can choose as the Allo environment (`alloDataflow.python`, where jobs
// run), and what each can do: whether `allo` imports (and its version) and whether numpy does (the
// reference executor needs it). The picker (picker.ts) shows what this finds.
//
// Where they come from, as the Python extension's picker finds them: the Python extension's own
// list (when it is installed), conda's environments (`conda env list --json`), pyenv's versions
// (its `versions/` directory) and the workspace's `.venv` and `venv`. Each is asked with our own
// script under `-I`, from a neutral directory and with a timeout; in an untrusted workspace none
// inside it is listed or run (isolation.ts `insideUntrustedWorkspace`, the trust's only place here).
import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { insideUntrustedWorkspace, ISOLATED, UntrustedProgram } from "./isolation";

export type Source = "Python extension" | "conda" | "pyenv" | "workspace" | "setting";

export interface Candidate {
    python: string;
    /** How the user knows it: `env allo` (conda), `pyenv 3.12.1`, `.venv`, the Python extension's name. */
    name: string;
    source: Source;
}

/** What an interpreter said about itself; `error` when it did not say (not found, too slow, not Python). */
export interface Probed {
    python?: string;
    allo?: string;
    alloError?: string;
    numpy?: string;
    error?: string;
}

export const PROBE_TIMEOUT_MS = 20_000;
/** Jobs' runner needs this Python (the server's minimum too). */
export const MINIMUM_PYTHON = [3, 10];

// Sees the path a job sees (jobs/isolation.py BOOTSTRAP: absolute PYTHONPATH entries, the user site
// of a non-venv interpreter), then imports allo and numpy. Python 2 syntax too: an old pyenv version
// must answer with its version, not a SyntaxError.
export const PROBE = `
import json, os, sys
sys.path[:0] = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if os.path.isabs(p)]
if sys.prefix == getattr(sys, "base_prefix", sys.prefix) and not os.environ.get("PYTHONNOUSERSITE"):
    try:
        import site
        if os.path.isdir(site.getusersitepackages()):
            site.addsitedir(site.getusersitepackages())
    except Exception:
        pass
out = {"python": "%d.%d.%d" % sys.version_info[:3]}
for name in ("allo", "numpy"):
    try:
        module = __import__(name)
        version = getattr(module, "__version__", None)
        if not version:
            try:
                from importlib.metadata import version as dist_version
                version = dist_version(name)
            except Exception:
                version = "?"
        out[name] = str(version)
    except BaseException as exc:
        out[name + "Error"] = ("%s: %s" % (type(exc).__name__, exc))[:300]
sys.stdout.write("\\n" + json.dumps(out) + "\\n")
`;

export type Exec = (command: string, args: string[], timeoutMs: number) => Promise<string>;

/** Runs a program (never a shell, never one inside an untrusted workspace) from the temporary
 * directory; rejects with what went wrong. */
export const execProgram: Exec = (command, args, timeoutMs) =>
    new Promise((resolve, reject) => {
        if (insideUntrustedWorkspace(command)) {
            reject(new UntrustedProgram(command));
            return;
        }
        execFile(command, args, { timeout: timeoutMs, cwd: os.tmpdir(), maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
            if (!error) {
                resolve(stdout);
            } else if ((error as NodeJS.ErrnoException).code === "ENOENT") {
                reject(new Error("not found"));
            } else if (error.killed) {
                reject(new Error(`did not answer within ${Math.round(timeoutMs / 1000)} s`));
            } else {
                // Its first words say why (Python 2: "Unknown option: -I", then its usage).
                const why = stderr.trim().split("\n")[0]?.slice(0, 200);
                reject(new Error(`exited with ${error.code ?? error.signal}${why ? `: ${why}` : ""}`));
            }
        });
    });

/** Asks one interpreter what it can import. Never rejects. */
export async function probeInterpreter(python: string, exec: Exec = execProgram, timeoutMs = PROBE_TIMEOUT_MS): Promise<Probed> {
    try {
        const stdout = await exec(python, [...ISOLATED, "-c", PROBE], timeoutMs);
        const last = stdout.trim().split("\n").pop() ?? "";
        const parsed = JSON.parse(last) as Record<string, unknown>;
        const text = (key: string): string | undefined => (typeof parsed[key] === "string" ? (parsed[key] as string) : undefined);
        return { python: text("python"), allo: text("allo"), alloError: text("alloError"), numpy: text("numpy") };
    } catch (error) {
        return { error: error instanceof SyntaxError ? "is not a Python this extension can ask" : (error as Error).message };
    }
}

/** Probes every interpreter at once; `onProbed` as each answers. */
export function probeAll(pythons: readonly string[], onProbed: (python: string, probed: Probed) => void, exec: Exec = execProgram,
    timeoutMs = PROBE_TIMEOUT_MS): Promise<void> {
    return Promise.all(pythons.map(async (python) => onProbed(python, await probeInterpreter(python, exec, timeoutMs)))).then(() => undefined);
}

const binDir = process.platform === "win32" ? "Scripts" : "bin";
const pythonExe = process.platform === "win32" ? "python.exe" : "python";

/** `<env>/bin/python` */
export function envPython(env: string): string {
    return path.join(env, binDir, pythonExe);
}

/** What to call an interpreter in the status bar and the picker, from its path alone. */
export function nameOf(python: string, home = os.homedir()): string {
    const parts = python.split(/[\\/]/);
    const env = parts.length >= 3 && parts[parts.length - 2] === binDir ? parts[parts.length - 3] : undefined;
    const above = parts.length >= 4 ? parts[parts.length - 4] : undefined;
    if (env && above === "envs") {
        return `env ${env}`;
    }
    if (env && above === "versions" && parts.includes(".pyenv")) {
        return `pyenv ${env}`;
    }
    if (env) {
        return env;
    }
    return python.startsWith(home + path.sep) ? `~${python.slice(home.length)}` : python;
}

/** conda's `env list --json`: `{"envs": [prefix, ...]}`; the root prefix is `base`. */
export function condaCandidates(json: string): Candidate[] {
    let parsed: { envs?: unknown; root_prefix?: unknown };
    try {
        parsed = JSON.parse(json);
    } catch {
        return [];
    }
    const envs = Array.isArray(parsed.envs) ? parsed.envs.filter((e): e is string => typeof e === "string") : [];
    const root = typeof parsed.root_prefix === "string" ? parsed.root_prefix : undefined;
    return envs.map((env) => ({
        python: envPython(env),
        name: `env ${env === root ? "base" : path.basename(env)}`,
        source: "conda" as const,
    }));
}

/** The same environment once, the first source's: a venv's `python3` and `python` are one. */
export function dedupe(candidates: readonly Candidate[]): Candidate[] {
    const seen = new Set<string>();
    return candidates.filter((c) => {
        const base = path.basename(c.python).replace(/3(\.\d+)?(\.exe)?$/, "$2");
        const key = path.join(path.resolve(path.dirname(c.python)), base);
        if (seen.has(key)) {
            return false;
        }
        seen.add(key);
        return true;
    });
}

/** What discovery may use: everything that touches the machine, so that tests can give their own. */
export interface Machine {
    exec: Exec;
    exists(file: string): boolean;
    listDir(dir: string): string[];
    env: NodeJS.ProcessEnv;
    home: string;
}

export const thisMachine: Machine = {
    exec: execProgram,
    exists: (file) => fs.existsSync(file),
    listDir: (dir) => {
        try {
            return fs.readdirSync(dir).sort();
        } catch {
            return [];
        }
    },
    env: process.env,
    home: os.homedir(),
};

/** conda: on PATH, where `conda activate` left it ($CONDA_EXE), or an installer's default place. */
export function condaCommands(machine: Machine): string[] {
    const installs = ["miniconda3", "anaconda3", "miniforge3", "mambaforge"].map((d) => path.join(machine.home, d, binDir, "conda"));
    return [...new Set([machine.env.CONDA_EXE, "conda", ...installs, "/opt/conda/bin/conda"].filter((c): c is string => Boolean(c)))];
}

export async function condaEnvironments(machine: Machine): Promise<Candidate[]> {
    for (const conda of condaCommands(machine)) {
        if (conda !== "conda" && !machine.exists(conda)) {
            continue;
        }
        try {
            return condaCandidates(await machine.exec(conda, ["env", "list", "--json"], PROBE_TIMEOUT_MS));
        } catch {
            // not this one (not on PATH): the next place
        }
    }
    return [];
}

/** pyenv's versions (and its virtualenvs, which live there too), read from `$PYENV_ROOT/versions`. */
export function pyenvVersions(machine: Machine): Candidate[] {
    const root = machine.env.PYENV_ROOT || path.join(machine.home, ".pyenv");
    const versions = path.join(root, "versions");
    return machine
        .listDir(versions)
        .sort((a, b) => a.localeCompare(b, "en", { numeric: true }))
        .map((version) => ({ python: envPython(path.join(versions, version)), name: `pyenv ${version}`, source: "pyenv" as const }))
        .filter((c) => machine.exists(c.python));
}

export const WORKSPACE_VENVS = [".venv", "venv"];

export function workspaceVenvs(folders: readonly string[], machine: Machine): Candidate[] {
    return folders.flatMap((folder) =>
        WORKSPACE_VENVS.map((venv) => ({ python: envPython(path.join(folder, venv)), name: venv, source: "workspace" as const }))
            .filter((c) => machine.exists(c.python)),
    );
}

/**
 * The candidates not inside these folders. An untrusted workspace's interpreters are the
 * workspace's code: in Restricted Mode they are neither listed nor run to be asked.
 */
export function outside(candidates: readonly Candidate[], folders: readonly string[]): Candidate[] {
    return candidates.filter((c) => !insideUntrustedWorkspace(c.python, { trusted: false, folders }));
}

/** Every candidate, the Python extension's first (its names are the ones the user knows). */
export async function discover(pythonExtension: readonly Candidate[], folders: readonly string[], machine: Machine = thisMachine): Promise<Candidate[]> {
    const conda = await condaEnvironments(machine);
    return dedupe([...pythonExtension, ...workspaceVenvs(folders, machine), ...conda, ...pyenvVersions(machine)]);
}

function tooOld(version: string | undefined): boolean {
    const [major, minor] = (version ?? "").split(".").map(Number);
    return major < MINIMUM_PYTHON[0] || (major === MINIMUM_PYTHON[0] && minor < MINIMUM_PYTHON[1]);
}

/** Whether jobs can run there at all, and on what. */
export type Capability = "probing" | "allo" | "reference" | "none" | "too old" | "broken";

export function capability(probed: Probed | undefined): Capability {
    if (!probed) {
        return "probing";
    }
    if (probed.error || !probed.python) {
        return "broken";
    }
    if (tooOld(probed.python)) {
        return "too old";
    }
    return probed.allo ? "allo" : probed.numpy ? "reference" : "none";
}

/** Whether jobs can run there (on Allo or on the reference executor). */
export function usable(can: Capability): boolean {
    return can === "allo" || can === "reference";
}

/** Why jobs cannot run in an interpreter, one line (`broken`, `too old`, `none`); the probe's
 * raw failure made readable: Python 2 exits with "Unknown option: -I" and its usage. */
export function unusableReason(probed: Probed): string {
    const can = capability(probed);
    if (can === "too old") {
        return `Python ${probed.python}: jobs need Python ${MINIMUM_PYTHON.join(".")} or later`;
    }
    if (can === "none") {
        return `Python ${probed.python} with neither Allo nor numpy: jobs cannot run here`;
    }
    const error = (probed.error ?? "did not say what it is").split("\n")[0];
    if (/Unknown option:? -I/.test(error)) {
        return `Python 2 or older: jobs need Python ${MINIMUM_PYTHON.join(".")} or later`;
    }
    return error.length > 120 ? `${error.slice(0, 119)}…` : error;
}

/** One line saying what the interpreter has, as the picker's detail. */
export function marks(probed: Probed | undefined): string {
    const can = capability(probed);
    if (can === "probing") {
        return "$(loading~spin) asking what it can import…";
    }
    if (!usable(can)) {
        return `$(error) ${unusableReason(probed!)}`;
    }
    const allo = probed!.allo ? `$(pass-filled) Allo ${probed!.allo}` : "$(circle-slash) no Allo";
    const numpy = probed!.numpy ? `numpy ${probed!.numpy}` : "no numpy";
    const then = can === "allo" ? "" : " · jobs use the reference executor";
    return `${allo} · ${numpy} · Python ${probed!.python}${then}`;
}

export interface PickerRow {
    label: string;
    description?: string;
    detail?: string;
    /** The interpreter to store; undefined for a separator or an action. */
    python?: string;
    separator?: boolean;
    action?: "enter path" | "use server";
}

// The picker's groups, in order: what runs Allo first, what cannot run jobs last.
const GROUPS: [(can: Capability) => boolean, string][] = [
    [(can) => can === "allo", "Allo"],
    [(can) => can === "reference", "Reference executor only (numpy, no Allo)"],
    [(can) => !usable(can), "Cannot run jobs"],
];
// Until every interpreter has answered, one group in the order found.
const ASKING: [(can: Capability) => boolean, string][] = [[() => true, "Asking each what it can import…"]];

/** The picker's rows: "Enter interpreter path…" first (always in view), then the interpreters
 * that run Allo, those that run the reference executor, and last those that cannot run jobs, each
 * with a one-line reason; each group in the order found, the one in use checked, its source in the
 * description. The server's interpreter last. While any is still being asked, the interpreters stay
 * in the order found and only their marks change: a row must not move as answers come in, since
 * VS Code reports a click by the row's index in the list it showed, and a list replaced under the
 * click would choose the row that moved there. */
export function pickerRows(candidates: readonly Candidate[], probed: ReadonlyMap<string, Probed>, current: string,
    home = os.homedir()): PickerRow[] {
    const rows: PickerRow[] = [{ label: "$(folder-opened) Enter interpreter path…", action: "enter path" }];
    const short = (p: string): string => (p.startsWith(home + path.sep) ? `~${p.slice(home.length)}` : p);
    const answered = candidates.every((c) => capability(probed.get(c.python)) !== "probing");
    for (const [belongs, title] of answered ? GROUPS : ASKING) {
        const inGroup = candidates.filter((c) => belongs(capability(probed.get(c.python))));
        if (!inGroup.length) {
            continue;
        }
        rows.push({ label: title, separator: true });
        for (const c of inGroup) {
            const inUse = c.python === current;
            rows.push({
                label: `${inUse ? "$(check) " : ""}${c.name}`,
                description: `${short(c.python)} · ${c.source}`,
                detail: marks(probed.get(c.python)),
                python: c.python,
            });
        }
    }
    rows.push({ label: "", separator: true });
    rows.push({
        label: "$(server-environment) Use the language server's interpreter",
        description: current ? "clears alloDataflow.python" : "in use",
        action: "use server",
    });
    return rows;
}

/** The row the picker focuses: the interpreter in use if jobs can run there, else the first that
 * runs Allo, else the first usable one; none (the first row, Enter interpreter path…) otherwise. */
export function focusedRow(rows: readonly PickerRow[], probed: ReadonlyMap<string, Probed>, current: string): PickerRow | undefined {
    const interpreters = rows.filter((r) => r.python && usable(capability(probed.get(r.python))));
    return interpreters.find((r) => r.python === current) ?? interpreters[0];
}

/** A typed interpreter path checked with the picker's probe before it is saved: the path to
 * store (`~` expanded), or why jobs cannot run there. */
export async function checkTypedPath(typed: string, exec: Exec = execProgram, timeoutMs = PROBE_TIMEOUT_MS,
    home = os.homedir()): Promise<{ python: string } | { error: string }> {
    const python = typed === "~" || typed.startsWith("~/") ? path.join(home, typed.slice(1)) : typed;
    if (!path.isAbsolute(python)) {
        return { error: `${typed}: give the interpreter's absolute path (for example ~/miniconda3/envs/allo/bin/python)` };
    }
    const probed = await probeInterpreter(python, exec, timeoutMs);
    return usable(capability(probed)) ? { python } : { error: `${python}: ${unusableReason(probed)}. Not saved.` };
}

/** The status bar's text for the Allo environment: `Allo 0.5 · env allo`, or `reference executor`. */
export function environmentText(name: string, probed: Probed | undefined, backend: string): string {
    const can = capability(probed);
    if (can === "probing") {
        return `$(loading~spin) Allo · ${name}`;
    }
    if (can === "broken") {
        return `$(warning) Allo · ${name} cannot run`;
    }
    if (can === "too old") {
        return `$(warning) Allo · ${name} is Python ${probed!.python}`;
    }
    if (can === "none") {
        return `$(warning) no Allo, no numpy · ${name}`;
    }
    if (can === "allo" && backend !== "reference") {
        const version = probed!.allo === "?" ? "" : ` ${probed!.allo}`;
        return `$(chip) Allo${version} · ${name}`;
    }
    return `$(chip) reference executor · ${name}`;
}

/** The status item's tooltip: which interpreter, and why it runs what it runs. */
export function environmentTooltip(python: string, fromSetting: boolean, probed: Probed | undefined, backend: string,
    said?: string): string {
    const where = fromSetting ? `Jobs run in ${python} (alloDataflow.python).` : `alloDataflow.python is not set: jobs run in the language server's interpreter, ${python}.`;
    const can = capability(probed);
    // `said`: the server's word on what will run (status.ts `backendLine`), which this guess only stands in for.
    const what = said ?? (
        can === "probing" ? "Asking it what it can import…"
        : can === "broken" ? `It cannot be asked: ${probed!.error}.`
        : can === "too old" ? `It is Python ${probed!.python}: jobs need ${MINIMUM_PYTHON.join(".")} or later.`
        : can === "none" ? "Neither Allo nor numpy imports there: simulations and tests cannot run."
        : can === "allo" && backend !== "reference" ? `Allo ${probed!.allo} runs simulations and tests (alloDataflow.backend: ${backend}).`
        : backend === "reference" ? "The reference executor runs simulations and tests (alloDataflow.backend: reference)."
        : "Allo does not import there: the numpy reference executor runs simulations and tests.");
    return `${where}\n${what}\nClick to choose another interpreter.`;
}
