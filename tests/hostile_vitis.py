"""A vitis_hls that writes a report no Vitis writes: the stand-in's run (tests/standin), then,
for a point at a 5 ns clock, the report's first LUT figure made 400 digits (no float holds it)."""

import os
import sys
from pathlib import Path

from paths import STANDIN

SCRIPT = f"""#!{sys.executable}
import glob, re, subprocess, sys
code = subprocess.call([{str(STANDIN / "bin" / "vitis_hls")!r}, *sys.argv[1:]])
if "period 5 " in open("run.tcl").read():
    for path in glob.glob("**/csynth.xml", recursive=True):
        text = open(path).read()
        open(path, "w").write(re.sub(r"<LUT>\\d+</LUT>", "<LUT>" + "9" * 400 + "</LUT>", text, count=1))
sys.exit(code)
"""


def huge_lut_path(folder: Path, path: str) -> str:
    """`path` (a PATH) with that vitis_hls in `folder` before everything else."""
    folder.mkdir(parents=True, exist_ok=True)
    wrapper = folder / "vitis_hls"
    wrapper.write_text(SCRIPT)
    wrapper.chmod(0o755)
    return f"{folder}{os.pathsep}{path}"
