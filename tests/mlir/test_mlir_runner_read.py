"""The runner's reading of a compiled module (runner/mlir_module.py), in an interpreter whose Allo
is the stand-in: its `allo._mlir` stands in for Allo's bindings (tests/standin/README.md)."""

import json
import os
import subprocess
import sys

import pytest
from allo_lsp.protocol.details import CompiledModule, MlirDetails, from_json
from allo_lsp.runner.mlir_module import stream_type
from conftest import FIXTURES
from paths import EXAMPLES, STANDIN

READ = """
import json, sys
from allo_lsp.protocol.details import to_json
from allo_lsp.runner.mlir_module import read
details = read(open(sys.argv[1]).read())
print(json.dumps(to_json(details)))
"""


def read_in_the_standin(path, **env) -> MlirDetails:
    out = subprocess.run(
        [sys.executable, "-c", READ, str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={**os.environ, "PYTHONPATH": str(STANDIN), **env},
    )
    return from_json(MlirDetails, json.loads(out.stdout))


@pytest.fixture
def standin_bindings(mlir_bindings):
    """The stand-in's `allo._mlir` re-exports upstream bindings: skipped without them."""
    return mlir_bindings


def test_the_runner_reads_functions_streams_and_calls(standin_bindings):
    details = read_in_the_standin(FIXTURES / "producer_consumer_fixed.mlir")
    assert details.unread is None
    compiled: CompiledModule = details.compiled
    assert compiled.bindings == "allo._mlir.ir" and not compiled.truncated
    assert [(f.name, f.kernel, f.dataflow, f.stypes) for f in compiled.functions] == [
        ("producer_0", True, False, "__o"),
        ("consumer_0", True, False, "_i"),
        ("top", False, True, None),
    ]
    assert compiled.functions[0].arg_types == ("memref<16x16xi32>", "memref<1xi32>", "!allo.stream<i32, 4>")
    assert [(s.name, s.function, s.element, s.depth) for s in compiled.streams] == [("pipe", "top", "i32", 4)]
    assert [(c.caller, c.callee, c.operands) for c in compiled.calls] == [
        ("top", "producer_0", ("arg:0", "arg:2", "stream:pipe")),
        ("top", "consumer_0", ("arg:1", "stream:pipe")),
    ]


def test_the_standins_module_is_in_allos_custom_form_and_reads(standin_bindings, tmp_path):
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import systolic_gemm as d, allo.dataflow as df;"
        "print(df.customize(d.top).module)"
    )
    text = subprocess.run(
        [sys.executable, "-c", code, str(EXAMPLES)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={**os.environ, "PYTHONPATH": str(STANDIN)},
    ).stdout
    assert '= allo.stream_construct() {name = "fifo_A_0_0"} : !allo.stream<i32, 4>' in text
    (tmp_path / "top.mlir").write_text(text)
    compiled = read_in_the_standin(tmp_path / "top.mlir").compiled
    assert len([f for f in compiled.functions if f.kernel]) == 36
    assert len(compiled.streams) == 72 and {s.depth for s in compiled.streams} == {4}


def test_an_allo_without_bindings_or_a_module_they_refuse_is_said(tmp_path):
    details = read_in_the_standin(FIXTURES / "producer_consumer_fixed.mlir", ALLO_STANDIN_BINDINGS="none")
    assert details.compiled is None
    assert details.unread.startswith("this interpreter's Allo has no MLIR bindings (allo._mlir.ir): ImportError")
    (tmp_path / "bad.mlir").write_text("module {\n  func.func @top(%arg0: memref<4xi32>\n}\n")
    details = read_in_the_standin(tmp_path / "bad.mlir")
    assert details.compiled is None and details.unread


def test_stream_types_are_read_by_their_assembly_format():
    assert stream_type("!allo.stream<i32, 4>") == ("i32", 4)
    assert stream_type("!allo.stream<memref<2x2xi16>, 2>") == ("memref<2x2xi16>", 2)
    assert stream_type("!allo.stream<!allo.Fixed<12, 4>, 8>") == ("!allo.Fixed<12, 4>", 8)
    assert stream_type("!allo.stream<i32>") == ("!allo.stream<i32>", None)
    assert stream_type("memref<4xi32>") == ("memref<4xi32>", None)
