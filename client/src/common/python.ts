// The interpreter selected in the Python extension (ms-python.python), when it is installed.
// Everything here is optional: without the extension, or with an API that changed, the client
// falls back to python3.
import { Disposable, Event, extensions, Uri } from "vscode";
import { traceWarn } from "./logger";

const PYTHON_EXTENSION = "ms-python.python";

interface ResolvedEnvironment {
    executable: { uri?: Uri };
}

interface PythonEnvironmentsApi {
    getActiveEnvironmentPath(resource?: Uri): { path: string };
    readonly known?: readonly { path: string; executable?: { uri?: Uri }; environment?: { name?: string } }[];
    resolveEnvironment(environment: { path: string } | string): Promise<ResolvedEnvironment | undefined>;
    onDidChangeActiveEnvironmentPath: Event<unknown>;
}

async function environmentsApi(): Promise<PythonEnvironmentsApi | undefined> {
    const extension = extensions.getExtension(PYTHON_EXTENSION);
    if (!extension) {
        return undefined;
    }
    try {
        const api = extension.isActive ? extension.exports : await extension.activate();
        return api?.environments;
    } catch (error) {
        traceWarn(`The Python extension's API is not available: ${error}`);
        return undefined;
    }
}

export async function activeInterpreter(resource?: Uri): Promise<string | undefined> {
    const api = await environmentsApi();
    if (!api) {
        return undefined;
    }
    try {
        const environment = await api.resolveEnvironment(api.getActiveEnvironmentPath(resource));
        return environment?.executable.uri?.fsPath;
    } catch (error) {
        traceWarn(`Could not read the interpreter selected in the Python extension: ${error}`);
        return undefined;
    }
}

export async function onDidChangeInterpreter(listener: () => unknown): Promise<Disposable | undefined> {
    const api = await environmentsApi();
    try {
        return api?.onDidChangeActiveEnvironmentPath(listener);
    } catch {
        return undefined;
    }
}

/** The environments the Python extension knows (its picker's list): interpreter and name. */
export async function knownEnvironments(): Promise<{ python: string; name?: string }[]> {
    const api = await environmentsApi();
    try {
        return (api?.known ?? []).map((e) => ({ python: e.executable?.uri?.fsPath ?? e.path, name: e.environment?.name }));
    } catch (error) {
        traceWarn(`Could not read the Python extension's environments: ${error}`);
        return [];
    }
}
