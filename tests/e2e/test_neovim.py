"""allo-lsp in a second real editor: Debian's Neovim 0.7 (headless, `vim.lsp.start_client`),
on pitfall_bare_scalar.py: its diagnostics and the hover of the region (neovim_check.lua)."""

import os
import shutil
import subprocess

from conftest import E2E, artifacts_dir, require
from paths import EXAMPLES, ROOT

SERVER_PYTHON = ROOT / ".venv" / "bin" / "python"


def test_diagnostics_and_hover_in_neovim(tmp_path):
    nvim = shutil.which("nvim")
    require(nvim, "Neovim is needed (apt-get install neovim)")
    shutil.copy(EXAMPLES / "pitfall_bare_scalar.py", tmp_path / "pitfall_bare_scalar.py")
    # Neovim's own files (logs, shada, LSP log) go to the temporary directory.
    env = dict(os.environ, ALLO_E2E_PYTHON=str(SERVER_PYTHON), ALLO_E2E_FILE=str(tmp_path / "pitfall_bare_scalar.py"))
    for name in ("CONFIG", "DATA", "STATE", "CACHE", "RUNTIME"):
        env[f"XDG_{name}_HOME" if name != "RUNTIME" else "XDG_RUNTIME_DIR"] = str(tmp_path / name.lower())
    run = subprocess.run(
        [nvim, "--headless", "--clean", "-c", f"luafile {E2E / 'neovim_check.lua'}"],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
    output = run.stdout + run.stderr
    (artifacts_dir("neovim") / "neovim.log").write_text(output)
    assert run.returncode == 0, output
    assert "OK" in run.stdout and "diagnostics: ADF002@23\n" in run.stdout, output
