"""The analysis against the module Allo compiled (mlir/differential.py): what both sides know for
certain is compared, a disagreement is allo-lsp's, and what only the body tells is left alone."""

import dataclasses

from allo_lsp.analysis.problems import Severity
from allo_lsp.ide.mlir_view import ANALYSIS_CODE, SIGNATURE_CODE, compiled, signature_problems
from allo_lsp.mlir import disagreements, from_runner, parse_functions
from allo_lsp.protocol.details import (
    CompiledCall,
    CompiledFunction,
    CompiledModule,
    CompiledStream,
    MlirDetails,
)
from conftest import fixture, region_of
from test_mlir_compare import PRODUCER_CONSUMER

S4 = "!allo.stream<i32, 4>"
A, N = "memref<16x16xi32>", "memref<1xi32>"


def producer_consumer(depth=4, producers=1, **changes) -> CompiledModule:
    """`PRODUCER_CONSUMER` as a fixed build compiles it (the runner's reading of
    fixtures/producer_consumer_fixed.mlir), with `producers` PEs of `producer`."""
    stream = f"!allo.stream<i32, {depth}>"
    pes = [f"producer_{i}" for i in range(producers)]
    module = CompiledModule(
        "allo._mlir.ir",
        [CompiledFunction(p, (A, N, stream), "ss_", "__o", kernel=True) for p in pes]
        + [
            CompiledFunction("consumer_0", (A, stream), "s_", "_i", kernel=True),
            CompiledFunction("top", (A, A, N), "sss", dataflow=True),
        ],
        [CompiledStream("pipe", "top", "i32", depth)],
        [CompiledCall("top", p, ("arg:0", "arg:2", "stream:pipe")) for p in pes]
        + [CompiledCall("top", "consumer_0", ("arg:1", "stream:pipe"))],
    )
    return dataclasses.replace(module, **changes)


def found(module: CompiledModule, source: str = PRODUCER_CONSUMER, declaration_order: bool = True) -> list[str]:
    return [d.message for d in disagreements(from_runner(module), region_of(source), declaration_order)]


def test_the_runners_reading_of_the_fixture_agrees_with_the_analysis(mlir_bindings):
    """The same module read by the server's bindings (headers) and described as the runner reads
    it: the same functions, and nothing to report either way."""
    headers = parse_functions(fixture("producer_consumer_fixed.mlir"))
    ours = from_runner(producer_consumer())
    assert [(f.name, f.arg_types, f.kernel, f.dataflow) for f in ours.functions] == [
        (f.name, f.arg_types, f.kernel, f.dataflow) for f in headers.functions
    ]
    region = region_of(PRODUCER_CONSUMER)
    assert disagreements(headers, region, True) == [] and disagreements(ours, region, True) == []


def test_a_depth_the_analysis_did_not_expect_is_allo_lsps_bug():
    (message,) = found(producer_consumer(depth=8))
    assert "stream `pipe`" in message and "the analysis expects one FIFO `pipe` of !allo.stream<i32, 4>" in message
    assert "Allo compiled 1 FIFO of !allo.stream<i32, 8>" in message
    assert "bug of allo-lsp's, not of the design" in message


def test_more_pes_than_the_mapping_is_a_disagreement():
    (message,) = found(producer_consumer(producers=3))
    assert "kernel `producer`" in message and "1 PE (mapping=[1]: producer_0)" in message
    assert "3 PE functions (producer_0, producer_1, producer_2)" in message


MAPPED = PRODUCER_CONSUMER.replace("mapping=[1], args=[A, n]", "mapping=[3], args=[A, n]")


def test_a_missing_pe_only_when_every_pe_compiles_alike():
    """Allo drops a PE whose body compiles to nothing: one PE of three missing is reported only
    for a kernel whose PEs do not differ (no get_pid, no meta_if); all missing is never."""
    two = producer_consumer(producers=2)
    (message,) = found(two, MAPPED)
    assert "3 PEs (mapping=[3]: producer_0, producer_1, producer_2)" in message and "Allo compiled 2" in message
    with_pid = MAPPED.replace(
        "for i, j in allo.grid(M, N):\n            pipe.put",
        "pi = df.get_pid()\n        for i, j in allo.grid(M, N):\n            pipe.put",
        1,
    )
    assert "df.get_pid()" in with_pid
    assert found(two, with_pid) == []
    assert found(producer_consumer(producers=0), MAPPED) == []


def test_a_missing_stream_and_a_stream_array_of_another_shape():
    assert "no stream named pipe" in found(producer_consumer(streams=[]))[0]
    array = (
        PRODUCER_CONSUMER.replace("pipe: Stream[int32, 4]", "pipe: Stream[int32, 4][2]")
        .replace("pipe.put(", "pipe[0].put(")
        .replace("pipe.get()", "pipe[0].get()")
    )
    fifos = [CompiledStream(f"pipe_{i}", "top", "i32", 4) for i in range(3)]
    (message,) = found(producer_consumer(streams=fifos), array)
    assert "2 FIFOs (pipe_0, pipe_1)" in message and "Allo compiled 3 FIFOs (pipe_0, pipe_1, pipe_2)" in message
    assert found(producer_consumer(streams=fifos[:2]), array) == []


def test_kernel_arguments_count_type_and_binding():
    module = producer_consumer()
    fewer = [dataclasses.replace(f, arg_types=(A, S4)) if f.name == "producer_0" else f for f in module.functions]
    (message,) = found(dataclasses.replace(module, functions=fewer))
    assert "the arguments of kernel `producer`" in message and "2 parameters (local_A, local_n)" in message
    other = [
        dataclasses.replace(f, arg_types=(A, "memref<2xi32>", S4)) if f.name == "producer_0" else f
        for f in module.functions
    ]
    (message,) = found(dataclasses.replace(module, functions=other))
    assert (
        "parameter `local_n` of kernel `producer`" in message
        and "argument 2 of @producer_0 as memref<2xi32>" in message
    )
    swapped = [CompiledCall("top", "producer_0", ("arg:1", "arg:2", "stream:pipe")), module.calls[1]]
    (message,) = found(dataclasses.replace(module, calls=swapped))
    assert "it bound to the region's `A`" in message and "@top passing `B` to @producer_0" in message
    # In an older build's order, which argument is which is the signature check's to say.
    assert found(dataclasses.replace(module, calls=swapped), declaration_order=False) == []


def test_what_is_not_certain_is_not_compared():
    assert found(producer_consumer(depth=8, truncated=True)) == []  # a reading cut at its bounds
    # The server's own bindings read headers only: no streams, no calls to compare.
    headers = dataclasses.replace(from_runner(producer_consumer(depth=8)), streams=None, calls=None)
    assert disagreements(headers, region_of(PRODUCER_CONSUMER), True) == []
    # A compiled name two kernels could own (`a_1_0`: PE 1, 0 of `a`, or PE 0 of `a_1`).
    two = PRODUCER_CONSUMER.replace("def producer(", "def a(").replace("def consumer(", "def a_1(")
    module = producer_consumer()
    renamed = [dataclasses.replace(f, name={"producer_0": "a_1_0"}.get(f.name, f.name)) for f in module.functions]
    assert not [m for m in found(dataclasses.replace(module, functions=renamed), two) if "kernel `a`" in m]


def test_the_disagreement_is_a_warning_on_the_region_beside_the_signature_check():
    region = region_of(PRODUCER_CONSUMER)
    (problem,) = signature_problems(from_runner(producer_consumer(depth=8)), region)
    assert (problem.code, problem.severity, problem.range) == (ANALYSIS_CODE, Severity.WARNING, region.range)
    # A top function of other types: the module is not this text's, the analysis is not compared.
    other = producer_consumer(depth=8)
    other.functions[-1] = dataclasses.replace(other.functions[-1], arg_types=(A, N))
    assert [p.code for p in signature_problems(from_runner(other), region)] == [SIGNATURE_CODE]


def test_the_view_uses_the_runners_reading_and_falls_back_to_the_servers(monkeypatch):
    from allo_lsp.mlir import bindings

    region = region_of(PRODUCER_CONSUMER)
    text = fixture("producer_consumer_fixed.mlir")

    def refuse():
        raise AssertionError("the server's bindings were asked for")

    monkeypatch.setattr(bindings, "load_bindings", refuse)
    shown = compiled(text, region, MlirDetails(compiled=producer_consumer(depth=8)))
    assert shown.bindings == "allo._mlir.ir" and shown.parse_error is None
    assert [p.code for p in shown.problems] == [ANALYSIS_CODE]
    assert [f["name"] for f in shown.functions] == ["producer_0", "consumer_0", "top"]
    # Without the runner's reading: the server's, and why the runner had none when neither reads it.
    monkeypatch.setattr(bindings, "load_bindings", lambda: None)
    shown = compiled(text, region, MlirDetails(unread="this interpreter's Allo has no MLIR bindings"))
    assert "No MLIR Python bindings are importable" in shown.parse_error
    assert "The job's Allo did not read it either: this interpreter's Allo has no MLIR bindings" in shown.parse_error
