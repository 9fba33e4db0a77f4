"""What the last runs found, drawn on the region graph (ide/graph_overlay.py): the reference
executor's deadlock and FIFO figures from real runs through the job machinery, and a real Vitis
HLS report's figures."""

import asyncio

import pytest
from allo_lsp.analysis import analyze
from allo_lsp.ide.graph import region_graph
from allo_lsp.ide.graph_dot import to_dot
from allo_lsp.jobs.environment import JobConfig
from allo_lsp.jobs.manager import JobManager
from allo_lsp.jobs.service import run_target, target_of
from allo_lsp.protocol.details import SimulateDetails
from allo_lsp.protocol.messages import DEADLOCK, FAILED, PASSED
from allo_lsp.reports import parse_report
from paths import ROOT

EXAMPLES = ROOT / "examples"


def reference_run(name: str, path=None):
    """The example's (or `path`'s) region `top` run on the reference executor, as the editor's
    Simulate does."""
    path = path or EXAMPLES / name
    model = analyze(path.read_text()).model

    async def run():
        manager = JobManager()
        try:
            return await run_target(
                manager, target_of(model, str(path), "top"), model, JobConfig(timeout_s=120), "reference"
            )
        finally:
            await manager.close()

    return asyncio.run(run())


@pytest.fixture(scope="module")
def deadlocked():
    outcome = reference_run("pitfall_deadlock_stream.py")
    assert (outcome.status, outcome.cause) == (FAILED, DEADLOCK), outcome.message
    return outcome


def graph_of(name: str, outcomes=(), report=None, expand=False):
    text = (EXAMPLES / name).read_text()
    return region_graph(analyze(text).model.regions, text, "top", expand, outcomes, {"top": report} if report else None)


def test_a_deadlocked_run_marks_the_blocked_pes_and_the_full_and_empty_fifos(deadlocked):
    details = deadlocked.details
    assert isinstance(details, SimulateDetails)
    for expand in (False, True):
        graph = graph_of("pitfall_deadlock_stream.py", [deadlocked], expand=expand)
        run = graph.overlay["run"]
        assert (run["status"], run["deadlock"], run["message"]) == (FAILED, True, deadlocked.message)
        blocked = {n.name: n.overlay["run"]["blocked"] for n in graph.nodes if n.overlay and "run" in n.overlay}
        # The run's own account: each parked PE on its node, whether collapsed or expanded.
        expected = {(b.pe if expand else b.pe.rsplit("_", 1)[0]): b for b in details.blocked}
        assert set(blocked) == set(expected)
        for name, waits in blocked.items():
            (wait,) = waits
            b = expected[name]
            assert (wait["pe"], wait["op"], wait["fifo"], wait["occupancy"], wait["depth"]) == (
                b.pe, b.op, b.stream, b.occupancy, b.depth
            )  # fmt: skip
            assert wait["line"] == b.line - 1
        edges = {e.stream: e.overlay["run"] for e in graph.edges if e.kind == "stream"}
        # `tap` is full (the producer's put waits: 4 of 4), `pipe` empty (the consumer's get).
        (tap,) = edges["tap"]["blocked"]
        assert (tap["state"], tap["occupancy"], tap["depth"], tap["op"]) == ("full", 4, 4, "put")
        (pipe,) = edges["pipe"]["blocked"]
        assert (pipe["state"], pipe["occupancy"], pipe["op"]) == ("empty", 0, "get")
        # The diagnosis: a deeper `tap` completes but leaves its 16 elements unread, an imbalance:
        # no edge offers a depth.
        assert (details.fifo_sizing.kind, [u.stream for u in details.fifo_sizing.leftover]) == ("imbalance", ["tap"])
        assert edges["tap"]["sizedDepth"] is None and edges["pipe"]["sizedDepth"] is None
        stats = next(r for r in details.fifo_statistics if r.region == "top").streams
        for name in ("tap", "pipe"):
            figures = edges[name]
            assert (figures["puts"], figures["gets"], figures["maxOccupancy"], figures["depth"]) == (
                stats[name].puts, stats[name].gets, stats[name].max_occupancy, stats[name].depth
            )  # fmt: skip


# Balanced (8 puts, 8 gets on `tap`) but `tap` too shallow: the consumer waits on `ctl`, which
# the producer puts only after its 8 `tap` puts.
SHALLOW = (
    (EXAMPLES / "pitfall_deadlock_stream.py").read_text().split("@df.region()")[0]
    + """\
@df.region()
def top(A: int32[M], B: int32[M]):
    tap: Stream[int32, 2]
    ctl: Stream[int32, 2]

    @df.kernel(mapping=[1], args=[A])
    def producer(local_A: int32[M]):
        for i in range(M):
            tap.put(local_A[i])
        ctl.put(1)

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: int32[M]):
        go = ctl.get()
        for i in range(M):
            local_B[i] = tap.get() + go
"""
)


def test_a_balanced_deadlock_offers_the_depth_that_completes_on_its_edge(tmp_path):
    path = tmp_path / "shallow.py"
    path.write_text(SHALLOW)
    outcome = reference_run("", path)
    assert (outcome.status, outcome.cause, outcome.details.fifo_sizing.kind) == (FAILED, DEADLOCK, "depth")
    model = analyze(SHALLOW).model
    graph = region_graph(model.regions, SHALLOW, "top", False, [outcome], None)
    edges = {e.stream: e.overlay["run"] for e in graph.edges if e.kind == "stream"}
    assert (edges["tap"]["sizedDepth"], edges["ctl"]["sizedDepth"]) == (16, None)


def test_the_dot_output_draws_a_deadlock_in_the_error_colour(deadlocked):
    dot = to_dot(graph_of("pitfall_deadlock_stream.py", [deadlocked]))
    blocked_lines = [line for line in dot.splitlines() if "#d1242f" in line]
    assert any(line.strip().startswith('"producer" [') for line in blocked_lines)
    assert any("tap" in line and "4/4 full" in line for line in blocked_lines)


def test_a_passed_run_of_the_grid_counts_as_many_fifos_as_the_graph_has_edges():
    outcome = reference_run("systolic_gemm.py")
    assert outcome.status == PASSED, outcome.message
    stats = next(r for r in outcome.details.fifo_statistics if r.region == "top").streams
    expanded = graph_of("systolic_gemm.py", [outcome], expand=True)
    for name in ("fifo_A", "fifo_B"):
        edges = [e for e in expanded.edges if e.stream == name]
        # The executor makes a FIFO when a PE first names it: as many as the graph folded.
        assert len(edges) == stats[name].fifos
        assert all(e.overlay["run"]["puts"] == stats[name].puts and e.overlay["run"]["blocked"] == [] for e in edges)
    assert expanded.overlay["run"]["deadlock"] is False
    assert not any(n.overlay for n in expanded.nodes)  # nothing blocked


def test_a_run_of_another_region_draws_nothing(deadlocked):
    text = (EXAMPLES / "pitfall_deadlock_stream.py").read_text().replace("def top(", "def other(")
    graph = region_graph(analyze(text).model.regions, text, "other", False, [deadlocked])
    assert graph.overlay["run"] is None
    assert all(n.overlay is None for n in graph.nodes)
    assert all(e.overlay is None for e in graph.edges)


REPORT = ROOT / "tests" / "reports" / "fixtures" / "vitis_2023_1_dataflow.xml"


def test_a_synthesis_report_gives_each_kernel_and_pe_its_latency_interval_and_resources():
    report = parse_report(REPORT).to_json()
    modules = {m["name"]: m for m in report["modules"]}
    for expand, name in ((False, "producer"), (True, "producer_0")):
        graph = graph_of("producer_consumer.py", report=report, expand=expand)
        node = next(n for n in graph.nodes if n.name == name)
        figures, module = node.overlay["synthesis"], modules["producer_0"]
        assert figures["latency"] == {"best": module["latency"]["best"], "worst": module["latency"]["worst"]}
        assert figures["interval"] == {"min": module["interval"]["min"], "max": module["interval"]["max"]}
        assert figures["resources"]["LUT"] == module["resources"]["LUT"]["used"]
        assert figures["modules"] == 1
        assert graph.overlay["synthesis"]["latency"]["worst"] == report["latency"]["worst"]
        assert graph.overlay["synthesis"]["title"].startswith("⚙")
    graph = graph_of("producer_consumer.py", report=report, expand=True)
    group = next(n for n in graph.nodes if n.id == "producer")  # an expanded kernel: its PEs' worst
    assert group.overlay["synthesis"] == next(n for n in graph.nodes if n.id == "producer_0").overlay["synthesis"]
    assert next(n for n in graph.nodes if n.id == "port:A").overlay is None
