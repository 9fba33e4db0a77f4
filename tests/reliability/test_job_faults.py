"""Jobs that fail in ways no other test drives through the server (the rest are in
tests/lsp/test_jobs.py and tests/jobs/): 100 MB of output, children that outlive the runner, a
runner killed while it writes its result, forged results, and the server stopped (or killed)
while a job runs.

Each goes through the real server as a user runs it (`faults.py`); the full matrix, timed, is
`bench/reliability/job_faults.py`.
"""

import faults
import lsp_session
import pytest


async def run(tmp_path, *names):
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    out = []
    async with lsp_session.session(faults.job_settings(20), env=faults.job_env(tmpdir)) as s:
        for i, name in enumerate(names):
            m = await faults.run_fault(s, tmp_path / f"{i}-{name}", tmpdir, faults.FAULTS[name])
            faults.kill_all(m.survivors)
            out.append(m)
        assert s.errors_logged(shown=False) == []
    return out


async def test_100_mb_of_output_is_bounded(tmp_path):
    # 1 MB first (with invalid UTF-8, as the 100 MB): the first job of a server loads what jobs need.
    small, m = await run(tmp_path, "invalid_utf8", "output_100mb")
    assert small.problems == [] and m.problems == [], (small.problems, m.problems)
    # The server keeps a bounded log: its memory hardly moves, the log it sends is cut.
    assert m.rss_after_kib - m.rss_before_kib < 20 * 1024
    assert m.log_chars < 25_000


async def test_children_that_outlive_the_runner_are_killed(tmp_path):
    """A child in the job's process group, one in a session of its own, one holding the
    runner's stdout open, a double-forked daemon: all gone when the job ends, and the job ends
    when the runner does (not when the pipe closes, at the timeout)."""
    # Twice: the first job starts its runner, the second takes the one pre-started after it.
    for i, m in enumerate(await run(tmp_path, "children_outlive", "children_outlive")):
        assert m.problems == [], (i, m.problems)
        assert m.seconds < 5 and len(faults.pids_in(tmp_path / f"{i}-children_outlive")) == 5


async def test_children_with_a_session_and_an_environment_of_their_own_are_killed(tmp_path):
    """Neither the process group nor the environment marker finds them: the job's watchdog is
    their subreaper, so they are its descendants, killed when the job ends."""
    for i, m in enumerate(await run(tmp_path, "escapees", "escapees")):
        assert m.problems == [], (i, m.problems)
        assert len(faults.pids_in(tmp_path / f"{i}-escapees")) == 3


async def test_forged_results_are_not_believed(tmp_path):
    """A design that writes "passed" into every pipe it holds (the result pipe among them) and
    then exits 1; one whose atexit hook does it after a failed assertion (no atexit hook runs
    after the runner's result); one that looks for the request file the old protocol left in
    its directory, to write the result file it names (there is none now, and its forged line
    in the pipe lacks the job's nonce: the real outcome stands)."""
    for m in await run(tmp_path, "forged_then_exit_1", "forged_at_exit", "forged_from_request"):
        assert m.problems == [], (m.fault, m.problems)


async def test_a_runner_killed_while_it_writes_its_result(tmp_path):
    """Killed half way through writing (the file is written atomically: nothing is read), a
    result file cut short at its final name, JSON that is not a result (and a `result.json` of
    the design's own): each is a crash by its signal, never a result, never a server error."""
    for m in await run(tmp_path, "killed_mid_write", "torn_result", "foreign_result"):
        assert m.problems == [], (m.fault, m.problems)


@pytest.mark.parametrize("how", faults.SHUTDOWNS)
async def test_the_server_stopped_mid_job_takes_the_job_with_it(tmp_path, how):
    m = await faults.shutdown_mid_job(tmp_path, how)
    assert m.problems == [], m.problems
