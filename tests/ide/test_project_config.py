"""A file's project configuration found from its directory upward, read again when it changes,
and its problems reported once per change (the server publishes them on the pyproject.toml)."""

import os
import subprocess
import sys

import pytest
from allo_lsp.analysis import Options
from allo_lsp.session.project_config import MAX_BYTES, NONE, ProjectConfigs, is_config


def write(path, body: str, mtime_ns: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    os.utime(path, ns=(mtime_ns, mtime_ns))  # a change the size alone would not tell


def test_the_nearest_pyproject_with_the_table_from_the_file_upward(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.allo-lsp]\nignore = ["ADF006"]\n', 1)
    write(tmp_path / "pkg" / "pyproject.toml", "[project]\nname = 'pkg'\n", 1)
    configs = ProjectConfigs()
    found = configs.for_file(tmp_path / "pkg" / "src" / "top.py")
    assert found.path == tmp_path / "pyproject.toml" and found.config.ignore == ("ADF006",)
    assert ProjectConfigs().for_file(tmp_path / "pkg" / "pyproject.toml").path == tmp_path / "pyproject.toml"


def test_no_configuration_without_the_table(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.ruff]\nline-length = 100\n", 1)
    assert ProjectConfigs().for_file(tmp_path / "top.py") in (NONE, ProjectConfigs().for_file(tmp_path.parent / "x.py"))


def test_a_changed_file_is_read_again(tmp_path):
    config = tmp_path / "pyproject.toml"
    write(config, '[tool.allo-lsp]\nignore = ["ADF006"]\n', 1_000_000_000)
    configs = ProjectConfigs()
    assert configs.for_file(tmp_path / "top.py").config.ignore == ("ADF006",)
    write(config, '[tool.allo-lsp]\nignore = ["ADF005"]\n', 2_000_000_000)  # the same size
    assert configs.for_file(tmp_path / "top.py").config.ignore == ("ADF005",)


def test_the_files_selection_and_allo_build_in_the_options(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.allo-lsp]\nallo-build = "legacy"\n', 1)
    options = ProjectConfigs().options(tmp_path / "top.py", Options(allo_build="fixed"), build_chosen=False)
    assert options.allo_build == "legacy"
    chosen = ProjectConfigs().options(tmp_path / "top.py", Options(allo_build="fixed"), build_chosen=True)
    assert chosen.allo_build == "fixed"
    write(tmp_path / "pyproject.toml", '[tool.allo-lsp]\nallo-build = "auto"\n', 2)
    probed = ProjectConfigs().options(tmp_path / "top.py", Options(allo_build="fixed"), build_chosen=False)
    assert probed.allo_build == "fixed"  # `auto` in the file leaves what the probe found


def test_problems_are_reported_once_per_change_and_withdrawn_when_fixed(tmp_path):
    config = tmp_path / "pyproject.toml"
    write(config, "[tool.allo-lsp]\nselct = 1\n", 1_000_000_000)
    configs = ProjectConfigs()
    configs.for_file(tmp_path / "top.py")
    (reported,) = configs.unreported()
    assert reported.path == config and "unknown key 'selct'" in reported.problems[0].message
    assert configs.unreported() == []
    write(config, "[tool.allo-lsp]\n", 2_000_000_000)
    configs.for_file(tmp_path / "top.py")
    (withdrawn,) = configs.unreported()
    assert withdrawn.path == config and withdrawn.problems == ()


def test_is_config():
    assert is_config("file:///work/pyproject.toml") and not is_config("file:///work/pyproject.toml.bak")


# -- a pyproject.toml that is not a regular file, and where the search stops (issue 25, item 6) -----

SEARCH = (
    "import sys; from allo_lsp.session.project_config import ProjectConfigs;"
    "found = ProjectConfigs().for_file(sys.argv[1]); print(found.path, found.config.ignore)"
)


def search_within(file, stdin=None, seconds: float = 20.0) -> str:
    """What `for_file` finds, in a process of its own under a memory bound (a read of /dev/zero
    grows at 1 GB/s) and a deadline (a FIFO's open waits for a writer)."""
    limit = "import resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30));"
    done = subprocess.run(
        [sys.executable, "-c", limit + SEARCH, str(file)],
        stdin=stdin if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=seconds,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


@pytest.mark.parametrize("special", ["fifo", "/dev/zero", "/proc/self/fd/0"])
def test_a_special_pyproject_is_passed_over_and_the_one_above_holds(tmp_path, special):
    write(tmp_path / "pyproject.toml", '[tool.allo-lsp]\nignore = ["ADF006"]\n', 1)
    (tmp_path / "pkg").mkdir()
    if special == "fifo":
        os.mkfifo(tmp_path / "pkg" / "pyproject.toml")
    else:
        os.symlink(special, tmp_path / "pkg" / "pyproject.toml")
    # /proc/self/fd/0: the process's stdin, a pipe nobody writes to nor closes.
    reader, writer = os.pipe()
    try:
        found = search_within(tmp_path / "pkg" / "top.py", stdin=reader)
    finally:
        os.close(reader)
        os.close(writer)
    assert found == f"{tmp_path / 'pyproject.toml'} ('ADF006',)"  # hung, or MemoryError, before


def test_a_pyproject_larger_than_the_bound_is_not_read(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.allo-lsp]\nignore = ["ADF006"]\n' + "#" * MAX_BYTES, 1)
    assert ProjectConfigs().for_file(tmp_path / "top.py").path != tmp_path / "pyproject.toml"


def test_the_search_stops_at_the_workspace_folder_and_at_a_repository_root(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.allo-lsp]\nignore = ["ADF006"]\n', 1)
    folder = tmp_path / "ws"
    (folder / "src").mkdir(parents=True)
    assert ProjectConfigs().for_file(folder / "src" / "top.py").path == tmp_path / "pyproject.toml"
    assert ProjectConfigs().for_file(folder / "src" / "top.py", [folder.as_uri()]) == NONE
    (folder / ".git").mkdir()
    assert ProjectConfigs().for_file(folder / "src" / "top.py") == NONE  # the CLI: up to the repository's root
    write(folder / "pyproject.toml", '[tool.allo-lsp]\nignore = ["ADF005"]\n', 1)
    assert ProjectConfigs().for_file(folder / "src" / "top.py", [folder.as_uri()]).config.ignore == ("ADF005",)
