"""Synthesis as Slurm batch jobs on a real local cluster, with the stand-in Allo and Vitis HLS:
submitted, followed through its states with `scontrol`, collected; refusals and failures in
words that name what to change."""

import os
import time
from dataclasses import asdict

import pytest
from allo_lsp.jobs import slurm, slurm_jobs
from allo_lsp.jobs.environment import JobConfig
from allo_lsp.jobs.registry import Registry
from allo_lsp.jobs.slurm import SlurmConfig, SlurmError
from allo_lsp.jobs.synthesis import SynthConfig
from allo_lsp.protocol.details import SynthesisDetails, details_as
from cluster import PARTITION
from designs import alive, design, pids

FIGURES = {"best": 1208, "average": None, "worst": 3624}  # the stand-in's report


def _spec(path, synth=None):
    return slurm_jobs.batch_spec(str(path), "top", path.read_text(), JobConfig(), synth or SynthConfig())


ON_PARTITION = SlurmConfig(partition=PARTITION)


async def _submit(path, config=ON_PARTITION, synth=None):
    storage = slurm_jobs.storage_dir(str(path.parent))
    return await slurm_jobs.submit(config, storage, _spec(path, synth)), storage


async def test_submitted_followed_and_collected_with_the_report(cluster_env, tmp_path):
    path = design(tmp_path)
    entry, storage = await _submit(path)
    assert [e.job_id for e in Registry(storage).entries()] == [entry.job_id]
    seen = []
    final = await slurm_jobs.wait(SlurmConfig(), entry, lambda states: seen.append(states[0].state))
    (outcome,) = slurm_jobs.collect(entry, final)
    assert final[0].state == slurm.COMPLETED and seen[-1] == slurm.COMPLETED
    assert set(seen) <= {slurm.PENDING, slurm.RUNNING, slurm.COMPLETED} and slurm.RUNNING in seen, seen
    assert outcome.status == "passed", outcome.message
    details = details_as(outcome.details, SynthesisDetails)
    assert details.report["latency"] == FIGURES
    assert details.project.startswith(entry.job_dir)  # the project on the shared filesystem, kept
    assert "Finished generating all RTL models" in open(os.path.join(details.project, "vitis.log")).read()


async def test_a_failing_synthesis_is_failed_with_the_tools_error_lines(cluster_env, tmp_path, monkeypatch):
    monkeypatch.setenv("VITIS_STANDIN", "missing_part")  # exported to the job
    entry, _ = await _submit(design(tmp_path))
    final = await slurm_jobs.wait(SlurmConfig(), entry)
    (outcome,) = slurm_jobs.collect(entry, final)
    assert (final[0].state, final[0].exit_code) == ("FAILED", "3:0")
    assert (outcome.status, outcome.cause) == ("failed", "synthesis")
    assert "ERROR [HLS 200-1611] Part 'xcu280-fsvh2892-2L-e' is not installed." in outcome.message


async def test_cancelled_leaves_no_process(cluster_env, tmp_path, monkeypatch):
    monkeypatch.setenv("VITIS_STANDIN", "hang")
    path = design(tmp_path)
    entry, _ = await _submit(path)
    running = []

    def on_states(states):
        # The runner has imported the design (its pid is written) and Vitis hangs: cancel then.
        if states[0].state == slurm.RUNNING and pids(path) and not running:
            running.append(True)
            jobs.cancel("key")

    jobs = slurm_jobs.ClusterJobs()
    jobs.followed["key"] = slurm_jobs.Cancel(SlurmConfig(), entry.job_id)
    final = await slurm_jobs.wait(SlurmConfig(), entry, on_states)
    (outcome,) = slurm_jobs.collect(entry, final)
    assert final[0].state == "CANCELLED" and outcome.status == "cancelled"
    assert pids(path) and not [p for p in pids(path) if alive(p)]
    assert not _processes_in(entry.job_dir)


def _processes_in(directory: str) -> list[str]:
    """Command lines of the processes whose command line or working directory is in `directory`."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode()
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if directory in cmdline or cwd.startswith(directory):
            found.append(cmdline)
    return found


async def test_a_time_limit_is_a_timeout_that_says_what_to_raise(cluster_env, tmp_path, monkeypatch):
    """--time is in whole minutes: Slurm ends the job about 75 s after it starts."""
    monkeypatch.setenv("VITIS_STANDIN", "hang")
    path = design(tmp_path)
    entry, _ = await _submit(path, SlurmConfig(partition=PARTITION, time="1"))
    final = await slurm_jobs.wait(SlurmConfig(), entry)
    (outcome,) = slurm_jobs.collect(entry, final)
    assert final[0].state == "TIMEOUT"
    assert outcome.status == "timeout" and "raise alloDataflow.slurm.time" in outcome.message
    assert not [p for p in pids(path) if alive(p)]


@pytest.mark.parametrize(
    ("config", "needle"),
    [
        (SlurmConfig(partition="nope"), "the partition 'nope' does not exist on this cluster"),
        (SlurmConfig(partition=PARTITION, cpus=64), "lower alloDataflow.slurm.cpus, .mem or .time"),
    ],
)
async def test_refused_submissions_name_the_setting(cluster_env, tmp_path, config, needle):
    with pytest.raises(SlurmError) as raised:
        await _submit(design(tmp_path), config)
    assert needle in str(raised.value)
    assert Registry(slurm_jobs.storage_dir(str(tmp_path))).entries() == []  # nothing recorded


async def test_no_sbatch_on_path(cluster_env, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(slurm.NoSlurm) as raised:
        await _submit(design(tmp_path))
    assert "sbatch is not on PATH" in str(raised.value) and "alloDataflow.scheduler to local" in str(raised.value)


async def test_a_job_that_cannot_open_its_output_failed_to_launch(cluster_env, tmp_path):
    """Slurm's 0:53 (JobLaunchFailure): the nodes do not see the directory."""
    script = tmp_path / "job.sh"
    script.write_text("#!/bin/sh\ntrue\n")
    missing = str(tmp_path / "not-there" / "out.txt")
    job_id = await slurm.submit(SlurmConfig(), str(script), str(tmp_path), missing, "allo-lsp:test")
    entry = slurm_jobs.Submitted(job_id, "top", "", str(tmp_path), time.time())
    final = await slurm_jobs.wait(SlurmConfig(), entry)
    assert (final[0].state, final[0].exit_code) == ("FAILED", slurm.LAUNCH_FAILED)
    (outcome,) = slurm_jobs.collect(entry, final)
    assert outcome.cause == slurm_jobs.CLUSTER and "failed to launch" in outcome.message
    assert "filesystem the nodes share" in outcome.message


def test_a_node_failure_says_to_synthesize_again():
    (state,) = slurm.parse_states(
        "JobId=9 JobName=allo-lsp:top JobState=NODE_FAIL Reason=NodeDown ExitCode=0:0 RunTime=00:12:01"
    )
    assert (state.run_s, state.done) == (721, True)
    assert slurm.failure(state) == "the node running job 9 failed: synthesize again (the job is not requeued)"


@pytest.mark.timeout(2)
def test_a_long_word_without_equals_in_scontrol_output_is_read_in_linear_time():
    """A job's comment (or a name with a space) can put a long word without `=` on the line: the
    old `(\\S+?)=` retried it from each of its characters (30,000: about 20 s)."""
    (state,) = slurm.parse_states(
        "JobId=9 JobName=allo-lsp:top Comment=x " + "y" * 30_000 + " JobState=RUNNING Reason=None "
        "ExitCode=0:0 RunTime=00:00:05 TRES=cpu=1,mem=4G"
    )
    assert (state.state, state.run_s, state.fields["TRES"]) == ("RUNNING", 5, "cpu=1,mem=4G")
    assert "y" * 30_000 not in state.fields.values()


def test_the_registry_is_written_whole_and_kept_until_collected(tmp_path):
    registry = Registry(str(tmp_path))
    first = slurm_jobs.Submitted("1", "top", "d.py", "/j/1", 1.0, "file:///d.py", 1, asdict(SlurmConfig()))
    registry.add(first)
    registry.add(slurm_jobs.Submitted("2", "top", "d.py", "/j/2", 2.0))
    (tmp_path / "slurm-jobs.json.999.partial").write_text('{"jobs": [')  # a writer killed mid-write
    assert [e.job_id for e in Registry(str(tmp_path)).entries()] == ["1", "2"]
    assert Registry(str(tmp_path)).entries()[0] == first
    registry.remove("1")
    assert [e.job_id for e in registry.entries()] == ["2"]
