// "Allo: Show Dataflow Graph" (and the "Graph" lens on each region): one webview panel per
// region, fed by the server's `allo/regionGraph`. The panel follows the document: asked again
// when its diagnostics change (a new analysis), after an edit once typing pauses, and after a job
// (its overlays: a deadlock's blocked PEs, FIFO occupancy, synthesis figures); and the cursor
// (the kernel under it highlighted). A click reveals the declaration; "set depth and re-run"
// applies the server's depth fix and simulates again; Export SVG saves the picture.
import {
    CancellationToken,
    CodeLens,
    CodeAction,
    Disposable,
    Position,
    languages,
    ProviderResult,
    Range,
    Selection,
    TextDocument,
    TextEditorRevealType,
    Uri,
    ViewColumn,
    WebviewPanel,
    window,
    workspace,
} from "vscode";
import { CodeLensRequest, LanguageClient } from "vscode-languageclient/node";
import { traceInfo, traceWarn } from "../common/logger";
import { explicitTarget, isUnknownCommand, LensLike, pickTarget } from "../common/targets";
import { REGION_LENSES, SHOW_GRAPH, withGraphLenses } from "./graphLenses";
import { executeCommand, registerCommand } from "../common/vscodeapi";
import { escapeXml } from "./render";
import { highlightedAt, isRegionGraph, LspRange, RegionGraph } from "./graphModel";
import { ELK_WORKER_FILE } from "./layoutWorker";
import { graphHtml } from "./webviewHtml";

export const GRAPH_REQUEST = "allo/regionGraph";
export const GRAPH_VIEW_TYPE = "alloDataflow.graph";
// Typing pauses this long before the graph is asked for again (a new analysis asks at once).
const EDIT_PAUSE_MS = 400;

type Next = (document: TextDocument, token: CancellationToken) => ProviderResult<CodeLens[]>;

interface Panel {
    uri: string;
    region: string;
    panel: WebviewPanel;
    expanded: boolean;
    graph?: RegionGraph;
    ready: boolean;
    timer?: ReturnType<typeof setTimeout>;
    asked: number;
}

export class GraphPanels implements Disposable {
    private readonly panels = new Map<string, Panel>();
    private readonly disposables: Disposable[];

    /** `pickPe`: a click on a PE node makes it its kernel's active PE (common/activePe.ts). */
    constructor(
        private readonly client: () => LanguageClient | undefined,
        private readonly extensionUri: Uri,
        private readonly pickPe?: (uri: string, region: string, kernel: string, pe: string) => Promise<void>,
    ) {
        this.disposables = [
            registerCommand(SHOW_GRAPH, (...args: unknown[]) => this.show(args)),
            languages.onDidChangeDiagnostics((e) => {
                const changed = new Set(e.uris.map((u) => u.toString()));
                this.each((p) => changed.has(Uri.parse(p.uri).toString()), (p) => void this.refresh(p));
            }),
            workspace.onDidChangeTextDocument((e) => {
                if (!e.contentChanges.length) {
                    return;
                }
                const uri = e.document.uri.toString();
                this.each(
                    (p) => Uri.parse(p.uri).toString() === uri,
                    (p) => {
                        clearTimeout(p.timer);
                        p.timer = setTimeout(() => void this.refresh(p), EDIT_PAUSE_MS);
                    },
                );
            }),
            window.onDidChangeTextEditorSelection((e) => {
                const document = e.textEditor.document;
                const position = e.selections[0]?.active;
                this.each(
                    (p) => Uri.parse(p.uri).toString() === document.uri.toString() && !!p.graph,
                    (p) => void p.panel.webview.postMessage({ type: "highlight", ids: this.highlighted(p, position) }),
                );
            }),
        ];
    }

    /** vscode-languageclient's provideCodeLenses middleware step: the Graph lenses. */
    readonly lensMiddleware = async (document: TextDocument, token: CancellationToken, next: Next): Promise<CodeLens[] | null | undefined> => {
        const lenses = await next(document, token);
        if (!lenses) {
            return lenses;
        }
        return withGraphLenses(
            lenses as unknown as (CodeLens & LensLike)[],
            (lens, target) => new CodeLens(lens.range, { title: "◇ Graph", command: SHOW_GRAPH, arguments: [target.uri, target.name], tooltip: "Show the region's dataflow graph" }) as CodeLens & LensLike,
        );
    };

    /** Asks every panel's graph again (a job ended: its overlays changed). */
    refreshAll(): void {
        this.each(() => true, (p) => void this.refresh(p));
    }

    private each(filter: (p: Panel) => boolean, action: (p: Panel) => void): void {
        [...this.panels.values()].filter(filter).forEach(action);
    }

    private async show(args: unknown[]): Promise<void> {
        const target = explicitTarget(args) ?? (await this.targetAtCursor());
        if (!target) {
            return;
        }
        const key = JSON.stringify([target.uri, target.name]);
        const existing = this.panels.get(key);
        if (existing) {
            existing.panel.reveal(undefined, true);
            await this.refresh(existing);
            return;
        }
        const root = Uri.joinPath(this.extensionUri, "dist", "webview");
        const panel = window.createWebviewPanel(
            GRAPH_VIEW_TYPE,
            `${target.name} graph`,
            { viewColumn: ViewColumn.Beside, preserveFocus: true },
            { enableScripts: true, localResourceRoots: [root], retainContextWhenHidden: true },
        );
        const entry: Panel = { ...target, region: target.name, panel, expanded: false, ready: false, asked: 0 };
        this.panels.set(key, entry);
        const webview = panel.webview;
        webview.html = graphHtml(
            webview.cspSource,
            webview.asWebviewUri(Uri.joinPath(root, "graph.js")).toString(),
            webview.asWebviewUri(Uri.joinPath(root, "graph.css")).toString(),
            escapeXml(`${target.name} graph`),
            webview.asWebviewUri(Uri.joinPath(root, ELK_WORKER_FILE)).toString(),
        );
        panel.onDidDispose(() => {
            clearTimeout(entry.timer);
            this.panels.delete(key);
        });
        webview.onDidReceiveMessage((message) => void this.onMessage(entry, message));
    }

    private async onMessage(p: Panel, message: { type?: string; [key: string]: unknown }): Promise<void> {
        switch (message.type) {
            case "ready":
                p.ready = true;
                await this.refresh(p);
                break;
            case "expand":
                p.expanded = !!message.expanded;
                await this.refresh(p);
                break;
            case "reveal":
                await this.reveal(p, String(message.id));
                await this.pickPeOf(p, String(message.id));
                break;
            case "rendered":
                traceInfo(`graph ${p.region}: ${message.nodes} nodes, ${message.edges} edges drawn in ${Number(message.ms).toFixed(0)} ms (ELK in the ${message.layout === "worker" ? "worker" : "page"})`);
                break;
            case "layoutInPage":
                traceWarn(`graph ${p.region}: ELK's worker did not start (${message.why}): the graph is laid out in the page`);
                break;
            case "export":
                await this.export(p, String(message.svg));
                break;
            case "setDepth":
                await this.setDepth(p, String(message.id), Number(message.depth));
                break;
        }
    }

    private async refresh(p: Panel): Promise<void> {
        const client = this.client();
        if (!p.ready || !client) {
            return;
        }
        const asked = ++p.asked;
        let answer: unknown;
        try {
            answer = await client.sendRequest(GRAPH_REQUEST, { textDocument: { uri: p.uri }, region: p.region, expand: p.expanded });
        } catch (error) {
            const message = isUnknownCommand(error) || (error as { code?: number }).code === -32601
                ? `This allo-lsp does not draw graphs (no ${GRAPH_REQUEST}): update allo-lsp.`
                : `The graph of ${p.region} could not be made: ${error}`;
            void p.panel.webview.postMessage({ type: "error", message });
            return;
        }
        if (asked !== p.asked) {
            return; // a newer question is on its way
        }
        if (!isRegionGraph(answer)) {
            void p.panel.webview.postMessage({ type: "error", message: `No region '${p.region}' in this file (any more).` });
            return;
        }
        p.graph = answer;
        const editor = window.visibleTextEditors.find((e) => e.document.uri.toString() === Uri.parse(p.uri).toString());
        const ids = editor ? this.highlighted(p, editor.selection.active) : [];
        void p.panel.webview.postMessage({ type: "graph", graph: answer, expanded: p.expanded, highlight: ids });
    }

    /** The ids of the nodes under `position`: the kernel whose definition holds it and its PEs, or the PEs of its meta branch there. */
    private highlighted(p: Panel, position: Position | undefined): string[] {
        return p.graph && position ? highlightedAt(p.graph, { line: position.line, character: position.character }) : [];
    }

    private rangeOf(p: Panel, id: string): LspRange | undefined {
        const graph = p.graph;
        return graph?.nodes.find((n) => n.id === id)?.range ?? graph?.edges.find((e) => e.id === id)?.range ?? undefined;
    }

    private async reveal(p: Panel, id: string): Promise<void> {
        const range = this.rangeOf(p, id);
        const client = this.client();
        if (!range || !client) {
            return;
        }
        const uri = Uri.parse(p.uri);
        const start = client.protocol2CodeConverter.asPosition(range.start);
        // The editor already showing the file, else the column left of the graph.
        const column = window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString())?.viewColumn ?? ViewColumn.One;
        const editor = await window.showTextDocument(uri, { viewColumn: column, preserveFocus: false });
        editor.selection = new Selection(start, start);
        editor.revealRange(new Range(start, start), TextEditorRevealType.InCenterIfOutsideViewport);
    }

    /** A PE node clicked: that PE active in its kernel (the editor dims what it does not run). */
    private async pickPeOf(p: Panel, id: string): Promise<void> {
        const node = p.graph?.nodes.find((n) => n.id === id);
        if (node?.kind === "pe" && node.kernel && this.pickPe) {
            await this.pickPe(p.uri, p.region, node.kernel, node.name);
        }
    }

    private async export(p: Panel, svg: string): Promise<void> {
        const where = await window.showSaveDialog({
            defaultUri: Uri.joinPath(Uri.parse(p.uri), "..", `${p.region}${p.expanded ? "_pes" : ""}.svg`),
            filters: { SVG: ["svg"] },
        });
        if (where) {
            await workspace.fs.writeFile(where, new TextEncoder().encode(svg));
            void window.showInformationMessage(`Allo: the graph of ${p.region} was saved to ${where.fsPath}`);
        }
    }

    /** The deadlock's fix on the edge's declaration (the server's quick fix that sets its depth), then Simulate again. */
    private async setDepth(p: Panel, id: string, depth: number): Promise<void> {
        const range = this.rangeOf(p, id);
        const client = this.client();
        if (!range || !client) {
            return;
        }
        const uri = Uri.parse(p.uri);
        const actions = ((await executeCommand("vscode.executeCodeActionProvider", uri, client.protocol2CodeConverter.asRange(range))) ?? []) as CodeAction[];
        const fix = actions.find((a) => a.edit && new RegExp(`\\b${depth}\\b`).test(a.title) && /depth/i.test(a.title));
        if (!fix?.edit) {
            traceWarn(`graph ${p.region}: no quick fix sets the depth of ${id} to ${depth}`);
            void window.showWarningMessage(`Allo: no fix sets this stream's depth to ${depth} (the declaration changed since the run?).`);
            return;
        }
        await workspace.applyEdit(fix.edit);
        await (await workspace.openTextDocument(uri)).save();
        await executeCommand("alloDataflow.simulate", p.uri, p.region);
    }

    private async targetAtCursor(): Promise<{ uri: string; name: string } | undefined> {
        const editor = window.activeTextEditor;
        const client = this.client();
        if (!editor || editor.document.languageId !== "python" || !client) {
            void window.showInformationMessage("Allo: Show Dataflow Graph: open an Allo design and put the cursor in a region.");
            return undefined;
        }
        const uri = client.code2ProtocolConverter.asUri(editor.document.uri);
        const lenses = (await client.sendRequest(CodeLensRequest.type, { textDocument: { uri } })) as LensLike[] | null;
        const target = pickTarget(lenses ?? [], REGION_LENSES, editor.selection.active.line);
        if (!target) {
            void window.showInformationMessage("Allo: Show Dataflow Graph: no region at or above the cursor.");
        }
        return target;
    }

    dispose(): void {
        this.disposables.forEach((d) => d.dispose());
        this.panels.forEach((p) => p.panel.dispose());
    }
}
