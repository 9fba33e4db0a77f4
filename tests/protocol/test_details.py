"""A result's details are typed per job kind and keep their fields through the one JSON encoding:
the runner's result pipe, and `allo-lsp run`/`synth --format json` (written through finite_json)."""

import json
from dataclasses import fields, is_dataclass

import pytest
from allo_lsp.finite_json import dumps
from allo_lsp.protocol.details import (
    Blocked,
    CompiledCall,
    CompiledFunction,
    CompiledModule,
    CompiledStream,
    Details,
    Differential,
    FifoRun,
    FifoSizing,
    Leftover,
    LongestBlock,
    MlirDetails,
    ParameterCase,
    PutsAndGets,
    RunDetails,
    SimulateDetails,
    SizedStream,
    StreamStatistics,
    SynthesisDetails,
    TracedValues,
    decode,
    details_as,
    encode,
)
from allo_lsp.protocol.messages import DETAILS, MLIR, PASSED, PROBE, RUN, SIMULATE, SYNTHESIZE, JobResult
from allo_lsp.protocol.pipes import read_result, result_line

COMMON = {
    "log": "ran\n",
    "job_dir": "/tmp/allo-lsp-job-1",
    "artifact_text": "module {}",
    "assertion": "assert 1 == 2",
    "traceback": "Traceback ...",
}


def simulated(cls=SimulateDetails, **more):
    stats = StreamStatistics(
        line=5,
        depth=2,
        fifos=4,
        puts=8,
        gets=8,
        max_occupancy=2,
        waits=3,
        blocked_longest=LongestBlock("producer_0", "put", "tap[1]", 3, 0.25),
        leftover=1,
    )
    sizing = FifoSizing(
        "depth",
        "completes with depth of `tap` >= 8",
        [SizedStream("tap", "/w/d.py", 5, 2, 8)],
        bound=64,
        counts=[PutsAndGets("tap", "producer_0", 8, 7)],
        largest_depth=64,
        completes_at=16,
        leftover=[Leftover("tap", "/w/d.py", 5, 1)],
    )
    return cls(
        **COMMON,
        differential=Differential({"B": 0.5}, "Unsupported: ..."),
        fifo_statistics=[FifoRun("top", {"tap": stats}, [TracedValues("tap[1]", "producer_0", "put", 8, [1, 2])])],
        blocked=[Blocked("consumer_0", "tap", "get", 17, 0, 2)],
        fifo_sizing=sizing,
        **more,
    )


def mlir_read():
    compiled = CompiledModule(
        "allo._mlir.ir",
        [CompiledFunction("producer_0", ("memref<4xi32>", "!allo.stream<i32, 4>"), "s_", "_o", True, False, True)],
        [CompiledStream("pipe", "top", "i32", 4)],
        [CompiledCall("top", "producer_0", ("arg:0", "stream:pipe"))],
        truncated=True,
    )
    return MlirDetails(**COMMON, compiled=compiled, unread="allo._mlir.ir did not read the module: ...")


# Every kind's details with every field set.
FULL = {
    SIMULATE: simulated(),
    RUN: simulated(
        RunDetails, parameters=[ParameterCase("small-2", "failed", "assertion", "4 x 3 fails")], emulated=["aie"]
    ),
    SYNTHESIZE: SynthesisDetails(
        **COMMON,
        project="/tmp/p/project",
        report={"latency": {"worst": 1208}},
        report_markdown="| figure |",
        errors=["ERROR: [HLS 207-1] ..."],
    ),
    MLIR: mlir_read(),
    PROBE: mlir_read(),
}


def unset(value, path="details") -> list[str]:
    """The fields left at None or empty anywhere in `value`."""
    if is_dataclass(value):
        return [p for f in fields(value) for p in unset(getattr(value, f.name), f"{path}.{f.name}")]
    if value is None or value in ([], {}):
        return [path]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in unset(v, f"{path}[{i}]")]
    if isinstance(value, dict) and all(is_dataclass(v) for v in value.values()):
        return [p for k, v in value.items() for p in unset(v, f"{path}[{k!r}]")]
    return []


def test_the_examples_cover_every_kind_and_every_field():
    assert set(FULL) == set(DETAILS)
    for kind, details in FULL.items():
        assert type(details) is DETAILS[kind]
        assert unset(details) == [], kind


@pytest.mark.parametrize("kind", sorted(FULL))
def test_every_kinds_details_round_trip_through_the_result_pipe(kind):
    sent = JobResult(PASSED, message="ok", target="top", details=FULL[kind])
    received = read_result(b"noise\n" + result_line("n0nce", sent), "n0nce", kind)
    assert received == sent
    assert type(received.details) is DETAILS[kind]


@pytest.mark.parametrize("kind", sorted(FULL))
def test_every_kinds_details_round_trip_through_the_json_outputs(kind):
    printed = json.loads(dumps(JobResult(PASSED, details=FULL[kind]).to_json(), indent=2))
    assert decode(printed["details"], DETAILS[kind]) == FULL[kind]
    # Read back without its kind (details written by hand): the class that has every key.
    assert decode(printed["details"]) == FULL[kind]


def test_the_json_keys_are_the_ones_the_outputs_had():
    encoded = encode(FULL[RUN])
    assert set(encoded) == {
        "log",
        "job_dir",
        "artifact_text",
        "assertion",
        "traceback",
        "differential",
        "fifo_statistics",
        "blocked",
        "fifo_sizing",
        "parameters",
        "emulated",
    }
    assert encoded["fifo_statistics"][0]["streams"]["tap"]["blocked_longest"]["fifo"] == "tap[1]"
    assert encoded["fifo_sizing"]["streams"] == [
        {"stream": "tap", "file": "/w/d.py", "line": 5, "declared": 2, "depth": 8}
    ]
    assert set(encode(FULL[SYNTHESIZE])) - set(COMMON) == {"project", "report", "report_markdown", "errors"}


def test_a_result_says_only_what_its_job_found():
    assert JobResult(PASSED).to_json()["details"] == {}
    assert encode(SimulateDetails(differential=Differential({"B": 0.0}))) == {
        "differential": {"max_abs_diff": {"B": 0.0}}
    }
    assert encode(SimulateDetails(blocked=[Blocked("pe", "s", "put", None, 2, 2)])) == {
        "blocked": [{"pe": "pe", "stream": "s", "op": "put", "occupancy": 2, "depth": 2}]
    }


def test_details_of_the_wrong_shape_are_no_result():
    line = result_line("n", JobResult(PASSED)).replace(b'"details": {}', b'"details": {"blocked": "everything"}')
    assert read_result(line, "n", SIMULATE) is None
    assert read_result(line, "n", MLIR) is not None  # not a field of an mlir job's: ignored
    line = result_line("n", JobResult(PASSED)).replace(b'"details": {}', b'"details": {"blocked": [{"line": "7"}]}')
    assert read_result(line, "n", SIMULATE) is None


def test_a_result_made_before_its_kind_was_known_keeps_what_it_says():
    timeout = JobResult("timeout", "timeout", details=Details(log="last lines"))
    assert type(timeout.of_kind(SYNTHESIZE).details) is SynthesisDetails
    assert timeout.details.log == "last lines" and timeout.details.report is None
    assert details_as(Details(log="x"), SimulateDetails).blocked == []
    run = FULL[RUN]
    assert details_as(run, SimulateDetails) is run


def test_details_written_as_a_dict_are_typed():
    outcome = JobResult("failed", "deadlock", details={"blocked": [{"pe": "c", "line": None}], "log": "..."})
    assert outcome.details == SimulateDetails(log="...", blocked=[Blocked(pe="c")])
    # The reading by key of the untyped dict, kept for lsp/: the field's JSON.
    assert outcome.details["blocked"] == [{"pe": "c", "stream": "", "op": "", "occupancy": 0, "depth": 0}]
    assert outcome.details.get("fifo_sizing", "none") == "none"
    with pytest.raises(KeyError):
        outcome.details["report"]
