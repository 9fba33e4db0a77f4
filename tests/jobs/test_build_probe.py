"""What the server remembers of the probe (`jobs/build_probe.py`): an answer, and "could not tell"
too, for the settings probed; a cancelled probe is no answer."""

import asyncio

from allo_lsp.jobs.build_probe import BuildProbe
from allo_lsp.jobs.environment import JobConfig
from allo_lsp.jobs.manager import JobManager
from designs import fake_llvm_build_dir
from paths import STANDIN
from waiting import file_poll, until


def config(**env) -> JobConfig:
    return JobConfig(llvm_build_dir=fake_llvm_build_dir(), extra_env={"PYTHONPATH": str(STANDIN), **env})


async def test_an_answer_is_remembered_for_the_settings_probed():
    probe, manager = BuildProbe(), JobManager()
    assert probe.wanted(config())
    outcome = await probe.run(manager, config())
    assert outcome is not None and probe.found == "fixed" and not probe.wanted(config())
    assert await probe.run(manager, config()) is None  # not probed again
    assert probe.wanted(config(ALLO_STANDIN_ORDER="legacy"))  # other settings are


async def test_could_not_tell_is_remembered_too():
    """It used to be forgotten at once: the probe ran, and logged, before every job."""
    probe, manager, broken = BuildProbe(), JobManager(), config(ALLO_STANDIN="build_error")
    outcome = await probe.run(manager, broken)
    assert outcome is not None and outcome.status != "passed" and probe.found is None
    assert not probe.wanted(broken) and await probe.run(manager, broken) is None


async def test_a_cancelled_probe_is_probed_again(tmp_path):
    """Cancelling every job (the status bar's job item) cancels the probe too: that is no answer."""
    started = tmp_path / "started"
    hanging = tmp_path / "hanging" / "allo"
    hanging.mkdir(parents=True)
    (hanging / "__init__.py").write_text(f"import time\nopen({str(started)!r}, 'w').close()\ntime.sleep(300)\n")
    probe, manager = BuildProbe(), JobManager()
    settings = JobConfig(timeout_s=60, extra_env={"PYTHONPATH": str(hanging.parent)})
    running = asyncio.ensure_future(probe.run(manager, settings))
    await until(
        started.exists,
        what=f"the probe importing an Allo that hangs ({started})",
        wake=file_poll,
        seen=lambda: running.done() and running.result(),
    )
    assert not probe.wanted(settings)  # being probed: a second job does not probe
    (key,) = manager.running()
    manager.cancel(key)
    assert await asyncio.wait_for(running, 20) is None
    assert probe.wanted(settings) and probe.found is None
