"""The Allo designs of a workspace, found on real directory trees: what counts as a design, and
every rule that leaves a path out (checked against git itself where git has an opinion)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import allo_lsp.session.workspace_files as workspace_files
import pytest
from allo_lsp.session.workspace_files import HEAD_BYTES, MAX_FILE_BYTES, allo_files, is_design, is_excluded

DESIGN = "import allo\nfrom allo.ir.types import int32\nimport allo.dataflow as df\n"
PLAIN = "import numpy as np\n"


def make(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def found(root: Path, excludes=(), limit=5000) -> list[str]:
    return [p.relative_to(root).as_posix() for p in allo_files([root], excludes, limit)]


@pytest.mark.parametrize(
    "head",
    [
        "import allo\n",
        "import allo.dataflow as df\n",
        "from allo.ir.types import int32, float32\n",
        "from allo import dsl\n",
        "from allo . ir . types import int8\n",
        "import numpy as np, allo\n",
        "import os; import allo\n",
        "try:\n    import allo\nexcept ImportError:\n    allo = None\n",
        "\ufeffimport allo\r\n",
        '"""A design."""\n# Copyright\n\nimport sys\n' + "x = 1\n" * 3000 + "import allo\n",
        "from allo import (\n    dsl,\n)\n",
    ],
)
def test_a_file_that_imports_allo_is_a_design(tmp_path, head):
    path = tmp_path / "design.py"
    path.write_bytes(head.encode())
    assert is_design(path)
    assert found(tmp_path) == ["design.py"]


@pytest.mark.parametrize(
    "head",
    [
        PLAIN,
        "import allo_lsp\n",
        "import alloy\n",
        "from allocator import pool\n",
        "from allo_extra.types import int8\n",
        "# import allo\n",
        "name = 'allo'\nallo = 1\n",
        "",
    ],
)
def test_a_file_that_does_not_import_allo_is_not(tmp_path, head):
    path = make(tmp_path, {"plain.py": head}) / "plain.py"
    assert not is_design(path)
    assert found(tmp_path) == []


def test_only_python_files_are_designs_and_none_is_executed(tmp_path):
    marker = tmp_path / "ran"
    make(
        tmp_path,
        {
            "notes.txt": DESIGN,
            "design.pyi": DESIGN,
            "design.py": DESIGN + f"open({str(marker)!r}, 'w').close()\n",
        },
    )
    assert found(tmp_path) == ["design.py"]
    assert not marker.exists()


def test_the_import_is_looked_for_in_the_first_head_bytes_only(tmp_path):
    padding = "#" * 79 + "\n"
    within = padding * ((HEAD_BYTES - 200) // len(padding))
    beyond = padding * (HEAD_BYTES // len(padding) + 1)
    make(tmp_path, {"within.py": within + "import allo\n", "beyond.py": beyond + "import allo\n"})
    assert found(tmp_path) == ["within.py"]


@pytest.mark.parametrize("cut", ["import al", "import allo"])
@pytest.mark.parametrize("boundary", range(4096, HEAD_BYTES, 4096))
def test_an_import_read_in_two_pieces_is_read_whole(tmp_path, boundary, cut):
    # Each line cut at the boundary, whatever power-of-two size the file is read in: `import allo`
    # cut anywhere is an import of allo, `import allocator` is not.
    padding = "#" * (boundary - len(cut) - 1) + "\n"
    make(tmp_path, {"cut.py": padding + "import allo\n", "other.py": padding + "import allocator\n"})
    assert found(tmp_path) == ["cut.py"]


def test_the_order_is_sorted_paths_whatever_the_order_on_disk(tmp_path):
    names = ["b/z.py", "a.py", "a/b.py", "a-b/c.py", "B.py", "a/a/x.py", "c.py", "_.py", "a.b/d.py"]
    make(tmp_path, dict.fromkeys(reversed(names), DESIGN))
    result = list(allo_files([tmp_path]))
    assert result == sorted(tmp_path / n for n in names)
    assert list(allo_files([tmp_path])) == result


def test_git_caches_and_python_environments_are_skipped(tmp_path):
    make(
        tmp_path,
        {
            "design.py": DESIGN,
            ".git/hooks/design.py": DESIGN,
            "pkg/__pycache__/design.py": DESIGN,
            "lib/python3.13/site-packages/allo/design.py": DESIGN,
            "usr/lib/python3/dist-packages/design.py": DESIGN,
            # An environment is found by its marker, whatever its name.
            "env/pyvenv.cfg": "home = /usr/bin\n",
            "env/lib/design.py": DESIGN,
            "miniconda/envs/allo/conda-meta/history": "",
            "miniconda/envs/allo/design.py": DESIGN,
            # A directory named like one is not one without the marker.
            "venv/design.py": DESIGN,
            "notes/site_packages.py": DESIGN,
        },
    )
    assert found(tmp_path) == ["design.py", "notes/site_packages.py", "venv/design.py"]


def test_editor_exclude_globs_match_paths_relative_to_the_folder(tmp_path):
    make(
        tmp_path,
        {
            "node_modules/design.py": DESIGN,
            "client/node_modules/pkg/design.py": DESIGN,
            "build/design.py": DESIGN,
            "src/build/design.py": DESIGN,
            "src/kernel_gen.py": DESIGN,
            "src/kernel.py": DESIGN,
            "out/design.py": DESIGN,
            "tmp/a/design.py": DESIGN,
            "tmpfile/design.py": DESIGN,
            "src/x1.py": DESIGN,
            "src/xy.py": DESIGN,
        },
    )
    excludes = ["**/node_modules", "build", "**/*_gen.py", "{out,tmp}/**", "src/x[0-9].py"]
    assert found(tmp_path, excludes) == ["src/build/design.py", "src/kernel.py", "src/xy.py", "tmpfile/design.py"]


GITIGNORED_TREE = {
    ".gitignore": "generated/\n*.tmp.py\n*.log.py\n/top_only.py\nvendor/\n!vendor/lib.py\ngen.py/\n!\n",
    "design.py": DESIGN,
    "top_only.py": DESIGN,
    "generated/design.py": DESIGN,
    "x.tmp.py": DESIGN,
    "vendor/lib.py": DESIGN,
    "gen.py/design.py": DESIGN,
    "sub/gen.py": DESIGN,
    "sub/top_only.py": DESIGN,
    # `!x/` re-includes the directory x, not the files in it that a line above ignores.
    "sub/.gitignore": "!keep.tmp.py\n/local.py\n!x/\n",
    "sub/x/a.log.py": DESIGN,
    "sub/keep.tmp.py": DESIGN,
    "sub/other.tmp.py": DESIGN,
    "sub/local.py": DESIGN,
    "sub/x/local.py": DESIGN,
    "sub/deeper/.gitignore": "*.py\n!main.py\n",
    "sub/deeper/main.py": DESIGN,
    "sub/deeper/helper.py": DESIGN,
    "sub/deeper/again/main.py": DESIGN,
    "cache/.gitignore": "*\n!.gitignore\n!kept/\n!kept/*.py\n",
    "cache/dropped.py": DESIGN,
    "cache/kept/design.py": DESIGN,
    "info_excluded.py": DESIGN,
}
GITIGNORED_KEPT = [
    "cache/kept/design.py",
    "design.py",
    "sub/deeper/again/main.py",
    "sub/deeper/main.py",
    "sub/gen.py",
    "sub/keep.tmp.py",
    "sub/top_only.py",
    "sub/x/local.py",
]


def gitignored_tree(root: Path) -> Path:
    make(root, GITIGNORED_TREE)
    (root / ".git/info").mkdir(parents=True)
    (root / ".git/info/exclude").write_text("info_excluded.py\n")
    return root


def test_gitignore_files_nested_and_negated_leave_out_what_git_ignores(tmp_path):
    assert found(gitignored_tree(tmp_path)) == GITIGNORED_KEPT


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_gitignore_semantics_are_gits(tmp_path):
    root = gitignored_tree(tmp_path)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, env=_git_env())
    (root / ".git/info/exclude").write_text("info_excluded.py\n")
    listed = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard"],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
        env=_git_env(),
    ).stdout.split()
    assert sorted(p for p in listed if p.endswith(".py")) == found(root)


def _git_env() -> dict[str, str]:
    # The machine's own git configuration (a global excludesFile) is not the tree's.
    return {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def test_symlinks_are_followed_without_looping_or_repeating_a_file(tmp_path):
    folder = make(tmp_path / "ws", {"a/design.py": DESIGN, "b.py": DESIGN})
    outside = make(tmp_path / "outside", {"shared.py": DESIGN})
    (folder / "a/loop").symlink_to("..")
    (folder / "a/self").symlink_to("self")
    (folder / "again").symlink_to("a")
    (folder / "alias.py").symlink_to("b.py")
    (folder / "broken.py").symlink_to("missing.py")
    (folder / "linked").symlink_to(outside)
    # `again` is `a` by another path: a directory is entered once, a file given once, the first
    # in path order.
    assert found(folder) == ["a/design.py", "alias.py", "linked/shared.py"]


UNREADABLE_TREE = {"locked/design.py": DESIGN, "readable/design.py": DESIGN, "secret.py": DESIGN, "z.py": DESIGN}


def test_an_unreadable_directory_or_file_is_skipped(tmp_path):
    make(tmp_path, UNREADABLE_TREE)
    (tmp_path / "locked").chmod(0)
    (tmp_path / "secret.py").chmod(0)
    try:
        assert _walk_without_root_privileges(tmp_path) == ["readable/design.py", "z.py"]
    finally:
        (tmp_path / "locked").chmod(0o755)


def _walk_without_root_privileges(root: Path) -> list[str]:
    if os.geteuid() != 0:
        return found(root)
    # Root reads everything: the walk runs in a process without the capabilities that override
    # file permissions, where mode 0 shuts out the owner, root, too.
    if shutil.which("setpriv") is None:
        pytest.skip("running as root and setpriv (util-linux) is missing: every directory is readable")
    script = (
        "import sys; from pathlib import Path; from allo_lsp.session.workspace_files import allo_files; "
        "root = Path(sys.argv[1]); print('\\n'.join(p.relative_to(root).as_posix() for p in allo_files([root])))"
    )
    walk = subprocess.run(
        ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", sys.executable, "-c", script, str(root)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (walk.returncode, walk.stderr) == (0, "")
    return walk.stdout.split()


def test_files_over_two_megabytes_are_skipped(tmp_path):
    for name, size in (("at_bound.py", MAX_FILE_BYTES), ("over_bound.py", MAX_FILE_BYTES + 1)):
        (tmp_path / name).write_bytes(DESIGN.encode().ljust(size, b"#"))
    assert found(tmp_path) == ["at_bound.py"]


def test_the_limit_bounds_the_python_files_examined(tmp_path):
    make(tmp_path, {f"d{i:02}.py": DESIGN for i in range(10)})
    make(tmp_path, {f"d{i:02}_plain.py": PLAIN for i in range(3)})
    # Neither excluded files nor other files count.
    make(tmp_path, {f"a_modules/m{i}.py": DESIGN for i in range(50)} | {f"a{i}.txt": "" for i in range(50)})
    # The first five examined: d00.py, d00_plain.py, d01.py, d01_plain.py, d02.py.
    files = allo_files([tmp_path], ["**/a_modules"], limit=5)
    assert [p.name for p in files] == ["d00.py", "d01.py", "d02.py"]
    assert (files.examined, files.truncated) == (5, True)
    whole = allo_files([tmp_path], ["**/a_modules"], limit=13)
    assert len(list(whole)) == 10
    assert (whole.examined, whole.truncated) == (13, False)


def test_folders_come_in_order_and_a_file_in_two_of_them_once(tmp_path):
    outer = make(tmp_path / "outer", {"z.py": DESIGN, ".gitignore": "inner/ignored.py\n"})
    inner = make(outer / "inner", {"ignored.py": DESIGN, "a.py": DESIGN})
    other = make(tmp_path / "other", {"b.py": DESIGN})
    # inner/ignored.py is ignored by outer's .gitignore, not by inner's: inner, a folder too, has it.
    assert list(allo_files([other, outer, inner])) == [
        other / "b.py",
        inner / "a.py",
        outer / "z.py",
        inner / "ignored.py",
    ]
    assert not is_excluded(inner / "ignored.py", [outer, inner])
    assert is_excluded(inner / "ignored.py", [outer])


def test_is_excluded_agrees_with_the_walk_on_every_rule(tmp_path):
    root = gitignored_tree(tmp_path / "ws")
    make(
        root,
        {
            "node_modules/design.py": DESIGN,
            "build/design.py": DESIGN,
            "src/build/design.py": DESIGN,
            "env/pyvenv.cfg": "",
            "env/lib/design.py": DESIGN,
            "pkg/__pycache__/design.py": DESIGN,
            "lib/site-packages/design.py": DESIGN,
        },
    )
    excludes = ["**/node_modules", "build"]
    walked = set(allo_files([root], excludes))
    every = [p for p in root.rglob("*.py") if p.is_file()]
    assert {p for p in every if not is_excluded(p, [root], excludes)} == walked
    assert len(walked) < len(every)


def test_is_excluded_outside_the_folders_and_for_a_deleted_file(tmp_path):
    root = make(tmp_path / "ws", {".gitignore": "build/\n"})
    assert is_excluded(tmp_path / "elsewhere.py", [root])
    assert is_excluded(root / "build/gone.py", [root])
    assert not is_excluded(root / "gone.py", [root])
    assert is_excluded(root / "src/../build/gone.py", [root])


# -- hostile patterns and files (issue 25, items 7 and 8) -------------------------------------------

BACKTRACKING = "*a" * 40 + "*b"  # a backtracking matcher tries every way to share the a's among the stars


def found_within(root: Path, excludes=(), seconds: float = 20.0) -> list[str]:
    """`found`, in a process of its own: a regular expression that backtracks holds the
    interpreter, so only a deadline from outside can end it."""
    code = (
        "import json, sys; from pathlib import Path; from allo_lsp.session.workspace_files import allo_files;"
        "root = Path(sys.argv[1]);"
        "print(json.dumps([p.relative_to(root).as_posix() for p in allo_files([root], json.loads(sys.argv[2]))]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(root), json.dumps(list(excludes))],
        capture_output=True,
        text=True,
        timeout=seconds,
        check=True,
    )
    return json.loads(done.stdout)


def test_a_gitignore_line_that_backtracks_beside_a_long_name_is_matched_in_linear_time(tmp_path):
    long_name = "a" * 200 + ".py"
    make(tmp_path, {".gitignore": f"{BACKTRACKING}\n*_gen.py\n", long_name: DESIGN, "k_gen.py": DESIGN})
    assert found_within(tmp_path) == [long_name]  # hung for ever before (2^40 ways)


def test_an_exclude_glob_that_backtracks_is_matched_in_linear_time(tmp_path):
    long_name = "a" * 200 + ".py"
    make(tmp_path, {long_name: DESIGN, "sub/ab.py": DESIGN})
    assert found_within(tmp_path, [BACKTRACKING, "{x,{y,{z,sub}}}/**"]) == [long_name]


@pytest.mark.parametrize(
    "glob",
    [
        "{" * 20_000,
        "[" * 20_000,
        "{a," * 5_000 + "}" * 5_000,
        "[!" + "a-" * 5_000 + "]",
        "**/" * 2_000 + "x",
        "\\" * 3_001,
    ],
)
def test_odd_globs_and_ignore_lines_cost_bounded_time(tmp_path, glob):
    make(tmp_path, {".gitignore": f"{glob}\n", "design.py": DESIGN, "sub/b.py": DESIGN})
    assert found_within(tmp_path, [glob], seconds=10) == ["design.py", "sub/b.py"]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_linear_matcher_agrees_with_git_on_classes_escapes_and_double_stars(tmp_path):
    lines = [
        "[abc]x.py",
        "[!k]y.py",
        "z[0-9].py",
        "\\#hash.py",
        "\\!bang.py",
        "sp\\ .py",
        "trail.py   ",
        "**/deep/**",
        "mid/**/end.py",
        "a**b.py",
        "?q.py",
        "/anch/*.py",
        "n/*/m.py",
    ]
    names = [
        "ax.py", "dx.py", "ky.py", "ly.py", "z5.py", "za.py", "#hash.py", "!bang.py", "sp .py", "trail.py",
        "o/deep/p.py", "deep/q.py", "mid/end.py", "mid/a/b/end.py", "mid/x.py", "ab.py", "axyb.py", "xq.py",
        "anch/r.py", "o/anch/r.py", "n/x/m.py", "n/x/y/m.py", "kept.py",
    ]  # fmt: skip
    make(tmp_path, {".gitignore": "\n".join(lines) + "\n", **{n: DESIGN for n in names}})
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True, env=_git_env())
    listed = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard"],
        cwd=tmp_path, check=True, capture_output=True, text=True, env=_git_env(),
    ).stdout.split("\n")  # fmt: skip
    assert sorted(p for p in listed if p.endswith(".py")) == found(tmp_path)


@pytest.mark.timeout(20)
def test_a_design_swapped_for_a_fifo_after_its_stat_is_not_waited_on(tmp_path, monkeypatch):
    make(tmp_path, {"design.py": DESIGN, "b.py": DESIGN})
    os.mkfifo(tmp_path / "fifo.py")
    # The walk's stat says regular (as it did before the file was swapped); the open finds a FIFO.
    regular, is_design = os.stat(tmp_path / "b.py"), workspace_files._is_design
    monkeypatch.setattr(workspace_files, "_is_design", lambda path, info: is_design(path, regular))
    assert found(tmp_path) == ["b.py", "design.py"]  # open() waited for a writer before
