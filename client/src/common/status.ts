// What the user sees of the server and its jobs: a language status item (server state) and, while
// a job runs, one status bar item ("$(sync~spin) Allo: top simulate running…", the running lens's
// words) that cancels the jobs on click.
import { Disposable, LanguageStatusItem, LanguageStatusSeverity, StatusBarItem } from "vscode";
import { createLanguageStatusItem, createStatusBarItem } from "./vscodeapi";

export type ServerState = "starting" | "running" | "stopped" | "error" | "not installed";

/** The command that installs the private environment (the status item's action when it is missing). */
export const INSTALL_COMMAND = "alloDataflow.installServer";

export class Status implements Disposable {
    private readonly server: LanguageStatusItem;
    private readonly jobs: StatusBarItem;
    private readonly running = new Map<number, string>();
    private nextJob = 0;

    constructor() {
        this.server = createLanguageStatusItem("alloDataflow.server", "python");
        this.server.name = "Allo Dataflow";
        this.setServer("stopped");
        this.jobs = createStatusBarItem("alloDataflow.jobs", "Allo jobs");
        this.jobs.command = "alloDataflow.cancelJob";
    }

    setServer(state: ServerState, detail = ""): void {
        this.server.busy = state === "starting";
        this.server.severity = state === "error" ? LanguageStatusSeverity.Error
            : state === "not installed" ? LanguageStatusSeverity.Warning : LanguageStatusSeverity.Information;
        this.server.text = state === "not installed" ? "Allo: language server not installed" : `Allo: ${state}`;
        this.server.detail = detail;
        // Waiting for the user's yes: the item itself offers the install, not only the notification.
        this.server.command = state === "not installed"
            ? { title: "Install", command: INSTALL_COMMAND }
            : { title: "Show Output", command: "alloDataflow.showOutput" };
    }

    /** Shows a running job until the returned function is called. */
    jobStarted(label: string): () => void {
        const id = this.nextJob++;
        this.running.set(id, label);
        this.renderJobs();
        return () => {
            this.running.delete(id);
            this.renderJobs();
        };
    }

    private renderJobs(): void {
        const labels = [...this.running.values()];
        if (!labels.length) {
            this.jobs.hide();
            return;
        }
        const { text, tooltip } = jobsText(labels);
        this.jobs.text = text;
        this.jobs.tooltip = tooltip;
        this.jobs.show();
    }

    dispose(): void {
        this.server.dispose();
        this.jobs.dispose();
    }
}

/** The job item's words: those of the running lens ("⏳ running… (click to cancel)"). */
export function jobsText(labels: readonly string[]): { text: string; tooltip: string } {
    if (labels.length === 1) {
        return { text: `$(sync~spin) Allo: ${labels[0]} running…`, tooltip: `${labels[0]}: running… (click to cancel)` };
    }
    return { text: `$(sync~spin) Allo: ${labels.length} jobs running…`, tooltip: `${labels.join(", ")}: running… (click to cancel them)` };
}
