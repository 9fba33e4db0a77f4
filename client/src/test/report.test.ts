// Unit tests of the report view's pure parts: a real report's JSON (`allo-lsp report --format
// json` of tests/reports/fixtures/vitis_2023_1_dataflow.xml) -> the module tree, utilisation,
// latency per module, timing, the change since the previous report, and the HTML drawn.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { reportHtml } from "../report/reportHtml";
import { deltas, latencies, Report, reportTree, timing, utilisation } from "../report/reportModel";

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
