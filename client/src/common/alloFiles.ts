// Which open documents are Allo designs, kept in the context key `alloDataflow.alloFiles` (their
// paths): the Allo items of the editor's context menu show there only (`resourcePath in ...`),
// not in every Python file's menu; the Allo environment's status item shows in them too.
import { Disposable, EventEmitter, TextDocument } from "vscode";
import { usesAlloDataflow } from "./targets";
import { onDidChangeTextDocument, onDidCloseTextDocument, onDidOpenTextDocument, openTextDocuments, setContext } from "./vscodeapi";

export const ALLO_FILES_CONTEXT = "alloDataflow.alloFiles";

export class AlloFiles implements Disposable {
    private readonly paths = new Set<string>();
    private readonly changed = new EventEmitter<void>();
    readonly onDidChange = this.changed.event;
    private readonly listeners: Disposable[];

    constructor() {
        this.listeners = [
            onDidOpenTextDocument((d) => this.check(d)),
            onDidChangeTextDocument((e) => this.check(e.document)),
            onDidCloseTextDocument((d) => this.update(d, false)),
        ];
        openTextDocuments().forEach((d) => this.check(d));
        void setContext(ALLO_FILES_CONTEXT, [...this.paths]);
    }

    has(document: TextDocument | undefined): boolean {
        return document !== undefined && this.paths.has(document.uri.fsPath);
    }

    private check(document: TextDocument): void {
        this.update(document, document.languageId === "python" && usesAlloDataflow(document.getText()));
    }

    private update(document: TextDocument, allo: boolean): void {
        const path = document.uri.fsPath;
        if (allo === this.paths.has(path)) {
            return;
        }
        if (allo) {
            this.paths.add(path);
        } else {
            this.paths.delete(path);
        }
        void setContext(ALLO_FILES_CONTEXT, [...this.paths]);
        this.changed.fire();
    }

    dispose(): void {
        this.listeners.forEach((l) => l.dispose());
        this.changed.dispose();
    }
}
