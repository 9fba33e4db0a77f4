// elkjs ships no types for its worker's file: what the page's fallback (graph.ts) and the tests
// use of it, elkjs's in-page stand-in for its worker (the same object elk.bundled.js makes).
declare module "elkjs/lib/elk-worker.min.js" {
    export class Worker {
        constructor(url?: string);
        postMessage(message: unknown): void;
        onmessage: ((event: { data: unknown }) => void) | null;
    }
}
