"""Reading and replacing the user's files: only regular files, bounded, atomically."""

import os
import subprocess
import sys

import pytest
from allo_lsp.regular_files import Refused, inside, read_regular, replace_atomically


def test_a_regular_file_is_read_whole(tmp_path):
    path = tmp_path / "a.py"
    path.write_bytes(b"x = 1\n")
    assert read_regular(path, 100) == b"x = 1\n"


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    path = tmp_path / "x.py"
    os.mkfifo(path)
    with pytest.raises(Refused, match="a FIFO"):
        read_regular(path, 100)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
def test_a_link_to_a_device_is_refused(tmp_path, device):
    path = tmp_path / "x.py"
    path.symlink_to(device)
    with pytest.raises(Refused, match="character device"):
        read_regular(path, 100)


def test_a_file_over_the_bound_is_refused(tmp_path):
    path = tmp_path / "big.py"
    path.write_bytes(b"#" * 101)
    with pytest.raises(Refused, match="101 bytes"):
        read_regular(path, 100)


def test_a_proc_file_is_read_within_the_bound():
    # /proc files report a size of 0 and are regular: the bound holds while reading.
    with pytest.raises(Refused, match="more than the 10 bytes"):
        read_regular("/proc/self/maps", 10)


def test_inside_follows_links(tmp_path):
    (tmp_path / "tree").mkdir()
    (tmp_path / "outside.py").write_text("")
    (tmp_path / "tree" / "link.py").symlink_to(tmp_path / "outside.py")
    (tmp_path / "tree" / "own.py").write_text("")
    assert inside(tmp_path / "tree" / "own.py", [tmp_path / "tree"])
    assert not inside(tmp_path / "tree" / "link.py", [tmp_path / "tree"])


def test_replace_keeps_the_mode_and_leaves_no_partial_file(tmp_path):
    path = tmp_path / "a.py"
    path.write_bytes(b"old\n")
    path.chmod(0o640)
    replace_atomically(path, b"new\n", expected=b"old\n")
    assert path.read_bytes() == b"new\n"
    assert path.stat().st_mode & 0o777 == 0o640
    assert os.listdir(tmp_path) == ["a.py"]


def test_replace_refuses_a_file_changed_since_it_was_read(tmp_path):
    path = tmp_path / "a.py"
    path.write_bytes(b"saved meanwhile\n")
    with pytest.raises(Refused, match="changed since it was read"):
        replace_atomically(path, b"fixed\n", expected=b"old\n")
    assert path.read_bytes() == b"saved meanwhile\n"
    assert os.listdir(tmp_path) == ["a.py"]


def test_a_full_disk_leaves_the_file_whole(tmp_path):
    # A file-size limit stands in for a full disk: the write fails with EFBIG, in a child process
    # so that the limit does not outlive the test.
    path = tmp_path / "a.py"
    original = b"x = 1\n" * 3000
    path.write_bytes(original)
    code = f"""
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
from allo_lsp.regular_files import replace_atomically
try:
    replace_atomically({str(path)!r}, b"y = 2\\n" * 4000, expected={original!r})
except OSError as exc:
    sys.exit(3)
"""
    assert subprocess.run([sys.executable, "-c", code]).returncode == 3
    assert path.read_bytes() == original
    assert os.listdir(tmp_path) == ["a.py"]
