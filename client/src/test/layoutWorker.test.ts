// Unit tests of where the graph's webview runs ELK (graph/layoutWorker.ts): in its worker once it
// has started, in the page when it cannot start or fails, each question answered once. The
// browser's worker is a stand-in here; the page's ELK is elkjs's own.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import ELK from "elkjs/lib/elk-api.js";
import Bundled from "elkjs/lib/elk.bundled.js";
import { toElk } from "../graph/elkGraph";
import { ELK_WORKER_FILE, FallbackWorker, LayoutWorker, LayoutWorkerParts } from "../graph/layoutWorker";

const ROOT = join(__dirname, "..");

/** A worker that records what it is sent; the test answers for it. */
class StandIn implements LayoutWorker {
    onmessage: ((event: { data: unknown }) => void) | null = null;
    readonly got: { id: number; cmd: string }[] = [];
    terminated = false;
    postMessage(message: unknown): void {
        this.got.push(message as { id: number; cmd: string });
    }
    terminate(): void {
        this.terminated = true;
    }
    answer(id: number, data: unknown = `answer ${id}`): void {
        this.onmessage?.({ data: { id, data } });
    }
}

function deferred<T>() {
    let resolve!: (value: T) => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
    return { promise, resolve, reject };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A FallbackWorker over a worker that starts when the test says, and a page's stand-in. */
function harness(pageFails = false) {
    const started = deferred<LayoutWorker>();
    const worker = new StandIn();
    const page = new StandIn();
    let failed: (why: string) => void = () => undefined;
    const fellBack: string[] = [];
    const parts: LayoutWorkerParts = {
        start: (f) => ((failed = f), started.promise),
        inPage: async () => (pageFails ? Promise.reject(new Error("no ELK")) : page),
        fellBack: (why) => fellBack.push(why),
    };
    const proxy = new FallbackWorker(parts);
    const answers: unknown[] = [];
    proxy.onmessage = (event) => answers.push(event.data);
    return { proxy, worker, page, started, fail: (why: string) => failed(why), fellBack, answers };
}

const REGISTER = { id: 0, cmd: "register" };
const LAYOUT = (id: number) => ({ id, cmd: "layout" });

test("the worker gets what was sent while it started, in order, and answers; the page's ELK is never made", async () => {
    const h = harness();
    h.proxy.postMessage(REGISTER);
    h.proxy.postMessage(LAYOUT(1));
    assert.equal(h.proxy.place, "starting");
    h.started.resolve(h.worker);
    await tick();
    assert.equal(h.proxy.place, "worker");
    assert.deepEqual(h.worker.got, [REGISTER, LAYOUT(1)]);
    h.proxy.postMessage(LAYOUT(2));
    assert.deepEqual(h.worker.got.at(-1), LAYOUT(2), "once started, sent at once");
    h.worker.answer(0);
    h.worker.answer(1);
    h.worker.answer(1); // twice: given once
    assert.deepEqual(h.answers, [{ id: 0, data: "answer 0" }, { id: 1, data: "answer 1" }]);
    assert.deepEqual([h.page.got, h.fellBack], [[], []]);
});

test("a worker that cannot start (the fetch or the policy refused it): the page lays out, told why once", async () => {
    const h = harness();
    h.proxy.postMessage(REGISTER);
    h.proxy.postMessage(LAYOUT(1));
    h.started.reject(new Error("elk-worker.min.js: 404 Not Found"));
    await tick();
    assert.equal(h.proxy.place, "page");
    assert.deepEqual(h.fellBack, ["elk-worker.min.js: 404 Not Found"]);
    assert.deepEqual(h.page.got, [REGISTER, LAYOUT(1)]);
    h.page.answer(0);
    h.page.answer(1);
    assert.deepEqual(h.answers.map((a) => (a as { id: number }).id), [0, 1]);
});

test("a worker that fails before answering (its error event) is ended; the page gets everything, the worker's late answers are dropped", async () => {
    const h = harness();
    h.proxy.postMessage(REGISTER);
    h.started.resolve(h.worker);
    await tick();
    h.proxy.postMessage(LAYOUT(1));
    h.fail("Uncaught SyntaxError");
    h.fail("again"); // a second error event: one fallback
    await tick();
    assert.ok(h.worker.terminated);
    assert.deepEqual(h.fellBack, ["Uncaught SyntaxError"]);
    assert.deepEqual(h.page.got, [REGISTER, LAYOUT(1)]);
    h.worker.answer(1, "stale");
    h.page.answer(1);
    assert.deepEqual(h.answers, [{ id: 1, data: "answer 1" }]);
});

test("a worker that fails after answering: the page registers the algorithms again (that answer is not given twice) and takes only the unanswered layouts", async () => {
    const h = harness();
    h.started.resolve(h.worker);
    await tick();
    h.proxy.postMessage(REGISTER);
    h.proxy.postMessage(LAYOUT(1));
    h.proxy.postMessage(LAYOUT(2));
    h.worker.answer(0);
    h.worker.answer(1);
    h.fail("out of memory");
    await tick();
    assert.deepEqual(h.page.got, [REGISTER, LAYOUT(2)]);
    h.page.answer(0);
    h.page.answer(2);
    assert.deepEqual(h.answers.map((a) => (a as { id: number }).id), [0, 1, 2]);
});

test("a worker that starts after the page took over is ended at once", async () => {
    const h = harness();
    h.proxy.postMessage(REGISTER);
    h.fail("refused");
    await tick();
    h.started.resolve(h.worker);
    await tick();
    assert.ok(h.worker.terminated);
    assert.equal(h.proxy.place, "page");
    assert.deepEqual(h.worker.got, []);
});

test("no ELK at all (the page's cannot load either): every question is answered with the error, none waits forever", async () => {
    const h = harness(true);
    h.proxy.postMessage(REGISTER);
    h.proxy.postMessage(LAYOUT(1));
    h.started.reject(new Error("refused"));
    await tick();
    assert.deepEqual(h.answers.map((a) => (a as { id: number }).id), [0, 1]);
    assert.match(JSON.stringify(h.answers[1]), /ELK could not start: Error: no ELK/);
});

const systolic = () => JSON.parse(readFileSync(join(ROOT, "client", "src", "test", "fixtures", "systolic_top_expanded.json"), "utf8"));

/** A layout without GWT's object ids (`$H`, numbered per ELK instance). */
const shapes = (laidOut: unknown) => JSON.parse(JSON.stringify(laidOut, (key, value) => (key === "$H" ? undefined : value)));

test("elkjs's API over the fallback: the same layout in the 'worker' and in the page as elk.bundled.js's", async () => {
    const input = toElk(systolic());
    const expected = shapes(await new Bundled().layout(structuredClone(input)));
    const elkWorker = async () => new (await import("elkjs/lib/elk-worker.min.js")).Worker();
    for (const start of [elkWorker, () => Promise.reject(new Error("refused"))]) {
        const proxy = new FallbackWorker({ start, inPage: elkWorker });
        const elk = new ELK({ workerFactory: () => proxy as never });
        assert.deepEqual(shapes(await elk.layout(structuredClone(input))), expected);
        assert.equal(proxy.place, start === elkWorker ? "worker" : "page");
        elk.terminateWorker();
    }
});

test("the worker's file is elkjs's, copied into dist/webview by the build and packed into the .vsix", () => {
    assert.ok(readFileSync(join(ROOT, "node_modules", "elkjs", "lib", ELK_WORKER_FILE), "utf8").includes("self.onmessage"));
    assert.ok(readFileSync(join(ROOT, "esbuild.js"), "utf8").includes(`"elkjs/lib/${ELK_WORKER_FILE}"`));
    assert.ok(readFileSync(join(ROOT, ".vscodeignore"), "utf8").split("\n").includes(`!dist/webview/${ELK_WORKER_FILE}`));
});
