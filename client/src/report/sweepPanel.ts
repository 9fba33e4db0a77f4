// The sweep view: the table and the chart of one sweep's answer (`alloDataflow.sweep` with its
// sets), one panel per region, redrawn in place by the next sweep. No script runs in it; a
// point's row links to `alloDataflow.showSweepPoint` (the only command its links may run), which
// opens that point's report in the report view.
import { commands, Disposable, Uri, ViewColumn, WebviewPanel, window } from "vscode";
import { escapeXml } from "../graph/render";
import { reportPage } from "../graph/webviewHtml";
import { sweepHtml } from "./sweepHtml";
import { SweepAnswer } from "./sweepModel";

export const SWEEP_VIEW_TYPE = "alloDataflow.sweepView";
export const SHOW_POINT = "alloDataflow.showSweepPoint";

/** A point's report: what the report view shows for it. */
export type ShowReport = (result: unknown, title: string) => unknown;

export class SweepPanels implements Disposable {
    private readonly panels = new Map<string, WebviewPanel>();
    private readonly answers = new Map<string, SweepAnswer>();
    private readonly command: Disposable;

    constructor(
        private readonly extensionUri: Uri,
        showReport: ShowReport,
    ) {
        this.command = commands.registerCommand(SHOW_POINT, (title: unknown, index: unknown) => {
            const row = typeof title === "string" && typeof index === "number" ? this.answers.get(title)?.rows?.[index] : undefined;
            if (typeof title === "string" && row?.report) {
                const point = Object.entries(row.point)
                    .filter(([, v]) => v !== null && v !== undefined)
                    .map(([k, v]) => `${k}=${v}`)
                    .join(" ");
                return showReport({ report: row.report }, `${title.replace(/ sweep$/, "")} ${point} synthesis report`);
            }
            return undefined;
        });
    }

    /** The URI a point's link opens (its report), or none when the point kept no report. */
    static link(title: string, answer: SweepAnswer, index: number): string | undefined {
        return answer.rows?.[index]?.report ? `command:${SHOW_POINT}?${encodeURIComponent(JSON.stringify([title, index]))}` : undefined;
    }

    show(answer: SweepAnswer, title: string): void {
        this.answers.set(title, answer);
        const root = Uri.joinPath(this.extensionUri, "dist", "webview");
        let panel = this.panels.get(title);
        if (!panel) {
            panel = window.createWebviewPanel(
                SWEEP_VIEW_TYPE,
                title,
                { viewColumn: ViewColumn.Beside, preserveFocus: true },
                { enableScripts: false, enableCommandUris: [SHOW_POINT], localResourceRoots: [root] },
            );
            this.panels.set(title, panel);
            panel.onDidDispose(() => {
                this.panels.delete(title);
                this.answers.delete(title);
            });
        } else {
            panel.reveal(undefined, true);
        }
        const webview = panel.webview;
        webview.html = reportPage(
            webview.cspSource,
            webview.asWebviewUri(Uri.joinPath(root, "report.css")).toString(),
            escapeXml(title),
            sweepHtml(title, answer, (index) => SweepPanels.link(title, answer, index)),
        );
    }

    dispose(): void {
        this.panels.forEach((p) => p.dispose());
        this.command.dispose();
    }
}
