// What the report view and the sweep view share: one panel per title (a region's), redrawn in
// place, and the page around a view's body with the views' stylesheet. No script runs in either.
import { Uri, ViewColumn, WebviewOptions, WebviewPanel, window } from "vscode";
import { escapeXml } from "../graph/render";
import { reportPage } from "../graph/webviewHtml";

/** Where the views' stylesheet is, the only resource their pages load. */
export const webviewRoot = (extensionUri: Uri): Uri => Uri.joinPath(extensionUri, "dist", "webview");

/** The panel of `title` in `panels`, revealed; else a new one of `viewType`, forgotten (and
 * `closed` called) when the user closes it. */
export function panelFor(
    panels: Map<string, WebviewPanel>,
    title: string,
    viewType: string,
    options: WebviewOptions,
    closed?: () => void,
): WebviewPanel {
    const open = panels.get(title);
    if (open) {
        open.reveal(undefined, true);
        return open;
    }
    const panel = window.createWebviewPanel(viewType, title, { viewColumn: ViewColumn.Beside, preserveFocus: true }, options);
    panels.set(title, panel);
    panel.onDidDispose(() => {
        panels.delete(title);
        closed?.();
    });
    return panel;
}

/** `body` drawn in `panel` under `title`, with the views' stylesheet. */
export function drawPage(panel: WebviewPanel, extensionUri: Uri, title: string, body: string): void {
    const webview = panel.webview;
    const css = webview.asWebviewUri(Uri.joinPath(webviewRoot(extensionUri), "report.css")).toString();
    webview.html = reportPage(webview.cspSource, css, escapeXml(title), body);
}
