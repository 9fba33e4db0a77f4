// The synthesis report as a webview (issue 20 item 4), from the answer of
// `alloDataflow.showReport`: its `report` (the JSON of `allo-lsp report --format json`) and
// `previous`, the run before's as the server keeps it (null: none, and the view says so; the
// client keeps no reports of its own). One panel per region, redrawn in place. No script runs in it.
import { Uri, WebviewPanel } from "vscode";
import { drawPage, panelFor, webviewRoot } from "./panels";
import { KeptFile, LINK_COMMANDS, reportHtml } from "./reportHtml";
import { Report } from "./reportModel";
import { SweepPanels } from "./sweepPanel";
import { SweepAnswer } from "./sweepModel";

export const REPORT_VIEW_TYPE = "alloDataflow.report";

export class ReportPanels {
    private readonly panels = new Map<string, WebviewPanel>();

    /** The sweeps' views, whose points open here. */
    private readonly sweeps: SweepPanels;

    constructor(private readonly extensionUri: Uri) {
        this.sweeps = new SweepPanels(extensionUri, (result, title) => this.show(result, title));
    }

    /** Whether the answer carries a report this view draws (else the caller shows its markdown). */
    static hasReport(result: unknown): boolean {
        const report = (result as { report?: unknown } | undefined)?.report;
        return !!report && typeof report === "object";
    }

    show(result: unknown, title: string): void {
        const { report, previous, files } = result as { report: Report; previous?: Report | null; files?: KeptFile[] };
        // No script; links open the synthesis' files through the two commands of LINK_COMMANDS only.
        const options = { enableScripts: false, enableCommandUris: LINK_COMMANDS, localResourceRoots: [webviewRoot(this.extensionUri)] };
        const body = reportHtml(title, report, previous, Array.isArray(files) ? files : []);
        drawPage(panelFor(this.panels, title, REPORT_VIEW_TYPE, options), this.extensionUri, title, body);
    }

    showSweep(answer: SweepAnswer, title: string): void {
        this.sweeps.show(answer, title);
    }

    dispose(): void {
        this.sweeps.dispose();
        this.panels.forEach((p) => p.dispose());
    }
}
