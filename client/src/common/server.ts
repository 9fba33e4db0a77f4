// The language client over the server's stdio (resolve.ts picks the interpreter).
import { LogOutputChannel, Uri } from "vscode";
import { Executable, LanguageClient, LanguageClientOptions, Middleware, RevealOutputChannelOn } from "vscode-languageclient/node";
import { serverArgs } from "./isolation";
import { traceInfo } from "./logger";
import { ServerContext } from "./resolve";
import { SECTION } from "./settings";
import { MLIR_SCHEME } from "./views";

export function createClient(
    python: string,
    ctx: ServerContext,
    output: LogOutputChannel,
    middleware: Middleware,
    protocolUri: (uri: Uri) => string,
    workspaceStorage?: string,
): LanguageClient {
    const server: Executable = {
        command: python,
        args: serverArgs(ctx.info.module),
        options: { env: { ...process.env, PYTHONUNBUFFERED: "1" } },
    };
    const options: LanguageClientOptions = {
        documentSelector: [
            { scheme: "file", language: "python" },
            { scheme: "untitled", language: "python" },
            // The read-only MLIR view: go to definition there leads back to the kernel.
            { scheme: MLIR_SCHEME },
        ],
        outputChannel: output,
        traceOutputChannel: output,
        revealOutputChannelOn: RevealOutputChannelOn.Never,
        middleware,
        uriConverters: { code2Protocol: protocolUri, protocol2Code: (value) => Uri.parse(value) },
        // The workspace's storage (`context.storageUri`): where the server keeps the cluster's jobs.
        initializationOptions: workspaceStorage ? { workspaceStorage } : undefined,
    };
    traceInfo(`Starting ${ctx.info.name}: ${python} ${serverArgs(ctx.info.module).join(" ")}`);
    return new LanguageClient(SECTION, ctx.info.name, server, options);
}
