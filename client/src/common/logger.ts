// One log for the client and the server ("Allo Dataflow" in the Output panel). On CI it also goes
// to the console, so an end-to-end test's log shows what the extension did.
//
// `alloDataflow.logLevel` (error, warn, info, debug, as ruff-vscode's `ruff.logLevel`) decides what
// is written, the client's lines and the server's (`window/logMessage`, through `clientChannel`)
// alike. `alloDataflow.trace.server` alone decides whether the protocol's messages are written:
// vscode-languageclient traces only when its channel's level is Trace, which a user would have to
// set as well ("Developer: Set Log Level..."); the channel it is given says Trace when tracing is on.
import { Disposable, Event, EventEmitter, LogLevel, LogOutputChannel } from "vscode";
import { getConfiguration, onDidChangeConfiguration } from "./vscodeapi";

export const LOG_LEVELS = ["error", "warn", "info", "debug"] as const;
export type Level = (typeof LOG_LEVELS)[number];

let channel: LogOutputChannel | undefined;
let threshold: Level = "info";
const toConsole = process.env.CI === "true";

/** The setting's value as a level; anything else is the default, info. */
export function asLevel(value: unknown): Level {
    return LOG_LEVELS.includes(value as Level) ? (value as Level) : "info";
}

/** Whether a line of `level` is written when the setting is `setting`. */
export function shouldLog(level: Level, setting: Level): boolean {
    return LOG_LEVELS.indexOf(level) <= LOG_LEVELS.indexOf(setting);
}

export function registerLogger(output: LogOutputChannel): Disposable {
    channel = output;
    hinted = false;
    const read = (): void => {
        threshold = asLevel(getConfiguration("alloDataflow").get("logLevel"));
    };
    read();
    const watching = onDidChangeConfiguration((e) => e.affectsConfiguration("alloDataflow.logLevel") && read());
    return {
        dispose: () => {
            watching.dispose();
            channel = undefined;
        },
    };
}

export const HIDDEN_DEBUG_HINT =
    "alloDataflow.logLevel is debug, but this channel's own level hides debug lines: set it to Debug " +
    "(the Output panel's gear, or Developer: Set Log Level...) to see them";
let hinted = false;

/** Once per session: the setting asks for debug lines the channel's own level (Info by default) hides. */
function hintHiddenDebug(): void {
    if (!hinted && channel && channel.logLevel > LogLevel.Debug) {
        hinted = true;
        channel.info(HIDDEN_DEBUG_HINT);
    }
}

function write(level: Level, parts: unknown[]): void {
    if (!shouldLog(level, threshold)) {
        return;
    }
    const text = parts.map((p) => (p instanceof Error ? p.stack ?? p.message : String(p))).join(" ");
    // Each level is the channel's own, which tags the line once: `[debug] ...`, never `[info] [debug] ...`.
    channel?.[level](text);
    if (level === "debug") {
        hintHiddenDebug();
    }
    if (toConsole) {
        console[level === "debug" ? "log" : level](`[allo-dataflow] ${text}`);
    }
}

export const traceInfo = (...parts: unknown[]): void => write("info", parts);
export const traceWarn = (...parts: unknown[]): void => write("warn", parts);
export const traceError = (...parts: unknown[]): void => write("error", parts);
export const traceDebug = (...parts: unknown[]): void => write("debug", parts);

/** A command line for the log: a `-c` script as its size, not its text (the log is read, not run). */
export function commandLine(command: string, args: readonly string[]): string {
    const shown = args.map((arg, i) => (args[i - 1] === "-c" ? `<script, ${arg.trim().split("\n").length} lines>` : arg));
    return [command, ...shown].join(" ");
}

function tracing(): boolean {
    return getConfiguration("alloDataflow").get<string>("trace.server", "off") !== "off";
}

/**
 * The channel vscode-languageclient writes to: the server's messages and the client library's
 * own go through `logLevel`, and the protocol trace is written whenever `trace.server` is on.
 */
export function clientChannel(output: LogOutputChannel): LogOutputChannel & Disposable {
    const changed = new EventEmitter<LogLevel>();
    const level = (): LogLevel => (tracing() ? LogLevel.Trace : output.logLevel);
    const listeners = [
        output.onDidChangeLogLevel(() => changed.fire(level())),
        onDidChangeConfiguration((e) => e.affectsConfiguration("alloDataflow.trace.server") && changed.fire(level())),
    ];
    return {
        get name() {
            return output.name;
        },
        get logLevel() {
            return level();
        },
        onDidChangeLogLevel: changed.event as Event<LogLevel>,
        trace: (message: string) => tracing() && output.info(message),
        debug: (message: string) => write("debug", [message]),
        info: (message: string) => write("info", [message]),
        warn: (message: string) => write("warn", [message]),
        error: (message: string | Error) => write("error", [message]),
        append: (value: string) => output.append(value),
        // vscode-languageclient writes a `window/logMessage` of type Log (the server's debug lines,
        // LSP 3.17 has no Debug) with appendLine, which the channel tags [info]: a debug line here.
        appendLine: (value: string) => write("debug", [value]),
        replace: (value: string) => output.replace(value),
        clear: () => output.clear(),
        show: (...args: unknown[]) => (output.show as (...a: unknown[]) => void)(...args),
        hide: () => output.hide(),
        // The output itself belongs to the extension (context.subscriptions), not to a client.
        dispose: () => {
            listeners.forEach((l) => l.dispose());
            changed.dispose();
        },
    };
}
