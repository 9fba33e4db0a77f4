// The sweep view: the table and the chart of one sweep's answer (`alloDataflow.sweep` with its
// sets), one panel per region, redrawn in place by the next sweep. No script runs in it; a
// point's row links to `alloDataflow.showSweepPoint` (the only command its links may run), which
// opens that point's report in the report view.
import { commands, Disposable, Uri, WebviewPanel } from "vscode";
import { drawPage, panelFor, webviewRoot } from "./panels";
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
        const options = { enableScripts: false, enableCommandUris: [SHOW_POINT], localResourceRoots: [webviewRoot(this.extensionUri)] };
        const panel = panelFor(this.panels, title, SWEEP_VIEW_TYPE, options, () => this.answers.delete(title));
        drawPage(panel, this.extensionUri, title, sweepHtml(title, answer, (index) => SweepPanels.link(title, answer, index)));
    }

    dispose(): void {
        this.panels.forEach((p) => p.dispose());
        this.command.dispose();
    }
}
