// Read-only documents for what the server returns: the MLIR of a region (`allo-mlir:` URIs the
// server chooses, so that go to definition inside the view reaches it) and synthesis reports
// (their webview, reportPanel.ts; the markdown preview when the answer has no report).
import {
    commands,
    Disposable,
    EventEmitter,
    languages,
    TextDocumentContentProvider,
    Uri,
    ViewColumn,
    window,
    workspace,
} from "vscode";
import { ReportPanels } from "../report/reportPanel";
import { SweepAnswer } from "../report/sweepModel";
import { traceWarn } from "./logger";

export const MLIR_SCHEME = "allo-mlir";
export const REPORT_SCHEME = "allo-report";

class ReadOnlyDocuments implements TextDocumentContentProvider {
    private readonly texts = new Map<string, string>();
    private readonly changed = new EventEmitter<Uri>();
    readonly onDidChange = this.changed.event;

    set(uri: Uri, text: string): void {
        this.texts.set(uri.toString(), text);
        this.changed.fire(uri);
    }

    provideTextDocumentContent(uri: Uri): string {
        return this.texts.get(uri.toString()) ?? "";
    }
}

export class Views implements Disposable {
    private readonly mlir = new ReadOnlyDocuments();
    /** VS Code writes `allo-mlir:/p` for the server's `allo-mlir:///p`: the server's spelling, by ours. */
    private readonly serverUris = new Map<string, string>();
    private readonly reports = new ReadOnlyDocuments();
    private readonly registrations: Disposable[];
    private readonly reportPanels?: ReportPanels;

    /** `extensionUri`: where dist/webview is, for the report view; without it reports are markdown. */
    constructor(extensionUri?: Uri) {
        this.reportPanels = extensionUri && new ReportPanels(extensionUri);
        this.registrations = [
            workspace.registerTextDocumentContentProvider(MLIR_SCHEME, this.mlir),
            workspace.registerTextDocumentContentProvider(REPORT_SCHEME, this.reports),
        ];
    }

    /** Opens the MLIR view beside the source, from the result of `alloDataflow.showMlir`. */
    async showMlir(result: unknown): Promise<void> {
        const { mlirUri, mlir, parseError } = (result ?? {}) as { mlirUri?: unknown; mlir?: unknown; parseError?: unknown };
        if (typeof mlirUri !== "string" || typeof mlir !== "string") {
            return; // the job did not produce a module: the server already said why
        }
        if (parseError) {
            // Said where the user looks: neither the job's Allo (allo._mlir) nor the server could read the
            // module; the message says why, with the command that installs bindings where that helps.
            traceWarn(`The MLIR of ${mlirUri} was not checked: ${parseError}`);
            void window.showWarningMessage(`The MLIR view opens without its signature check (nor the analysis checked against the module): ${parseError}`);
        }
        const uri = Uri.parse(mlirUri);
        this.serverUris.set(uri.toString(), mlirUri);
        this.mlir.set(uri, mlir);
        let document = await workspace.openTextDocument(uri);
        if (document.languageId !== "mlir") {
            document = await languages.setTextDocumentLanguage(document, "mlir");
        }
        await window.showTextDocument(document, { viewColumn: ViewColumn.Beside, preview: true });
    }

    /** A URI as the server knows it (the language client's code2Protocol converter). */
    readonly protocolUri = (uri: Uri): string => this.serverUris.get(uri.toString()) ?? uri.toString();

    /** Shows the answer of `alloDataflow.showReport`: its report in the report view, else its markdown in the markdown preview. */
    async showReport(result: unknown, title: string): Promise<void> {
        if (this.reportPanels && ReportPanels.hasReport(result)) {
            this.reportPanels.show(result, title);
            return;
        }
        const { markdown } = (result ?? {}) as { markdown?: unknown };
        if (typeof markdown !== "string") {
            return;
        }
        const uri = Uri.from({ scheme: REPORT_SCHEME, path: `/${title}.md` });
        this.reports.set(uri, markdown);
        try {
            await commands.executeCommand("markdown.showPreview", uri);
        } catch (error) {
            traceWarn(`No markdown preview (${error}): showing the report as text`);
            await window.showTextDocument(await workspace.openTextDocument(uri), { preview: true });
        }
    }

    /** The answer of `alloDataflow.showSynthesisFiles` (the Files lens): what the last synthesis kept,
     * picked from a list and opened (the HLS project as a folder in a new window, as the report view does). */
    async showSynthesisFiles(result: unknown, title: string): Promise<void> {
        const files = synthesisFiles(result);
        if (files.length === 0) {
            void window.showInformationMessage(`Allo: ${title}: no synthesis has kept its files yet.`);
            return;
        }
        const picked = await window.showQuickPick(
            files.map((f) => ({ label: `$(${f.folder ? "folder" : "file"}) ${f.label}`, description: f.path, file: f })),
            { title: `Allo: ${title}`, placeHolder: "Open what the last synthesis kept" },
        );
        if (picked?.file.folder) {
            await commands.executeCommand("vscode.openFolder", Uri.file(picked.file.path), { forceNewWindow: true });
        } else if (picked) {
            await window.showTextDocument(Uri.file(picked.file.path), { preview: true });
        }
    }

    /** Shows a sweep's table and chart (report/sweepPanel.ts). */
    showSweep(answer: SweepAnswer, title: string): void {
        this.reportPanels?.showSweep(answer, title);
    }

    dispose(): void {
        this.reportPanels?.dispose();
        this.registrations.forEach((r) => r.dispose());
    }
}

export interface SynthesisFile {
    label: string;
    path: string;
    folder: boolean;
}

/** The files of a `showSynthesisFiles` answer that are well formed (absolute paths), in its order. */
export function synthesisFiles(result: unknown): SynthesisFile[] {
    const files = (result as { files?: unknown } | undefined)?.files;
    if (!Array.isArray(files)) {
        return [];
    }
    return files.filter((f): f is SynthesisFile =>
        typeof f?.label === "string" && typeof f?.path === "string" && f.path.startsWith("/") && typeof f?.folder === "boolean");
}
