// A diagnostic's code links to its rule's page (the server's `codeDescription.href`: a file: URI of
// a Markdown page inside the server's package, often a private venv's site-packages). VS Code
// opened that file as an editable text editor. Here the link becomes a `command:` URI of
// `alloDataflow.showRule`, which opens the page as a rendered Markdown preview of a read-only
// `allo-rule:` document (its text read from the page the server named): the Problems panel, the
// editor's problem hover and a click on the code all open the rendered page, and nothing editable.
// Only pages the server linked are ever read.
import { readFile } from "node:fs/promises";
import { Diagnostic, Disposable, TextDocumentContentProvider, Uri, commands, workspace } from "vscode";
import { traceWarn } from "./logger";

export const SHOW_RULE = "alloDataflow.showRule";
export const RULE_SCHEME = "allo-rule";
// The server's pages: `allo_lsp/docs/rules/ADF011.md` (server/allo_lsp/rule_docs.py).
const PAGE = /\/allo_lsp\/docs\/rules\/(ADF\d{3})\.md$/;
const PAGE_LIMIT = 256 * 1024; // a rule's page is a few KB

/** The rule code of a server's page link (`file:///.../allo_lsp/docs/rules/ADF011.md`), if it is one. */
export function ruleOfHref(href: string): string | undefined {
    return href.startsWith("file:") ? PAGE.exec(href.split(/[?#]/)[0])?.[1] : undefined;
}

/** The link a diagnostic's code gets: `command:alloDataflow.showRule?["ADF011"]`. */
export function showRuleLink(code: string): string {
    return `command:${SHOW_RULE}?${encodeURIComponent(JSON.stringify([code]))}`;
}

/** The read-only document the preview renders: `allo-rule:/ADF011.md`. */
export function rulePageUri(code: string): string {
    return `${RULE_SCHEME}:/${code}.md`;
}

type Linked = { code?: Diagnostic["code"] };

/** `items` with each rule page link made `link(code)`; `remember(code, page)` is told each page. */
export function withRuleLinks<T extends Linked>(items: T[], link: (code: string) => Uri, remember: (code: string, page: Uri) => void): T[] {
    for (const item of items) {
        const code = item.code;
        if (code && typeof code === "object") {
            const rule = ruleOfHref(code.target.toString());
            if (rule) {
                remember(rule, code.target);
                item.code = { value: code.value, target: link(rule) };
            }
        }
    }
    return items;
}

export class RuleLinks implements Disposable, TextDocumentContentProvider {
    /** Code -> the page the server linked it to. */
    private readonly pages = new Map<string, Uri>();
    private readonly disposables: Disposable[];

    constructor() {
        this.disposables = [
            workspace.registerTextDocumentContentProvider(RULE_SCHEME, this),
            commands.registerCommand(SHOW_RULE, (code: unknown) => this.show(code)),
        ];
    }

    /** Diagnostics as they came from the server, their rule links made `showRule` links. */
    diagnostics<T extends Linked>(items: T[]): T[] {
        return withRuleLinks(items, (code) => Uri.parse(showRuleLink(code)), (code, page) => this.pages.set(code, page));
    }

    private async show(code: unknown): Promise<void> {
        if (typeof code !== "string" || !this.pages.has(code)) {
            traceWarn(`${SHOW_RULE}: no page for ${JSON.stringify(code)}`);
            return;
        }
        await commands.executeCommand("markdown.showPreview", Uri.parse(rulePageUri(code)));
    }

    async provideTextDocumentContent(uri: Uri): Promise<string> {
        const code = /^\/(ADF\d{3})\.md$/.exec(uri.path)?.[1];
        const page = code ? this.pages.get(code) : undefined;
        if (!page) {
            return `No page for ${uri.path.slice(1)}.`;
        }
        const text = await readFile(page.fsPath, "utf8").catch((error: Error) => `The page ${page.fsPath} could not be read: ${error.message}`);
        return text.slice(0, PAGE_LIMIT);
    }

    dispose(): void {
        this.disposables.forEach((d) => d.dispose());
    }
}
