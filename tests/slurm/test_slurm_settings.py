"""The cluster's settings as the client sends them, and the lens of a job on the cluster (no
cluster needed)."""

from allo_lsp.ide.outcomes import cluster_title
from allo_lsp.jobs.slurm import SlurmConfig, parse_states
from allo_lsp.settings import Settings, parse_settings


def test_slurm_settings_become_sbatch_options():
    settings, warnings = parse_settings(
        {
            "scheduler": "slurm",
            "slurm": {"partition": "fpga", "time": "4:00:00", "cpus": 8, "mem": "32G", "extraArgs": "--qos=hls -A lab"},
        }
    )
    assert warnings == []
    assert settings.slurm_config().options() == [
        "--partition=fpga",
        "--time=4:00:00",
        "--cpus-per-task=8",
        "--mem=32G",
        "--qos=hls",
        "-A",
        "lab",
    ]
    assert Settings().slurm_config() is None  # local: nothing goes to a cluster


def test_bad_slurm_settings_are_named_and_replaced():
    settings, warnings = parse_settings({"slurm": {"time": "4 hours", "cpus": 2.5, "loginHost": 7}})
    assert settings == Settings() and len(warnings) == 3
    assert "slurm.time is sbatch's --time" in warnings[0]


def test_a_login_host_runs_every_command_over_ssh():
    from allo_lsp.jobs.slurm import argv_for

    argv = argv_for(SlurmConfig(login_host="login1"), ["scontrol", "-o", "show", "job", "4711"])
    assert argv == ["ssh", "-o", "BatchMode=yes", "--", "login1", "scontrol -o show job 4711"]


def test_the_lens_of_a_queued_and_a_running_job():
    queued, running = parse_states(
        "JobId=4711 JobState=PENDING Reason=Resources ExitCode=0:0 RunTime=00:00:00\n"
        "JobId=4712 JobState=RUNNING Reason=None ExitCode=0:0 RunTime=00:12:31\n"
    )
    assert cluster_title(queued) == "⚙ queued #4711 (Resources)"
    assert cluster_title(running) == "⚙ running 12 min"
