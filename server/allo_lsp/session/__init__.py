"""The server's state between requests: the work queue and its host tuning (`scheduler.py`), the
documents' analyses (`store.py`), the editor's jobs and sweeps (`editor.py`, `sweep_editor.py`),
the workspace's files, project configuration and reports (`workspace_files.py`,
`project_config.py`, `workspace_reports.py`) and refresh requests (`refresh.py`).

What `ide/` computes is pure (an analysis and plain inputs in, frozen data out); what lives here
has a lifetime: asyncio tasks, a process pool, threads, files read from the workspace. Nothing here
knows pygls or lsprotocol: `lsp/` is above.
"""
