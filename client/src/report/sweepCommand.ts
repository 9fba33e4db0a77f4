// "Allo: Sweep Region…": asks the server what the region can sweep (`alloDataflow.sweep` with
// [uri, region]: the file's module-level constants and the synthesis settings), lets the user pick
// some and type each one's values (comma-separated), runs the sweep (the same command with the
// sets: a bounded local pool, or a Slurm job array with alloDataflow.scheduler = slurm) while a
// notification says so (each point done under its title, from the server's $/progress; its Cancel
// ends the sweep's jobs), and opens the sweep view on its table. The trust check and the region at
// the cursor are the job commands' (commands.ts).
import { CancellationToken, ProgressLocation, QuickPickItem, window } from "vscode";
import { traceInfo, traceWarn } from "../common/logger";
import { SweepAnswer, setOf } from "./sweepModel";

export const SWEEP_COMMAND = "alloDataflow.sweep";

interface Parameter {
    name: string;
    value?: unknown;
}

interface Parameters {
    constants?: Parameter[];
    settings?: Parameter[];
    status?: string;
    message?: string;
}

interface ParameterItem extends QuickPickItem {
    name: string;
    value?: unknown;
}

/** The points the sets make: the product of each one's number of values. */
export function pointCount(sets: readonly string[]): number {
    return sets.reduce((n, set) => n * set.slice(set.indexOf("=") + 1).split(",").length, 1);
}

/** Follows the server's `$/progress` on `token` ("3 of 8 points done"), until disposed. */
export type FollowProgress = (token: string, report: (message: string) => void) => { dispose(): void } | undefined;

let sweeps = 0; // each sweep's own progress token

export async function sweepRegion(
    target: { uri: string; name: string },
    send: (args: unknown[], token?: CancellationToken) => Promise<unknown>,
    show: (answer: SweepAnswer, title: string) => void,
    follow: FollowProgress = () => undefined,
): Promise<unknown> {
    const offered = ((await send([target.uri, target.name])) ?? {}) as Parameters;
    if (offered.status === "error") {
        void window.showWarningMessage(`Allo: Sweep ${target.name}: ${offered.message ?? "the server cannot sweep it"}`);
        return offered;
    }
    const items: ParameterItem[] = [
        ...(offered.constants ?? []).map((c) => ({ label: c.name, description: `= ${String(c.value)}`, detail: "module-level constant", name: c.name, value: c.value })),
        ...(offered.settings ?? []).map((s) => ({
            label: s.name,
            description: s.value === null || s.value === undefined ? "(what Allo writes)" : `= ${String(s.value)}`,
            detail: s.name === "clock" ? "synthesis setting: clock period in ns" : "synthesis setting",
            name: s.name,
            value: s.value,
        })),
    ];
    const picked = await window.showQuickPick(items, {
        canPickMany: true,
        title: `Allo: Sweep ${target.name}: the parameters to vary`,
        placeHolder: "Pick the constants and settings to sweep; every combination of their values is synthesized",
    });
    if (!picked?.length) {
        return undefined;
    }
    const sets: string[] = [];
    for (const item of picked) {
        const typed = await window.showInputBox({
            title: `Allo: Sweep ${target.name}: values of ${item.name}`,
            prompt: `Comma-separated values of ${item.name}${item.name === "clock" ? " (ns)" : ""}`,
            value: item.value === null || item.value === undefined ? "" : String(item.value),
            validateInput: (text) => setOf(item.name, text).error,
        });
        const set = typed === undefined ? undefined : setOf(item.name, typed).set;
        if (!set) {
            return undefined;
        }
        sets.push(set);
    }
    const points = pointCount(sets);
    traceInfo(`sweep ${target.name}: ${sets.join(" ")} (${points} points)`);
    // Cancel (the notification's button) cancels the request, and the server the points' jobs.
    let cancelled = false;
    const answer = (await window
        .withProgress(
            {
                location: ProgressLocation.Notification,
                title: `Allo: sweeping ${target.name}: ${points} point${points === 1 ? "" : "s"} (${sets.join(" ")})`,
                cancellable: true,
            },
            (progress, token) => {
                token.onCancellationRequested(() => (cancelled = true));
                // The server reports each point done on this token, shown under the title.
                const progressToken = `allo-sweep-${process.pid}-${++sweeps}`;
                const following = follow(progressToken, (message) => progress.report({ message }));
                return send([target.uri, target.name, sets, { progress: progressToken }], token).finally(() => following?.dispose());
            },
        )
        .then(undefined, (error) => {
            if (!cancelled) {
                throw error;
            }
            return undefined;
        })) as SweepAnswer | undefined;
    if (cancelled || !answer) {
        traceInfo(`sweep ${target.name}: ${cancelled ? "cancelled" : "no answer"}`);
        return undefined;
    }
    traceInfo(`sweep ${target.name}: ${answer.status}: ${answer.message ?? ""}`);
    if (!answer.rows?.length) {
        traceWarn(`sweep ${target.name}: ${answer.message}`);
        void window.showErrorMessage(`Allo: Sweep ${target.name}: ${answer.message ?? "no point ran"}`);
        return answer;
    }
    show(answer, `${target.name} sweep`);
    return answer;
}
