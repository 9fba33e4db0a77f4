"""The executor's trace (issue 30): the first values each PE put to and got from each FIFO, kept
only when the run asks (`scheduler.tracing`, the job's `trace` option), bounded per FIFO and PE
and in the number of them, and results unchanged by it."""

import json
import os
import re
import subprocess
import sys

import numpy as np
from allo_lsp.runner.reference import fifos, scheduler
from paths import EXAMPLES
from reference_harness import HEADER, MANY_PES, run

PIPE = """
@df.region()
def top(A: int32[64], B: int32[64]):
    pipe: Stream[int32, 4]

    @df.kernel(mapping=[1], args=[A])
    def producer(local_A: int32[64]):
        for i in range(64):
            pipe.put(local_A[i] * 2)

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: int32[64]):
        for i in range(64):
            local_B[i] = pipe.get() + 1
"""


def traced(run_stats: dict) -> dict:
    return {(t["fifo"], t["pe"], t["op"]): (t["count"], t["values"]) for t in run_stats["trace"]}


def test_no_trace_unless_asked(tmp_path):
    A, B = np.arange(64, dtype=np.int32), np.zeros(64, np.int32)
    run(tmp_path, PIPE, A, B)
    assert "trace" not in fifos.recorded()[-1]


def test_the_first_values_per_pe_and_fifo(tmp_path):
    A, B = np.arange(64, dtype=np.int32), np.zeros(64, np.int32)
    with scheduler.tracing(16):
        run(tmp_path, PIPE, A, B)
    np.testing.assert_array_equal(B, 2 * A + 1)
    first = [2 * i for i in range(16)]
    assert traced(fifos.recorded()[-1]) == {
        ("pipe", "producer_0", "put"): (64, first),
        ("pipe", "consumer_0", "get"): (64, first),
    }
    assert all(type(v) is int for v in first)  # plain numbers, as JSON writes them
    with scheduler.tracing(100):  # at most TRACE_LIMIT, whatever is asked
        run(tmp_path, PIPE, A, B)
    assert {len(v) for _, v in traced(fifos.recorded()[-1]).values()} == {scheduler.TRACE_LIMIT}


def test_a_grid_traces_each_element_of_its_stream_arrays(tmp_path):
    design = re.sub(r"^M, N, K = .*$", "M, N, K = 2, 2, 3", (EXAMPLES / "systolic_gemm.py").read_text(), flags=re.M)
    design = design.split("\ndef test_systolic_gemm")[0]
    A = np.arange(6, dtype=np.int32).reshape(2, 3)
    B = np.arange(6, dtype=np.int32).reshape(3, 2) + 1
    C = np.zeros((2, 2), np.int32)
    with scheduler.tracing(2):
        run(tmp_path, design.split("import numpy as np\n", 1)[1], A, B, C)
    np.testing.assert_array_equal(C, A @ B)
    trace = traced(fifos.recorded()[-1])
    # gemm_1_0 loads row 0 of A into fifo_A[1, 1]; gemm_1_1 gets it and forwards it to fifo_A[1, 2].
    assert trace[("fifo_A[1, 1]", "gemm_1_0", "put")] == (3, [0, 1])
    assert trace[("fifo_A[1, 1]", "gemm_1_1", "get")] == (3, [0, 1])
    assert trace[("fifo_A[1, 2]", "gemm_1_1", "put")] == (3, [0, 1])
    assert trace[("fifo_B[2, 1]", "gemm_1_1", "put")] == (3, [1, 3])


def test_bounded_in_the_number_of_fifos_too(tmp_path):
    # 1,024 PEs each putting to 4 FIFOs and getting from 4: 8,192 (FIFO, PE, op), 1,024 kept.
    A, B = np.arange(1024, dtype=np.int32).reshape(32, 32), np.zeros((32, 32), np.int32)
    with scheduler.tracing(16):
        run(tmp_path, MANY_PES, A, B)
    np.testing.assert_array_equal(B, np.roll(A, 1, axis=1) + 6)
    trace = fifos.recorded()[-1]["trace"]
    assert len(trace) == scheduler.TRACE_KEYS == 1024 and all(len(t["values"]) <= 16 for t in trace)
    assert len(json.dumps(trace)) < 200_000


BLOCKS = """
@df.region()
def top(A: int32[4, 16], B: int32[4, 16]):
    small: Stream[int32[2], 2]
    large: Stream[int32[16], 2]

    @df.kernel(mapping=[1], args=[A])
    def producer(local_A: int32[4, 16]):
        for i in range(4):
            pair: int32[2] = 0
            pair[0] = local_A[i, 0]
            pair[1] = local_A[i, 1]
            small.put(pair)
            row: int32[16] = 0
            for k in range(16):
                row[k] = local_A[i, k]
            large.put(row)

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: int32[4, 16]):
        for i in range(4):
            pair: int32[2] = small.get()
            row: int32[16] = large.get()
            for k in range(16):
                local_B[i, k] = row[k] + pair[0]
"""


def test_a_block_value_is_a_short_list_or_its_bounded_text(tmp_path):
    A, B = np.arange(64, dtype=np.int32).reshape(4, 16), np.zeros((4, 16), np.int32)
    with scheduler.tracing(2):
        run(tmp_path, BLOCKS, A, B)
    trace = traced(fifos.recorded()[-1])
    assert trace[("small", "producer_0", "put")] == (4, [[0, 1], [16, 17]])
    count, (first, _) = trace[("large", "consumer_0", "get")]
    assert count == 4 and first == "[0, 1, 2, 3, 4, 5, 6, 7, ... (16 values)]"


def test_only_the_newest_run_keeps_its_trace(tmp_path):
    A, B = np.arange(64, dtype=np.int32), np.zeros(64, np.int32)
    with scheduler.tracing(4):
        run(tmp_path, PIPE, A, B)
        run(tmp_path, PIPE, A, B)
    older, newest = fifos.recorded()[-2:]
    assert "trace" not in older and len(newest["trace"]) == 2


def test_a_job_asks_with_its_trace_option(tmp_path):
    """The runner's job (`run_job`, in its own process as the server starts it): `options["trace"]`."""
    path = tmp_path / "design.py"
    path.write_text(HEADER + PIPE)
    code = (
        "import json, sys\n"
        "from allo_lsp.runner.job import run_job\n"
        "from allo_lsp.protocol.messages import JobRequest, ArgSpec\n"
        "args = [ArgSpec('A', 'int32', [64], 'in'), ArgSpec('B', 'int32', [64], 'out')]\n"
        f"request = JobRequest('simulate', {str(path)!r}, 'top', 'reference', args=args, options=json.loads(sys.argv[1]))\n"
        "result = run_job(request)\n"
        "sys.__stdout__.write(json.dumps(result.to_json()))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LLVM_BUILD_DIR")}

    def job(options: dict) -> dict:
        out = subprocess.run(
            [sys.executable, "-c", code, json.dumps(options)], capture_output=True, text=True, env=env, timeout=120
        )
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout.strip().splitlines()[-1])

    asked = job({"trace": 3})
    assert asked["status"] == "passed", asked
    (run_stats,) = asked["details"]["fifo_statistics"]
    assert {(t["pe"], t["op"]): len(t["values"]) for t in run_stats["trace"]} == {
        ("producer_0", "put"): 3,
        ("consumer_0", "get"): 3,
    }
    (run_stats,) = job({})["details"]["fifo_statistics"]
    assert "trace" not in run_stats


def test_allo_lsp_run_trace_agrees_with_the_active_pe_views(tmp_path):
    """`allo-lsp run --trace` (a real subprocess) on the systolic example: each PE's traced puts
    and gets are on the elements its active-PE view names, and what it put is what the PE at the
    other end got (the static folding and the run say the same)."""
    from allo_lsp.analysis import analyze
    from allo_lsp.ide.active_pe import active_pe

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LLVM_BUILD_DIR")}
    command = [sys.executable, "-m", "allo_lsp", "run", f"{EXAMPLES / 'systolic_gemm.py'}::top"]
    out = subprocess.run(
        [*command, "--backend", "reference", "--format", "json", "--trace", "4"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    result = json.loads(out.stdout)
    assert result["status"] == "passed", result
    trace = {(t["fifo"], t["pe"], t["op"]): t for t in result["details"]["fifo_statistics"][0]["trace"]}
    assert len(trace) == 80 and all(t["count"] == 4 and len(t["values"]) == 4 for t in trace.values())
    text = (EXAMPLES / "systolic_gemm.py").read_text()
    regions = analyze(text).model.regions
    seen = set()
    for pe in (f"gemm_{i}_{j}" for i in range(6) for j in range(6)):
        for site in active_pe(regions, text, "top", "gemm", pe).streams:
            (peer,) = site.peers
            mine = trace[(site.element, pe, site.op)]
            theirs = trace[(site.element, peer, "get" if site.op == "put" else "put")]
            assert mine["values"] == theirs["values"]
            seen.add((site.element, pe, site.op))
    assert seen == set(trace)  # every traced put and get is a site of some PE's view


def test_try_put_and_try_get_are_traced_when_they_succeed(tmp_path):
    source = """
    @df.region()
    def top(A: int32[4], B: int32[4]):
        pipe: Stream[int32, 1]

        @df.kernel(mapping=[1], args=[A])
        def producer(local_A: int32[4]):
            for i in range(4):
                while not pipe.try_put(local_A[i] + 1):
                    pass

        @df.kernel(mapping=[1], args=[B])
        def consumer(local_B: int32[4]):
            for i in range(4):
                got: bool = False
                v: int32 = 0
                while not got:
                    v, got = pipe.try_get()
                local_B[i] = v
    """
    A, B = np.array([5, 6, 7, 8], np.int32), np.zeros(4, np.int32)
    with scheduler.tracing(16):
        run(tmp_path, source, A, B)
    assert B.tolist() == [6, 7, 8, 9]
    # Polls that failed (the FIFO full, or empty) put and got nothing.
    assert traced(fifos.recorded()[-1]) == {
        ("pipe", "producer_0", "put"): (4, [6, 7, 8, 9]),
        ("pipe", "consumer_0", "get"): (4, [6, 7, 8, 9]),
    }
