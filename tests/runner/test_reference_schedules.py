"""The cooperative scheduler: results independent of the schedule, FIFO statistics, and the
diagnosis of a deadlock (a FIFO too shallow, or a put/get imbalance)."""

import re

import numpy as np
import pytest
from allo_lsp.runner.reference import Deadlock, Unsupported, fifos, scheduler
from paths import EXAMPLES
from reference_harness import MANY_PES, load, run, shim


def line_of(path, needle):
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


SYSTOLIC = re.sub(
    r"^M, N, K = .*$", "M, N, K = 5, 3, 7", (EXAMPLES / "systolic_gemm.py").read_text(), count=1, flags=re.M
)

# Streams of several types and depths, a block stream, a stream array fed by df.scatter and
# drained by df.gather, a PE fanning out to two consumers, float32 accumulation (its rounding at
# each step is part of the result), int8 wrap and a sub-region called from a PE.
MIXED = """
@df.region()
def inner(X: int32[4], Y: int32[4]):
    s: Stream[int32, 1]

    @df.kernel(mapping=[1], args=[X])
    def send(lx: int32[4]):
        for i in range(4):
            s.put(lx[i] * 3)

    @df.kernel(mapping=[1], args=[Y])
    def recv(ly: int32[4]):
        for i in range(4):
            ly[i] = s.get() - 1


@df.region()
def top(A: float32[16], B: float32[4], C: int8[16], D: int32[4], E: int16[2, 4]):
    f: Stream[float32, 2]
    g: Stream[int8, 3]
    blocks: Stream[int16[4], 2]
    lanes: Stream[int16[4], 1][2]

    @df.kernel(mapping=[1], args=[A, C])
    def source(la: float32[16], lc: int8[16]):
        for i in range(16):
            f.put(la[i] * 1.1)
            g.put(lc[i] * 7)

    @df.kernel(mapping=[1], args=[B])
    def accumulate(lb: float32[4]):
        acc: float32 = 0.0
        for i in range(16):
            acc += f.get() * 0.3
            lb[i % 4] = acc

    @df.kernel(mapping=[1], args=[C, D])
    def wrap(lc: int8[16], ld: int32[4]):
        for i in range(16):
            lc[i] = g.get()
        inner(ld, ld)

    @df.kernel(mapping=[1], args=[E])
    def scatter_rows(le: int16[2, 4]):
        buf: int16[2, 4] = 0
        for i, j in allo.grid(2, 4):
            buf[i, j] = i * 10 + j
        df.scatter(buf, lanes[:])
        blocks.put(buf[0])

    @df.kernel(mapping=[1], args=[E])
    def gather_rows(le: int16[2, 4]):
        got = df.gather(lanes[:])
        row = blocks.get()
        for i, j in allo.grid(2, 4):
            le[i, j] = got[i, j] + row[j]
"""


def _run_systolic(tmp_path):
    rng = np.random.default_rng(3)
    A, B = rng.integers(-100, 100, (5, 7)).astype(np.int32), rng.integers(-100, 100, (7, 3)).astype(np.int32)
    C = np.zeros((5, 3), np.int32)
    with shim():
        module, _ = load(tmp_path, SYSTOLIC)
        module.df.build(module.top, target="simulator")(A, B, C)
    np.testing.assert_array_equal(C, A @ B)
    return [C]


def _run_mixed(tmp_path):
    rng = np.random.default_rng(4)
    arrays = [
        rng.standard_normal(16).astype(np.float32),
        np.zeros(4, np.float32),
        rng.integers(-128, 128, 16).astype(np.int8),
        np.arange(4, dtype=np.int32),
        np.zeros((2, 4), np.int16),
    ]
    run(tmp_path, MIXED, *arrays)
    return arrays


@pytest.mark.parametrize("design", [_run_systolic, _run_mixed])
def test_outputs_are_the_same_bits_under_both_schedules(tmp_path, design):
    """Dataflow over blocking FIFOs is determinate: round-robin (every PE gives way after each
    stream operation) and run-until-blocked give every output bit for bit."""
    results, waits = {}, {}
    for name in scheduler.SCHEDULES:
        (tmp_path / name).mkdir()
        with scheduler.schedule(name):
            results[name] = [a.tobytes() for a in design(tmp_path / name)]
        waits[name] = {s: v["waits"] for s, v in fifos.recorded()[-1]["streams"].items()}
    assert results[scheduler.ROUND_ROBIN] == results[scheduler.RUN_UNTIL_BLOCKED]
    # The schedules really interleave the PEs differently: PEs park on other FIFOs, other times.
    assert waits[scheduler.ROUND_ROBIN] != waits[scheduler.RUN_UNTIL_BLOCKED]


def test_every_run_records_fifo_statistics(tmp_path):
    source = """
    @df.region()
    def top(A: int32[64], B: int32[64]):
        pipe: Stream[int32, 4]

        @df.kernel(mapping=[1], args=[A])
        def producer(local_A: int32[64]):
            for i in range(64):
                pipe.put(local_A[i])

        @df.kernel(mapping=[1], args=[B])
        def consumer(local_B: int32[64]):
            for i in range(64):
                local_B[i] = pipe.get()
    """
    A, B = np.arange(64, dtype=np.int32), np.zeros(64, np.int32)
    path = run(tmp_path, source, A, B)
    np.testing.assert_array_equal(A, B)
    last = fifos.recorded()[-1]
    assert last["region"] == "top"
    stats = last["streams"]["pipe"]
    assert (stats["puts"], stats["gets"], stats["depth"], stats["max_occupancy"], stats["fifos"]) == (64, 64, 4, 4, 1)
    assert stats["line"] == line_of(path, "pipe: Stream")
    longest = stats["blocked_longest"]
    assert longest["pe"] in ("producer_0", "consumer_0") and longest["waits"] > 0 and longest["seconds"] >= 0


SHALLOW = """
@df.region()
def top(A: int32[8], B: int32[8]):
    tap: Stream[int32, 2]
    ctl: Stream[int32, 2]

    @df.kernel(mapping=[1], args=[A])
    def producer(local_A: int32[8]):
        for i in range(8):
            tap.put(local_A[i])
        ctl.put(1)

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: int32[8]):
        go = ctl.get()
        for i in range(8):
            local_B[i] = tap.get() + go
"""


def test_a_deadlock_from_a_shallow_fifo_gives_the_smallest_depth_that_completes(tmp_path):
    A, B = np.arange(8, dtype=np.int32), np.zeros(8, np.int32)
    with pytest.raises(Deadlock) as caught:
        run(tmp_path, SHALLOW, A, B)
    path = sorted(tmp_path.glob("design_*.py"))[-1]
    sizing = caught.value.sizing
    assert sizing["kind"] == "depth"
    # `tap` needs 8 (7 deadlocks: the 8th put waits while the consumer waits on `ctl`); `ctl`
    # completes at its declared depth, so it is not named.
    assert sizing["streams"] == [
        {"stream": "tap", "file": str(path), "line": line_of(path, "tap: Stream"), "declared": 2, "depth": 8}
    ]
    assert sizing["message"] == "completes with depth of `tap` >= 8 (declared 2)"
    assert "Larger FIFOs: completes with depth of `tap` >= 8 (declared 2)" in str(caught.value)
    assert [(b.pe, b.op, b.stream) for b in caught.value.blocked] == [
        ("consumer_0", "get", "ctl"),
        ("producer_0", "put", "tap"),
    ]
    assert B.tolist() == [0] * 8  # the user's arrays are as the failed run left them; re-runs used copies
    fixed = SHALLOW.replace("tap: Stream[int32, 2]", "tap: Stream[int32, 8]")
    run(tmp_path, fixed, A, B)
    assert B.tolist() == (A + 1).tolist()


def test_a_deadlock_no_depth_avoids_is_a_put_get_imbalance_with_counts_per_pe(tmp_path):
    source = """
    @df.region()
    def top(A: int32[16], B: int32[16]):
        tap: Stream[int32, 4]
        ctl: Stream[int32, 4]

        @df.kernel(mapping=[1], args=[A])
        def producer(local_A: int32[16]):
            for i in range(16):
                tap.put(local_A[i])

        @df.kernel(mapping=[1], args=[B])
        def consumer(local_B: int32[16]):
            go = ctl.get()
            for i in range(16):
                local_B[i] = tap.get() + go
    """
    with pytest.raises(Deadlock) as caught:
        run(tmp_path, source, np.zeros(16, np.int32), np.zeros(16, np.int32))
    sizing = caught.value.sizing
    assert sizing["kind"] == "imbalance" and sizing["bound"] == fifos.BOUND
    assert sizing["message"] == (
        f"no depth up to {fifos.BOUND} avoids it: a put/get imbalance "
        "(ctl: consumer_0 gets 0 | tap: producer_0 puts 16; consumer_0 gets 0)"
    )
    assert {(c["stream"], c["pe"], c["puts"], c["gets"]) for c in sizing["counts"]} == {
        ("ctl", "consumer_0", 0, 0),
        ("tap", "consumer_0", 0, 0),
        ("tap", "producer_0", 16, 0),
    }


def test_a_design_that_only_polls_ends_as_a_deadlock(tmp_path, monkeypatch):
    monkeypatch.setattr(scheduler, "POLL_STALL_S", 0.05)
    source = """
    @df.region()
    def top(A: int32[1]):
        never: Stream[int32, 2]

        @df.kernel(mapping=[1], args=[A])
        def poller(local_A: int32[1]):
            got = False
            while not got:
                v, got = never.try_get()
            local_A[0] = v
    """
    with pytest.raises(Deadlock, match="every running PE polls") as caught:
        run(tmp_path, source, np.zeros(1, np.int32))
    path = sorted(tmp_path.glob("design_*.py"))[-1]
    (blocked,) = caught.value.blocked
    assert (blocked.pe, blocked.op, blocked.line) == ("poller_0", "poll", line_of(path, "never.try_get()"))


def test_a_poller_gives_way_to_the_pe_it_waits_for(tmp_path):
    source = """
    @df.region()
    def top(A: int32[4], B: int32[4]):
        pipe: Stream[int32, 1]

        @df.kernel(mapping=[1], args=[A])
        def producer(local_A: int32[4]):
            for i in range(4):
                while not pipe.try_put(local_A[i]):
                    pass

        @df.kernel(mapping=[1], args=[B])
        def consumer(local_B: int32[4]):
            for i in range(4):
                while pipe.empty():
                    pass
                local_B[i] = pipe.get()
    """
    A, B = np.array([5, 6, 7, 8], np.int32), np.zeros(4, np.int32)
    run(tmp_path, source, A, B)
    assert B.tolist() == [5, 6, 7, 8]


@pytest.mark.parametrize(
    ("body", "what"),
    [
        ("helper(pipe)", "passing stream 'pipe' to helper()"),
        (
            # a nested function: a comprehension or a lambda does not build in Allo (Unsupported node)
            "def two():\n                return pipe.get()\n            vals = two()",
            "a stream operation inside a lambda, comprehension or nested function",
        ),
    ],
)
def test_a_stream_operation_that_cannot_suspend_is_refused_by_name(tmp_path, body, what):
    source = f"""
    def helper(s):
        return s.get()

    @df.region()
    def top(A: int32[2]):
        pipe: Stream[int32, 2]

        @df.kernel(mapping=[1], args=[A])
        def k(local_A: int32[2]):
            pipe.put(1)
            pipe.put(2)
            {body}
    """
    with pytest.raises(Unsupported, match=re.escape(what)):
        run(tmp_path, source, np.zeros(2, np.int32))


def test_many_pes_run_without_threads(tmp_path):
    """1,024 PEs over 4,096 FIFOs (bench/reference.py measures their memory)."""
    import threading

    before = threading.active_count()
    A, B = np.arange(1024, dtype=np.int32).reshape(32, 32), np.zeros((32, 32), np.int32)
    run(tmp_path, MANY_PES, A, B)
    assert threading.active_count() == before
    np.testing.assert_array_equal(B, np.roll(A, 1, axis=1) + 6)
    assert sum(v["fifos"] for v in fifos.recorded()[-1]["streams"].values()) == 4096


def test_the_job_result_carries_the_statistics_and_the_diagnosis(tmp_path):
    """`allo-lsp run --format json`: what the editor's hover and quick fix read."""
    import json
    import os
    import subprocess
    import sys

    from reference_harness import HEADER

    path = tmp_path / "design.py"
    path.write_text(
        HEADER + SHALLOW + SHALLOW.replace("def top(", "def fixed(").replace("Stream[int32, 2]", "Stream[int32, 8]")
    )
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LLVM_BUILD_DIR")}

    def job(target):
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "allo_lsp",
                "run",
                f"{path}::{target}",
                "--backend",
                "reference",
                "--format",
                "json",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        return json.loads(out.stdout)

    failed = job("top")
    assert (failed["status"], failed["cause"]) == ("failed", "deadlock")
    assert failed["details"]["fifo_sizing"]["streams"] == [
        {"stream": "tap", "file": str(path), "line": line_of(path, "tap: Stream[int32, 2]"), "declared": 2, "depth": 8}
    ]
    assert "completes with depth of `tap` >= 8 (declared 2)" in failed["message"]
    passed = job("fixed")
    assert passed["status"] == "passed"
    (run_stats,) = passed["details"]["fifo_statistics"]
    assert run_stats["region"] == "fixed"
    assert {k: run_stats["streams"]["tap"][k] for k in ("puts", "gets", "depth", "max_occupancy")} == {
        "puts": 8,
        "gets": 8,
        "depth": 8,
        "max_occupancy": 8,
    }


def test_a_region_without_pes_called_from_a_pe_returns_at_once(tmp_path):
    source = """
    @df.region()
    def empty(X: int32[2]):
        pass

    @df.region()
    def top(A: int32[2]):
        @df.kernel(mapping=[1], args=[A])
        def k(local_A: int32[2]):
            empty(local_A)
            local_A[0] = 7
    """
    A = np.zeros(2, np.int32)
    run(tmp_path, source, A)
    assert A.tolist() == [7, 0]


# A stream put twice per iteration and got once (ADF026): with `s1` 4 deep the producer blocks
# on its 9th put after the consumer ended; with it 8 deep the run completes, 8 elements unread.
PUT_TWICE = """
@df.region()
def top(A: int32[8], B: int32[8]):
    s1: Stream[int32, 4]

    @df.kernel(mapping=[1], args=[A])
    def producer(local_A: int32[8]):
        for i in range(8):
            s1.put(local_A[i])
            s1.put(local_A[i] + 1)

    @df.kernel(mapping=[1], args=[B])
    def consumer(local_B: int32[8]):
        for i in range(8):
            local_B[i] = s1.get()
"""


def test_a_deadlock_that_larger_fifos_turn_into_unread_elements_is_an_imbalance_not_a_depth(tmp_path):
    with pytest.raises(Deadlock) as caught:
        run(tmp_path, PUT_TWICE, np.arange(8, dtype=np.int32), np.zeros(8, np.int32))
    path = sorted(tmp_path.glob("design_*.py"))[-1]
    sizing = caught.value.sizing
    assert sizing["kind"] == "imbalance" and "streams" not in sizing
    assert sizing["completes_at"] == 8
    assert sizing["leftover"] == [
        {"stream": "s1", "file": str(path), "line": line_of(path, "s1: Stream"), "elements": 8}
    ]
    assert sizing["message"] == (
        "with every FIFO 8 deep the run completes but leaves 8 elements unread in `s1`: a put/get "
        "imbalance, not a depth problem (s1: producer_0 puts 16; consumer_0 gets 8)"
    )
    assert {(c["stream"], c["pe"], c["puts"], c["gets"]) for c in sizing["counts"]} == {
        ("s1", "producer_0", 16, 0),
        ("s1", "consumer_0", 0, 8),
    }


def test_the_deadlock_example_is_an_imbalance_its_tap_never_read(tmp_path):
    """examples/pitfall_deadlock_stream.py: `tap` 16 deep completes, its 16 elements never read."""
    source = (EXAMPLES / "pitfall_deadlock_stream.py").read_text().split("import numpy as np\n", 1)[1]
    with pytest.raises(Deadlock) as caught:
        run(tmp_path, source, np.arange(16, dtype=np.int32), np.zeros(16, np.int32))
    sizing = caught.value.sizing
    assert sizing["kind"] == "imbalance"
    assert [(s["stream"], s["elements"]) for s in sizing["leftover"]] == [("tap", 16)]
    assert "completes with depth" not in str(caught.value)
    assert "leaves 16 elements unread in `tap`" in str(caught.value)


def test_a_run_that_completes_records_the_elements_it_left_unread(tmp_path):
    """No deadlock at all (`s1` deep enough): the run completes and its statistics say what it
    left in each FIFO (Vitis C simulation's "leftover data"); a balanced stream leaves none."""
    source = PUT_TWICE.replace("s1: Stream[int32, 4]", "s1: Stream[int32, 16]\n    ok: Stream[int32, 2]")
    source = source.replace("s1.put(local_A[i] + 1)", "s1.put(local_A[i] + 1)\n            ok.put(1)")
    source = source.replace("local_B[i] = s1.get()", "local_B[i] = s1.get() + ok.get()")
    run(tmp_path, source, np.arange(8, dtype=np.int32), np.zeros(8, np.int32))
    streams = fifos.recorded()[-1]["streams"]
    assert (streams["s1"]["leftover"], streams["ok"]["leftover"]) == (8, 0)


def test_a_stream_array_counts_what_each_of_its_fifos_left(tmp_path):
    source = """
    @df.region()
    def top(A: int32[4], B: int32[4]):
        pipe: Stream[int32, 4][2]

        @df.kernel(mapping=[2], args=[A])
        def producer(local_A: int32[4]):
            i = df.get_pid()
            pipe[i].put(local_A[i])
            pipe[i].put(local_A[i])
            pipe[i].put(local_A[i])

        @df.kernel(mapping=[2], args=[B])
        def consumer(local_B: int32[4]):
            i = df.get_pid()
            local_B[i] = pipe[i].get()
    """
    run(tmp_path, source, np.arange(4, dtype=np.int32), np.zeros(4, np.int32))
    assert fifos.recorded()[-1]["streams"]["pipe"]["leftover"] == 4


def test_a_shallow_fifo_fixed_completes_with_every_fifo_empty(tmp_path):
    A, B = np.arange(8, dtype=np.int32), np.zeros(8, np.int32)
    run(tmp_path, SHALLOW.replace("tap: Stream[int32, 2]", "tap: Stream[int32, 8]"), A, B)
    assert {name: s["leftover"] for name, s in fifos.recorded()[-1]["streams"].items()} == {"tap": 0, "ctl": 0}


def test_the_cli_prints_the_backend_and_what_a_run_left_unread(tmp_path):
    """`allo-lsp run FILE::top --backend reference`: the text names the backend, the elements
    left unread after a run that passed, and, after a deadlock of the same imbalance, no depth."""
    import os
    import subprocess
    import sys

    from reference_harness import HEADER

    path = tmp_path / "design.py"
    deep = PUT_TWICE.replace("Stream[int32, 4]", "Stream[int32, 16]").replace("def top(", "def deep(")
    path.write_text(HEADER + PUT_TWICE + deep)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LLVM_BUILD_DIR")}

    def job(target):
        command = [sys.executable, "-m", "allo_lsp", "run", f"{path}::{target}", "--backend", "reference"]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, env=env).stdout

    passed = job("deep")
    # The message says it too (issue 27.6), the report line under it names the line and the counts.
    assert passed.startswith("passed: deep simulated; left 8 elements unread in `s1`")
    assert "\n  backend reference, " in passed
    assert (
        f"  warning: 8 elements left unread in `s1` (line {line_of(path, 's1: Stream[int32, 16]')}) when the run "
        "completed (16 puts, 8 gets): a put/get imbalance"
    ) in passed
    failed = job("top")
    assert failed.startswith("failed [deadlock]") and "\n  backend reference, " in failed
    assert "leaves 8 elements unread in `s1`: a put/get imbalance, not a depth problem" in failed
    assert "completes with depth" not in failed
