// The job commands: Simulate, Run test, Synthesize, Show MLIR, Show synthesis report.
//
// They are server commands (`workspace/executeCommand`) with the arguments `[uri, name]`, as the
// server's code lenses pass them; vscode-languageclient registers the ones the server offers, and
// every call goes through `execute` (its executeCommand middleware). Called from the palette or a
// menu, the target is the lens nearest the cursor. The client adds only what an editor must do
// with a result: open the MLIR view, preview a report, show the job in the status bar (one item,
// whose words are the running lens's), a line in the log naming file and region. Which jobs run,
// and the lens that cancels one, are the server's (its lenses, asked again when it says). In Restricted
// Mode nothing is sent: the user is told why, and offered to manage the workspace's trust.
import { CancellationToken, CodeLens, Disposable, ProviderResult, TextDocument, window } from "vscode";
import { CodeLensRequest, ExecuteCommandRequest, FeatureState, LanguageClient, MessageType, ShowMessageRequest, StaticFeature, WorkDoneProgress } from "vscode-languageclient/node";
import { traceError, traceInfo, traceWarn } from "./logger";
import { Status } from "./status";
import { askWithActions, explicitTarget, fileName, isUnknownCommand, LensLike, lensView, pickTarget, Target } from "./targets";
import { SWEEP_COMMAND, sweepRegion } from "../report/sweepCommand";
import { Views } from "./views";
import { activeTextEditor, executeCommand, isTrusted, registerCommand, visibleDocuments } from "./vscodeapi";

type Next = (command: string, args: unknown[]) => Promise<unknown> | unknown;

interface JobCommand {
    title: string;
    /** Lens commands whose targets this command can act on, in order of preference. */
    lenses: string[];
    /** The job's word in the status bar; none for commands that start no job. */
    label?: string;
    show?: "mlir" | "report" | "files";
}

const SIMULATE = "alloDataflow.simulate";
const SYNTHESIZE = "alloDataflow.synthesize";

export const JOB_COMMANDS: Record<string, JobCommand> = {
    [SIMULATE]: { title: "Simulate", lenses: [SIMULATE], label: "simulate" },
    "alloDataflow.run": { title: "Run test", lenses: ["alloDataflow.run"], label: "run" },
    [SYNTHESIZE]: { title: "Synthesize", lenses: [SYNTHESIZE, SIMULATE], label: "synthesize" },
    "alloDataflow.showMlir": { title: "Show MLIR", lenses: ["alloDataflow.showMlir", SIMULATE], label: "mlir", show: "mlir" },
    "alloDataflow.showReport": { title: "Show synthesis report", lenses: ["alloDataflow.showReport", SYNTHESIZE, SIMULATE], show: "report" },
    "alloDataflow.showSynthesisFiles": { title: "Show synthesis files", lenses: ["alloDataflow.showSynthesisFiles", SYNTHESIZE, SIMULATE], show: "files" },
};

/** Job command -> the job kind the server names it by (the commands that start a job). */
export const JOB_KINDS: Record<string, string> = Object.fromEntries(
    Object.entries(JOB_COMMANDS).flatMap(([command, job]) => (job.label ? [[command, job.label]] : [])),
);

export const MANAGE_TRUST = "Manage Workspace Trust";

/** In Restricted Mode a job command runs nothing: says so, with the way out. */
export async function refuseUntrusted(title: string): Promise<void> {
    const choice = await window.showWarningMessage(
        `Allo: ${title}: this workspace is not trusted (Restricted Mode), so Allo runs nothing in it. ` +
            "Diagnostics, hovers and quick fixes still work.",
        MANAGE_TRUST,
    );
    if (choice === MANAGE_TRUST) {
        await executeCommand("workbench.trust.manage");
    }
}

/**
 * Keeps the server's jobs out of the status bar's progress: the client's job item already shows
 * each job (and cancels it), and two items per job in two wordings were one too many.
 */
export const NO_SERVER_PROGRESS: StaticFeature = {
    fillClientCapabilities: (capabilities) => {
        capabilities.window = { ...capabilities.window, workDoneProgress: false };
    },
    initialize: () => undefined,
    getState: (): FeatureState => ({ kind: "static" }),
    clear: () => undefined,
};

export class Jobs {
    private jobTokens = 0; // the progress tokens of the jobs this client started

    constructor(
        private readonly client: () => LanguageClient | undefined,
        private readonly status: Status,
        private readonly views: Views,
    ) {}

    /** vscode-languageclient's executeCommand middleware. */
    readonly middleware = (command: string, args: unknown[], next: Next): Promise<unknown> | unknown =>
        command in JOB_COMMANDS ? this.execute(command, args, next) : command === SWEEP_COMMAND ? this.sweep(args, next) : next(command, args);

    /** "Allo: Sweep Region…" (report/sweepCommand.ts) on the region a lens or menu names, else the cursor's. */
    private async sweep(args: unknown[], next: Next): Promise<unknown> {
        if (!isTrusted()) {
            void refuseUntrusted("Sweep Region");
            return undefined;
        }
        const target = explicitTarget(args) ?? (await this.targetAtCursor({ title: "Sweep Region", lenses: [SYNTHESIZE, SIMULATE] }));
        // With a token (the sweep itself, cancellable) the request goes out directly: `next` takes none.
        const send = async (a: unknown[], token?: CancellationToken) => {
            const client = this.client();
            return token && client ? client.sendRequest(ExecuteCommandRequest.type, { command: SWEEP_COMMAND, arguments: a }, token) : next(SWEEP_COMMAND, a);
        };
        const follow = (token: string, report: (message: string) => void) =>
            this.client()?.onProgress(WorkDoneProgress.type, token, (value) => {
                if (value.kind === "report" && value.message) {
                    report(value.message);
                }
            });
        return target && sweepRegion(target, send, (answer, title) => this.views.showSweep(answer, title), follow);
    }

    /**
     * Registers the job commands this server does not offer (an older server without synthesis):
     * they still find their target and then report that the server cannot do it.
     */
    registerMissing(client: LanguageClient): Disposable[] {
        const offered = new Set(client.initializeResult?.capabilities.executeCommandProvider?.commands ?? []);
        const send = async (command: string, args: unknown[]): Promise<unknown> => {
            try {
                return await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
            } catch (error) {
                if (!isUnknownCommand(error)) {
                    void window.showErrorMessage(`Allo: ${JOB_COMMANDS[command].title} failed: ${error}`);
                }
                throw error;
            }
        };
        // The server's questions (a job failed for its environment): their actions run commands.
        const asked = client.onRequest(ShowMessageRequest.type, (params) => askWithActions(params, showMessage, executeCommand));
        const missing = Object.keys(JOB_COMMANDS)
            .filter((command) => !offered.has(command))
            .map((command) => registerCommand(command, (...args: unknown[]) => this.execute(command, args, send)));
        return [asked, ...missing];
    }

    /** vscode-languageclient's provideCodeLenses middleware: the server's lenses, drawn for VS Code (`lensView`). */
    readonly lensMiddleware = async (
        document: TextDocument,
        token: CancellationToken,
        next: (document: TextDocument, token: CancellationToken) => ProviderResult<CodeLens[]>,
    ): Promise<CodeLens[] | null | undefined> => {
        const lenses = await next(document, token);
        const trusted = isTrusted();
        for (const lens of lenses ?? []) {
            if (lens.command) {
                Object.assign(lens.command, lensView(lens.command, trusted, JOB_KINDS));
            }
        }
        return lenses;
    };

    /** Asks VS Code for the visible editors' lenses again: what `lensMiddleware` shows has changed. */
    refreshLenses(): void {
        const feature = this.client()?.getFeature(CodeLensRequest.method);
        for (const document of visibleDocuments()) {
            feature?.getProvider(document)?.onDidChangeCodeLensEmitter.fire();
        }
    }

    private async execute(command: string, args: unknown[], next: Next): Promise<unknown> {
        const job = JOB_COMMANDS[command];
        if (!isTrusted()) {
            void refuseUntrusted(job.title);
            return undefined;
        }
        const target = explicitTarget(args) ?? (await this.targetAtCursor(job));
        if (!target) {
            return undefined;
        }
        const where = `${fileName(target.uri)}::${target.name}`;
        // A job's status item lasts as long as its request; the running lens is the server's.
        // (A second start of a running target: the server starts nothing and answers at once.)
        const starts = job.label !== undefined;
        let done = starts ? this.status.jobStarted(`${target.name} ${job.label}`) : () => undefined;
        // The job's phases (Vitis': `top: scheduling`), reported on a token of ours, in its status item.
        const token = `allo-job-${++this.jobTokens}`;
        const phases = starts
            ? this.client()?.onProgress(WorkDoneProgress.type, token, (value) => {
                  if (value.kind === "report" && value.message) {
                      const shown = this.status.jobStarted(`${target.name} ${job.label}: ${value.message}`);
                      done();
                      done = shown;
                  }
              })
            : undefined;
        if (starts) {
            traceInfo(`${job.label} ${where}: started`);
        }
        let result: unknown;
        try {
            result = await next(command, phases ? [target.uri, target.name, { progress: token }] : [target.uri, target.name]);
        } catch (error) {
            if (!isUnknownCommand(error)) {
                traceError(`${command} ${target.name}: ${error}`); // the user has been told already
                return undefined;
            }
            const version = this.client()?.initializeResult?.serverInfo?.version ?? "unknown";
            void window.showWarningMessage(`Allo: ${job.title} is not available in this server version (allo-lsp ${version}). Update allo-lsp to use it.`);
            return undefined;
        } finally {
            phases?.dispose();
            done();
        }
        if (starts) {
            logOutcome(`${job.label} ${where}`, result);
        }
        if ((result as { status?: unknown } | undefined)?.status === "running") {
            // One job per target: the server started nothing; its lens cancels the running one.
            void window.showInformationMessage(`Allo: ${(result as { message?: string }).message ?? `${target.name} is already running`}`);
            return result;
        }
        if (job.show === "mlir") {
            await this.views.showMlir(result);
        } else if (job.show === "report") {
            await this.views.showReport(result, `${target.name} synthesis report`);
        } else if (job.show === "files") {
            await this.views.showSynthesisFiles(result, `${target.name} synthesis files`);
        }
        return result;
    }

    private async targetAtCursor(job: JobCommand): Promise<Target | undefined> {
        const editor = activeTextEditor();
        const client = this.client();
        if (!editor || editor.document.languageId !== "python" || !client) {
            void window.showInformationMessage(`Allo: ${job.title}: open an Allo design and put the cursor in a region or test.`);
            return undefined;
        }
        const uri = client.code2ProtocolConverter.asUri(editor.document.uri);
        const lenses = (await client.sendRequest(CodeLensRequest.type, { textDocument: { uri } })) as LensLike[] | null;
        const target = pickTarget(lenses ?? [], job.lenses, editor.selection.active.line);
        if (!target) {
            const what = job.lenses[0] === "alloDataflow.run" ? "test function that builds a region" : "region";
            void window.showInformationMessage(`Allo: ${job.title}: no ${what} at or above the cursor.`);
        }
        return target;
    }
}

/** One line per ended job: `simulate design.py::top: passed (1.4 s) ...`; its output is in the server's log. */
function logOutcome(what: string, result: unknown): void {
    const { status, cause, message, duration_s } = (result ?? {}) as { status?: unknown; cause?: unknown; message?: unknown; duration_s?: unknown };
    if (typeof status !== "string") {
        return;
    }
    const seconds = typeof duration_s === "number" && duration_s > 0 ? ` in ${duration_s.toFixed(1)} s` : "";
    const why = typeof cause === "string" && cause && cause !== status ? ` (${cause})` : "";
    const line = `${what}: ${status}${why}${seconds}${typeof message === "string" && message ? `: ${message.split("\n")[0]}` : ""}`;
    (status === "passed" || status === "cancelled" || status === "running" ? traceInfo : traceWarn)(line);
}

/** VS Code's message of an LSP message type, with `titles` as its buttons. */
function showMessage(type: number, message: string, titles: string[]): Thenable<string | undefined> {
    const show = type === MessageType.Error ? window.showErrorMessage : type === MessageType.Warning ? window.showWarningMessage : window.showInformationMessage;
    return show(message, ...titles);
}
