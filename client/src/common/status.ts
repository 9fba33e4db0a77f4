// What the user sees of the server and its jobs: a language status item (server state) and, while
// a job runs, one status bar item ("$(sync~spin) Allo: top simulate running…", the running lens's
// words) that cancels the jobs on click; and the words of the environment item (picker.ts) for
// the backend the server says will run (`allo/backend`).
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
        if (state === "not installed") {
            // Waiting for the user's yes: the item itself offers the install, not only the notification.
            // The hover writes text, detail and action on one line: a long detail pushed Install
            // off-screen, so the whole explanation is the action's tooltip.
            this.server.text = "Allo: server not installed";
            this.server.detail = "";
            this.server.command = { title: "Install", command: INSTALL_COMMAND, tooltip: detail || undefined };
        } else {
            this.server.text = `Allo: ${state}`;
            this.server.detail = detail;
            this.server.command = { title: "Show Output", command: "alloDataflow.showOutput" };
        }
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
        // A label with its phase ("top synthesize: top: scheduling") says what runs already.
        const words = labels[0].includes(": ") ? labels[0] : `${labels[0]} running…`;
        return { text: `$(sync~spin) Allo: ${words}`, tooltip: `${labels[0]}: running… (click to cancel)` };
    }
    return { text: `$(sync~spin) Allo: ${labels.length} jobs running…`, tooltip: `${labels.join(", ")}: running… (click to cancel them)` };
}

/** The server's request saying who will run simulations and tests, and why (jobs/build_probe.py). */
export const BACKEND_REQUEST = "allo/backend";

/** The server's answer to `allo/backend`: shown as said, never decided here. */
export interface BackendChoice {
    /** "allo", "reference", or "" when no job can run. */
    backend: string;
    reason: string;
    python: string;
    allo: string | null;
}

/** The environment item's text: `Allo 0.5.1 · env allo`, `reference executor · env allo`. */
export function backendText(name: string, choice: BackendChoice, guess?: string): string {
    if (choice.backend === "allo") {
        return `$(chip) Allo${choice.allo && choice.allo !== "?" ? ` ${choice.allo}` : ""} · ${name}`;
    }
    if (choice.backend === "reference") {
        return `$(chip) reference executor · ${name}`;
    }
    // No job runs: a warning the probe already showed ("no Allo, no numpy") says why, so it stays
    // rather than flipping to a vaguer text once the server answers.
    return guess?.startsWith("$(warning)") ? guess : `$(warning) no jobs run · ${name}`;
}

/** The tooltip's line on what runs simulations and tests, and why. */
export function backendLine(choice: BackendChoice): string {
    const who = choice.backend === "allo" ? "Allo's simulator runs simulations and tests"
        : choice.backend === "reference" ? "The reference executor (numpy, not Allo's simulator) runs simulations and tests"
        : "No simulation or test runs";
    return `${who}: ${choice.reason}.`;
}
