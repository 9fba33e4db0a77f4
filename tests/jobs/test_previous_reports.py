"""The synthesis reports kept for the report view's delta (`jobs/previous_reports.py`) when two
servers of one workspace keep theirs at once: neither loses the other's regions."""

import json
import multiprocessing
import os
import stat
import sys

from allo_lsp.jobs.previous_reports import FILE, PreviousReports

REGIONS = 30  # each server's; both together stay under the bound of regions kept
ROUNDS = 3


def _keep(directory: str, server: int, start) -> None:
    """Keeps each of its regions' report ROUNDS times; exits with the number of times the report
    before was not the one it kept itself the round before (another server's write lost it)."""
    start.wait()
    reports, lost = PreviousReports(directory), 0
    for round in range(ROUNDS):
        for index in range(REGIONS):
            before = reports.swap("design.py", f"region_{server}_{index}", {"part": "xc", "round": round})
            lost += round > 0 and before != {"part": "xc", "round": round - 1}
    sys.exit(min(lost, 100))


def test_two_servers_keep_every_region(tmp_path):
    spawn = multiprocessing.get_context("spawn")
    start = spawn.Event()
    servers = [spawn.Process(target=_keep, args=(str(tmp_path), server, start)) for server in (0, 1)]
    for process in servers:
        process.start()
    start.set()
    for process in servers:
        process.join(60)
        assert process.exitcode == 0, f"{process.exitcode} reports before lost (or the process failed)"
    kept = json.loads((tmp_path / FILE).read_text())["reports"]
    regions = sorted(json.loads(key)[1] for key in kept)
    assert regions == sorted(f"region_{server}_{index}" for server in (0, 1) for index in range(REGIONS))


def test_the_report_before_is_the_other_servers(tmp_path):
    PreviousReports(str(tmp_path)).swap("design.py", "top", {"part": "xc", "latency": {"worst": 1}})
    before = PreviousReports(str(tmp_path)).swap("design.py", "top", {"part": "xc", "latency": {"worst": 2}})
    assert before == {"part": "xc", "latency": {"worst": 1}}


def _hostile_files():
    """What a stored file may hold that no server wrote: each must cost nothing but itself."""
    return {
        "deep": "[" * 100_000 + "]" * 100_000,  # RecursionError in json.loads
        "list": "[1, 2, 3]",
        "no field": '{"other": 1}',
        "wrong fields": '{"reports": {"k": 5, "j": {"report": [], "at": "x"}}}',
        "not JSON": "{ half",
        "binary": "\x00\xff\xfe",
    }


def test_a_hostile_kept_reports_file_is_set_aside_and_synthesis_goes_on(tmp_path, caplog):
    for name, text in _hostile_files().items():
        folder = tmp_path / name.replace(" ", "_")
        folder.mkdir()
        (folder / FILE).write_text(text, errors="surrogateescape")
        before = PreviousReports(str(folder)).swap("design.py", "top", {"part": "xc", "latency": {"worst": 1}})
        assert before is None, name
        kept = json.loads((folder / FILE).read_text())["reports"]
        assert [json.loads(k)[1] for k in kept] == ["top"], name  # written afresh
        if name != "wrong fields":  # entries of the wrong shape are dropped, the file itself is fine
            assert (folder / f"{FILE}.unreadable").read_text(errors="surrogateescape") == text, name
    assert "set aside" in caplog.text


def test_a_kept_reports_file_that_is_a_fifo_does_not_block(tmp_path):
    os.mkfifo(tmp_path / FILE)  # open() would wait for a writer for ever
    assert PreviousReports(str(tmp_path)).swap("design.py", "top", {"part": "xc"}) is None


def test_the_storage_is_private_whatever_the_umask(tmp_path):
    storage = tmp_path / "a" / "b" / "storage"
    old = os.umask(0o022)
    try:
        PreviousReports(str(storage)).swap("design.py", "top", {"part": "xc"})
    finally:
        os.umask(old)
    for directory in (tmp_path / "a", tmp_path / "a" / "b", storage):
        assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700, directory
    for file in (storage / FILE, storage / f"{FILE}.lock"):
        assert stat.S_IMODE(os.stat(file).st_mode) == 0o600, file


def test_a_kept_entry_that_holds_no_report_is_dropped_not_shown_as_the_run_before(tmp_path):
    """A stored report of the wrong shape (an older server's, a hand edit) is not "the run before":
    the view would draw it (`protocol/report.py` reads every kept report)."""
    key = json.dumps(["design.py", "top", "xc", None])
    stored = {"reports": {key: {"report": {"part": "xc", "modules": {"name": 5}}, "at": 1.0}}}
    (tmp_path / FILE).write_text(json.dumps(stored))
    assert PreviousReports(str(tmp_path)).swap("design.py", "top", {"part": "xc", "latency": {"worst": 1}}) is None
    kept = json.loads((tmp_path / FILE).read_text())["reports"]
    assert list(kept) == [key] and kept[key]["report"] == {"part": "xc", "latency": {"worst": 1}}
    assert not (tmp_path / f"{FILE}.unreadable").exists()  # the file itself was fine
    assert PreviousReports(str(tmp_path)).swap("design.py", "top", {"latency": 1}) is None  # nor is one kept
