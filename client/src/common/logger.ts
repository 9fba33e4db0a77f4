// One log for the client and the server ("Allo Dataflow" in the Output panel). On CI it also goes
// to the console, so an end-to-end test's log shows what the extension did.
import { Disposable, LogOutputChannel } from "vscode";

let channel: LogOutputChannel | undefined;
const toConsole = process.env.CI === "true";

export function registerLogger(output: LogOutputChannel): Disposable {
    channel = output;
    return { dispose: () => (channel = undefined) };
}

function write(level: "info" | "warn" | "error" | "debug", parts: unknown[]): void {
    const text = parts.map((p) => (p instanceof Error ? p.stack ?? p.message : String(p))).join(" ");
    channel?.[level](text);
    if (toConsole) {
        console[level === "debug" ? "log" : level](`[allo-dataflow] ${text}`);
    }
}

export const traceInfo = (...parts: unknown[]): void => write("info", parts);
export const traceWarn = (...parts: unknown[]): void => write("warn", parts);
export const traceError = (...parts: unknown[]): void => write("error", parts);
export const traceDebug = (...parts: unknown[]): void => write("debug", parts);
