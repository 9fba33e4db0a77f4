// Pure helpers (no `vscode` import): what a command acts on, which documents are Allo designs, and
// how a server says it lacks a command.

export interface Target {
    uri: string;
    name: string;
}

/** The part of an LSP code lens the client reads. */
export interface LensLike {
    range: { start: { line: number } };
    command?: { command: string; arguments?: unknown[] };
}

/** `[uri, name]` as the server's lenses pass them; anything else (a palette or menu call) is not a target. */
export function explicitTarget(args: readonly unknown[]): Target | undefined {
    const [uri, name] = args;
    return typeof uri === "string" && typeof name === "string" ? { uri, name } : undefined;
}

/**
 * The target of the lens nearest at or above `line`, among the lenses of the first command in
 * `lensCommands` that has any (Synthesize falls back to the regions of the Simulate lenses). When
 * the cursor is above every lens and there is only one, that one.
 */
export function pickTarget(lenses: readonly LensLike[], lensCommands: readonly string[], line: number): Target | undefined {
    for (const command of lensCommands) {
        const candidates = lenses
            .filter((lens) => lens.command?.command === command && explicitTarget(lens.command.arguments ?? []))
            .sort((a, b) => a.range.start.line - b.range.start.line);
        if (!candidates.length) {
            continue;
        }
        const above = candidates.filter((lens) => lens.range.start.line <= line).pop();
        const chosen = above ?? (candidates.length === 1 ? candidates[0] : undefined);
        return chosen && explicitTarget(chosen.command!.arguments!);
    }
    return undefined;
}

// Blanks before the statement but no line break: `^\s*` retried every run of blank lines from each of
// its line starts (40,000 blank lines: 6 s).
const ALLO_DATAFLOW = /^[^\S\n\r\u2028\u2029]*(import\s+allo\.dataflow\b|from\s+allo\.dataflow\s+import\b|from\s+allo\s+import\s+[^\n#]*\bdataflow\b)|@\s*df\.(region|kernel)\b/m;

/** Whether Python source uses Allo dataflow: the server starts only once such a file is open. */
export function usesAlloDataflow(text: string): boolean {
    return ALLO_DATAFLOW.test(text);
}

/**
 * Whether a request failed because the server has no such command: pygls answers InvalidParams
 * "Command name '...' is not defined"; other servers MethodNotFound.
 */
export function isUnknownCommand(error: unknown): boolean {
    const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
    return (code === -32601 || code === -32602) && typeof message === "string" && /not (defined|found)|unknown command/i.test(message);
}

/** `file:///w/examples/design.py` -> `design.py`: the log's and the status bar's name of a file. */
export function fileName(uri: string): string {
    return decodeURIComponent(uri.replace(/[?#].*$/, "").split("/").pop() ?? uri);
}

// A codicon for the server's "⏳": that glyph draws as a box in some editor fonts (VS Code renders `$(name)`).
export const RUNNING_ICON = "$(sync~spin)";
export const RESTRICTED_TOOLTIP = "Restricted Mode: Allo runs nothing in an untrusted workspace. Click to manage workspace trust.";

/** The part of a code lens's command the client may change. */
export interface LensCommand {
    title: string;
    command: string;
    tooltip?: string;
    arguments?: unknown[];
}

/**
 * A server's lens as VS Code should draw it. Which job runs, and that its lens cancels it, is the
 * server's (its running lens: `⏳ running… (click to cancel)`, alloDataflow.cancelJob); the client
 * draws the hourglass as a codicon. In Restricted Mode a job's lens shows that it runs nothing
 * (its click explains and offers to manage trust). `kinds`: job command -> job kind.
 */
export function lensView(lens: LensCommand, trusted: boolean, kinds: Readonly<Record<string, string>>): LensCommand {
    const kind = kinds[lens.command];
    if (lens.title.startsWith("⏳")) {
        return { ...lens, title: lens.title.replace(/^⏳\s*/u, `${RUNNING_ICON} `) };
    }
    if (!trusted && kind) {
        const plain = lens.title.replace(/^[▶⚙]\s*/u, "");
        return { ...lens, title: `$(lock) ${plain}`, tooltip: RESTRICTED_TOOLTIP };
    }
    return lens;
}

/** The commands the server's message actions stand for (a job failed for its environment). */
export const MESSAGE_ACTIONS: Readonly<Record<string, { command: string; args: unknown[] }>> = {
    "Open Settings": { command: "workbench.action.openSettings", args: ["alloDataflow"] },
    "Select Interpreter": { command: "alloDataflow.selectInterpreter", args: [] },
};

/** A `window/showMessageRequest` of the server, asked with its actions (`show`: VS Code's
 * show*Message for its type); the chosen action's command is run (`run`) and the choice answered. */
export async function askWithActions(
    params: { type: number; message: string; actions?: { title: string }[] },
    show: (type: number, message: string, titles: string[]) => Thenable<string | undefined>,
    run: (command: string, ...args: unknown[]) => Thenable<unknown>,
): Promise<{ title: string } | null> {
    const choice = await show(params.type, params.message, (params.actions ?? []).map((a) => a.title));
    const action = choice === undefined ? undefined : MESSAGE_ACTIONS[choice];
    if (action) {
        void run(action.command, ...action.args);
    }
    return choice === undefined ? null : { title: choice };
}
