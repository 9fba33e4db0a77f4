// What the unit tests need of `vscode`: the names modules under test import, so that the bundle
// links, and for the logger's tests a configuration the test sets (`settings`) with its change
// events (`changeSettings`).
type Listener = (e: { affectsConfiguration(section: string): boolean }) => void;
const listeners = new Set<Listener>();
export const settings: Record<string, unknown> = {};

/** Sets `alloDataflow.<key>` values and fires the configuration change VS Code would. */
export function changeSettings(values: Record<string, unknown>): void {
    Object.assign(settings, values);
    const changed = Object.keys(values).map((key) => `alloDataflow.${key}`);
    listeners.forEach((l) => l({ affectsConfiguration: (section) => changed.some((c) => c === section || c.startsWith(`${section}.`)) }));
}

export const workspace = {
    getConfiguration: () => ({ get: (key: string, fallback?: unknown) => (key in settings ? settings[key] : fallback) }),
    onDidChangeConfiguration: (listener: Listener) => {
        listeners.add(listener);
        return { dispose: () => listeners.delete(listener) };
    },
};
export const window = {};
// Set by the tests that call into them (install.test.ts: the Python extension, the settings, the notifications).
export const extensions = {};
export const ProgressLocation = {};
export const commands = {};
export const languages = {};
export const StatusBarAlignment = {};
export const LanguageStatusSeverity = {};
export const Uri = {};
export const ViewColumn = { Active: -1, Beside: -2, One: 1 };
export const ConfigurationTarget = { Global: 1, Workspace: 2, WorkspaceFolder: 3 };
export const QuickPickItemKind = { Separator: -1, Default: 0 };
export enum LogLevel {
    Off = 0,
    Trace = 1,
    Debug = 2,
    Info = 3,
    Warning = 4,
    Error = 5,
}
export class EventEmitter<T> {
    private readonly handlers = new Set<(value: T) => void>();
    readonly event = (handler: (value: T) => void) => {
        this.handlers.add(handler);
        return { dispose: () => this.handlers.delete(handler) };
    };
    fire(value: T): void {
        this.handlers.forEach((h) => h(value));
    }
    dispose(): void {
        this.handlers.clear();
    }
}
