"""allo-lsp: editor tooling for Allo dataflow designs."""

__version__ = "0.1.0"
