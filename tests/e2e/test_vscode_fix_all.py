"""Fix-all on save and the rule pages in a real VS Code (code-server, headless Chromium): the user
settings a Ruff user writes for it, `editor.codeActionsOnSave` with `source.fixAll.allo-lsp`
(vscode_fix_all.test.mjs; screenshots and logs in artifacts/e2e/vscode-fix-all/)."""

from test_vscode import code_server, run_ui_script

SETTINGS = {
    "security.workspace.trust.enabled": False,
    "editor.codeActionsOnSave": {"source.fixAll.allo-lsp": "explicit"},
    # The protocol's messages in the extension's log (artifacts/.../logs): what was asked on save.
    "alloDataflow.trace.server": "messages",
}


def test_fix_all_on_save_and_the_rule_pages(vsix, tmp_path):
    with code_server(vsix, tmp_path, "vscode-fix-all", SETTINGS) as server:
        run_ui_script("vscode_fix_all.test.mjs", server)
