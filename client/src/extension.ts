// Activation, and starting/restarting the server (one at a time: a restart asked for while one
// runs is queued, and several queued ones become one).
import { commands, Disposable, ExtensionContext, window } from "vscode";
import { DidChangeConfigurationNotification, LanguageClient, Middleware, ResponseError, State, vsdiag } from "vscode-languageclient/node";
import { ActivePes } from "./common/activePe";
import { AlloFiles } from "./common/alloFiles";
import { Jobs, NO_SERVER_PROGRESS } from "./common/commands";
import { clientChannel, registerLogger, traceError, traceInfo } from "./common/logger";
import { AlloEnvironment, SELECT_INTERPRETER } from "./common/picker";
import { GraphPanels } from "./graph/graphPanel";
import { onDidChangeInterpreter } from "./common/python";
import { serverArgs } from "./common/isolation";
import { IServerInfo, resolveServerPython, ServerContext } from "./common/resolve";
import { RuleLinks } from "./common/ruleLinks";
import { createClient } from "./common/server";
import { checkIfConfigurationChanged, getServerSettings, withTrust } from "./common/settings";
import { BACKEND_REQUEST, BackendChoice, INSTALL_COMMAND, Status } from "./common/status";
import { usesAlloDataflow } from "./common/targets";
import { MLIR_SCHEME, Views } from "./common/views";
import {
    createOutputChannel,
    isTrusted,
    onDidChangeConfiguration,
    onDidChangeTextDocument,
    onDidGrantWorkspaceTrust,
    onDidOpenTextDocument,
    openTextDocuments,
    registerCommand,
    setContext,
} from "./common/vscodeapi";

let client: LanguageClient | undefined;
let clientDisposables: Disposable[] = [];
let restartInProgress: Promise<void> | undefined;
let restartQueued = false;

export async function activate(context: ExtensionContext): Promise<void> {
    const info: IServerInfo = context.extension.packageJSON.serverInfo;
    const output = createOutputChannel(info.name);
    const status = new Status();
    const views = new Views(context.extensionUri);
    const jobs = new Jobs(() => client, status, views);
    const activePes = new ActivePes(() => client);
    const graphs = new GraphPanels(() => client, context.extensionUri, (uri, region, kernel, pe) => activePes.choose(uri, region, kernel, pe));
    const server: ServerContext = { info, extensionPath: context.extensionPath, storageDir: context.globalStorageUri.fsPath };
    const lspOutput = clientChannel(output);
    const alloFiles = new AlloFiles();
    const environment = new AlloEnvironment(alloFiles);
    const rules = new RuleLinks();
    context.subscriptions.push(output, registerLogger(output), lspOutput, status, views, activePes, graphs, alloFiles, environment, rules);

    const middleware: Middleware = {
        executeCommand: async (command, args, next) => {
            const result = await jobs.middleware(command, args, next);
            graphs.refreshAll(); // a job's outcome: the graphs' overlays
            return result;
        },
        provideCodeLenses: (document, token, next) => graphs.lensMiddleware(document, token, (d, t) => jobs.lensMiddleware(d, t, next)),
        workspace: {
            configuration: async (params, token, next) => {
                const result = await next(params, token);
                return result instanceof ResponseError ? result : withTrust(params.items, result, isTrusted());
            },
        },
        // A rule's page opens rendered and read-only (ruleLinks.ts), pulled or pushed.
        provideDiagnostics: async (document, previousResultId, token, next) => {
            const report = await next(document, previousResultId, token);
            return report && "items" in report ? { ...report, items: rules.diagnostics(report.items) } : report;
        },
        provideWorkspaceDiagnostics: async (resultIds, token, resultReporter, next) => {
            const linked = <T extends { items: vsdiag.WorkspaceDocumentDiagnosticReport[] } | null | undefined>(chunk: T): T => {
                chunk?.items.forEach((item) => "items" in item && rules.diagnostics(item.items));
                return chunk;
            };
            return linked(await next(resultIds, token, (chunk) => resultReporter(linked(chunk))));
        },
        // The MLIR view is open in the server for go to definition and its outline: it is not Python to check.
        handleDiagnostics: (uri, diagnostics, next) => {
            next(uri, uri.scheme === MLIR_SCHEME ? [] : rules.diagnostics(diagnostics));
            // A new analysis: lenses asked for before it (a file just opened) were none.
            jobs.refreshLenses();
        },
    };

    // Set by "Install" (the prompt's button or the status item): the next start installs without asking.
    let installApproved = false;
    // Once a start was attempted, a change of the server's settings starts it again, also after a
    // start that failed (a bad `server.python` fixed or cleared).
    let startAttempted = false;
    const startServer = async (): Promise<void> => {
        startAttempted = true;
        status.setServer("starting");
        const resolved = await resolveServerPython(server, installApproved);
        installApproved = false;
        if (resolved && "installNeeded" in resolved) {
            // Not awaited: a user who ignores the question sees what is missing, and the action, in the status.
            status.setServer("not installed", resolved.installNeeded);
            void window.showWarningMessage(resolved.installNeeded, "Install", "Open Settings").then((choice) => {
                if (choice === "Install") {
                    void commands.executeCommand(INSTALL_COMMAND);
                } else if (choice === "Open Settings") {
                    void commands.executeCommand("workbench.action.openSettings", "alloDataflow.server.python");
                }
            });
            return;
        }
        if (!resolved) {
            status.setServer("error", "no interpreter can run the server: see the output");
            return;
        }
        const { python } = resolved;
        const started = createClient(python, server, lspOutput, middleware, views.protocolUri, context.storageUri?.fsPath);
        started.registerFeature(NO_SERVER_PROGRESS);
        environment.setServerPython(python);
        started.onDidChangeState(({ newState }) => {
            if (client === started) {
                const running = newState === State.Running;
                status.setServer(running ? "running" : newState === State.Starting ? "starting" : "stopped", python);
                void setContext("alloDataflow.serverRunning", running);
            }
        });
        try {
            await started.start();
        } catch (error) {
            traceError(`The server did not start: ${error}`);
            status.setServer("error", String(error));
            void started.dispose().catch(() => undefined);
            // Not awaited: a restart (after fixing a setting) must not wait for the notification.
            void window
                .showErrorMessage(`The Allo language server did not start (${python} ${serverArgs(info.module).join(" ")}): ${error}`, "Show Output")
                .then((choice) => choice && output.show());
            return;
        }
        client = started;
        clientDisposables = jobs.registerMissing(started);
        environment.setBackendSource(() => started.sendRequest<BackendChoice>(BACKEND_REQUEST, null));
        const version = started.initializeResult?.serverInfo?.version ?? "?";
        traceInfo(`${info.name} ${version} is running (${python})`);
        status.setServer("running", `allo-lsp ${version}, ${python}`);
        await setContext("alloDataflow.serverRunning", true);
    };

    const runServer = async (): Promise<void> => {
        if (restartInProgress) {
            if (!restartQueued) {
                restartQueued = true;
                await restartInProgress;
                restartQueued = false;
                await runServer();
            }
            return;
        }
        restartInProgress = stopServer().then(startServer);
        try {
            await restartInProgress;
        } finally {
            restartInProgress = undefined;
        }
    };

    context.subscriptions.push(
        registerCommand("alloDataflow.restartServer", runServer),
        registerCommand(SELECT_INTERPRETER, () => environment.select()),
        registerCommand(INSTALL_COMMAND, () => {
            installApproved = true;
            return runServer();
        }),
        registerCommand("alloDataflow.showOutput", () => output.show()),
        onDidChangeConfiguration((e) => {
            if ((client || startAttempted) && checkIfConfigurationChanged(e)) {
                void runServer();
            }
        }),
        onDidGrantWorkspaceTrust(() => {
            // The server pulls the settings again and finds `trusted: true`.
            void client?.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
            jobs.refreshLenses(); // no longer locked
        }),
    );
    context.subscriptions.push(startOnceAlloIsOpen(runServer));
    const interpreterChanged = await onDidChangeInterpreter(() => {
        if (client && !getServerSettings().python) {
            void runServer();
        }
    });
    if (interpreterChanged) {
        context.subscriptions.push(interpreterChanged);
    }
}

/** Starts the server when the first Python document that uses Allo dataflow is open. */
function startOnceAlloIsOpen(start: () => Promise<void>): Disposable {
    let listeners: Disposable[] = [];
    let started = false;
    const check = (document: { languageId: string; getText(): string }): boolean => {
        if (started || document.languageId !== "python" || !usesAlloDataflow(document.getText())) {
            return false;
        }
        started = true;
        listeners.forEach((l) => l.dispose());
        listeners = [];
        if (!client && !restartInProgress) {
            void start(); // unless "Restart Server" already started it
        }
        return true;
    };
    if (!openTextDocuments().some(check)) {
        listeners = [onDidOpenTextDocument(check), onDidChangeTextDocument((e) => check(e.document))];
    }
    return { dispose: () => listeners.forEach((l) => l.dispose()) };
}

async function stopServer(): Promise<void> {
    clientDisposables.forEach((d) => d.dispose());
    clientDisposables = [];
    const stopping = client;
    client = undefined;
    await setContext("alloDataflow.serverRunning", false);
    if (stopping) {
        try {
            await stopping.dispose();
        } catch (error) {
            traceError(`Stopping the server: ${error}`);
        }
    }
}

export function deactivate(): Promise<void> {
    return stopServer();
}
