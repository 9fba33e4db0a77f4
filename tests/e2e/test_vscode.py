"""The extension in a real VS Code: code-server (VS Code 1.100.3) with the built .vsix, a copy of
examples/ as the workspace, driven through its UI by headless Chromium (vscode.test.mjs): squiggles,
Problems, hover, a quick fix through Ctrl+., the Simulate code lens and palette command (reference
executor), a timeout's problem gone once the next run passes (D2), the synthesis report preview, and
the MLIR view (the stand-in Allo of tests/standin/ compiles it). Screenshots of each step and the logs
go to artifacts/e2e/vscode/."""

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import APT_PACKAGES, E2E, artifacts_dir, missing_apt_packages, require
from paths import EXAMPLES, ROOT, STANDIN

CODE_SERVER = ROOT / ".cache" / "code-server" / "node_modules" / ".bin" / "code-server"
# ALLO_E2E_SERVER_PYTHON: another interpreter to run the server (a snapshot of the tree, say).
SERVER_PYTHON = Path(os.environ.get("ALLO_E2E_SERVER_PYTHON", ROOT / ".venv" / "bin" / "python"))
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

USER_SETTINGS = {
    "workbench.startupEditor": "none",
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "extensions.ignoreRecommendations": True,
    "workbench.tips.enabled": False,
    "workbench.enableExperiments": False,
    "alloDataflow.server.python": str(SERVER_PYTHON),
    "alloDataflow.backend": "reference",  # Allo is not installed here
    "alloDataflow.debounceMs": 50,
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def install_code_server() -> None:
    if CODE_SERVER.exists():
        return
    missing = missing_apt_packages(APT_PACKAGES)
    require(not missing, f"code-server needs the Debian packages {' '.join(missing)}")
    done = subprocess.run([E2E / "install_code_server.sh"], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"installing code-server failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


def wait_until_serving(url: str, process: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, "code-server exited while starting"
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"code-server did not answer at {url} within {timeout} s")


def stop(process: subprocess.Popen) -> None:
    """Ends code-server and what it started (the extension host, the language server): the
    process group it leads, which this test created."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=15)
    except ProcessLookupError:
        return
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=15)


@contextlib.contextmanager
def code_server(vsix: Path, home: Path, name: str, settings: dict, extra_env: dict | None = None):
    """code-server on a free loopback port with the extension installed, its own user data and a
    copy of examples/ as the workspace (`extra_env`: variables set in its environment); yields what the
    UI script needs."""
    require(Path(CHROMIUM).exists(), "headless Chromium is needed (apt-get install chromium)")
    require(SERVER_PYTHON.exists(), "the repository's .venv is needed (./dev.sh test creates it)")
    install_code_server()
    artifacts = artifacts_dir(name)
    user, extensions, workspace = home / "user", home / "extensions", home / "workspace"
    (user / "User").mkdir(parents=True)
    shutil.copytree(EXAMPLES, workspace)
    # "Show MLIR" needs an Allo: the stand-in (on the runner's PYTHONPATH) and the LLVM build
    # directory it is checked against, with the libraries as empty files.
    llvm = home / "llvm"
    (llvm / "lib").mkdir(parents=True)
    for library in ("libomp.so", "libmlir_runner_utils.so", "libmlir_c_runner_utils.so"):
        (llvm / "lib" / library).write_bytes(b"")
    settings = dict(USER_SETTINGS, **{"alloDataflow.llvmBuildDir": str(llvm)}, **settings)
    (user / "User" / "settings.json").write_text(json.dumps(settings, indent=2))
    port = free_port()
    config = home / "config.yaml"
    config.write_text(f"bind-addr: 127.0.0.1:{port}\nauth: none\ncert: false\n")
    env = dict(
        os.environ,
        XDG_CONFIG_HOME=str(home / "xdg-config"),
        XDG_DATA_HOME=str(home / "xdg-data"),
        PYTHONPATH=str(STANDIN),
    )
    env.update(extra_env or {})
    env.pop("LLVM_BUILD_DIR", None)
    common = [
        str(CODE_SERVER),
        "--config",
        str(config),
        "--user-data-dir",
        str(user),
        "--extensions-dir",
        str(extensions),
    ]
    installed = subprocess.run(
        common + ["--install-extension", str(vsix)], capture_output=True, text=True, env=env, timeout=120
    )
    assert installed.returncode == 0 and "successfully installed" in installed.stdout, (
        installed.stdout + installed.stderr
    )
    log = (artifacts / "code-server.log").open("w")
    process = subprocess.Popen(
        common + ["--disable-telemetry", "--disable-update-check", str(workspace)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until_serving(url, process, 60)
        yield {"url": f"{url}/?folder={workspace}", "workspace": workspace, "artifacts": artifacts}
    finally:
        stop(process)
        log.close()
        # The extension's own log ("Allo Dataflow" output) and the extension host's, for a failure.
        shutil.copytree(user / "logs", artifacts / "logs", dirs_exist_ok=True)


def run_ui_script(script: str, server: dict) -> str:
    """Runs the UI script in node with what `code_server` yielded, and each other key of `server` as
    ALLO_E2E_<KEY>; returns its output."""
    env = dict(
        os.environ,
        ALLO_E2E_URL=server["url"],
        ALLO_E2E_WORKSPACE=str(server["workspace"]),
        ALLO_E2E_ARTIFACTS=str(server["artifacts"]),
        ALLO_E2E_CHROMIUM=CHROMIUM,
        **{
            f"ALLO_E2E_{key.upper()}": str(value)
            for key, value in server.items()
            if key not in ("url", "workspace", "artifacts")
        },
    )
    run = subprocess.run(["node", E2E / script], cwd=ROOT, capture_output=True, text=True, env=env, timeout=900)
    (server["artifacts"] / f"{script}.log").write_text(run.stdout + run.stderr)
    assert run.returncode == 0, (
        f"see the screenshots in {server['artifacts']}\n{run.stdout[-6000:]}\n{run.stderr[-2000:]}"
    )
    return run.stdout


def test_extension_in_vscode(vsix, tmp_path):
    with code_server(vsix, tmp_path, "vscode", {"security.workspace.trust.enabled": False}) as server:
        run_ui_script("vscode.test.mjs", server)


def test_untrusted_workspace_analyses_and_runs_nothing_until_trusted(vsix, tmp_path):
    # Restricted mode without the startup dialog: the folder is simply not trusted yet. A conda
    # environment outside it and a .venv inside it: the picker lists the one, not the other.
    untrusted = {"security.workspace.trust.enabled": True, "security.workspace.trust.startupPrompt": "never"}
    conda = stand_in_conda(tmp_path / "conda")
    with code_server(vsix, tmp_path / "home", "vscode-trust", untrusted, {"CONDA_EXE": str(conda)}) as server:
        make_env(server["workspace"] / ".venv", None)
        run_ui_script("vscode_trust.test.mjs", server)


def make_env(path: Path, allo_version: str | None) -> Path:
    """A venv without pip at `path`. With `allo_version`: the stand-in Allo (as that version of the
    `allo` distribution) and numpy (the repository venv's site-packages) import there; without it,
    neither does. Returns its python."""
    subprocess.run([str(SERVER_PYTHON), "-m", "venv", "--without-pip", str(path)], check=True, timeout=120)
    if allo_version:
        site = next((path / "lib").glob("python3*/site-packages"))
        ours = subprocess.run(
            [str(SERVER_PYTHON), "-c", "import numpy, os; print(os.path.dirname(os.path.dirname(numpy.__file__)))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        (site / "allo_and_numpy.pth").write_text(f"{STANDIN}\n{ours}\n")
        dist = site / f"allo-{allo_version}.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: allo\nVersion: {allo_version}\n")
    return path / "bin" / "python"


def stand_in_conda(root: Path) -> Path:
    """A conda at `root/bin/conda` whose `env list --json` lists one environment, `allo` (Allo 0.5.1
    and numpy, make_env). Returns the conda."""
    make_env(root / "envs" / "allo", "0.5.1")
    conda = root / "bin" / "conda"
    conda.parent.mkdir(parents=True)
    conda.write_text(
        f"#!/bin/sh\necho '{json.dumps({'envs': [str(root / 'envs' / 'allo')], 'root_prefix': str(root)})}'\n"
    )
    conda.chmod(0o755)
    return conda


def test_select_interpreter_and_the_job_commands(vsix, tmp_path):
    """Allo: Select Interpreter lists a conda environment (`conda env list --json` of a stand-in
    conda, found through CONDA_EXE) and the workspace's .venv, marked with what each imports; the
    choice goes to alloDataflow.python, the status bar says it, and jobs run there. Also the job
    commands' context menu (D7), one status item per job whose words are the running lens's (D12)."""
    conda = stand_in_conda(tmp_path / "conda")
    allo_env = tmp_path / "conda" / "envs" / "allo" / "bin" / "python"
    # Allo only where the user installed it, not on every job's PYTHONPATH. (This machine's pyenv
    # versions, if any, are listed too: the workbench takes PYENV_ROOT from the login shell.)
    env = {"CONDA_EXE": str(conda), "PYTHONPATH": ""}
    settings = {
        "security.workspace.trust.enabled": False,
        "alloDataflow.backend": "auto",
        "alloDataflow.trace.server": "messages",
    }
    with code_server(vsix, tmp_path / "home", "vscode-interpreter", settings, env) as server:
        make_env(server["workspace"] / ".venv", None)
        server["allo_env"] = allo_env
        run_ui_script("vscode_interpreter.test.mjs", server)
    # D9: the log names file and region on job lines, shows no probe script, and traces the
    # protocol with trace.server alone (the output's log level left at its default, Info).
    log = "\n".join(p.read_text() for p in (server["artifacts"] / "logs").rglob("Allo Dataflow.log"))
    assert "simulate slow_design.py::top: started" in log, log[-3000:]
    assert "simulate slow_design.py::top: cancelled" in log, log[-3000:]
    assert "import importlib" not in log and "<script, " in log, log[:3000]
    assert "Sending request 'initialize" in log, log[:3000]
