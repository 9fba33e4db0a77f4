"""The pygls language server: owns documents, settings and debouncing; translates `ide` data to
LSP types (`convert.py`). Thin by design."""


def create_server():
    """The server with every feature registered (the job features live in their own module)."""
    from allo_lsp.lsp import jobs  # noqa: F401  (registers lenses, commands, progress)
    from allo_lsp.lsp.server import server

    return server
