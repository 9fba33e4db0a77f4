// The HTML around a webview's script: a strict Content-Security-Policy (nothing but the
// extension's own files and the one script carrying this page's nonce; no remote content, no
// inline style; for the graph, ELK's worker: its file fetched from the extension, the worker
// started from that text's blob: URL, layoutWorker.ts), and the page's toolbar. Pure but for the
// random nonce.
import { randomBytes } from "node:crypto";

export function nonce(): string {
    return randomBytes(18).toString("base64").replace(/[^A-Za-z0-9]/g, "");
}

/**
 * `cspSource`: the webview's `cspSource`; `scriptNonce`: the page's script's, none for a page
 * without scripts; `worker`: the page starts ELK's worker (its file read from `cspSource`).
 */
export function contentSecurityPolicy(cspSource: string, scriptNonce: string | undefined, worker = false): string {
    return [
        "default-src 'none'",
        `img-src ${cspSource} data:`,
        `style-src ${cspSource}`,
        `font-src ${cspSource}`,
        ...(worker ? [`connect-src ${cspSource}`, "worker-src blob:"] : []),
        scriptNonce ? `script-src 'nonce-${scriptNonce}'` : "script-src 'none'",
    ].join("; ");
}

/** `script`/`style`/`elkWorker`: the URIs of dist/webview's files in the webview. */
export function graphHtml(cspSource: string, script: string, style: string, title: string, elkWorker: string): string {
    const n = nonce();
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(cspSource, n, true)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>${title}</title>
</head>
<body>
<div class="toolbar" role="toolbar" aria-label="Graph">
<button id="expand" aria-pressed="false" title="Draw each kernel's PEs">Expand PEs</button>
<button id="fit" title="Fit the graph to the view">Fit</button>
<button id="zoomIn" title="Zoom in">+</button>
<button id="zoomOut" title="Zoom out">−</button>
<button id="export" title="Save the graph as an SVG file">Export SVG</button>
<span id="status" role="status">Laying out…</span>
</div>
<div id="canvas" aria-label="Dataflow graph"></div>
<div id="probe" aria-hidden="true"></div>
<script nonce="${n}" src="${script}" data-elk-worker="${elkWorker}"></script>
</body>
</html>`;
}

export function reportPage(cspSource: string, style: string, title: string, body: string): string {
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(cspSource, undefined)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>${title}</title>
</head>
<body>
${body}
</body>
</html>`;
}
