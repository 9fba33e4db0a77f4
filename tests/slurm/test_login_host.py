"""`alloDataflow.slurm.loginHost`: before submitting, the login host must read back a file written
in the job's directory (`slurm_jobs.check_shared`). Against a real sshd on localhost: one that sees
this machine's filesystem, and one in its own mount namespace with a tmpfs over the workspace's
storage, which does not: a cluster whose login host mounts something else at that path."""

import asyncio
import os

import pytest
import sshd
from allo_lsp.jobs import slurm_jobs
from allo_lsp.jobs.registry import Registry
from allo_lsp.jobs.slurm import SlurmConfig, SlurmError
from allo_lsp.jobs.slurm_batch import BatchSpec
from designs import BASE


@pytest.fixture
def login_host(tmp_path, monkeypatch, request):
    """A started sshd, `allo-login` on PATH's ssh; `request.param` == "not shared": the storage hidden from it."""
    why = sshd.missing()
    if why is not None:
        pytest.skip(f"no sshd on localhost: {why}")
    storage = tmp_path / "storage"
    storage.mkdir()
    server = sshd.start(tmp_path / "ssh", hide=storage if request.param == "not shared" else None)
    monkeypatch.setenv("PATH", f"{server.bin_dir}{os.pathsep}{os.environ['PATH']}")
    yield storage
    server.stop()


def _spec(path: str) -> BatchSpec:
    return BatchSpec(path, "top", BASE, "python3", "", {}, {})


@pytest.mark.parametrize("login_host", ["shared"], indirect=True)
def test_a_login_host_that_shares_the_filesystem_reads_the_job_directory(login_host, tmp_path):
    job_dir = login_host / "jobs" / "one"
    job_dir.mkdir(parents=True)
    config = SlurmConfig(login_host=sshd.HOST)
    asyncio.run(slurm_jobs.check_shared(config, str(job_dir)))  # no error: the host read the token back
    # And it really went through ssh: the host ran the command (its own view of the path).
    status, out, err = asyncio.run(slurm_jobs.slurm.run(config, ["cat", str(job_dir / "shared-check")]))
    assert status == 0 and len(out.strip()) == 16, err


@pytest.mark.parametrize("login_host", ["not shared"], indirect=True)
def test_a_login_host_without_the_filesystem_is_refused_before_anything_is_submitted(login_host, tmp_path):
    config = SlurmConfig(login_host=sshd.HOST)
    # What the login host sees at the storage's path: an empty tmpfs of its own.
    status, out, _ = asyncio.run(slurm_jobs.slurm.run(config, ["ls", "-A", str(login_host)]))
    assert (status, out) == (0, "")
    with pytest.raises(SlurmError) as refused:
        asyncio.run(slurm_jobs.submit(config, str(login_host), _spec(str(tmp_path / "design.py"))))
    message = str(refused.value)
    assert message.startswith(f"{sshd.HOST} does not see {login_host}/jobs/")
    assert "a filesystem the login host and its nodes share" in message
    assert Registry(str(login_host)).entries() == []  # nothing was submitted, so nothing recorded
