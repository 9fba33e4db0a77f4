"""The transport under the language server: JSON-RPC frames read within bounds (`frames.py`),
messages checked and answered, answers written as strict JSON (`protocol.py`, on pygls'
protocol), answers encoded once (`encoded.py`). Nothing here knows a feature: `lsp/` is above."""
