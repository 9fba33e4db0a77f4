// The interpreter selected in the Python extension (ms-python.python), through its published API
// (@vscode/python-extension). Everything here is optional, unlike in ruff-vscode (which declares
// the extension a dependency): without the extension, or with an API that fails, the client falls
// back to python3.
import { PVSC_EXTENSION_ID, PythonExtension } from "@vscode/python-extension";
import { Disposable, extensions, Uri } from "vscode";
import { traceWarn } from "./logger";

type Environments = PythonExtension["environments"];

async function environmentsApi(): Promise<Environments | undefined> {
    // Not installed (or disabled) is the ordinary case, not a warning: `api()` would throw for it.
    if (!extensions.getExtension(PVSC_EXTENSION_ID)) {
        return undefined;
    }
    try {
        return (await PythonExtension.api())?.environments;
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
