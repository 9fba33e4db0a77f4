"""A sweep's points (`jobs/points.py`): the design's module-level constants read once, for the
parameters the editor offers and every point's text alike; and one synthesis per point, the same
function locally and in a Slurm task (`synthesis.synthesize_point`)."""

import ast
import asyncio

import pytest
from allo_lsp.jobs import points, slurm_batch, synthesis
from allo_lsp.jobs.points import Constants, Point, PointError
from allo_lsp.protocol.messages import PASSED, JobResult

DESIGN = "M, N = 8, 8\nP: int = 4  # é: columns are bytes\r\nNAME = 'x'; Q = M * 2\nM = 8\n"


def test_the_constants_are_read_once_for_every_point(monkeypatch):
    parses = []
    real = ast.parse
    monkeypatch.setattr(points.ast, "parse", lambda source, *a, **k: parses.append(1) or real(source, *a, **k))
    design = Constants(DESIGN)
    assert design.values() == {"M": 8, "N": 8, "P": 4, "NAME": "x"}  # Q is no literal
    texts = [design.applied({"M": m, "P": p}) for m in (2, 4) for p in (1, 3)]
    assert len(parses) == 1
    # Every assignment of a name is set (M twice), each at its own columns, in one pass.
    assert texts[1] == "M, N = 2, 8\nP: int = 3  # é: columns are bytes\r\nNAME = 'x'; Q = M * 2\nM = 2\n"
    assert design.applied({}) == DESIGN


def test_a_form_feed_does_not_move_a_constant():
    """ast counts lines at \\n, \\r\\n and \\r only (str.splitlines also at a form feed)."""
    source = "# page\x0cbreak\nP = 4\n"
    assert points.apply_constants(source, {"P": 5}) == "# page\x0cbreak\nP = 5\n"


def test_a_design_that_does_not_parse_offers_no_constant_and_sets_none():
    design = Constants("def (")
    assert design.values() == {} and design.applied({}) == "def ("
    with pytest.raises(PointError, match="cannot be parsed"):
        design.applied({"P": 1})
    with pytest.raises(PointError, match="no module-level assignment of Z"):
        Constants(DESIGN).applied({"Z": 1})


def test_the_local_sweep_and_the_slurm_task_synthesize_a_point_alike(monkeypatch, tmp_path):
    """Both end in `synthesize_point`: the point's text, and its clock and part over the run's."""
    calls = []

    async def synthesize(manager, target, model, config, settings, source=None):
        calls.append((source, settings.clock_ns, settings.part, [r.name for r in model.regions]))
        return JobResult(PASSED, target=target.name)

    monkeypatch.setattr(synthesis, "synthesize", synthesize)
    point = Point({"P": 16}, clock_ns=3.33)
    config, synth = points_config()
    from allo_lsp.jobs import sweep

    asyncio.run(sweep.run_local("design.py", "top", DESIGN, [point], config, synth))
    spec = slurm_batch.BatchSpec("design.py", "top", DESIGN, synth={"part": "xcu250", "clock_ns": 5.0}, points=[point])
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the task sets it for its project: restored after
    asyncio.run(slurm_batch._synthesize(spec, point, str(tmp_path)))
    assert calls[0] == calls[1]
    assert "P: int = 16" in calls[0][0] and calls[0][1:3] == (3.33, "xcu250")


def points_config():
    from allo_lsp.jobs.environment import JobConfig
    from allo_lsp.jobs.synthesis import SynthConfig

    return JobConfig(), SynthConfig(part="xcu250", clock_ns=5.0)
