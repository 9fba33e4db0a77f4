// How every interpreter of ours starts: isolated (`-I`), so that neither the working directory
// (the workspace, for the server) nor a script's directory is on `sys.path`, and `PYTHON*`
// variables and the user site are ignored: an `allo_lsp/` or `pygls/` package in an untrusted
// workspace must not run when the server starts. A venv or site-packages install of allo-lsp
// imports under `-I`; one reachable only through PYTHONPATH does not (the probe says so).
export const ISOLATED = ["-I"];

/** The server's command line; `-u` because `-I` ignores PYTHONUNBUFFERED. */
export function serverArgs(module: string): string[] {
    return [...ISOLATED, "-u", "-m", module, "serve"];
}
