"""Jobs from a server installed as the .vsix installs it, in an Allo environment of another Python.

The server is its wheel installed into a venv of one Python (3.11, as Debian's `python3` makes the
.vsix's private venv), with its dependencies (numpy among them, built for that Python); the "Allo
environment" is a venv of another Python (3.13) with its own numpy and the stand-in Allo installed
in it (a `.pth` file: tests/standin/README.md). A job used to get the server's package directory,
here the server venv's whole site-packages, on its path ahead of the Allo environment's packages:
numpy failed to import and every job failed ("No module named 'numpy._core._multiarray_umath'").
Each job here records, as the design is imported, where numpy came from and what was on its path
(`where.json` beside the design): nothing may be of the server's environment.

Slow-ish (two venvs, a wheel): one module-scoped set-up, pip's own cache used.
"""

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from editor import Editor, make_client
from lsprotocol import types as lsp
from paths import EXAMPLES, ROOT, STANDIN
from pytest_lsp import client_capabilities
from waiting import file_poll, until

# The set-up (a wheel, two venvs, pip) counts against the first test's time.
pytestmark = pytest.mark.timeout(900)

SERVER_VERSIONS = ("3.11", "3.12", "3.10")  # the server's Python: the first found
ALLO_VERSIONS = ("3.13", "3.12")  # the Allo environment's: the first found that is not the server's
CLIENT = "visual_studio_code"

# Appended to the design: where the job's interpreter found numpy and everything else.
WHERE = """

import json as _json, os as _os, sys as _sys
with open(_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "where.json"), "w") as _f:
    _json.dump({
        "python": "%d.%d" % _sys.version_info[:2],
        "numpy": np.__file__,
        "path": _sys.path,
        "modules": sorted({getattr(_m, "__file__", None) or "" for _m in list(_sys.modules.values())} - {""}),
    }, _f)
"""


def _version(python: str) -> str | None:
    """ "3.11" for a working interpreter that can make venvs, else None."""
    try:
        out = subprocess.run(
            [python, "-c", "import ensurepip, sys, venv; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except OSError:
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def _interpreters() -> dict[str, str]:
    """Version -> interpreter, from pyenv's versions (TOOLCHAIN.md: its shims fail unless the
    version is selected) and the system's."""
    candidates = []
    if shutil.which("pyenv"):
        root = subprocess.run(["pyenv", "root"], capture_output=True, text=True).stdout.strip()
        candidates += sorted(Path(root).glob("versions/3.*/bin/python3"))
    candidates += sorted(Path("/usr/bin").glob("python3.*[0-9]"))
    found: dict[str, str] = {}
    for python in map(str, candidates):
        version = _version(python)
        if version and version not in found:
            found[version] = python
    return found


def _run(argv: list, **kwargs) -> subprocess.CompletedProcess:
    out = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=600, **kwargs)
    assert out.returncode == 0, f"{argv}: {out.stdout[-2000:]}{out.stderr[-2000:]}"
    return out


@dataclass
class Environments:
    server: Path  # the server's venv (the wheel installed)
    server_base: str  # the Python it was made from (sys.base_prefix)
    allo: Path  # the Allo environment's venv
    allo_python: str
    allo_version: str

    @property
    def allo_lsp(self) -> str:
        return str(self.server / "bin" / "allo-lsp")


def _wheel(directory: Path) -> Path:
    """The server's wheel, as `npm run wheel` builds it, from a copy of the sources (a build in
    the work tree would write build/ there, under the feet of whoever else builds)."""
    source = directory / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "server", source / "server", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", directory / "wheels", source])
    (wheel,) = (directory / "wheels").glob("allo_lsp-*.whl")
    return wheel


def _venv(python: str, path: Path, *packages) -> Path:
    _run([python, "-m", "venv", path])
    _run([path / "bin" / "python", "-m", "pip", "install", "-q", *packages])
    return path


@pytest.fixture(scope="module")
def envs(tmp_path_factory) -> Environments:
    found = _interpreters()
    server_version = next((v for v in SERVER_VERSIONS if v in found), None)
    allo_version = next((v for v in ALLO_VERSIONS if v in found and v != server_version), None)
    if server_version is None or allo_version is None:
        pytest.skip(f"needs two Pythons (one of {SERVER_VERSIONS}, another of {ALLO_VERSIONS}); found {sorted(found)}")
    root = tmp_path_factory.mktemp("foreign-python")
    server = _venv(found[server_version], root / "server", _wheel(root))
    allo = _venv(found[allo_version], root / "allo", "numpy")
    site = _run([allo / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"])
    (Path(site.stdout.strip()) / "allo_standin.pth").write_text(f"{STANDIN}\n")  # Allo, installed there
    base = _run([server / "bin" / "python", "-c", "import sys; print(sys.base_prefix)"]).stdout.strip()
    return Environments(server, base, allo, str(allo / "bin" / "python"), allo_version)


@pytest.fixture
def workspace(tmp_path) -> Path:
    """A copy of the examples, the design recording where its job found things."""
    copy = tmp_path / "workspace"
    shutil.copytree(EXAMPLES, copy, ignore=shutil.ignore_patterns("__pycache__"))
    design = copy / "producer_consumer.py"
    design.write_text(design.read_text() + WHERE)
    return copy


def server_env() -> dict[str, str]:
    """The server's environment as the editor starts it: nothing on PYTHONPATH (the Allo is the
    Allo environment's own), no LLVM build (the reference executor runs), the stand-in Vitis HLS."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LLVM_BUILD_DIR")}
    env["PATH"] = f"{STANDIN / 'bin'}{os.pathsep}{env['PATH']}"
    return env


def assert_only_the_allo_environment(workspace: Path, envs: Environments) -> None:
    """The job ran in the Allo environment's Python, with its numpy, and nothing of the server's
    environment (its venv, its Python) on its path or among its modules."""
    where = json.loads((workspace / "where.json").read_text())
    (workspace / "where.json").unlink()
    assert where["python"] == envs.allo_version
    assert os.path.realpath(where["numpy"]).startswith(os.path.realpath(envs.allo) + os.sep), where["numpy"]
    server = [os.path.realpath(p) + os.sep for p in (envs.server, envs.server_base)]
    leaked = [p for p in where["path"] + where["modules"] if any(os.path.realpath(p).startswith(s) for s in server)]
    assert leaked == []


def cli(envs: Environments, *args, cwd=None) -> dict:
    out = subprocess.run(
        [envs.allo_lsp, *map(str, args), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=server_env(),
        cwd=cwd,
    )
    assert out.stdout, out.stderr[-3000:]
    return json.loads(out.stdout)


def test_run_and_synthesize_through_the_cli(envs, workspace):
    design = workspace / "producer_consumer.py"
    result = cli(envs, "run", f"{design}::test_producer_consumer", "--python", envs.allo_python)
    assert (result["status"], result["backend"]) == ("passed", "reference"), result["message"]
    assert_only_the_allo_environment(workspace, envs)

    result = cli(envs, "synth", f"{design}::top", "--python", envs.allo_python)
    assert result["status"] == "passed", result["message"]
    assert result["details"]["report"]["latency"]["worst"] == 3624  # the stand-in Vitis's figures
    assert_only_the_allo_environment(workspace, envs)


def test_a_relative_python_is_the_callers(envs, workspace):
    """`--python venv/bin/python` from the directory that holds it: the job runs in its own
    directory, where that path named nothing ("cannot start ...: No such file or directory")."""
    design = workspace / "producer_consumer.py"
    relative = os.path.relpath(envs.allo_python, envs.allo.parent)
    result = cli(envs, "run", f"{design}::test_producer_consumer", "--python", relative, cwd=envs.allo.parent)
    assert result["status"] == "passed", result["message"]
    assert_only_the_allo_environment(workspace, envs)


def _prestarted_runners(python: str) -> list[int]:
    """Runners waiting for a job (pre-started), of this interpreter."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv[0] == python.encode() and b"--warm" in argv:
            found.append(int(entry))
    return found


async def test_run_and_synthesize_over_stdio(envs, workspace):
    """The editor's way: the wheel's `allo-lsp serve`, `alloDataflow.python` the other Python's;
    the second run in the runner pre-started after the first."""
    client = make_client()
    await client.start_io(envs.allo_lsp, "serve", env=server_env())
    client.editor = editor = Editor(client, CLIENT)
    client.set_configuration({"debounceMs": 50, "python": envs.allo_python, "timeout": 60}, section="alloDataflow")
    await client.initialize_session(
        lsp.InitializeParams(capabilities=client_capabilities(CLIENT), root_uri=workspace.as_uri())
    )
    try:
        design = workspace / "producer_consumer.py"
        uri = editor.open(design.read_text(), path=design)
        await editor.diagnostics(uri)
        result = await editor.click(uri, "▶ Run", "test_producer_consumer")
        assert (result["status"], result["backend"]) == ("passed", "reference"), result["message"]
        assert_only_the_allo_environment(workspace, envs)

        await until(lambda: _prestarted_runners(envs.allo_python), what="a pre-started runner", wake=file_poll)
        result = await editor.click(uri, "▶ Run", "test_producer_consumer")
        assert result["status"] == "passed", result["message"]
        assert_only_the_allo_environment(workspace, envs)

        result = await editor.click(uri, "⚙ Synthesize", "top")
        assert result["status"] == "passed", result["message"]
        assert_only_the_allo_environment(workspace, envs)
    finally:
        await client.shutdown_session()
