// Unit tests of the client's pure helpers (node's test runner): `npm run test:unit`.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
    Candidate,
    capability,
    checkTypedPath,
    condaCandidates,
    discover,
    environmentText,
    envPython,
    focusedRow,
    Machine,
    marks,
    nameOf,
    outside,
    pickerRows,
    probeInterpreter,
    PickerRow,
    Probed,
} from "../common/interpreters";
import { serverArgs } from "../common/isolation";
import { ruleOfHref, rulePageUri, showRuleLink, withRuleLinks } from "../common/ruleLinks";
import { asLevel, clientChannel, commandLine, HIDDEN_DEBUG_HINT, registerLogger, shouldLog, traceDebug, traceInfo } from "../common/logger";
import { withTrust } from "../common/settings";
import { backendLine, backendText, INSTALL_COMMAND, jobsText, Status } from "../common/status";
import { changeSettings, EventEmitter, languages, LogLevel, window as stubWindow } from "./vscode-stub";
import {
    askWithActions,
    explicitTarget,
    fileName,
    isUnknownCommand,
    LensLike,
    lensView,
    pickTarget,
    RESTRICTED_TOOLTIP,
    RUNNING_ICON,
    usesAlloDataflow,
} from "../common/targets";

const uri = "file:///w/design.py";
const lens = (line: number, command: string, name: string): LensLike => ({
    range: { start: { line } },
    command: { command, arguments: [uri, name] },
});
const LENSES = [
    lens(40, "alloDataflow.run", "test_top"),
    lens(10, "alloDataflow.simulate", "top"),
    lens(10, "alloDataflow.showMlir", "top"),
    lens(25, "alloDataflow.simulate", "other"),
];

test("the lens nearest at or above the cursor is the target", () => {
    assert.deepEqual(pickTarget(LENSES, ["alloDataflow.simulate"], 10), { uri, name: "top" });
    assert.deepEqual(pickTarget(LENSES, ["alloDataflow.simulate"], 24), { uri, name: "top" });
    assert.deepEqual(pickTarget(LENSES, ["alloDataflow.simulate"], 60), { uri, name: "other" });
    assert.deepEqual(pickTarget(LENSES, ["alloDataflow.run"], 60), { uri, name: "test_top" });
});

test("above every lens: the only one, else nothing", () => {
    assert.deepEqual(pickTarget(LENSES, ["alloDataflow.run"], 0), { uri, name: "test_top" });
    assert.equal(pickTarget(LENSES, ["alloDataflow.simulate"], 0), undefined);
});

test("a command without lenses of its own falls back to the next lens command", () => {
    assert.deepEqual(pickTarget(LENSES, ["alloDataflow.synthesize", "alloDataflow.simulate"], 30), { uri, name: "other" });
    assert.equal(pickTarget([], ["alloDataflow.simulate"], 3), undefined);
});

test("only [uri, name] string arguments are an explicit target", () => {
    assert.deepEqual(explicitTarget([uri, "top"]), { uri, name: "top" });
    assert.equal(explicitTarget([]), undefined);
    assert.equal(explicitTarget([{ scheme: "file" }]), undefined); // a menu passes the editor's Uri
});

test("Allo dataflow documents are recognised", () => {
    assert.ok(usesAlloDataflow("import allo\nimport allo.dataflow as df\n"));
    assert.ok(usesAlloDataflow("from allo import dataflow as df\n"));
    assert.ok(usesAlloDataflow("from allo.dataflow import region\n"));
    assert.ok(usesAlloDataflow("x = 1\n@df.region()\ndef top(): pass\n"));
    assert.ok(!usesAlloDataflow("import allo\nimport numpy as np\n"));
    assert.ok(!usesAlloDataflow("# allo.dataflow is great\nimport os\n"));
});

test("a document of many blank lines is recognised in linear time", () => {
    const started = Date.now();
    assert.ok(!usesAlloDataflow("\n".repeat(40_000) + " \r\n".repeat(20_000) + "import os\n"));
    assert.ok(usesAlloDataflow("\n".repeat(40_000) + " \t\f\r\n  import allo.dataflow as df\n"));
    assert.ok(Date.now() - started < 2000); // a stall bound: the old `^\s*` took about 6 s
});

test("the workspace's trust is put into the server's section, whatever the settings say", () => {
    const items = [{ section: "alloDataflow" }, { section: "python" }];
    assert.deepEqual(withTrust(items, [{ backend: "reference", trusted: true }, { x: 1 }], false), [
        { backend: "reference", trusted: false },
        { x: 1 },
    ]);
    assert.deepEqual(withTrust([{ section: "alloDataflow" }], [null], true), [{ trusted: true }]);
});

test("a server without a command is told apart from a command that failed", () => {
    assert.ok(isUnknownCommand({ code: -32602, message: "Command name 'alloDataflow.synthesize' is not defined" }));
    assert.ok(isUnknownCommand({ code: -32601, message: "Unknown command alloDataflow.showReport" }));
    assert.ok(!isUnknownCommand({ code: -32602, message: "expected the arguments [uri, name]" }));
    assert.ok(!isUnknownCommand({ code: -32603, message: "Command name 'x' is not defined" }));
    assert.ok(!isUnknownCommand(undefined));
});

test("the server starts isolated: the workspace (its working directory) is not on sys.path", () => {
    assert.deepEqual(serverArgs("allo_lsp"), ["-I", "-u", "-m", "allo_lsp", "serve"]);
});

// -- The Allo environment: which interpreters the picker lists, and how it marks them ------------

const HOME = "/home/u";

/** A machine with the given files, directories and program answers; nothing else exists. */
function fakeMachine(files: string[], answers: Record<string, string>, env: NodeJS.ProcessEnv = {}): Machine & { ran: string[] } {
    const ran: string[] = [];
    return {
        ran,
        exec: async (command, args) => {
            ran.push([command, ...args].join(" "));
            const answer = answers[command];
            if (answer === undefined) {
                throw new Error("not found");
            }
            return answer;
        },
        exists: (file) => files.some((f) => f === file || f.startsWith(`${file}/`)),
        listDir: (dir) => [...new Set(files.filter((f) => f.startsWith(`${dir}/`)).map((f) => f.slice(dir.length + 1).split("/")[0]))].sort(),
        env,
        home: HOME,
    };
}

test("conda's env list: base and each environment, named as `conda activate` names them", () => {
    const json = JSON.stringify({ envs: ["/opt/conda", "/opt/conda/envs/allo", "/home/u/envs/hls"], root_prefix: "/opt/conda" });
    assert.deepEqual(condaCandidates(json), [
        { python: "/opt/conda/bin/python", name: "env base", source: "conda" },
        { python: "/opt/conda/envs/allo/bin/python", name: "env allo", source: "conda" },
        { python: "/home/u/envs/hls/bin/python", name: "env hls", source: "conda" },
    ]);
    assert.deepEqual(condaCandidates("conda: command not found"), []);
    assert.deepEqual(condaCandidates(JSON.stringify({ envs: "nope" })), []);
});

test("the picker lists the Python extension's, the workspace's venvs, conda's and pyenv's, each once", async () => {
    const machine = fakeMachine(
        ["/w/.venv/bin/python", "/w/venv/bin/python", "/home/u/.pyenv/versions/3.12.1/bin/python", "/home/u/.pyenv/versions/broken/lib/x"],
        { "/home/u/miniconda3/bin/conda": JSON.stringify({ envs: ["/home/u/miniconda3", "/home/u/miniconda3/envs/allo"], root_prefix: "/home/u/miniconda3" }) },
    );
    machine.exists = ((exists) => (file: string) => file === "/home/u/miniconda3/bin/conda" || exists(file))(machine.exists);
    // The Python extension knows the conda env as `python3`: the same environment, listed once, by its name.
    const fromExtension: Candidate[] = [{ python: "/home/u/miniconda3/envs/allo/bin/python3", name: "allo", source: "Python extension" }];
    const found = await discover(fromExtension, ["/w"], machine);
    assert.deepEqual(found.map((c) => [c.source, c.name, c.python]), [
        ["Python extension", "allo", "/home/u/miniconda3/envs/allo/bin/python3"],
        ["workspace", ".venv", "/w/.venv/bin/python"],
        ["workspace", "venv", "/w/venv/bin/python"],
        ["conda", "env base", "/home/u/miniconda3/bin/python"],
        ["pyenv", "pyenv 3.12.1", "/home/u/.pyenv/versions/3.12.1/bin/python"],
    ]);
    // conda was asked for its list (PATH's `conda` is missing here, the installer's default is not); nothing else ran.
    assert.deepEqual(machine.ran, ["conda env list --json", "/home/u/miniconda3/bin/conda env list --json"]);
});

test("without conda, pyenv or venvs the list is the Python extension's alone (or empty)", async () => {
    const machine = fakeMachine([], {});
    assert.deepEqual(await discover([], ["/w"], machine), []);
    const one: Candidate[] = [{ python: "/usr/bin/python3", name: "Python 3.12", source: "Python extension" }];
    assert.deepEqual(await discover(one, [], machine), one);
});

test("PYENV_ROOT and CONDA_EXE are where pyenv and conda are looked for first", async () => {
    const machine = fakeMachine(["/p/versions/3.11.7/bin/python", "/p/versions/3.9.18/bin/python", "/c/bin/conda"], { "/c/bin/conda": JSON.stringify({ envs: ["/c/envs/x"] }) },
        { PYENV_ROOT: "/p", CONDA_EXE: "/c/bin/conda" });
    const found = await discover([], [], machine);
    assert.deepEqual(found.map((c) => c.name), ["env x", "pyenv 3.9.18", "pyenv 3.11.7"]); // versions in version order
    assert.equal(machine.ran[0], "/c/bin/conda env list --json");
});

test("an interpreter's name from its path", () => {
    assert.equal(nameOf("/home/u/miniconda3/envs/allo/bin/python", HOME), "env allo");
    assert.equal(nameOf("/home/u/.pyenv/versions/3.12.1/bin/python", HOME), "pyenv 3.12.1");
    assert.equal(nameOf("/w/.venv/bin/python", HOME), ".venv");
    assert.equal(nameOf("/home/u/python3", HOME), "~/python3");
});

const ALLO: Probed = { python: "3.12.1", allo: "0.5.1", numpy: "1.26.4" };
const NUMPY_ONLY: Probed = { python: "3.13.0", numpy: "2.1.0", alloError: "ModuleNotFoundError: No module named 'allo'" };
const NEITHER: Probed = { python: "3.12.1" };

test("each interpreter is marked with Allo and its version, numpy, and what jobs then run on", () => {
    assert.equal(capability(undefined), "probing");
    assert.equal(capability(ALLO), "allo");
    assert.equal(capability(NUMPY_ONLY), "reference");
    assert.equal(capability(NEITHER), "none");
    assert.equal(capability({ python: "3.8.18", allo: "0.4", numpy: "1.24" }), "too old");
    assert.equal(capability({ error: "did not answer within 20 s" }), "broken");
    assert.match(marks(ALLO), /Allo 0\.5\.1 · numpy 1\.26\.4 · Python 3\.12\.1$/);
    assert.match(marks(NUMPY_ONLY), /no Allo · numpy 2\.1\.0 · Python 3\.13\.0 · jobs use the reference executor/);
    assert.match(marks(NEITHER), /^\$\(error\) Python 3\.12\.1 with neither Allo nor numpy: jobs cannot run here$/);
    assert.match(marks({ python: "3.8.18" }), /Python 3\.8\.18: jobs need Python 3\.10 or later/);
    assert.match(marks({ error: "did not answer within 20 s" }), /did not answer within 20 s/);
    assert.match(marks(undefined), /asking/);
});

test("the picker's rows: Enter interpreter path first, those that run Allo, then the reference executor's, those asked, those that cannot run jobs last", () => {
    const candidates: Candidate[] = [
        { python: "/p/versions/2.7.18/bin/python", name: "pyenv 2.7.18", source: "pyenv" }, // found first
        { python: "/w/.venv/bin/python", name: ".venv", source: "workspace" },
        { python: "/p/versions/3.12.1/bin/python", name: "pyenv 3.12.1", source: "pyenv" },
        { python: "/c/envs/allo/bin/python", name: "env allo", source: "conda" },
        { python: "/usr/bin/python3", name: "/usr/bin/python3", source: "Python extension" },
    ];
    const probed = new Map<string, Probed>([
        ["/p/versions/2.7.18/bin/python", { error: "exited with 2: Unknown option: -I" }],
        ["/w/.venv/bin/python", NUMPY_ONLY],
        ["/c/envs/allo/bin/python", ALLO],
        ["/usr/bin/python3", NEITHER],
    ]);
    // pyenv 3.12.1 not answered yet: every row where it was found, whatever the others answered,
    // so no answer moves a row under the user's click (VS Code reports a click by the row's index).
    const labels = (rs: PickerRow[]) => rs.map((r) => (r.separator ? `-- ${r.label}` : r.label));
    const asking = [
        "$(folder-opened) Enter interpreter path…",
        "-- Asking each what it can import…",
        "pyenv 2.7.18",
        "$(check) .venv",
        "pyenv 3.12.1",
        "env allo",
        "/usr/bin/python3",
        "-- ",
        "$(server-environment) Use the language server's interpreter",
    ];
    assert.deepEqual(labels(pickerRows(candidates, new Map(), "/w/.venv/bin/python", HOME)), asking);
    assert.deepEqual(labels(pickerRows(candidates, probed, "/w/.venv/bin/python", HOME)), asking);
    assert.match(pickerRows(candidates, probed, "", HOME)[5].detail!, /Allo 0\.5/, "each answer shows in its row at once");
    probed.set("/p/versions/3.12.1/bin/python", { error: "timed out" });
    const rows = pickerRows(candidates, probed, "/w/.venv/bin/python", HOME);
    assert.deepEqual(labels(rows), [
        "$(folder-opened) Enter interpreter path…",
        "-- Allo",
        "env allo",
        "-- Reference executor only (numpy, no Allo)",
        "$(check) .venv",
        "-- Cannot run jobs",
        "pyenv 2.7.18",
        "pyenv 3.12.1",
        "/usr/bin/python3",
        "-- ",
        "$(server-environment) Use the language server's interpreter",
    ]);
    const row = (name: string) => rows.find((r) => r.label.endsWith(name))!;
    assert.equal(row("env allo").python, "/c/envs/allo/bin/python");
    assert.equal(row("env allo").description, "/c/envs/allo/bin/python · conda");
    assert.equal(row("pyenv 2.7.18").detail, "$(error) Python 2 or older: jobs need Python 3.10 or later", "one line, not the raw error");
    assert.match(row("/usr/bin/python3").detail!, /neither Allo nor numpy/);
    assert.ok(rows.every((r) => !(r.detail ?? "").includes("\n")));
    // Focused: the one in use when jobs can run there, else the first that runs Allo; never one that cannot.
    assert.equal(focusedRow(rows, probed, "/w/.venv/bin/python")?.python, "/w/.venv/bin/python");
    assert.equal(focusedRow(rows, probed, "/p/versions/2.7.18/bin/python")?.python, "/c/envs/allo/bin/python");
    assert.equal(focusedRow(pickerRows([candidates[0]], probed, "", HOME), probed, ""), undefined, "then the first row: Enter interpreter path…");
    assert.equal(rows.at(-1)!.action, "use server");
    assert.equal(rows.at(-1)!.description, "clears alloDataflow.python");
    assert.equal(pickerRows([], new Map(), "", HOME).at(-1)!.description, "in use");
});

test("a typed interpreter path is probed before it is saved: a Python 2, a missing file, a relative path are refused, saying why", async () => {
    const dir = mkdtempSync(join(tmpdir(), "allo-typed-"));
    try {
        const python2 = join(dir, "python2.7");
        // What Python 2.7 does with the probe's -I: its usage on stderr, exit status 2.
        writeFileSync(python2, "#!/bin/sh\necho 'Unknown option: -I' >&2\necho 'usage: python2.7 [option] ...' >&2\nexit 2\n");
        chmodSync(python2, 0o755);
        assert.deepEqual(await checkTypedPath(python2), { error: `${python2}: Python 2 or older: jobs need Python 3.10 or later. Not saved.` });
        assert.deepEqual(await checkTypedPath(join(dir, "nothing")), { error: `${join(dir, "nothing")}: not found. Not saved.` });
        assert.match((await checkTypedPath("bin/python") as { error: string }).error, /absolute path/);
        if (PYTHON) {
            const venv = join(dir, "env");
            execFileSync(PYTHON, ["-m", "venv", "--without-pip", venv]);
            const [site] = readdirSync(join(venv, "lib")).map((v) => join(venv, "lib", v, "site-packages"));
            assert.match((await checkTypedPath(envPython(venv)) as { error: string }).error, /neither Allo nor numpy/);
            mkdirSync(join(site, "numpy"));
            writeFileSync(join(site, "numpy", "__init__.py"), "__version__ = '2.0.1'\n");
            assert.deepEqual(await checkTypedPath(envPython(venv)), { python: envPython(venv) });
            assert.deepEqual(await checkTypedPath("~/env/bin/python", undefined, undefined, dir), { python: envPython(venv) });
        }
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
});

test("the status bar says which Allo runs jobs, or that the reference executor does", () => {
    assert.equal(environmentText("env allo", ALLO, "auto"), "$(chip) Allo 0.5.1 · env allo");
    assert.equal(environmentText("env allo", { ...ALLO, allo: "?" }, "allo"), "$(chip) Allo · env allo");
    assert.equal(environmentText("env allo", ALLO, "reference"), "$(chip) reference executor · env allo");
    assert.equal(environmentText(".venv", NUMPY_ONLY, "auto"), "$(chip) reference executor · .venv");
    assert.equal(environmentText(".venv", NEITHER, "auto"), "$(warning) no Allo, no numpy · .venv");
    assert.match(environmentText(".venv", undefined, "auto"), /^\$\(loading~spin\) Allo · \.venv$/);
});

test("the status bar shows the backend the server says will run, and why (allo/backend)", () => {
    // Allo imports, but no LLVM build: the server says the reference executor runs, not Allo.
    const noLlvm = { backend: "reference", reason: "LLVM_BUILD_DIR is not set", python: "/e/bin/python", allo: "0.5.1" };
    assert.equal(backendText("env allo", noLlvm), "$(chip) reference executor · env allo");
    assert.equal(backendLine(noLlvm), "The reference executor (numpy, not Allo's simulator) runs simulations and tests: LLVM_BUILD_DIR is not set.");
    const allo = { backend: "allo", reason: "Allo 0.5.1 with the LLVM build at /llvm", python: "/e/bin/python", allo: "0.5.1" };
    assert.equal(backendText("env allo", allo), "$(chip) Allo 0.5.1 · env allo");
    assert.equal(backendLine(allo), "Allo's simulator runs simulations and tests: Allo 0.5.1 with the LLVM build at /llvm.");
    assert.equal(backendText("env allo", { ...allo, allo: "?" }), "$(chip) Allo · env allo");
    const none = { backend: "", reason: "the workspace is not trusted: no job runs", python: "/e/bin/python", allo: null };
    assert.equal(backendText(".venv", none), "$(warning) no jobs run · .venv");
    // The probe's warning says why better than the server's "no jobs run", and the text does not flip.
    assert.equal(backendText(".venv", none, "$(warning) no Allo, no numpy · .venv"), "$(warning) no Allo, no numpy · .venv");
    assert.equal(backendText(".venv", none, "$(chip) reference executor · .venv"), "$(warning) no jobs run · .venv");
    assert.equal(backendLine(none), "No simulation or test runs: the workspace is not trusted: no job runs.");
});

// A real interpreter, in a venv made here: what the probe reports is what that venv imports.
const PYTHON = (() => {
    for (const candidate of ["python3", "python"]) {
        try {
            execFileSync(candidate, ["-c", "import venv"], { stdio: "ignore" });
            return candidate;
        } catch {
            // the next
        }
    }
    return undefined;
})();

test("the probe asks the interpreter itself: allo's and numpy's versions as that environment has them", { skip: !PYTHON && "no python3" }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "allo-probe-"));
    try {
        const venv = join(dir, "env");
        execFileSync(PYTHON!, ["-m", "venv", "--without-pip", venv]);
        const python = envPython(venv);
        const [site] = readdirSync(join(venv, "lib")).map((v) => join(venv, "lib", v, "site-packages"));
        assert.deepEqual(await probeInterpreter(python), {
            python: execFileSync(python, ["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"]).toString().trim(),
            allo: undefined,
            alloError: "ModuleNotFoundError: No module named 'allo'",
            numpy: undefined,
        });
        mkdirSync(join(site, "allo"));
        writeFileSync(join(site, "allo", "__init__.py"), "__version__ = '0.9.1'\n");
        mkdirSync(join(site, "numpy"));
        writeFileSync(join(site, "numpy", "__init__.py"), "__version__ = '2.0.1'\nprint('numpy says hello')\n");
        const probed = await probeInterpreter(python);
        assert.equal(probed.allo, "0.9.1");
        assert.equal(probed.numpy, "2.0.1"); // what a package prints on import does not confuse the answer
        assert.equal(capability(probed), "allo");
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
});

test("an interpreter that does not answer in time, or does not exist, is marked so", async () => {
    const dir = mkdtempSync(join(tmpdir(), "allo-probe-"));
    try {
        const hangs = join(dir, "python");
        writeFileSync(hangs, "#!/bin/sh\nexec sleep 60\n");
        chmodSync(hangs, 0o755);
        const started = Date.now();
        assert.deepEqual(await probeInterpreter(hangs, undefined, 1000), { error: "did not answer within 1 s" });
        assert.ok(Date.now() - started < 10_000);
        assert.deepEqual(await probeInterpreter(join(dir, "missing", "python")), { error: "not found" });
        const notPython = join(dir, "echo");
        writeFileSync(notPython, "#!/bin/sh\necho hello\n");
        chmodSync(notPython, 0o755);
        assert.deepEqual(await probeInterpreter(notPython), { error: "is not a Python this extension can ask" });
        const python2 = join(dir, "python2");
        writeFileSync(python2, "#!/bin/sh\necho 'Unknown option: -I' >&2\necho 'Try python -h' >&2\nexit 2\n");
        chmodSync(python2, 0o755);
        assert.deepEqual(await probeInterpreter(python2), { error: "exited with 2: Unknown option: -I" });
    } finally {
        rmSync(dir, { recursive: true, force: true });
    }
});

// -- Jobs: one status item and the running lens in the same words; Restricted Mode lenses -----------

const KINDS = { "alloDataflow.simulate": "simulate", "alloDataflow.run": "run" };

test("the running lens is the server's: its hourglass drawn as a codicon, its cancel command and arguments kept; the client adds no running state", () => {
    const serverRunning = { title: "⏳ running… (click to cancel)", command: "alloDataflow.cancelJob", arguments: [uri, "top", "synthesize"] };
    assert.deepEqual(lensView(serverRunning, true, KINDS), { ...serverRunning, title: "$(sync~spin) running… (click to cancel)" });
    assert.ok(RUNNING_ICON.startsWith("$("), "a codicon, not ⏳ (a box in some fonts)");
    assert.deepEqual(lensView(serverRunning, false, KINDS).title, "$(sync~spin) running… (click to cancel)", "cancelling is allowed in Restricted Mode");
    // A job the server does not (yet) say runs is drawn as the server sent it.
    const simulate = { title: "▶ Simulate: ✓ passed 1.2 s", command: "alloDataflow.simulate", arguments: [uri, "top"] };
    assert.deepEqual(lensView(simulate, true, KINDS), simulate);
});

test("in Restricted Mode a job's lens shows it is locked; other lenses are left alone", () => {
    const simulate = { title: "▶ Simulate", command: "alloDataflow.simulate", arguments: [uri, "top"] };
    assert.deepEqual(lensView(simulate, false, KINDS), { ...simulate, title: "$(lock) Simulate", tooltip: RESTRICTED_TOOLTIP });
    const report = { title: "Report", command: "alloDataflow.showReport", arguments: [uri, "top"] };
    assert.deepEqual(lensView(report, false, KINDS), report);
});

test("the job's status item says what the running lens says", () => {
    assert.deepEqual(jobsText(["top simulate"]), { text: "$(sync~spin) Allo: top simulate running…", tooltip: "top simulate: running… (click to cancel)" });
    assert.match(lensView({ title: "⏳ running… (click to cancel)", command: "alloDataflow.cancelJob" }, true, KINDS).title, /running… \(click to cancel\)/);
    assert.match(jobsText(["top simulate", "test_top run"]).text, /Allo: 2 jobs running…$/);
    assert.equal(fileName("file:///w/my%20designs/top.py"), "top.py");
});

test("the 'not installed' status keeps its Install action in view: a short line, the explanation in the action's tooltip", () => {
    const item: Record<string, any> = { dispose() {} };
    Object.assign(languages, { createLanguageStatusItem: () => item });
    Object.assign(stubWindow, { createStatusBarItem: () => ({ show() {}, hide() {}, dispose() {} }) });
    const status = new Status();
    try {
        const why = "The Allo language server (allo_lsp) is not installed in /usr/bin/python3. Install it into a private " +
            "environment of this extension? (Its dependencies come from the wheels this extension carries, no network needed.)";
        status.setServer("not installed", why);
        // VS Code writes text, detail and the action on one line of the hover (about 40 characters are seen).
        assert.ok(`${item.text} ${item.detail}`.length <= 40, `${item.text} ${item.detail}`);
        assert.deepEqual(item.command, { title: "Install", command: INSTALL_COMMAND, tooltip: why });
        status.setServer("running");
        assert.deepEqual([item.text, item.detail, item.command.title], ["Allo: running", "", "Show Output"]);
    } finally {
        status.dispose();
    }
});

test("a rule's page link becomes a command that opens it rendered, read-only; other links are kept", () => {
    const page = "file:///home/u/.vscode/ext/venv/lib/python3.12/site-packages/allo_lsp/docs/rules/ADF011.md";
    assert.equal(ruleOfHref(page), "ADF011");
    assert.equal(ruleOfHref("file:///w/server/allo_lsp/docs/rules/ADF005.md"), "ADF005", "an editable install's too");
    assert.equal(ruleOfHref("https://example.com/allo_lsp/docs/rules/ADF011.md"), undefined);
    assert.equal(ruleOfHref("file:///w/docs/ADF011.md"), undefined);
    assert.equal(showRuleLink("ADF011"), "command:alloDataflow.showRule?%5B%22ADF011%22%5D");
    assert.deepEqual(JSON.parse(decodeURIComponent(showRuleLink("ADF011").split("?")[1])), ["ADF011"]);
    assert.equal(rulePageUri("ADF011"), "allo-rule:/ADF011.md");
    const uri = (text: string) => ({ toString: () => text }) as any;
    const diagnostics: any[] = [
        { message: "a", code: { value: "ADF011", target: uri(page) } },
        { message: "b", code: "ADF900" },
        { message: "c", code: { value: "X1", target: uri("https://docs.example/X1") } },
    ];
    const remembered: [string, string][] = [];
    withRuleLinks(diagnostics, (code) => uri(showRuleLink(code)), (code, target) => remembered.push([code, target.toString()]));
    assert.deepEqual(diagnostics.map((d) => (typeof d.code === "object" ? [d.code.value, d.code.target.toString()] : d.code)), [
        ["ADF011", "command:alloDataflow.showRule?%5B%22ADF011%22%5D"],
        "ADF900",
        ["X1", "https://docs.example/X1"],
    ]);
    assert.deepEqual(remembered, [["ADF011", page]], "only the pages the server linked are read");
});

test("logLevel: what is written at each setting; anything else is info", () => {
    assert.ok(shouldLog("error", "error") && !shouldLog("warn", "error"));
    assert.ok(shouldLog("info", "info") && !shouldLog("debug", "info"));
    assert.ok(shouldLog("debug", "debug"));
    assert.equal(asLevel("debug"), "debug");
    assert.equal(asLevel("verbose"), "info");
    assert.equal(asLevel(undefined), "info");
});

/** An output channel that keeps what is written to it, at the level VS Code would show it at. */
function fakeOutput(level = LogLevel.Info) {
    const lines: string[] = [];
    const levelChanged = new EventEmitter<LogLevel>();
    const at = (name: string, min: LogLevel) => (message: string) => void (level <= min && lines.push(`${name} ${message}`));
    const output = {
        name: "Allo Dataflow",
        get logLevel() {
            return level;
        },
        onDidChangeLogLevel: levelChanged.event,
        trace: at("trace", LogLevel.Trace),
        debug: at("debug", LogLevel.Debug),
        info: at("info", LogLevel.Info),
        warn: at("warn", LogLevel.Warning),
        error: at("error", LogLevel.Error),
        append: (v: string) => lines.push(`append ${v}`),
        appendLine: (v: string) => lines.push(`line ${v}`),
    };
    return { output: output as any, lines, setLevel: (l: LogLevel) => ((level = l), levelChanged.fire(l)) };
}

test("logLevel decides what the client and the server (through the client's channel) write", () => {
    const { output, lines } = fakeOutput();
    const logger = registerLogger(output);
    const lsp = clientChannel(output);
    try {
        changeSettings({ logLevel: "warn" });
        traceInfo("client info");
        lsp.info("server info");
        lsp.warn("server warning");
        lsp.error("server error");
        assert.deepEqual(lines, ["warn server warning", "error server error"]);
        lines.length = 0;
        changeSettings({ logLevel: "debug" });
        traceDebug("client debug"); // the channel's own level (Info) hides a debug line: it says so, once
        lsp.debug("server debug");
        assert.deepEqual(lines, [`info ${HIDDEN_DEBUG_HINT}`]);
    } finally {
        changeSettings({ logLevel: undefined });
        lsp.dispose();
        logger.dispose();
    }
});

test("a debug line is tagged once, by the channel's own level: never [info] [debug]", () => {
    const { output, lines, setLevel } = fakeOutput(LogLevel.Debug);
    const logger = registerLogger(output);
    const lsp = clientChannel(output);
    try {
        changeSettings({ logLevel: "debug" });
        traceDebug("client debug");
        lsp.debug("server debug");
        lsp.appendLine("server log line"); // how vscode-languageclient writes a window/logMessage of type Log
        lsp.info("server info");
        assert.deepEqual(lines, ["debug client debug", "debug server debug", "debug server log line", "info server info"]);
        setLevel(LogLevel.Info);
        lines.length = 0;
        lsp.debug("hidden");
        lsp.debug("hidden again");
        assert.deepEqual(lines, [`info ${HIDDEN_DEBUG_HINT}`]);
        assert.ok(lines.every((l) => !l.includes("[debug]")));
    } finally {
        changeSettings({ logLevel: undefined });
        lsp.dispose();
        logger.dispose();
    }
});

test("trace.server alone turns the protocol trace on: the client library sees Trace, and its lines are written", () => {
    const { output, lines } = fakeOutput(LogLevel.Info);
    const lsp = clientChannel(output);
    const seen: LogLevel[] = [];
    const watching = lsp.onDidChangeLogLevel((l) => seen.push(l));
    try {
        assert.equal(lsp.logLevel, LogLevel.Info);
        lsp.trace("[Trace] Sending request 'initialize - (0)'");
        assert.deepEqual(lines, []);
        changeSettings({ "trace.server": "messages" });
        assert.deepEqual(seen, [LogLevel.Trace]); // vscode-languageclient asks the server to trace on this event
        assert.equal(lsp.logLevel, LogLevel.Trace);
        lsp.trace("[Trace] Sending request 'initialize - (0)'");
        assert.deepEqual(lines, ["info [Trace] Sending request 'initialize - (0)'"]);
        changeSettings({ "trace.server": "off" });
        assert.deepEqual(seen, [LogLevel.Trace, LogLevel.Info]);
    } finally {
        changeSettings({ "trace.server": undefined });
        watching.dispose();
        lsp.dispose();
    }
});

test("a command line in the log shows a -c script as its size", () => {
    assert.equal(commandLine("/v/bin/python", ["-I", "-c", "import a\nimport b\nprint(1)\n", "allo_lsp"]), "/v/bin/python -I -c <script, 3 lines> allo_lsp");
    assert.equal(commandLine("python3", ["-m", "venv", "/x"]), "python3 -m venv /x");
});

test("in Restricted Mode the workspace's own interpreters are not candidates (asking one runs it)", () => {
    const candidates: Candidate[] = [
        { python: "/w/.venv/bin/python", name: ".venv", source: "workspace" },
        { python: "/w/sub/../.venv2/bin/python", name: "x", source: "Python extension" },
        { python: "/wx/.venv/bin/python", name: "other folder", source: "Python extension" },
        { python: "/home/u/miniconda3/envs/allo/bin/python", name: "env allo", source: "conda" },
    ];
    assert.deepEqual(outside(candidates, ["/w"]).map((c) => c.name), ["other folder", "env allo"]);
    assert.deepEqual(outside(candidates, []), candidates);
});

test("an environment failure's message: its actions run Open Settings and Select Interpreter", async () => {
    const ran: unknown[][] = [];
    const run = async (command: string, ...args: unknown[]) => ran.push([command, ...args]);
    const params = { type: 1, message: "allo-lsp: [top] error: no-such-python", actions: [{ title: "Open Settings" }, { title: "Select Interpreter" }] };
    const shown: unknown[] = [];
    const choose = (title: string | undefined) => async (type: number, message: string, titles: string[]) => {
        shown.push([type, message, titles]);
        return title;
    };
    assert.deepEqual(await askWithActions(params, choose("Select Interpreter"), run), { title: "Select Interpreter" });
    assert.deepEqual(await askWithActions(params, choose("Open Settings"), run), { title: "Open Settings" });
    assert.equal(await askWithActions(params, choose(undefined), run), null); // dismissed: nothing run
    assert.deepEqual(ran, [["alloDataflow.selectInterpreter"], ["workbench.action.openSettings", "alloDataflow"]]);
    assert.deepEqual(shown[0], [1, params.message, ["Open Settings", "Select Interpreter"]]);
});
