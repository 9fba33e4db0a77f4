// The sweep view's body: HTML made from sweepModel.ts. The chart's resource is chosen with radio
// buttons, one pre-drawn chart each, shown by report.css's `:checked ~` rules: the webview runs no
// script. A point with a report links to it (a command URI the panel allows). Pure: a string out.
import { figure } from "../graph/overlay";
import { escapeXml } from "../graph/render";
import { Chart, ChartPoint, chartResources, MOST_USED, rowCells, SweepAnswer, SweepRow, sweepChart } from "./sweepModel";

export const W = 560;
export const H = 320;
const M = { left: 72, right: 16, top: 14, bottom: 44 };

/** The command a point's link runs, with its arguments: the panel's key and the row's index. */
export type PointLink = (index: number) => string | undefined;

const label = (row: SweepRow) =>
    Object.entries(row.point)
        .filter(([, v]) => v !== null && v !== undefined)
        .map(([k, v]) => `${k}=${v}`)
        .join(", ");

/** A CSS class name for a resource (`BRAM_18K`, `most used`). */
export const resourceClass = (resource: string) => `res-${resource.replace(/[^A-Za-z0-9_]/g, "_")}`;

function px(chart: Chart, x: number): number {
    return Math.round((M.left + (x / chart.xMax) * (W - M.left - M.right)) * 10) / 10;
}

function py(chart: Chart, y: number): number {
    return Math.round((M.top + (1 - y / chart.yMax) * (H - M.top - M.bottom)) * 10) / 10;
}

/** The front as a staircase: from each front point across to the next one's x, then down to it. */
export function frontPath(chart: Chart): string {
    return chart.front
        .map((p, i) => (i === 0 ? `M${px(chart, p.x)},${py(chart, p.y)}` : `H${px(chart, p.x)}V${py(chart, p.y)}`))
        .join("");
}

const SPREAD_PX = 8; // between the centres of points drawn at one place

/** The chart's points grouped by where they are drawn (the same pixel), in the chart's order. */
export function stacks(chart: Chart): ChartPoint[][] {
    const at = new Map<string, ChartPoint[]>();
    chart.points.forEach((p) => {
        const key = `${px(chart, p.x)},${py(chart, p.y)}`;
        at.set(key, [...(at.get(key) ?? []), p]);
    });
    return [...at.values()];
}

/** Each point with its horizontal offset: points at one place side by side, centred on it, so
 * that each can be told apart (and clicked). */
export function spread(chart: Chart): { point: ChartPoint; dx: number; count: number }[] {
    return stacks(chart).flatMap((stack) =>
        stack.map((point, i) => ({ point, dx: (i - (stack.length - 1) / 2) * SPREAD_PX, count: stack.length })),
    );
}

export function chartSvg(chart: Chart, rows: readonly SweepRow[], link: PointLink): string {
    const what = chart.resource === MOST_USED ? "most used resource (%)" : `${chart.resource} (%)`;
    const x0 = px(chart, 0);
    const y0 = py(chart, 0);
    const grid = [
        ...chart.xTicks.map(
            (t) =>
                `<line class="grid" x1="${px(chart, t)}" y1="${M.top}" x2="${px(chart, t)}" y2="${y0}"/>` +
                `<text class="tick" x="${px(chart, t)}" y="${y0 + 16}" text-anchor="middle">${escapeXml(figure(t))}</text>`,
        ),
        ...chart.yTicks.map(
            (t) =>
                `<line class="grid" x1="${x0}" y1="${py(chart, t)}" x2="${W - M.right}" y2="${py(chart, t)}"/>` +
                `<text class="tick" x="${x0 - 6}" y="${py(chart, t) + 4}" text-anchor="end">${escapeXml(figure(t))}</text>`,
        ),
    ];
    const points = spread(chart).map(({ point: p, dx, count }) => {
        const row = rows[p.index];
        const why = p.front ? " (Pareto front)" : p.failsTiming ? ` (fails timing: slack ${figure(row.slack_ns ?? 0)} ns)` : "";
        const title = `${label(row)}: ${figure(p.y)} ns (${figure(row.latency ?? 0)} cycles), ${figure(p.x)}%${why}` +
            (count > 1 ? `; ${count} points here` : "");
        const cx = Math.round((px(chart, p.x) + dx) * 10) / 10;
        const kind = p.front ? " front" : p.failsTiming ? " timing" : "";
        const dot = `<circle class="pt${kind}" data-index="${p.index}" cx="${cx}" cy="${py(chart, p.y)}" r="${p.front ? 5 : 4}"><title>${escapeXml(title)}</title></circle>`;
        const href = link(p.index);
        return href ? `<a href="${escapeXml(href)}">${dot}</a>` : dot;
    });
    // Points drawn at one place: their number beside them (each is also set apart, `spread`).
    const counts = stacks(chart)
        .filter((stack) => stack.length > 1)
        .map((stack) => `<text class="count" x="${px(chart, stack[0].x) + 4 * stack.length + 4}" y="${py(chart, stack[0].y) - 6}">×${stack.length}</text>`);
    return (
        `<svg class="chart ${resourceClass(chart.resource)}" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" role="img" ` +
        `aria-label="${escapeXml(`real time against ${what}`)}">` +
        grid.join("") +
        `<line class="axis" x1="${x0}" y1="${y0}" x2="${W - M.right}" y2="${y0}"/><line class="axis" x1="${x0}" y1="${M.top}" x2="${x0}" y2="${y0}"/>` +
        `<text class="axis-label" x="${(x0 + W - M.right) / 2}" y="${H - 6}" text-anchor="middle">${escapeXml(what)}</text>` +
        `<text class="axis-label" x="14" y="${(M.top + y0) / 2}" text-anchor="middle" transform="rotate(-90 14 ${(M.top + y0) / 2})">real time (ns)</text>` +
        (chart.front.length ? `<path class="front-line" d="${frontPath(chart)}"/>` : "") +
        points.join("") +
        counts.join("") +
        `</svg>`
    );
}

function table(answer: SweepAnswer, rows: readonly SweepRow[], link: PointLink): string {
    const columns = answer.columns ?? [];
    const head = columns.map((c) => `<th class="${c === "pareto" ? "" : "n"}">${escapeXml(c === "pareto" ? "front" : c)}</th>`).join("");
    const body = rows
        .map((row, index) => {
            const href = link(index);
            const cells = rowCells(row, columns)
                .map((cell) => {
                    const text = escapeXml(cell.text);
                    return `<td class="${cell.numeric ? "n" : ""}">${href ? `<a href="${escapeXml(href)}">${text}</a>` : text}</td>`;
                })
                .join("");
            const title = row.message ? ` title="${escapeXml(row.message)}"` : "";
            return `<tr class="point ${escapeXml(row.status)}${row.pareto ? " front" : row.meets_timing === false ? " timing" : ""}${href ? " kept" : ""}" data-index="${index}"${title}>${cells}</tr>`;
        })
        .join("");
    return `<table class="sweep-table"><tr>${head}</tr>${body}</table>`;
}

/** The sweep view's <body> content. `link(index)`: the URI that opens that point's report, if kept. */
export function sweepHtml(title: string, answer: SweepAnswer, link: PointLink): string {
    const rows = answer.rows ?? [];
    const resources = chartResources(rows);
    const charts = resources.map((r) => sweepChart(rows, r, answer.fronts ?? {}));
    const failed = rows.filter((r) => r.status !== "passed");
    const choices = resources
        .map(
            (r, i) =>
                `<input type="radio" name="resource" id="${resourceClass(r)}" class="${resourceClass(r)}"${i === 0 ? " checked" : ""}>` +
                `<label for="${resourceClass(r)}">${escapeXml(r)}</label>`,
        )
        .join("");
    return [
        `<h1>${escapeXml(title)}</h1>`,
        `<p class="meta">${escapeXml(answer.message ?? "")}${answer.parameters?.length ? ` · swept ${escapeXml(answer.parameters.join(", "))}` : ""}</p>`,
        `<section class="sweep-points"><h2>Points</h2>`,
        rows.length ? table(answer, rows, link) : `<p class="dim">${escapeXml(answer.message ?? "No point ran.")}</p>`,
        `<p class="dim">★ on the Pareto front (${escapeXml(answer.front ?? "real time against the most used resource")}); a point that fails timing (negative slack) is not ranked. A row with a report opens it.</p>`,
        failed.length
            ? `<ul class="failures">${failed.map((r) => `<li><strong>${escapeXml(label(r))}</strong>: ${escapeXml(r.status)}: ${escapeXml(r.message ?? "")}</li>`).join("")}</ul>`
            : "",
        `</section>`,
        `<section class="sweep-chart"><h2>Real time against resources</h2>`,
        `<div class="choices">${choices}`,
        `<div class="charts">${charts.map((c) => chartSvg(c, rows, link)).join("")}</div></div>`,
        charts[0]?.missing.length ? `<p class="dim">${charts[0].missing.length} point(s) without figures are not drawn.</p>` : "",
        `</section>`,
    ].join("\n");
}
