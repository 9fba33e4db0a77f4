// Thin wrappers over the `vscode` namespace: the rest of the client calls these, so the places
// that touch the editor are few and easy to find.
import {
    commands,
    ConfigurationChangeEvent,
    ConfigurationScope,
    Disposable,
    languages,
    LanguageStatusItem,
    LogOutputChannel,
    StatusBarAlignment,
    StatusBarItem,
    TextDocument,
    TextDocumentChangeEvent,
    TextEditor,
    window,
    workspace,
    WorkspaceConfiguration,
} from "vscode";

export function createOutputChannel(name: string): LogOutputChannel {
    return window.createOutputChannel(name, { log: true });
}

export function getConfiguration(section: string, scope?: ConfigurationScope): WorkspaceConfiguration {
    return workspace.getConfiguration(section, scope);
}

export function onDidChangeConfiguration(listener: (e: ConfigurationChangeEvent) => unknown): Disposable {
    return workspace.onDidChangeConfiguration(listener);
}

export function registerCommand(command: string, callback: (...args: unknown[]) => unknown): Disposable {
    return commands.registerCommand(command, callback);
}

export function executeCommand(command: string, ...args: unknown[]): Thenable<unknown> {
    return commands.executeCommand(command, ...args);
}

export function setContext(key: string, value: unknown): Thenable<unknown> {
    return commands.executeCommand("setContext", key, value);
}

export function isTrusted(): boolean {
    return workspace.isTrusted;
}

export function onDidGrantWorkspaceTrust(listener: () => unknown): Disposable {
    return workspace.onDidGrantWorkspaceTrust(listener);
}

export function openTextDocuments(): readonly TextDocument[] {
    return workspace.textDocuments;
}

export function onDidOpenTextDocument(listener: (doc: TextDocument) => unknown): Disposable {
    return workspace.onDidOpenTextDocument(listener);
}

export function onDidCloseTextDocument(listener: (doc: TextDocument) => unknown): Disposable {
    return workspace.onDidCloseTextDocument(listener);
}

export function onDidChangeActiveTextEditor(listener: (editor: TextEditor | undefined) => unknown): Disposable {
    return window.onDidChangeActiveTextEditor(listener);
}

export function visibleDocuments(): TextDocument[] {
    return window.visibleTextEditors.map((e) => e.document);
}

export function workspaceFolderPaths(): string[] {
    return (workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
}

export function onDidChangeTextDocument(listener: (e: TextDocumentChangeEvent) => unknown): Disposable {
    return workspace.onDidChangeTextDocument(listener);
}

export function activeTextEditor(): TextEditor | undefined {
    return window.activeTextEditor;
}

export function createStatusBarItem(id: string, name: string): StatusBarItem {
    const item = window.createStatusBarItem(id, StatusBarAlignment.Left, 0);
    item.name = name;
    return item;
}

export function createLanguageStatusItem(id: string, language: string): LanguageStatusItem {
    return languages.createLanguageStatusItem(id, { language });
}
