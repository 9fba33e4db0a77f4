"""The README's Neovim example of `alloDataflow/activePe` run as written, in Debian's Neovim 0.7
(headless, neovim_active_pe.lua): PE gemm_1_2 of examples/systolic_gemm.py dims the five branches
it does not take and writes its get_pid() values and stream elements at the ends of lines."""

import os
import re
import shutil
import subprocess

from conftest import E2E, artifacts_dir, require
from paths import EXAMPLES, ROOT

SERVER_PYTHON = ROOT / ".venv" / "bin" / "python"


def readme_block() -> str:
    """The Lua block of the README's active-PE section."""
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("### Which PE am I looking at?") :]
    return re.search(r"```lua\n(.*?)```", section, re.S).group(1)


def test_the_readme_example_in_neovim(tmp_path):
    nvim = shutil.which("nvim")
    require(nvim, "Neovim is needed (apt-get install neovim)")
    design = tmp_path / "systolic_gemm.py"
    shutil.copy(EXAMPLES / "systolic_gemm.py", design)
    (tmp_path / "snippet.lua").write_text(readme_block())
    env = dict(
        os.environ,
        ALLO_E2E_PYTHON=str(SERVER_PYTHON),
        ALLO_E2E_FILE=str(design),
        ALLO_E2E_SNIPPET=str(tmp_path / "snippet.lua"),
    )
    for name in ("CONFIG", "DATA", "STATE", "CACHE", "RUNTIME"):
        env[f"XDG_{name}_HOME" if name != "RUNTIME" else "XDG_RUNTIME_DIR"] = str(tmp_path / name.lower())
    run = subprocess.run(
        [nvim, "--headless", "--clean", "-c", f"luafile {E2E / 'neovim_active_pe.lua'}"],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
    output = run.stdout + run.stderr
    (artifacts_dir("neovim-active-pe") / "neovim.log").write_text(output)
    assert run.returncode == 0, output
    lines = design.read_text().split("\n")
    seen = run.stdout.split("OK\n", 1)[1].strip().split("\n")
    dimmed = [line for line in seen if line.startswith("dim")]
    # 1-based first lines of the five branches, through the line before the next one.
    firsts = [n for n, text in enumerate(lines, 1) if "with allo.meta_" in text][:5]
    assert [d.split()[1].split("-")[0] for d in dimmed] == [str(n) for n in firsts]
    assert all(d.endswith(" Comment") for d in dimmed)
    hints = [line for line in seen if line.startswith("hint")]
    assert hints[0] == f"hint {firsts[0] - 2}: i = 1, j = 2"  # the get_pid() line, two above the chain
    assert [h.split(":", 1)[1] for h in hints[1:]] == [" = [1, 2]", " = [1, 2]", " = [1, 3]", " = [2, 2]"]
