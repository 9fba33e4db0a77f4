"""The pygls language server: owns documents, settings and debouncing; translates `ide` data to
LSP types (`convert.py`). Thin by design."""


def create_server():
    """A server with every feature registered: the document features, the jobs' and the backend's."""
    from allo_lsp.lsp import backend, features, jobs
    from allo_lsp.lsp.server import AlloLanguageServer

    server = AlloLanguageServer()
    features.register(server)
    jobs.register(server)
    backend.register(server)
    return server
