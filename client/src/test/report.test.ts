// Unit tests of the report view's pure parts: a real report's JSON (`allo-lsp report --format
// json` of tests/reports/fixtures/vitis_2023_1_dataflow.xml) -> the module tree, utilisation,
// latency per module, timing, the change since the previous report, and the HTML drawn.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as vscode from "vscode";
import { reportHtml } from "../report/reportHtml";
import { ReportPanels } from "../report/reportPanel";
import { deltas, latencies, Report, reportTree, timing, utilisation } from "../report/reportModel";
import { sweepRegion } from "../report/sweepCommand";
import { chartSvg, sweepHtml } from "../report/sweepHtml";
import { chartResources, MOST_USED, rowCells, setOf, SweepAnswer, SweepRow, sweepChart } from "../report/sweepModel";

const REPORT: Report = JSON.parse(readFileSync(join(__dirname, "..", "client", "src", "test", "fixtures", "report_dataflow.json"), "utf8"));

/** The same report after a change that costs LUTs and wins cycles. */
function changed(): Report {
    const next: Report = JSON.parse(JSON.stringify(REPORT));
    next.resources!.LUT!.used = 5000;
    next.latency!.worst = 3000;
    next.modules!.find((m) => m.name === "consumer_0")!.latency!.worst = 1000;
    return next;
}

test("the module tree: the top, each module under the one its name extends, loops under their module", () => {
    const tree = reportTree(REPORT);
    assert.equal(tree.name, "top");
    assert.deepEqual(tree.children.map((c) => c.name), ["producer_0", "consumer_0"]);
    const producer = tree.children[0];
    assert.deepEqual(producer.children.map((c) => [c.kind, c.name]), [["module", "producer_0_Pipeline_l_S_i_0_i"]]);
    assert.deepEqual(producer.children[0].children.map((c) => c.kind), ["loop"]);
    assert.equal(tree.latency, 3624, "the worst case");
    assert.equal(tree.ii, 1813);
    assert.equal(tree.resources.LUT, 4120);
    const consumer = tree.children[1];
    assert.equal(consumer.children.length, 2);
    assert.ok(consumer.children.every((c) => c.kind === "loop"));
});

test("utilisation in the usual order, the report's percentages; latency per module largest first, as bar fractions", () => {
    const rows = utilisation(REPORT);
    assert.deepEqual(rows.map((r) => r.resource), ["LUT", "FF", "DSP", "BRAM_18K", "URAM"]);
    assert.equal(rows[0].used, 4120);
    assert.equal(rows[0].percent, REPORT.resources!.LUT!.percent);
    const bars = latencies(REPORT);
    assert.equal(bars[0].name, "top");
    assert.equal(bars[0].fraction, 1);
    assert.deepEqual(bars.map((b) => b.latency), [...bars.map((b) => b.latency)].sort((a, b) => b - a));
    assert.equal(bars.find((b) => b.name === "consumer_0")!.fraction, 1206 / 3624);
});

test("timing: the report's slack, violated when negative; computed when the report has none", () => {
    assert.deepEqual(timing(REPORT), { targetNs: 3.33, estimatedNs: 2.433, uncertaintyNs: 0.9, slackNs: -0.05, violated: true });
    const computed = timing({ clock: { target_ns: 10, uncertainty_ns: 2.7, estimated_ns: 5 } });
    assert.equal(computed.violated, false);
    assert.ok(Math.abs(computed.slackNs! - 2.3) < 1e-9);
});

test("the change since the previous report: only what changed, better or worse", () => {
    assert.deepEqual(deltas(undefined, REPORT), []);
    assert.deepEqual(deltas(REPORT, REPORT), []);
    const changes = deltas(REPORT, changed());
    assert.deepEqual(
        changes.map((d) => [d.figure, d.before, d.now, d.change, d.better]),
        [
            ["latency (cycles)", 3624, 3000, -624, true],
            ["LUT", 4120, 5000, 880, false],
            ["consumer_0 latency", 1206, 1000, -206, true],
        ],
    );
});

test("the HTML: collapsible modules, one bar per resource and module, the slack in the error class, the change table; escaped", () => {
    const html = reportHtml("top <synthesis> report", changed(), REPORT);
    assert.ok(html.includes("<h1>top &lt;synthesis&gt; report</h1>"));
    assert.equal((html.match(/<tr class="resource"/g) ?? []).length, 5);
    assert.equal((html.match(/<tr class="module-latency"/g) ?? []).length, 4);
    assert.ok(html.includes('<section class="timing violated">'));
    assert.ok(html.includes('<details class="tree-node module" data-id="top" open>'));
    assert.match(html, /<tr class="worse"><td>LUT<\/td><td class="n">4,120<\/td><td class="n">5,000<\/td><td class="n">\+880<\/td><\/tr>/);
    assert.ok(!/style="/.test(html), "no inline style: the webview's CSP forbids it");
    assert.match(reportHtml("t", REPORT), /No previous report of this region/);
    assert.match(reportHtml("t", REPORT, REPORT), /No figure changed/);
});

test("the report view's change is against the server's previous report only: none sent, none drawn (the client keeps no reports)", () => {
    const panel = { webview: { cspSource: "s", html: "", asWebviewUri: () => "report.css" }, reveal() {}, onDidDispose() {}, dispose() {} };
    Object.assign(vscode.Uri, { joinPath: (...parts: unknown[]) => ({ parts }) });
    Object.assign(vscode.window, { createWebviewPanel: () => panel });
    Object.assign(vscode.commands, { registerCommand: () => ({ dispose() {} }) });
    const panels = new ReportPanels({} as never);
    try {
        panels.show({ report: REPORT, previous: null }, "top synthesis report");
        panels.show({ report: changed(), previous: null }, "top synthesis report");
        assert.match(panel.webview.html, /No previous report of this region/, "a report shown before is not the run before");
        panels.show({ report: changed(), previous: REPORT }, "top synthesis report");
        assert.match(panel.webview.html, /<tr class="worse"><td>LUT<\/td>/);
    } finally {
        panels.dispose();
    }
});

test("the HTML links the synthesis' files: each opens in the editor through a command URI, the project as a folder", () => {
    const files = [
        { label: "HLS project", path: "/tmp/allo-lsp-job-1/top.prj", folder: true },
        { label: "vitis.log", path: "/tmp/allo-lsp-job-1/top.prj/vitis.log" },
        { label: "kernel <C++>", path: "/tmp/allo-lsp-job-1/top.prj/kernel.cpp" },
    ];
    const html = reportHtml("t", REPORT, null, files);
    const links = [...html.matchAll(/<a class="file" href="command:([\w.]+)\?([^"]+)"[^>]*>([^<]+)<\/a>/g)].map((m) => ({
        command: m[1],
        args: JSON.parse(decodeURIComponent(m[2].replace(/&amp;/g, "&"))),
        label: m[3],
    }));
    assert.deepEqual(
        links.map((l) => [l.command, l.args[0].path, l.args[0].scheme, l.args[0].$mid, l.label]),
        [
            ["vscode.openFolder", files[0].path, "file", 1, "HLS project"],
            ["vscode.open", files[1].path, "file", 1, "vitis.log"],
            ["vscode.open", files[2].path, "file", 1, "kernel &lt;C++&gt;"],
        ],
    );
    assert.deepEqual(links[0].args[1], { forceNewWindow: true });
    assert.ok(!reportHtml("t", REPORT).includes('class="file"'), "no links without files");
});

// -- the sweep view (sweepModel.ts, sweepHtml.ts) ------------------------------------------------

/** Four points of a P0 × clock sweep as `alloDataflow.sweep` answers them (figures chosen so that
 * the fronts against LUT and against the most used resource differ), one that failed, one that
 * misses timing. */
function sweep(): SweepAnswer {
    const row = (P0: number, clock: number, latency: number | null, LUT: number | null, DSP: number | null, report: Report | null, estimated = 2.4): SweepRow => ({
        point: { P0, clock },
        status: latency === null ? "error" : "passed",
        message: latency === null ? "Allo could not build the region" : "",
        latency,
        ii: latency === null ? null : latency / 2,
        resources: latency === null ? {} : { LUT: LUT!, DSP: DSP! },
        clock_ns: latency === null ? null : clock,
        estimated_ns: latency === null ? null : estimated,
        slack_ns: latency === null ? null : clock - estimated,
        meets_timing: latency === null ? null : clock - estimated >= 0,
        time_ns: latency === null ? null : latency * clock,
        project: null,
        pareto: false,
        report,
    });
    const rows = [
        row(2, 5, 4000, 10, 5, REPORT), // fewest LUTs
        row(4, 5, 2000, 20, 40, REPORT), // most DSPs: beaten against the most used resource
        row(8, 5, 1000, 40, 10, null), // fastest, its report not kept
        row(8, 3.33, null, null, null, null),
        row(4, 3.33, 500, 25, 30, REPORT, 3.5), // the fastest in real time, but it misses timing
    ];
    // The server's fronts (jobs/sweep.py `front`): real time against each resource, timing met.
    rows[0].pareto = rows[2].pareto = true;
    return {
        status: "failed",
        region: "top",
        message: "4 of 5 points synthesized",
        parameters: ["P0", "clock"],
        columns: ["P0", "clock", "status", "latency", "II", "DSP%", "LUT%", "clock_ns", "estimated_ns", "slack_ns", "pareto"],
        front: "real time, worst-case cycles x clock period, against the most used resource, among the points that meet timing",
        fronts: { [MOST_USED]: [0, 2], LUT: [0, 1, 2], DSP: [0, 2] },
        rows,
    };
}

test("the chart of real time against a resource: the server's front for it, the failed point left out, the one missing timing marked, round axes", () => {
    const answer = sweep();
    const rows = answer.rows!;
    assert.deepEqual(chartResources(rows), [MOST_USED, "LUT", "DSP"]);
    const lut = sweepChart(rows, "LUT", answer.fronts);
    assert.deepEqual(lut.missing, [3]);
    assert.deepEqual(lut.points.map((p) => [p.index, p.x, p.y]), [[0, 10, 20000], [1, 20, 10000], [2, 40, 5000], [4, 25, 1665]]);
    assert.deepEqual(lut.front.map((p) => p.index), [0, 1, 2], "by increasing LUT");
    assert.deepEqual(lut.points.map((p) => p.failsTiming), [false, false, false, true]);
    assert.equal(lut.xMax, 50);
    assert.deepEqual(lut.xTicks, [0, 12.5, 25, 37.5, 50]);
    assert.equal(lut.yMax, 25000);
    const most = sweepChart(rows, MOST_USED, answer.fronts);
    assert.deepEqual(most.points.map((p) => p.x), [10, 40, 40, 30], "each point's largest percentage");
    assert.deepEqual(most.front.map((p) => p.index), [0, 2], "as the server marked");
    assert.deepEqual(sweepChart(rows, "DSP", answer.fronts).front.map((p) => p.index), [0, 2]);
    assert.deepEqual(sweepChart(rows, "DSP").front, [], "no front from the server: none drawn (the view never ranks)");
});

test("points drawn at one place are set apart, with their number beside them", () => {
    const answer = sweep();
    const twin = { ...answer.rows![2], point: { P0: 16, clock: 5 } }; // the same figures as P0=8 clock=5
    const rows = [...answer.rows!, twin, { ...twin, point: { P0: 32, clock: 5 } }];
    const chart = sweepChart(rows, "LUT", { LUT: [0, 1, 2, 5, 6] });
    const svg = chartSvg(chart, rows, () => undefined);
    const at = (index: number) => svg.match(new RegExp(`data-index="${index}" cx="([\\d.]+)" cy="([\\d.]+)"`))!.slice(1).map(Number);
    const [a, b, c] = [at(2), at(5), at(6)];
    assert.ok(a[1] === b[1] && b[1] === c[1], "the same real time");
    assert.deepEqual([b[0] - a[0], c[0] - b[0]], [8, 8], "side by side, each its own dot");
    assert.equal((svg.match(/<text class="count"[^>]*>×3<\/text>/g) ?? []).length, 1);
    assert.match(svg, /3 points here/);
    assert.equal((svg.match(/class="count"/g) ?? []).length, 1, "points alone have no count");
    assert.match(svg, /class="pt timing" data-index="4"/);
});

test("the table's cells under the server's columns: parameters, figures, the front's star", () => {
    const answer = sweep();
    const cells = rowCells(answer.rows![0], answer.columns!).map((c) => c.text);
    assert.deepEqual(cells, ["2", "5", "passed", "4,000", "2,000", "5", "10", "5", "2.4", "2.6", "★"]);
    assert.equal(rowCells(answer.rows![4], answer.columns!).at(-1)!.text, "fails timing");
    const failed = rowCells(answer.rows![3], answer.columns!);
    assert.deepEqual(failed.map((c) => c.text), ["8", "3.33", "error", "—", "—", "—", "—", "3.33", "—", "—", ""]);
    assert.ok(failed[3].numeric === false && cells.length === answer.columns!.length);
});

test("the sweep view: a row per point linking to its report when kept, the front marked, one chart per resource", () => {
    const answer = sweep();
    const html = sweepHtml("top sweep", answer, (i) => (answer.rows![i].report ? `command:show?${i}` : undefined));
    const rows = [...html.matchAll(/<tr class="point ([^"]*)" data-index="(\d)"/g)].map((m) => [m[2], m[1]]);
    assert.deepEqual(rows, [
        ["0", "passed front kept"],
        ["1", "passed kept"],
        ["2", "passed front"],
        ["3", "error"],
        ["4", "passed timing kept"],
    ]);
    // Every cell of a kept row links to its report, and so does its point in each of the 3 charts.
    assert.equal((html.match(/href="command:show\?0"/g) ?? []).length, 11 + 3);
    assert.ok(!html.includes("command:show?2"), "P0=8 clock=5 kept no report: no link");
    const charts = [...html.matchAll(/<svg class="chart (res-[\w]+)"/g)].map((m) => m[1]);
    assert.deepEqual(charts, ["res-most_used", "res-LUT", "res-DSP"]);
    assert.match(html, /<input type="radio" name="resource" id="res-most_used" class="res-most_used" checked>/);
    assert.equal((html.match(/ checked>/g) ?? []).length, 1);
    // The LUT chart: the front's staircase through its three points, the front's dots drawn larger.
    const lut = html.slice(html.indexOf('<svg class="chart res-LUT"'), html.indexOf('<svg class="chart res-DSP"'));
    const front = lut.match(/<path class="front-line" d="([^"]+)"/)![1];
    assert.equal((front.match(/[MHV]/g) ?? []).join(""), "MHVHV");
    assert.equal((lut.match(/class="pt front"/g) ?? []).length, 3);
    assert.equal((lut.match(/class="pt timing"/g) ?? []).length, 1, "P0=4 clock=3.33 misses timing");
    assert.match(html, /<li><strong>P0=8, clock=3.33<\/strong>: error: Allo could not build the region<\/li>/);
    assert.ok(!/<script/i.test(html));
});

test("the values typed for a parameter: the CLI's NAME=V1,V2, or what is wrong with them", () => {
    assert.deepEqual(setOf("P0", " 2, 4 ,8"), { set: "P0=2,4,8" });
    assert.ok(setOf("P0", "2,,4").error);
    assert.ok(setOf("P0", " ").error);
    assert.deepEqual(setOf("clock", "3.33,5"), { set: "clock=3.33,5" });
    // A value's meaning is the server's to check (its clock bounds are not the client's to copy).
    assert.deepEqual(setOf("clock", "3.33, fast"), { set: "clock=3.33,fast" });
});

test("a sweep the server refuses (a clock that is no period) shows the server's reason; no view opens", async () => {
    const shown: string[] = [];
    const refusal = "--set clock: 0 is no clock period (periods in ns, e.g. clock=3.33,5)";
    Object.assign(vscode.window, {
        showQuickPick: async (items: { name: string }[]) => items.filter((i) => i.name === "clock"),
        showInputBox: async (options: { validateInput(text: string): string | undefined }) => {
            assert.equal(options.validateInput("3.33, 0"), undefined, "typed values are not judged here");
            return "3.33, 0";
        },
        withProgress: (_options: unknown, task: (progress: unknown, token: unknown) => Promise<unknown>) =>
            task({ report() {} }, { onCancellationRequested() {} }),
        showErrorMessage: async (message: string) => void shown.push(message),
        showWarningMessage: async (message: string) => void shown.push(message),
    });
    const sent: unknown[][] = [];
    const send = async (args: unknown[]) => {
        sent.push(args);
        return args.length === 2
            ? { constants: [{ name: "M", value: 4 }], settings: [{ name: "clock", value: null }] }
            : { status: "error", region: "top", message: refusal, columns: [], rows: [] };
    };
    const views: string[] = [];
    await sweepRegion({ uri: "file:///w/d.py", name: "top" }, send, (_answer, title) => views.push(title));
    assert.deepEqual(sent[1].slice(0, 3), ["file:///w/d.py", "top", ["clock=3.33,0"]]);
    assert.deepEqual(shown, [`Allo: Sweep top: ${refusal}`]);
    assert.deepEqual(views, []);
});
