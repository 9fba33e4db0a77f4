"""The probe learns which argument order the configured Allo compiles (stand-in Allo)."""

from allo_lsp.jobs.environment import JobConfig
from allo_lsp.jobs.manager import JobManager
from allo_lsp.jobs.service import probe
from designs import fake_llvm_build_dir
from paths import STANDIN


def config(**env) -> JobConfig:
    return JobConfig(llvm_build_dir=fake_llvm_build_dir(), extra_env={"PYTHONPATH": str(STANDIN), **env})


async def test_fixed_build():
    assert await probe(JobManager(), config()) == "fixed"


async def test_older_build():
    assert await probe(JobManager(), config(ALLO_STANDIN_ORDER="legacy")) == "legacy"


async def test_broken_allo_cannot_tell():
    assert await probe(JobManager(), config(ALLO_STANDIN="build_error")) is None
