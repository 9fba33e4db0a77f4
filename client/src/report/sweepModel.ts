// A sweep's table (the answer of `alloDataflow.sweep` with its sets: one row per point, as
// `allo-lsp sweep --format json` prints them, each with its report when it passed) -> what the
// sweep view draws: the table's cells, and a chart of real time against one resource with the
// server's Pareto front against it. Pure; the values the user typed -> the sets the server takes.
import { Report } from "./reportModel";

export interface SweepRow {
    point: Record<string, unknown>;
    status: string;
    message?: string;
    latency?: number | null;
    ii?: number | null;
    /** Resource -> percent used. */
    resources?: Record<string, number | null>;
    clock_ns?: number | null;
    estimated_ns?: number | null;
    slack_ns?: number | null;
    project?: string | null;
    /** On the server's front: real time against the point's most used resource, timing met. */
    pareto?: boolean;
    /** False: negative slack (never on a front); null: not known. */
    meets_timing?: boolean | null;
    /** Real time: worst-case cycles x the clock period. */
    time_ns?: number | null;
    report?: Report | null;
}

export interface SweepAnswer {
    status: string;
    region?: string;
    message?: string;
    parameters?: string[];
    columns?: string[];
    front?: string;
    /** The server's front against each resource the chart can draw (MOST_USED too): row indices. */
    fronts?: Record<string, number[]>;
    rows?: SweepRow[];
}

/** The chart's x axis: one resource's percent, or each point's most used one (the table's front). */
export const MOST_USED = "most used";

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** The point's figure for `resource` (MOST_USED: the largest of its resources). */
export function resourceOf(row: SweepRow, resource: string): number | undefined {
    const values = Object.values(row.resources ?? {}).flatMap((v) => (num(v) === undefined ? [] : [v as number]));
    if (resource === MOST_USED) {
        return values.length ? Math.max(...values) : undefined;
    }
    return num(row.resources?.[resource]);
}

/** The resources any point used, in the report view's order, MOST_USED first: the chart's choices. */
export function chartResources(rows: readonly SweepRow[]): string[] {
    const order = ["LUT", "FF", "DSP", "BRAM_18K", "URAM"];
    const used = new Set(rows.flatMap((r) => Object.keys(r.resources ?? {}).filter((k) => num(r.resources?.[k]) !== undefined)));
    return [MOST_USED, ...order.filter((r) => used.has(r)), ...[...used].filter((r) => !order.includes(r)).sort()];
}

export interface ChartPoint {
    /** The row's index in the table. */
    index: number;
    x: number;
    /** Real time, ns. */
    y: number;
    front: boolean;
    /** Negative slack: drawn apart, never on the front. */
    failsTiming: boolean;
}

export interface Chart {
    resource: string;
    points: ChartPoint[];
    /** The front's points by increasing x: the staircase drawn through them. */
    front: ChartPoint[];
    /** The axes' ranges, from 0 to a round figure above the largest value. */
    xMax: number;
    yMax: number;
    xTicks: number[];
    yTicks: number[];
    /** Rows left out: no latency or no figure for the resource (failed points). */
    missing: number[];
}

/** A round number at or above `n` (1, 2, 2.5, 5 times a power of ten), and its 4 or 5 ticks. */
export function axis(n: number): { max: number; ticks: number[] } {
    if (!(n > 0)) {
        return { max: 1, ticks: [0, 0.25, 0.5, 0.75, 1] };
    }
    const power = 10 ** Math.floor(Math.log10(n));
    const max = [1, 2, 2.5, 5, 10].map((m) => m * power).find((m) => m >= n * (1 + 1e-9)) ?? 10 * power;
    const step = max / 4;
    return { max, ticks: [0, 1, 2, 3, 4].map((i) => Math.round(i * step * 1e6) / 1e6) };
}

/** Real time (y) against `resource` (x) for each point with both figures, and the server's front
 * against that resource (`fronts`: the server ranks, the view only draws). */
export function sweepChart(rows: readonly SweepRow[], resource: string, fronts: Record<string, number[]> = {}): Chart {
    const onFront = new Set(fronts[resource] ?? []);
    const points: ChartPoint[] = [];
    const missing: number[] = [];
    rows.forEach((row, index) => {
        const x = resourceOf(row, resource);
        const y = num(row.time_ns);
        if (x === undefined || y === undefined) {
            missing.push(index);
        } else {
            points.push({ index, x, y, front: onFront.has(index), failsTiming: row.meets_timing === false });
        }
    });
    const x = axis(Math.max(0, ...points.map((p) => p.x)));
    const y = axis(Math.max(0, ...points.map((p) => p.y)));
    return {
        resource,
        points,
        front: points.filter((p) => p.front).sort((a, b) => a.x - b.x || a.y - b.y),
        xMax: x.max,
        yMax: y.max,
        xTicks: x.ticks,
        yTicks: y.ticks,
        missing,
    };
}

/** A table cell: its text, and whether it is a number (right-aligned). */
export interface Cell {
    text: string;
    numeric: boolean;
}

function cellText(v: unknown): Cell {
    if (v === null || v === undefined || v === "") {
        return { text: "—", numeric: false };
    }
    if (typeof v === "number") {
        return { text: Number.isInteger(v) ? v.toLocaleString("en-US") : String(Math.round(v * 1000) / 1000), numeric: true };
    }
    return { text: String(v), numeric: false };
}

/** The cells of `row` under the server's `columns` (`allo-lsp sweep`'s header: the parameters,
 * status, latency, II, `LUT%`..., clock_ns, estimated_ns, slack_ns, pareto). */
export function rowCells(row: SweepRow, columns: readonly string[]): Cell[] {
    return columns.map((column) => {
        switch (column) {
            case "status":
                return cellText(row.status);
            case "latency":
                return cellText(row.latency);
            case "II":
                return cellText(row.ii);
            case "clock_ns":
                return cellText(row.clock_ns ?? row.point.clock);
            case "estimated_ns":
                return cellText(row.estimated_ns);
            case "slack_ns":
                return cellText(row.slack_ns);
            case "pareto":
                return { text: row.pareto ? "★" : row.meets_timing === false ? "fails timing" : "", numeric: false };
            default:
                return column.endsWith("%") && !(column in row.point) ? cellText(row.resources?.[column.slice(0, -1)]) : cellText(row.point[column]);
        }
    });
}

/**
 * What the user typed for one parameter (`2, 4, 8`) -> the CLI's `NAME=2,4,8`, or why it is not
 * that list: empty values, a comma at the end. What a value may be (a clock's period, a part) is
 * the server's to check: it refuses the sweep with the reason (`--set clock: ...`) before any
 * point runs.
 */
export function setOf(name: string, typed: string): { set?: string; error?: string } {
    const values = typed.split(",").map((v) => v.trim());
    if (!typed.trim() || values.some((v) => !v)) {
        return { error: "comma-separated values, e.g. 2,4,8" };
    }
    return { set: `${name}=${values.join(",")}` };
}
