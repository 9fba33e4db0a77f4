// "Which PE am I looking at?" (issue 30): the server's `alloDataflow/activePe` (ide/active_pe.py)
// tells what one PE of a kernel runs; this shows it. The server keeps the choice (per document
// and kernel, cleared when the kernel's mapping changes), titles the kernel's "PE" lens with it and
// adds the PE's values to its inlay hints and hovers; the client only asks, shows the quick pick,
// and dims the branches the PE does not take (LSP has no inactive-region notion: clangd does
// the same with decorations).
import {
    DecorationOptions,
    Disposable,
    QuickPickItem,
    QuickPickItemKind,
    Range,
    TextEditor,
    TextEditorDecorationType,
    Uri,
    window,
    workspace,
} from "vscode";
import { LanguageClient } from "vscode-languageclient/node";
import { traceWarn } from "./logger";
import { registerCommand } from "./vscodeapi";

export const ACTIVE_PE_REQUEST = "alloDataflow/activePe";
export const PICK_PE = "alloDataflow.pickPe";
// Typing pauses this long before the dimmed ranges are asked for again (they move with the text).
const EDIT_PAUSE_MS = 300;

interface LspRange {
    start: { line: number; character: number };
    end: { line: number; character: number };
}

export interface PeChoice {
    name: string;
    pid: number[];
    role: string | null;
}

export interface ActivePeAnswer {
    region: string;
    kernel: string;
    active: PeChoice | null;
    pes: PeChoice[];
    inactive: LspRange[];
    hints: { position: { line: number; character: number }; label: string }[];
}

/** The quick pick's items: the PEs grouped by role, each group under a separator, "all PEs" first. */
export function pickItems(answer: ActivePeAnswer): (QuickPickItem & { pe?: string })[] {
    const items: (QuickPickItem & { pe?: string })[] = [
        { label: "All PEs", description: "no active PE: every branch shown", pe: undefined },
    ];
    let role: string | null | undefined = undefined;
    for (const pe of answer.pes) {
        if (pe.role !== role) {
            role = pe.role;
            items.push({ label: role ?? "in no meta branch", kind: QuickPickItemKind.Separator });
        }
        const active = answer.active?.name === pe.name;
        items.push({ label: pe.name, description: `(${pe.pid.join(", ")})${active ? " · active" : ""}`, pe: pe.name });
    }
    return items;
}

type Key = string; // JSON [uri, region, kernel], the uri as the server spells it (the lens's)

/** Whether the key is of the document `uri` (VS Code's spelling: it may encode otherwise). */
function isOf(key: Key, uri: string): boolean {
    return Uri.parse(JSON.parse(key)[0]).toString() === uri;
}

export class ActivePes implements Disposable {
    private readonly dimmed: TextEditorDecorationType = window.createTextEditorDecorationType({ opacity: "0.4" });
    private readonly views = new Map<Key, ActivePeAnswer>(); // the kernels with an active PE
    private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
    private readonly disposables: Disposable[];

    constructor(private readonly client: () => LanguageClient | undefined) {
        this.disposables = [
            registerCommand(PICK_PE, (...args: unknown[]) => this.pick(args)),
            window.onDidChangeVisibleTextEditors((editors) => editors.forEach((e) => this.decorate(e))),
            workspace.onDidChangeTextDocument((e) => {
                const uri = e.document.uri.toString();
                if (!e.contentChanges.length || ![...this.views.keys()].some((k) => isOf(k, uri))) {
                    return;
                }
                clearTimeout(this.timers.get(uri));
                this.timers.set(uri, setTimeout(() => void this.refresh(uri), EDIT_PAUSE_MS));
            }),
            workspace.onDidCloseTextDocument((document) => {
                const uri = document.uri.toString();
                [...this.views.keys()].filter((k) => isOf(k, uri)).forEach((k) => this.views.delete(k));
            }),
        ];
    }

    /** `alloDataflow.pickPe` [uri, region, kernel] (the kernel's lens): the quick pick of its PEs. */
    private async pick(args: unknown[]): Promise<void> {
        const [uri, region, kernel] = args;
        if (typeof uri !== "string" || typeof region !== "string" || typeof kernel !== "string") {
            void window.showInformationMessage("Allo: Pick PE: use the PE lens above a kernel.");
            return;
        }
        const listed = await this.ask(uri, region, kernel, null);
        if (!listed) {
            return;
        }
        const picked = await window.showQuickPick(pickItems(listed), {
            title: `PE of ${kernel} (${listed.pes.length} PEs)`,
            placeHolder: "the code as this PE runs it: the branches it does not take dimmed, its values as hints",
            matchOnDescription: true,
        });
        if (picked) {
            await this.choose(uri, region, kernel, picked.pe ?? null);
        }
    }

    /** Makes `pe` (a name; null: none) the kernel's active PE and shows it (the graph's PE click too). */
    async choose(uri: string, region: string, kernel: string, pe: string | null): Promise<void> {
        const answer = await this.ask(uri, region, kernel, pe, pe === null);
        const key = JSON.stringify([uri, region, kernel]);
        if (answer?.active) {
            this.views.set(key, answer);
        } else {
            this.views.delete(key);
        }
        this.decorateUri(uri);
    }

    /** The document `uri` (VS Code's spelling) edited: its active PEs' ranges asked for again. */
    private async refresh(uri: string): Promise<void> {
        for (const key of [...this.views.keys()].filter((k) => isOf(k, uri))) {
            const [serverUri, region, kernel] = JSON.parse(key) as string[];
            const answer = await this.ask(serverUri, region, kernel, null);
            if (answer?.active) {
                this.views.set(key, answer);
            } else {
                this.views.delete(key); // its mapping changed or it is gone: the server cleared it
            }
        }
        window.visibleTextEditors.filter((e) => e.document.uri.toString() === uri).forEach((e) => this.decorate(e));
    }

    private async ask(uri: string, region: string, kernel: string, pe: string | null, clear = false): Promise<ActivePeAnswer | undefined> {
        const client = this.client();
        if (!client) {
            return undefined;
        }
        try {
            const answer = (await client.sendRequest(ACTIVE_PE_REQUEST, { textDocument: { uri }, region, kernel, pe, clear })) as ActivePeAnswer | null;
            return answer ?? undefined;
        } catch (error) {
            traceWarn(`${ACTIVE_PE_REQUEST} of ${region}.${kernel}: ${error}`);
            void window.showWarningMessage(`Allo: the PEs of ${kernel} could not be listed: ${error}`);
            return undefined;
        }
    }

    private decorateUri(uri: string): void {
        window.visibleTextEditors.filter((e) => e.document.uri.toString() === Uri.parse(uri).toString()).forEach((e) => this.decorate(e));
    }

    private decorate(editor: TextEditor): void {
        const client = this.client();
        const uri = editor.document.uri.toString();
        const ranges: DecorationOptions[] = [];
        for (const [key, answer] of this.views) {
            if (!isOf(key, uri) || !client) {
                continue;
            }
            const tip = `not run by ${answer.active?.name ?? "the active PE"} (allo.meta_* branch it does not take)`;
            ranges.push(...answer.inactive.map((r) => ({ range: client.protocol2CodeConverter.asRange(r) as Range, hoverMessage: tip })));
        }
        editor.setDecorations(this.dimmed, ranges);
    }

    dispose(): void {
        this.disposables.forEach((d) => d.dispose());
        this.timers.forEach((t) => clearTimeout(t));
        this.dimmed.dispose();
    }
}
