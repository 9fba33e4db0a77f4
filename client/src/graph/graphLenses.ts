// The "Graph" lens of each region (pure: the unit tests import it without `vscode`).
import { explicitTarget, LensLike } from "../common/targets";

export const SHOW_GRAPH = "alloDataflow.showGraph";
// The lenses a region has: a Graph lens goes beside the first of them.
export const REGION_LENSES = ["alloDataflow.simulate", "alloDataflow.synthesize", "alloDataflow.showMlir"];

/** Adds a "Graph" lens beside each region's first lens, unless the server already sends one. */
export function withGraphLenses<T extends LensLike>(lenses: readonly T[], make: (lens: T, target: { uri: string; name: string }) => T): T[] {
    const seen = new Set(lenses.filter((l) => l.command?.command === SHOW_GRAPH).map((l) => JSON.stringify(l.command?.arguments ?? [])));
    const out = [...lenses];
    for (const lens of lenses) {
        const target = lens.command && REGION_LENSES.includes(lens.command.command) ? explicitTarget(lens.command.arguments ?? []) : undefined;
        const key = target && JSON.stringify([target.uri, target.name]);
        if (target && !seen.has(key!)) {
            seen.add(key!);
            out.push(make(lens, target));
        }
    }
    return out;
}
