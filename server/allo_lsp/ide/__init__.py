"""Editor features as plain data (hover markdown, code actions as text edits, symbols, hints).

Uses `analysis`; knows nothing of the wire protocol: `lsp/convert.py` translates.
"""
