"""`allo-lsp check --fix` never loses a user's data, and `check DIR` reads only what it should:
a fix is written atomically, only over what was read and only inside the paths named; special
files in a tree are never opened; each line keeps its line break. A real subprocess (in-process
only where a test must act between the analysis and the write), real FIFOs, links and limits."""

import os
import re
import resource
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from allo_lsp import cli
from paths import EXAMPLES

MAPPING = (EXAMPLES / "pitfall_mapping_order.py").read_text()  # one ADF011: a safe fix
MAPPING_LINE = "    @df.kernel(args=[A], mapping=[1])"
FIXED_LINE = "    @df.kernel(mapping=[1], args=[A])"
FIXED = MAPPING.replace(MAPPING_LINE, FIXED_LINE)
# The same design made about 17 KB long by a comment: more than the file-size limit below.
LARGE = MAPPING + "".join(f"# padding line {i:05} " + "x" * 60 + "\n" for i in range(200))
FILE_SIZE_LIMIT = 8192
MEMORY_LIMIT = 4 << 30  # the old code read a link to /dev/zero until memory ran out: bounded here


def check(*args, cwd: Path, file_size: int | None = None) -> subprocess.CompletedProcess:
    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        if file_size is not None:  # a full disk: writes past it fail with EFBIG (Python ignores SIGXFSZ)
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))

    return subprocess.run(
        [sys.executable, "-m", "allo_lsp", "check", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        preexec_fn=limits,
    )


def stderr_lines(out: subprocess.CompletedProcess, name: str) -> list[str]:
    return [line for line in out.stderr.splitlines() if name in line]


# -- item 3: nothing outside the paths named is written ----------------------------------------


def test_a_linked_file_outside_the_tree_is_checked_but_not_fixed(tmp_path):
    (tmp_path / "tree").mkdir()
    (tmp_path / "outside").mkdir()
    important = tmp_path / "outside" / "important.py"
    important.write_text(MAPPING)
    (tmp_path / "tree" / "link.py").symlink_to("../outside/important.py")
    (tmp_path / "tree" / "own.py").write_text(MAPPING)
    out = check("tree", "--fix", cwd=tmp_path)
    assert important.read_text() == MAPPING
    assert (tmp_path / "tree" / "own.py").read_text() == FIXED
    (line,) = stderr_lines(out, "link.py")
    assert f"not fixed: its real path {important} is outside the paths named" in line
    assert "tree/link.py:25:26: ADF011" in out.stdout  # still diagnosed, as Ruff follows links
    assert out.returncode == 1 and "Fixed 1 problem." in out.stdout


def test_a_link_named_on_the_command_line_is_fixed_and_stays_a_link(tmp_path):
    important = tmp_path / "important.py"
    important.write_text(MAPPING)
    (tmp_path / "link.py").symlink_to("important.py")
    out = check("link.py", "--fix", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert important.read_text() == FIXED and (tmp_path / "link.py").is_symlink()


# -- item 4: a fix is written whole, over what was read, or not at all ------------------------


def test_a_full_disk_leaves_the_file_whole_and_exits_2(tmp_path):
    path = tmp_path / "large.py"
    path.write_text(LARGE)
    out = check("large.py", "--fix", cwd=tmp_path, file_size=FILE_SIZE_LIMIT)
    assert path.read_text() == LARGE
    assert os.listdir(tmp_path) == ["large.py"]  # no partial file left beside it
    (line,) = stderr_lines(out, "large.py")
    assert line == "allo-lsp check: large.py: File too large, not written"
    assert out.returncode == 2 and "Fixed" not in out.stdout
    assert "large.py:25:26: ADF011" in out.stdout  # what is left in the file is what is reported


def test_a_file_that_cannot_be_written_does_not_stop_the_others(tmp_path):
    for name, text in (("a.py", MAPPING), ("b.py", LARGE), ("c.py", MAPPING)):
        (tmp_path / name).write_text(text)
    (tmp_path / "a.py").chmod(0o751)
    out = check(".", "--fix", cwd=tmp_path, file_size=FILE_SIZE_LIMIT)
    assert (tmp_path / "a.py").stat().st_mode & 0o777 == 0o751  # the mode kept
    assert (tmp_path / "a.py").read_text() == FIXED and (tmp_path / "c.py").read_text() == FIXED
    assert (tmp_path / "b.py").read_text() == LARGE
    assert len(stderr_lines(out, "b.py")) == 1 and not stderr_lines(out, "a.py") + stderr_lines(out, "c.py")
    assert out.returncode == 2 and "Fixed 2 problems." in out.stdout


def test_a_file_saved_while_check_ran_is_not_overwritten(tmp_path, monkeypatch, capsys):
    # In process: the editor's save comes between the analysis and the write.
    import allo_lsp.ide.fix_all as fix_all_module

    path = tmp_path / "design.py"
    path.write_text(MAPPING)
    saved = MAPPING + "\n# typed in the editor meanwhile\n"
    real_fix_all = fix_all_module.fix_all

    def fix_all_then_save(*args, **kwargs):
        fixed = real_fix_all(*args, **kwargs)
        path.write_text(saved)
        return fixed

    monkeypatch.setattr(fix_all_module, "fix_all", fix_all_then_save)
    assert cli.main(["check", str(path), "--fix"]) == 2
    assert path.read_text() == saved
    assert f"{path}: changed since it was read, not written" in capsys.readouterr().err


def test_a_file_that_cannot_be_read_does_not_stop_the_others(tmp_path):
    (tmp_path / "a.py").write_bytes(b"import allo\nx = '\xe9'\n")
    (tmp_path / "b.py").write_text(MAPPING)
    out = check(".", "--fix", cwd=tmp_path)
    assert "a.py: not UTF-8 text" in out.stderr
    assert (tmp_path / "b.py").read_text() == FIXED
    assert out.returncode == 2


# -- item 9: the walk reads regular files only, bounded ---------------------------------------


def test_special_files_in_a_directory_are_skipped_without_being_opened(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "design.py").write_text(MAPPING)
    fifo = tree / "x.py"
    os.mkfifo(fifo)
    (tree / "zero.py").symlink_to("/dev/zero")
    # A writer waits for a reader: its open() returns only if check opens the FIFO.
    opened = threading.Event()

    def writer():
        os.close(os.open(fifo, os.O_WRONLY))
        opened.set()

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    try:
        out = check("tree", cwd=tmp_path)
        assert not opened.is_set(), "check opened the FIFO"
    finally:
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))  # lets the writer go
        thread.join(5)
    assert stderr_lines(out, "x.py") == ["allo-lsp check: tree/x.py: not a regular file (a FIFO), skipped"]
    assert stderr_lines(out, "zero.py") == [
        "allo-lsp check: tree/zero.py: not a regular file (a character device), skipped"
    ]
    assert out.returncode == 1 and "tree/design.py:25:26: ADF011" in out.stdout and "1 file checked" in out.stdout


def test_a_special_file_named_on_the_command_line_is_refused(tmp_path):
    os.mkfifo(tmp_path / "x.py")
    (tmp_path / "zero.py").symlink_to("/dev/zero")
    out = check("x.py", "zero.py", cwd=tmp_path)
    assert "x.py: a FIFO, not read" in out.stderr and "zero.py: a character device, not read" in out.stderr
    assert out.returncode == 2 and "Traceback" not in out.stderr


def test_a_file_over_the_bound_is_refused_with_its_size(tmp_path):
    from allo_lsp.check import MAX_FILE_BYTES
    from allo_lsp.session import workspace_files

    assert MAX_FILE_BYTES == workspace_files.MAX_FILE_BYTES  # the editor's workspace scan passes it over too
    big = tmp_path / "tree" / "big.py"
    big.parent.mkdir()
    big.write_text("import allo\n" + ("# " + "x" * 97 + "\n") * (MAX_FILE_BYTES // 100 + 1))
    (tmp_path / "tree" / "design.py").write_text(MAPPING)
    size = big.stat().st_size
    walked = check("tree", cwd=tmp_path)  # in a tree: passed over, as the editor's workspace scan does
    assert stderr_lines(walked, "big.py") == [
        f"allo-lsp check: tree/big.py: {size} bytes, more than the {MAX_FILE_BYTES} read, skipped"
    ]
    assert walked.returncode == 1 and "1 file checked" in walked.stdout
    named = check("tree/big.py", cwd=tmp_path)  # named: the command could not do what it was asked
    assert f"tree/big.py: {size} bytes, more than the {MAX_FILE_BYTES} read" in named.stderr
    assert named.returncode == 2


def test_the_walk_follows_no_directory_link(tmp_path):
    # Guards the walk (os.walk does not follow links to directories): a loop and a link out of the tree.
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "theirs.py").write_text(MAPPING)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "design.py").write_text(MAPPING)
    (tree / "loop").symlink_to(".")
    (tree / "out").symlink_to("../outside")
    out = check("tree", "--fix", cwd=tmp_path)
    assert out.returncode == 0 and "1 file checked" in out.stdout
    assert (tmp_path / "outside" / "theirs.py").read_text() == MAPPING


# -- low: each line keeps its line break -------------------------------------------------------


def _with_breaks(text: str, breaks: list[str]) -> str:
    lines = text.split("\n")
    return "".join(line + breaks[i % len(breaks)] for i, line in enumerate(lines[:-1])) + lines[-1]


@pytest.mark.parametrize(
    "breaks", [["\r\n"], ["\r"], ["\r\n", "\n", "\r"], ["\n", "\r"]], ids=["crlf", "cr", "mixed", "lf-cr"]
)
def test_fix_keeps_each_lines_break(tmp_path, breaks):
    path = tmp_path / "design.py"
    path.write_bytes(_with_breaks(MAPPING, breaks).encode())
    out = check("design.py", "--fix", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert path.read_bytes() == _with_breaks(FIXED, breaks).encode()


def test_lines_a_fix_adds_or_removes_take_their_neighbours_break():
    from allo_lsp.check import with_line_breaks

    original = "a\r\nb\rc\nd"
    assert with_line_breaks(original, "a\nb\nc\nd") == original
    assert with_line_breaks(original, "a\nB\nc\nd") == "a\r\nB\rc\nd"  # a changed line keeps its own
    assert with_line_breaks(original, "a\nb\nb2\nc\nd") == "a\r\nb\rb2\rc\nd"  # an added one, the one before
    assert with_line_breaks(original, "a\nc\nd") == "a\r\nc\nd"  # a removed line takes its break along
    assert with_line_breaks(original, "a\nb\nc\nd\ne") == "a\r\nb\rc\nd\ne"  # the old last line: the one before's
    assert re.fullmatch(r"(x\r)+x", with_line_breaks("x\r" * 3 + "x", "x\n" * 4 + "x"))
