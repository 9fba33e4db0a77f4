// The Allo environment, as the user sees and chooses it: "Allo: Select Interpreter" (a quick pick
// like the Python extension's, listing what interpreters.ts finds, each marked with what it can
// import) stores the choice in `alloDataflow.python`, the interpreter jobs run in; the language
// server keeps its own interpreter (`alloDataflow.server.python`, or the private environment). A
// status bar item in Allo files says what jobs run on (`Allo 0.5 · env allo`, or `reference
// executor · ...`), as the server says it (`allo/backend`) once it runs, and opens the picker.
import { ConfigurationTarget, Disposable, ProgressLocation, QuickPickItem, QuickPickItemKind, StatusBarItem, window } from "vscode";
import { AlloFiles } from "./alloFiles";
import { insideUntrustedWorkspace } from "./isolation";
import {
    Candidate,
    checkTypedPath,
    discover,
    environmentText,
    environmentTooltip,
    focusedRow,
    nameOf,
    outside,
    PickerRow,
    pickerRows,
    probeAll,
    Probed,
    probeInterpreter,
} from "./interpreters";
import { traceDebug, traceInfo } from "./logger";
import { BackendChoice, backendLine, backendText } from "./status";
import { knownEnvironments } from "./python";
import { ENVIRONMENT_SETTINGS, getJobSettings, SECTION } from "./settings";
import {
    activeTextEditor,
    createStatusBarItem,
    getConfiguration,
    isTrusted,
    onDidChangeActiveTextEditor,
    onDidChangeConfiguration,
    onDidGrantWorkspaceTrust,
    workspaceFolderPaths,
} from "./vscodeapi";

export const SELECT_INTERPRETER = "alloDataflow.selectInterpreter";
/** What the status bar calls the server's interpreter when `alloDataflow.python` is not set. */
export const SERVER_ENV = "server env";

interface Row extends QuickPickItem {
    row: PickerRow;
}

export class AlloEnvironment implements Disposable {
    private readonly item: StatusBarItem;
    private readonly listeners: Disposable[];
    private serverPython: string | undefined;
    private askBackend: (() => Promise<BackendChoice>) | undefined;
    /** Bumped by each refresh: an older probe that answers late is not shown. */
    private generation = 0;

    constructor(private readonly files: AlloFiles) {
        this.item = createStatusBarItem("alloDataflow.environment", "Allo environment");
        this.item.command = SELECT_INTERPRETER;
        this.listeners = [
            onDidChangeConfiguration((e) => {
                if (ENVIRONMENT_SETTINGS.some((name) => e.affectsConfiguration(`${SECTION}.${name}`))) {
                    void this.refresh();
                }
            }),
            onDidChangeActiveTextEditor(() => this.updateVisibility()),
            onDidGrantWorkspaceTrust(() => void this.refresh()),
            files.onDidChange(() => this.updateVisibility()),
        ];
        void this.refresh();
    }

    /** The interpreter the server runs in: jobs' when `alloDataflow.python` is empty. */
    setServerPython(python: string | undefined): void {
        if (python !== this.serverPython) {
            this.serverPython = python;
            void this.refresh();
        }
    }

    /** Probes the interpreter jobs use now and shows what it runs. */
    async refresh(): Promise<void> {
        const generation = ++this.generation;
        const { python: configured, backend } = getJobSettings();
        const python = configured || this.serverPython;
        if (!python) {
            this.item.text = "$(chip) Allo";
            this.item.tooltip = "The language server has not started yet: jobs run in its interpreter until you choose one.\nClick to choose.";
            this.updateVisibility();
            return;
        }
        const name = configured ? nameOf(python) : SERVER_ENV;
        if (insideUntrustedWorkspace(python)) {
            this.item.text = `$(lock) Allo · ${name}`;
            this.item.tooltip = `Jobs would run in ${python}, which is inside this untrusted workspace: it is not run, not even to ask it what it has.\nClick to choose another interpreter.`;
            this.updateVisibility();
            return;
        }
        this.item.text = environmentText(name, undefined, backend);
        this.item.tooltip = environmentTooltip(python, Boolean(configured), undefined, backend);
        this.updateVisibility();
        const probed = await probeInterpreter(python);
        if (generation !== this.generation) {
            return;
        }
        this.item.text = environmentText(name, probed, backend);
        this.item.tooltip = environmentTooltip(python, Boolean(configured), probed, backend);
        traceInfo(`Allo environment: ${python}: ${describe(probed)}`);
        // What will run is the server's word (it checks the LLVM build and asks the job's path):
        // the guess above only stands in until it answers.
        const choice = await this.askBackend?.().catch(() => undefined);
        if (choice && generation === this.generation) {
            // Its interpreter too: the one jobs run in, the setting as the server expanded it
            // (settings.py `expand_path`, as `expandPath` here), or its own.
            const ran = choice.python || python;
            this.item.text = backendText(configured ? nameOf(ran) : SERVER_ENV, choice, this.item.text);
            this.item.tooltip = environmentTooltip(ran, Boolean(configured), probed, backend, backendLine(choice));
            traceInfo(`Allo environment: simulations and tests run on ${choice.backend || "nothing"}: ${choice.reason}`);
        }
    }

    /** How to ask the running server which backend will run (`allo/backend`); undefined: no server. */
    setBackendSource(ask: (() => Promise<BackendChoice>) | undefined): void {
        this.askBackend = ask;
        void this.refresh();
    }

    private updateVisibility(): void {
        if (this.files.has(activeTextEditor()?.document)) {
            this.item.show();
        } else {
            this.item.hide();
        }
    }

    /** "Allo: Select Interpreter". */
    async select(): Promise<void> {
        const current = getJobSettings().python;
        const picker = window.createQuickPick<Row>();
        picker.title = "Allo: Select Interpreter: the Allo environment jobs run in";
        picker.placeholder = current
            ? `Selected: ${current}`
            : `Not set: jobs run in the language server's interpreter${this.serverPython ? ` (${this.serverPython})` : ""}`;
        picker.matchOnDescription = true;
        picker.matchOnDetail = true;
        picker.busy = true;
        const probed = new Map<string, Probed>();
        let candidates: Candidate[] = [];
        // The row the user moved to stays focused as rows move; until then, the best interpreter.
        let chosenByUser: PickerRow | undefined;
        let rendering = false;
        picker.onDidChangeActive((items) => {
            if (!rendering) {
                chosenByUser = items[0]?.row;
            }
        });
        const render = (): void => {
            rendering = true;
            try {
                const rows = pickerRows(candidates, probed, current);
                picker.items = rows.map(toItem);
                const wanted = chosenByUser ?? focusedRow(rows, probed, current);
                const again = picker.items.find((i) => !i.row.separator && i.row.python === wanted?.python && i.row.action === wanted?.action);
                if (again && wanted) {
                    picker.activeItems = [again];
                }
            } finally {
                rendering = false;
            }
        };
        render();
        picker.show();
        const chosen = new Promise<PickerRow | undefined>((resolve) => {
            picker.onDidAccept(() => resolve(picker.selectedItems[0]?.row));
            picker.onDidHide(() => resolve(undefined));
        });
        void (async () => {
            const fromExtension = (await knownEnvironments()).map((e) => ({
                python: e.python,
                name: e.name ?? nameOf(e.python),
                source: "Python extension" as const,
            }));
            const folders = workspaceFolderPaths();
            const trusted = isTrusted();
            const found = trusted ? await discover(fromExtension, folders) : outside(await discover(fromExtension, []), folders);
            const setting = current && !found.some((c) => c.python === current) ? [{ python: current, name: nameOf(current), source: "setting" as const }] : [];
            // The setting too: one inside the untrusted workspace is neither listed nor run to be asked.
            candidates = [...(trusted ? setting : outside(setting, folders)), ...found];
            traceDebug(`Select Interpreter: ${candidates.length} interpreters: ${candidates.map((c) => c.python).join(", ")}`);
            render();
            await probeAll(candidates.map((c) => c.python), (python, result) => {
                probed.set(python, result);
                traceDebug(`Select Interpreter: ${python}: ${describe(result)}`);
                render();
            });
            picker.busy = false;
        })();
        const row = await chosen;
        picker.dispose();
        if (!row) {
            return;
        }
        if (row.action === "enter path") {
            await enterPath(current);
        } else if (row.action === "use server") {
            await store(undefined);
        } else if (row.python) {
            await store(row.python);
        }
    }

    dispose(): void {
        this.listeners.forEach((l) => l.dispose());
        this.item.dispose();
    }
}

/** "Enter interpreter path…": the typed path probed as the listed ones are before it is saved;
 * one jobs cannot run in is refused, saying why, and the user may type another. */
async function enterPath(current: string): Promise<void> {
    let value = current;
    for (;;) {
        const typed = await window.showInputBox({
            title: "Allo: the Allo environment's interpreter",
            prompt: "The python of the environment where Allo is installed (for example ~/miniconda3/envs/allo/bin/python)",
            value,
            ignoreFocusOut: true,
        });
        if (!typed?.trim()) {
            return;
        }
        const checked = await window.withProgress(
            { location: ProgressLocation.Notification, title: `Asking ${typed.trim()} what it can import…` },
            () => checkTypedPath(typed.trim()),
        );
        if (!("error" in checked)) {
            await store(checked.python);
            return;
        }
        traceInfo(`Select Interpreter: ${checked.error}`);
        if ((await window.showErrorMessage(checked.error, "Enter Another Path")) !== "Enter Another Path") {
            return;
        }
        value = typed.trim();
    }
}

function toItem(row: PickerRow): Row {
    return row.separator
        ? { row, label: row.label, kind: QuickPickItemKind.Separator }
        : { row, label: row.label, description: row.description, detail: row.detail };
}

/** The choice, in the workspace's settings when a folder is open (as the Python extension keeps one per folder). */
async function store(python: string | undefined): Promise<void> {
    const target = workspaceFolderPaths().length && isTrusted() ? ConfigurationTarget.Workspace : ConfigurationTarget.Global;
    await getConfiguration(SECTION).update("python", python, target);
    traceInfo(python ? `alloDataflow.python: ${python} (jobs run there)` : "alloDataflow.python cleared: jobs run in the language server's interpreter");
}

function describe(probed: Probed): string {
    if (probed.error) {
        return probed.error;
    }
    return `Python ${probed.python}, ${probed.allo ? `allo ${probed.allo}` : "no allo"}, ${probed.numpy ? `numpy ${probed.numpy}` : "no numpy"}`;
}
