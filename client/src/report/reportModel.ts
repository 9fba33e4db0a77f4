// A synthesis report (the JSON of `allo-lsp report --format json`, the `report` of
// `alloDataflow.showReport`) -> what the report view draws: the module tree (the top module, the
// others under it, each module's loops under it), the utilisation per resource, the worst-case
// latency per module, the timing, and the change of each figure since the previous report. Pure.

export interface Figures {
    latency?: { best?: number | null; average?: number | null; worst?: number | null } | null;
    interval?: { min?: number | null; max?: number | null } | null;
    resources?: Record<string, { used?: number | null; available?: number | null; percent?: number | null }> | null;
}

export interface ReportLoop {
    name: string;
    trip_count?: number | null;
    latency?: number | null;
    iteration_latency?: number | null;
    ii?: number | null;
    pipelined?: boolean | null;
    loops?: ReportLoop[];
}

export interface ReportModule extends Figures {
    name: string;
    loops?: ReportLoop[];
}

export interface Report extends Figures {
    version?: string | null;
    part?: string | null;
    top?: string | null;
    clock?: { target_ns?: number | null; uncertainty_ns?: number | null; estimated_ns?: number | null; slack_ns?: number | null } | null;
    modules?: ReportModule[];
    loops?: ReportLoop[];
}

export interface TreeRow {
    id: string;
    name: string;
    kind: "module" | "loop";
    /** Worst-case latency in cycles, or a loop's latency. */
    latency?: number;
    ii?: number;
    pipelined?: boolean;
    tripCount?: number;
    resources: Record<string, number>;
    children: TreeRow[];
}

export const RESOURCES = ["LUT", "FF", "DSP", "BRAM_18K", "URAM"];

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

export function worstLatency(f: Figures): number | undefined {
    return num(f.latency?.worst) ?? num(f.latency?.average) ?? num(f.latency?.best);
}

export function slowestInterval(f: Figures): number | undefined {
    return num(f.interval?.max) ?? num(f.interval?.min);
}

function used(f: Figures): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, value] of Object.entries(f.resources ?? {})) {
        const n = num(value?.used);
        if (n !== undefined) {
            out[name] = n;
        }
    }
    return out;
}

function loopRows(loops: readonly ReportLoop[] | undefined, prefix: string): TreeRow[] {
    return (loops ?? []).map((loop, i) => {
        const id = `${prefix}/${i}:${loop.name}`;
        return {
            id,
            name: loop.name,
            kind: "loop",
            latency: num(loop.latency),
            ii: num(loop.ii),
            pipelined: loop.pipelined ?? undefined,
            tripCount: num(loop.trip_count),
            resources: {},
            children: loopRows(loop.loops, id),
        };
    });
}

function moduleRow(m: ReportModule, children: TreeRow[] = []): TreeRow {
    return {
        id: m.name,
        name: m.name,
        kind: "module",
        latency: worstLatency(m),
        ii: slowestInterval(m),
        resources: used(m),
        children: [...loopRows(m.loops, m.name), ...children],
    };
}

/**
 * The module tree: the top module (the report's own figures when it lists none), each other module
 * under the module whose name its own extends (`producer_0_Pipeline_l_S_i_0_i` under
 * `producer_0`: Vitis names a function's pipelines so), else under the top; a module's loops first.
 */
export function reportTree(report: Report): TreeRow {
    const modules = report.modules ?? [];
    const topName = report.top ?? modules[0]?.name ?? "top";
    const top = modules.find((m) => m.name === topName) ?? { ...report, name: topName, loops: report.loops };
    const others = modules.filter((m) => m !== top);
    const parentOf = (m: ReportModule) =>
        others.filter((o) => o !== m && m.name.startsWith(`${o.name}_`)).sort((a, b) => b.name.length - a.name.length)[0];
    const row = (m: ReportModule): TreeRow => moduleRow(m, others.filter((o) => parentOf(o) === m).map(row));
    return moduleRow(top, others.filter((o) => !parentOf(o)).map(row));
}

export interface Utilisation {
    resource: string;
    used: number;
    available?: number;
    /** 0-100; the report's own percentage when it gives one. */
    percent?: number;
}

export function utilisation(report: Report): Utilisation[] {
    const resources = report.resources ?? {};
    const names = [...RESOURCES.filter((r) => r in resources), ...Object.keys(resources).filter((r) => !RESOURCES.includes(r))];
    return names.flatMap((resource) => {
        const value = resources[resource] ?? {};
        const n = num(value.used);
        if (n === undefined) {
            return [];
        }
        const available = num(value.available);
        const percent = num(value.percent) ?? (available ? (100 * n) / available : undefined);
        return [{ resource, used: n, available, percent }];
    });
}

export interface ModuleLatency {
    name: string;
    latency: number;
    /** Of the largest latency among the modules, 0-1: a bar's length. */
    fraction: number;
}

/** Worst-case latency per module, largest first (the modules without a figure left out). */
export function latencies(report: Report): ModuleLatency[] {
    const rows = (report.modules ?? []).flatMap((m) => {
        const latency = worstLatency(m);
        return latency === undefined ? [] : [{ name: m.name, latency }];
    });
    const most = Math.max(1, ...rows.map((r) => r.latency));
    return rows.sort((a, b) => b.latency - a.latency).map((r) => ({ ...r, fraction: r.latency / most }));
}

export interface Timing {
    targetNs?: number;
    estimatedNs?: number;
    uncertaintyNs?: number;
    slackNs?: number;
    violated: boolean;
}

export function timing(report: Report): Timing {
    const c = report.clock ?? {};
    const targetNs = num(c.target_ns);
    const estimatedNs = num(c.estimated_ns);
    const uncertaintyNs = num(c.uncertainty_ns);
    // Vitis' own slack when it writes one, else the target less the uncertainty less the estimate.
    const slackNs =
        num(c.slack_ns) ?? (targetNs !== undefined && estimatedNs !== undefined ? targetNs - (uncertaintyNs ?? 0) - estimatedNs : undefined);
    return { targetNs, estimatedNs, uncertaintyNs, slackNs, violated: slackNs !== undefined && slackNs < 0 };
}

export interface Delta {
    figure: string;
    before?: number;
    now?: number;
    /** now - before; none when either is missing. */
    change?: number;
    /** Whether the change is for the better: fewer cycles, fewer resources, more slack. */
    better?: boolean;
}

function figures(report: Report): Record<string, number | undefined> {
    const out: Record<string, number | undefined> = {
        "latency (cycles)": worstLatency(report),
        II: slowestInterval(report),
        "estimated clock (ns)": num(report.clock?.estimated_ns),
        "slack (ns)": timing(report).slackNs,
    };
    for (const u of utilisation(report)) {
        out[u.resource] = u.used;
    }
    for (const m of report.modules ?? []) {
        if (m.name !== report.top) {
            out[`${m.name} latency`] = worstLatency(m);
        }
    }
    return out;
}

/** The figures that changed since `previous` (none without a previous report). */
export function deltas(previous: Report | undefined | null, current: Report): Delta[] {
    if (!previous) {
        return [];
    }
    const before = figures(previous);
    const now = figures(current);
    const names = [...Object.keys(now), ...Object.keys(before).filter((k) => !(k in now))];
    return names.flatMap((figure) => {
        const b = before[figure];
        const n = now[figure];
        if (b === n) {
            return [];
        }
        const change = b !== undefined && n !== undefined ? Math.round((n - b) * 1000) / 1000 : undefined;
        const better = change === undefined || change === 0 ? undefined : figure.startsWith("slack") ? change > 0 : change < 0;
        return [{ figure, before: b, now: n, change, better }];
    });
}
