// Where the graph's webview runs ELK: in elkjs's web worker (dist/webview/elk-worker.min.js), so
// that a layout (hundreds of milliseconds for an expanded grid) does not block the page's clicks,
// pans and redraws; in the page when the worker cannot start (a webview that refuses it), as
// before. The webview's resources are of another origin than the page, which `new Worker(url)`
// refuses: the page fetches the file (connect-src) and starts the worker from a blob: URL
// (worker-src blob:), webviewHtml.ts's policy. Pure: the browser's parts are passed in (graph.ts).

/** The worker's file in dist/webview/, copied there from elkjs by esbuild.js and packed (.vscodeignore). */
export const ELK_WORKER_FILE = "elk-worker.min.js";

/** What ELK (elk-api's PromisedWorker) needs of a worker: it sets `onmessage` and posts to it. */
export interface LayoutWorker {
    postMessage(message: unknown): void;
    onmessage: ((event: { data: unknown }) => void) | null;
    terminate?(): void;
}

export type LayoutPlace = "starting" | "worker" | "page";

export interface LayoutWorkerParts {
    /** Starts the worker; rejects when it cannot, or calls `failed` when it fails later (its `error` event). */
    start(failed: (why: string) => void): Promise<LayoutWorker>;
    /** ELK in this page (elkjs's FakeWorker). */
    inPage(): Promise<LayoutWorker>;
    /** Told once, when the page lays out instead of the worker. */
    fellBack?(why: string): void;
}

/**
 * ELK's worker, given to `new ELK({ workerFactory })` at once although the real one starts
 * asynchronously: messages wait until it has started, and when it cannot start, or fails, the
 * page's ELK gets the messages not answered yet (and the algorithms' registration, which each
 * ELK needs before its first layout). An answer comes once per message, from whichever answered.
 */
export class FallbackWorker implements LayoutWorker {
    onmessage: ((event: { data: unknown }) => void) | null = null;
    private target: LayoutWorker | undefined;
    private readonly waiting: unknown[] = [];
    private readonly unanswered = new Map<unknown, unknown>();
    private readonly registrations: unknown[] = [];
    private placeNow: LayoutPlace = "starting";
    private ended = false;

    constructor(private readonly parts: LayoutWorkerParts) {
        parts.start((why) => this.fallBack(why)).then(
            (worker) => (this.placeNow === "starting" ? this.use(worker, "worker") : worker.terminate?.()),
            (error) => this.fallBack(String(error instanceof Error ? error.message : error)),
        );
    }

    /** Where layouts run now: the worker, the page, or neither yet. */
    get place(): LayoutPlace {
        return this.placeNow;
    }

    postMessage(message: unknown): void {
        const { id, cmd } = (message ?? {}) as { id?: unknown; cmd?: unknown };
        this.unanswered.set(id, message);
        if (cmd === "register") {
            this.registrations.push(message);
        }
        if (this.target) {
            this.target.postMessage(message);
        } else {
            this.waiting.push(message);
        }
    }

    terminate(): void {
        this.ended = true;
        this.target?.terminate?.();
    }

    private use(worker: LayoutWorker, place: LayoutPlace): void {
        if (this.ended) {
            worker.terminate?.();
            return;
        }
        this.target = worker;
        this.placeNow = place;
        worker.onmessage = (event) => this.answer(worker, event);
        this.waiting.splice(0).forEach((message) => worker.postMessage(message));
    }

    private answer(from: LayoutWorker, event: { data: unknown }): void {
        const { id } = (event.data ?? {}) as { id?: unknown };
        if (from !== this.target || !this.unanswered.delete(id)) {
            return; // a worker given up on, or an answer already given (a registration sent again)
        }
        this.onmessage?.(event);
    }

    private fallBack(why: string): void {
        if (this.placeNow === "page" || this.ended) {
            return;
        }
        const failed = this.target;
        this.target = undefined;
        this.placeNow = "page";
        failed?.terminate?.();
        this.parts.fellBack?.(why);
        // The page's ELK registers the algorithms first, then takes what the worker left unanswered.
        const unanswered = [...this.unanswered.values()].filter((m) => !this.registrations.includes(m));
        this.waiting.splice(0, this.waiting.length, ...this.registrations, ...unanswered);
        this.parts.inPage().then(
            (worker) => this.use(worker, "page"),
            (error) => {
                // No ELK at all: every question is answered with the error, so no drawing waits forever.
                for (const [id] of this.unanswered) {
                    this.onmessage?.({ data: { id, error: { message: `ELK could not start: ${error}` } } });
                }
                this.unanswered.clear();
            },
        );
    }
}
