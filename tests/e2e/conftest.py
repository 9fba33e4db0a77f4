"""What the end-to-end tests in real editors share: the built .vsix, the tools they need, and where
their screenshots and logs go (artifacts/e2e/, ignored by git)."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from paths import ROOT

E2E = Path(__file__).resolve().parent
ARTIFACTS = ROOT / "artifacts" / "e2e"
IN_CI = os.environ.get("CI") == "true"
# The Debian packages these tests need (.ci/run installs them).
APT_PACKAGES = (E2E / "apt-packages.txt").read_text().split()


def require(available, reason: str) -> None:
    """Skip when a tool is missing on a developer's machine; in CI, where .ci/run installs every
    tool, a missing one is a failure, never a silent skip."""
    if available:
        return
    if IN_CI:
        pytest.fail(f"{reason} (.ci/run is meant to install it)", pytrace=False)
    pytest.skip(reason)


def missing_apt_packages(names: list[str]) -> list[str]:
    if shutil.which("dpkg-query") is None:
        return []  # not Debian: let the tools themselves say what is missing
    missing = []
    for name in names:
        status = subprocess.run(["dpkg-query", "-W", "-f=${Status}", name], capture_output=True, text=True)
        if "install ok installed" not in status.stdout:
            missing.append(name)
    return missing


def artifacts_dir(name: str) -> Path:
    path = ARTIFACTS / name
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


@pytest.fixture(scope="session")
def vsix() -> Path:
    """The extension, built as `./dev.sh demo` builds it (npm ci, typecheck, bundle, wheel, vsce).
    `ALLO_E2E_VSIX=path`: that .vsix instead (a build made elsewhere, while another one runs here)."""
    prebuilt = os.environ.get("ALLO_E2E_VSIX")
    if prebuilt:
        assert Path(prebuilt).is_file(), f"ALLO_E2E_VSIX={prebuilt} is not a file"
        return Path(prebuilt)
    require(shutil.which("node") and shutil.which("npm"), "Node.js 20 and npm are needed to build the extension")
    built = subprocess.run(["./dev.sh", "vsix"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, f"./dev.sh vsix failed:\n{built.stdout[-4000:]}\n{built.stderr[-4000:]}"
    path = ROOT / built.stdout.strip().splitlines()[-1]
    assert path.suffix == ".vsix" and path.is_file(), built.stdout[-2000:]
    return path
