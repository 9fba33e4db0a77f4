// The webview's view of the graph: the pan and zoom that Fit chooses. Pure arithmetic, so the unit
// tests and the webview share it.

/** A view: the graph's point (gx, gy) is drawn at (x + k * gx, y + k * gy) in the canvas. */
export interface View {
    x: number;
    y: number;
    k: number;
}

// The smallest text drawn is an edge's label, 11 px at scale 1 (graph.css). Fit never draws it
// below 9 px: beside the code a 36-PE grid fitted whole had 5 px labels nobody can read.
export const SMALLEST_FONT_PX = 11;
export const MIN_LABEL_PX = 9;
export const MIN_FIT_SCALE = MIN_LABEL_PX / SMALLEST_FONT_PX;
const MAX_FIT_SCALE = 1.5;
const PAD = 12;

/**
 * The view that shows the graph (`width` x `height` from the origin) in a canvas `box`: all of it,
 * centred, when it fits at a readable scale; else at the smallest readable scale, the start of each
 * axis that does not fit in view (the inputs on the left, the first row on top: where a dataflow
 * graph is read from) and the rest a drag away, the axis that fits centred.
 */
export function fitView(box: { width: number; height: number }, width: number, height: number): View {
    const w = Math.max(width, 1);
    const h = Math.max(height, 1);
    const whole = Math.min((box.width - 2 * PAD) / w, (box.height - 2 * PAD) / h, MAX_FIT_SCALE);
    const k = Math.max(whole, MIN_FIT_SCALE);
    const place = (room: number, size: number) => (size * k <= room - 2 * PAD ? (room - size * k) / 2 : PAD);
    return { k, x: place(box.width, w), y: place(box.height, h) };
}
