"""The synthesis reports kept for the report view's delta (`jobs/previous_reports.py`) when two
servers of one workspace keep theirs at once: neither loses the other's regions."""

import json
import multiprocessing
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
    PreviousReports(str(tmp_path)).swap("design.py", "top", {"part": "xc", "latency": 1})
    before = PreviousReports(str(tmp_path)).swap("design.py", "top", {"part": "xc", "latency": 2})
    assert before == {"part": "xc", "latency": 1}
