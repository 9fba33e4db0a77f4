// The report view's body: HTML made from reportModel.ts. The module tree is nested <details>
// (collapsible without a script), the bars are SVG rects sized by attributes (the webview's
// Content-Security-Policy allows no inline style), colours are classes (report.css maps them to
// the theme's variables). Pure: a string out.
import { escapeXml } from "../graph/render";
import { figure } from "../graph/overlay";
import { Delta, deltas, latencies, Report, reportTree, timing, TreeRow, utilisation } from "./reportModel";

const BAR_WIDTH = 240;

const fig = (n: number | undefined, unit = "") => (n === undefined ? "—" : `${figure(n)}${unit}`);

function bar(fraction: number, cls: string): string {
    const w = Math.max(0, Math.min(1, fraction)) * BAR_WIDTH;
    return (
        `<svg class="bar" width="${BAR_WIDTH}" height="12" viewBox="0 0 ${BAR_WIDTH} 12" role="img">` +
        `<rect class="track" x="0" y="0" width="${BAR_WIDTH}" height="12" rx="2"/>` +
        `<rect class="fill ${cls}" x="0" y="0" width="${Math.round(w * 10) / 10}" height="12" rx="2"/></svg>`
    );
}

function treeRow(row: TreeRow, depth: number): string {
    const figures = [
        row.latency !== undefined ? `${fig(row.latency)} cycles` : "",
        row.ii !== undefined ? `II ${fig(row.ii)}` : "",
        row.pipelined ? "pipelined" : "",
        row.tripCount !== undefined ? `× ${fig(row.tripCount)}` : "",
        ...Object.entries(row.resources)
            .filter(([, n]) => n > 0)
            .map(([name, n]) => `${name} ${fig(n)}`),
    ].filter(Boolean);
    const summary =
        `<summary><span class="tree-name ${row.kind}">${escapeXml(row.name)}</span>` +
        `<span class="tree-figures">${escapeXml(figures.join(" · "))}</span></summary>`;
    if (!row.children.length) {
        return `<div class="tree-leaf ${row.kind}" data-id="${escapeXml(row.id)}">${summary.replace(/<\/?summary>/g, "")}</div>`;
    }
    // Modules open, loops closed: the first look is per module.
    const open = depth === 0 || row.kind === "module" ? " open" : "";
    return (
        `<details class="tree-node ${row.kind}" data-id="${escapeXml(row.id)}"${open}>` +
        summary +
        `<div class="tree-children">${row.children.map((c) => treeRow(c, depth + 1)).join("")}</div></details>`
    );
}

function deltaRows(changes: Delta[]): string {
    return changes
        .map((d) => {
            const cls = d.better === undefined ? "same" : d.better ? "better" : "worse";
            const sign = d.change !== undefined && d.change > 0 ? "+" : "";
            return (
                `<tr class="${cls}"><td>${escapeXml(d.figure)}</td><td class="n">${fig(d.before)}</td><td class="n">${fig(d.now)}</td>` +
                `<td class="n">${d.change === undefined ? "—" : `${sign}${figure(d.change)}`}</td></tr>`
            );
        })
        .join("");
}

/** A file the synthesis kept (the server's `files`: the HLS project, vitis.log, kernel.cpp). */
export interface KeptFile {
    label: string;
    path: string;
    folder?: boolean; // the project's directory
}

/** The commands the view's links run (its only command URIs: `enableCommandUris`). */
export const LINK_COMMANDS = ["vscode.open", "vscode.openFolder"];

/** A link that opens `file` in the editor (the project: its folder in a new window). The command
 * URI's argument is a marshalled Uri (`$mid: 1`), which VS Code revives. */
function fileLink(file: KeptFile): string {
    const uri = { $mid: 1, scheme: "file", path: file.path };
    const args = file.folder ? [uri, { forceNewWindow: true }] : [uri];
    const href = `command:${file.folder ? "vscode.openFolder" : "vscode.open"}?${encodeURIComponent(JSON.stringify(args))}`;
    return `<a class="file" href="${escapeXml(href)}" title="${escapeXml(file.path)}">${escapeXml(file.label)}</a>`;
}

/** The report view's <body> content for `report`, with the change since `previous` when given
 * and links to the synthesis' `files`. */
export function reportHtml(title: string, report: Report, previous?: Report | null, files: KeptFile[] = []): string {
    const t = timing(report);
    const resources = utilisation(report);
    const modules = latencies(report);
    const changes = deltas(previous, report);
    const header = [report.top ? `top ${report.top}` : "", report.part ? `part ${report.part}` : "", report.version ? `Vitis HLS ${report.version}` : ""]
        .filter(Boolean)
        .join(" · ");
    return [
        `<h1>${escapeXml(title)}</h1>`,
        header ? `<p class="meta">${escapeXml(header)}</p>` : "",
        files.length ? `<p class="files">${files.map(fileLink).join(" · ")}</p>` : "",
        `<section class="timing ${t.violated ? "violated" : "met"}"><h2>Timing</h2>`,
        `<p><span class="slack">slack ${fig(t.slackNs, " ns")}</span> — estimated ${fig(t.estimatedNs, " ns")} against a target of ${fig(t.targetNs, " ns")}` +
            ` (uncertainty ${fig(t.uncertaintyNs, " ns")})${t.violated ? ": <strong>timing violated</strong>" : ""}</p></section>`,
        `<section class="utilisation"><h2>Utilisation</h2><table>`,
        resources
            .map((u) => {
                const pct = u.percent;
                const cls = pct === undefined ? "" : pct > 90 ? "over" : pct > 70 ? "high" : "";
                return (
                    `<tr class="resource" data-resource="${escapeXml(u.resource)}"><td>${escapeXml(u.resource)}</td><td>${bar((pct ?? 0) / 100, cls)}</td>` +
                    `<td class="n">${fig(pct, "%")}</td><td class="n dim">${fig(u.used)} / ${fig(u.available)}</td></tr>`
                );
            })
            .join(""),
        `</table></section>`,
        `<section class="latency"><h2>Latency per module</h2>`,
        modules.length
            ? `<table>${modules
                  .map((m) => `<tr class="module-latency"><td>${escapeXml(m.name)}</td><td>${bar(m.fraction, "latency")}</td><td class="n">${fig(m.latency)} cycles</td></tr>`)
                  .join("")}</table>`
            : `<p class="dim">The report gives no module's latency (undetermined: a loop without a known trip count).</p>`,
        `</section>`,
        `<section class="delta"><h2>Change since the previous run</h2>`,
        previous
            ? changes.length
                ? `<table><tr><th>figure</th><th>before</th><th>now</th><th>change</th></tr>${deltaRows(changes)}</table>`
                : `<p class="dim">No figure changed.</p>`
            : `<p class="dim">No previous report of this region.</p>`,
        `</section>`,
        `<section class="modules"><h2>Modules</h2>${treeRow(reportTree(report), 0)}</section>`,
    ].join("\n");
}
