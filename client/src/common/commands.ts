// The job commands: Simulate, Run test, Synthesize, Show MLIR, Show synthesis report.
//
// They are server commands (`workspace/executeCommand`) with the arguments `[uri, name]`, as the
// server's code lenses pass them; vscode-languageclient registers the ones the server offers, and
// every call goes through `execute` (its executeCommand middleware). Called from the palette or a
// menu, the target is the lens nearest the cursor. The client adds only what an editor must do
// with a result: open the MLIR view, preview a report, show the job in the status bar.
import { Disposable, window } from "vscode";
import { CodeLensRequest, ExecuteCommandRequest, LanguageClient } from "vscode-languageclient/node";
import { traceError } from "./logger";
import { Status } from "./status";
import { explicitTarget, isUnknownCommand, LensLike, pickTarget, Target } from "./targets";
import { Views } from "./views";
import { activeTextEditor, registerCommand } from "./vscodeapi";

type Next = (command: string, args: any[]) => Promise<unknown> | unknown;

interface JobCommand {
    title: string;
    /** Lens commands whose targets this command can act on, in order of preference. */
    lenses: string[];
    /** The job's word in the status bar; none for commands that start no job. */
    label?: string;
    show?: "mlir" | "report";
}

const SIMULATE = "alloDataflow.simulate";
const SYNTHESIZE = "alloDataflow.synthesize";

export const JOB_COMMANDS: Record<string, JobCommand> = {
    [SIMULATE]: { title: "Simulate", lenses: [SIMULATE], label: "simulate" },
    "alloDataflow.run": { title: "Run test", lenses: ["alloDataflow.run"], label: "run" },
    [SYNTHESIZE]: { title: "Synthesize", lenses: [SYNTHESIZE, SIMULATE], label: "synthesize" },
    "alloDataflow.showMlir": { title: "Show MLIR", lenses: ["alloDataflow.showMlir", SIMULATE], label: "mlir", show: "mlir" },
    "alloDataflow.showReport": { title: "Show synthesis report", lenses: ["alloDataflow.showReport", SYNTHESIZE, SIMULATE], show: "report" },
};

export class Jobs {
    constructor(
        private readonly client: () => LanguageClient | undefined,
        private readonly status: Status,
        private readonly views: Views,
    ) {}

    /** vscode-languageclient's executeCommand middleware. */
    readonly middleware = (command: string, args: any[], next: Next): Promise<unknown> | unknown =>
        command in JOB_COMMANDS ? this.execute(command, args, next) : next(command, args);

    /**
     * Registers the job commands this server does not offer (an older server without synthesis):
     * they still find their target and then report that the server cannot do it.
     */
    registerMissing(client: LanguageClient): Disposable[] {
        const offered = new Set(client.initializeResult?.capabilities.executeCommandProvider?.commands ?? []);
        const send = async (command: string, args: any[]): Promise<unknown> => {
            try {
                return await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
            } catch (error) {
                if (!isUnknownCommand(error)) {
                    void window.showErrorMessage(`Allo: ${JOB_COMMANDS[command].title} failed: ${error}`);
                }
                throw error;
            }
        };
        return Object.keys(JOB_COMMANDS)
            .filter((command) => !offered.has(command))
            .map((command) => registerCommand(command, (...args: any[]) => this.execute(command, args, send)));
    }

    private async execute(command: string, args: any[], next: Next): Promise<unknown> {
        const job = JOB_COMMANDS[command];
        const target = explicitTarget(args) ?? (await this.targetAtCursor(job));
        if (!target) {
            return undefined;
        }
        const done = job.label ? this.status.jobStarted(`${target.name} ${job.label}`) : () => undefined;
        let result: unknown;
        try {
            result = await next(command, [target.uri, target.name]);
        } catch (error) {
            if (!isUnknownCommand(error)) {
                traceError(`${command} ${target.name}: ${error}`); // the user has been told already
                return undefined;
            }
            const version = this.client()?.initializeResult?.serverInfo?.version ?? "unknown";
            void window.showWarningMessage(`Allo: ${job.title} is not available in this server version (allo-lsp ${version}). Update allo-lsp to use it.`);
            return undefined;
        } finally {
            done();
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
