"""The pygls language server: owns documents, settings and debouncing; translates `ide` data to
LSP types (`convert.py`). Thin by design."""
