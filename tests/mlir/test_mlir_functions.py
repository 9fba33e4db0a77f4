"""Reading a compiled Allo module: functions, argument types, Allo's attributes, errors."""

import re
import subprocess
import sys
import types

import pytest
from allo_lsp.analysis.types import AlloType, DType, StreamType
from allo_lsp.mlir import bindings, parse_functions
from allo_lsp.mlir.functions import normalize_type
from conftest import fixture


def test_fixed_order_module(mlir_bindings):
    parsed = parse_functions(fixture("producer_consumer_fixed.mlir"))
    assert parsed.error is None
    assert parsed.bindings == mlir_bindings.module_name
    assert [f.name for f in parsed.functions] == ["producer_0", "consumer_0", "top"]
    producer, consumer, top = parsed.functions
    assert producer.arg_types == ("memref<16x16xi32>", "memref<1xi32>", "!allo.stream<i32, 4>")
    assert (producer.itypes, producer.stypes) == ("ss_", "__o")
    assert (producer.kernel, producer.dataflow) == (True, False)
    assert (consumer.itypes, consumer.stypes) == ("s_", "_i")
    assert top.arg_types == ("memref<16x16xi32>", "memref<16x16xi32>", "memref<1xi32>")
    assert (top.itypes, top.stypes, top.kernel, top.dataflow) == ("sss", None, False, True)
    assert parsed.top("top") is top


def test_types_compare_equal_to_the_analysis_spelling(mlir_bindings):
    i32 = DType("int", 32)
    parsed = parse_functions(fixture("producer_consumer_fixed.mlir"))
    assert parsed.function("producer_0").arg_types == (
        AlloType(i32, (16, 16)).mlir,
        AlloType(i32, (1,)).mlir,
        StreamType(AlloType(i32), 4).mlir,
    )


def test_legacy_module_in_allo_custom_form(mlir_bindings):
    """Allo prints its ops in custom form; upstream bindings still read every function header."""
    parsed = parse_functions(fixture("arg_order_legacy.mlir"))
    assert parsed.error is None
    assert [(f.name, f.kernel, f.dataflow) for f in parsed.functions] == [
        ("producer_0", True, False),
        ("consumer_0", True, False),
        ("top", False, True),
    ]
    assert parsed.function("top").arg_types == ("memref<16xi32>", "memref<1xi32>", "memref<16xi32>")
    assert parsed.function("producer_0").stypes == "__o"


def test_fixed_point_element_types_and_opaque_spacing(mlir_bindings):
    text = """\
module {
  func.func @scale_0(%arg0: memref<8x!allo.Fixed<12, 4>>, %arg1: !allo.stream<!allo.UFixed<8, 2>,2>) attributes {df.kernel, itypes = "s_"} {
    %0 = allo.stream_get %arg1 : !allo.stream<!allo.UFixed<8, 2>, 2> -> !allo.UFixed<8, 2>
    return
  }
}
"""
    fixed = AlloType(DType("fixed", 12, 4), (8,))
    ufixed = StreamType(AlloType(DType("ufixed", 8, 2)), 2)
    assert parse_functions(text).function("scale_0").arg_types == (fixed.mlir, ufixed.mlir)


def test_malformed_mlir_gives_an_error_with_line_and_column(mlir_bindings):
    text = "func.func @top(%arg0: memref<16xi32> %arg1: memref<1xi32>) attributes {dataflow} {\n"
    text += "  return\n}\n"
    parsed = parse_functions(text)
    assert parsed.functions == ()
    assert parsed.error.startswith("The MLIR does not parse: 1:")
    assert re.search(r"1:\d+: expected", parsed.error)


def test_error_lines_stay_right_when_only_headers_can_be_read(mlir_bindings):
    """A broken header after bodies in Allo's custom form: the line is the one in the user's file."""
    good = "%arg2: memref<16xi32>) attributes {dataflow"
    text = fixture("arg_order_legacy.mlir").replace(good, good.replace(">)", ")"))
    line = next(i for i, l in enumerate(text.splitlines(), 1) if "memref<16xi32)" in l)
    parsed = parse_functions(text)
    assert parsed.functions == ()
    assert re.search(rf"\b{line}:\d+: ", parsed.error), parsed.error


def test_empty_module(mlir_bindings):
    parsed = parse_functions("module {\n}\n")
    assert (parsed.functions, parsed.error) == ((), None)


def test_no_bindings_says_what_to_install(monkeypatch):
    monkeypatch.setattr(bindings, "load_bindings", lambda: None)
    parsed = parse_functions(fixture("producer_consumer_fixed.mlir"))
    assert parsed.functions == ()
    assert "No MLIR Python bindings are importable" in parsed.error
    assert "pip install torch-mlir" in parsed.error and "iree-base-compiler" in parsed.error


def test_placeholder_packages_are_not_bindings(monkeypatch):
    """PyPI's `mlir` is an empty placeholder: an `ir` without Context/Module is skipped."""
    monkeypatch.setitem(sys.modules, "placeholder_mlir", types.ModuleType("placeholder_mlir"))
    monkeypatch.setitem(sys.modules, "placeholder_mlir.ir", types.ModuleType("placeholder_mlir.ir"))
    monkeypatch.setattr(bindings, "CANDIDATES", ("placeholder_mlir.ir", "no_such_package.ir"))
    bindings.load_bindings.cache_clear()
    try:
        assert bindings.load_bindings() is None
    finally:
        bindings.load_bindings.cache_clear()


def test_bindings_are_imported_only_when_asked_for():
    code = (
        "import sys, allo_lsp.mlir, allo_lsp.mlir.compare, allo_lsp.mlir.probe;"
        "print(sorted(m for m in ('torch_mlir', 'iree', 'mlir') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.timeout(2)
def test_long_runs_of_blanks_in_a_type_are_normalized_in_linear_time():
    """An opaque type kept verbatim with 20,000 blanks around a `,`, a `<` and a `>`: the old
    `\\s*,\\s*` and `\\s+>` retried the run from each blank (about 4 s each)."""
    blanks = " " * 20_000
    text = f"!allo.stream<{blanks}i32{blanks},{blanks}4{blanks}>"
    assert normalize_type(text) == "!allo.stream<i32, 4>"
    assert normalize_type(" memref< 4x!allo.Fixed<12 ,4 > > ") == "memref<4x!allo.Fixed<12, 4>>"


@pytest.mark.timeout(2)
def test_an_old_bindings_error_message_is_read_in_linear_time():
    """Bindings that only format their diagnostics into the message (older ones): a line with
    6,000 `error: ` and no location made the old lazy `error: .*?:` retry from each (about 8 s)."""

    class Module:
        @staticmethod
        def parse(text, context):
            raise ValueError("Unable to parse module assembly:\n" + "error: " * 6000 + '\nerror: "-":3:5: expected ")"')

    ir = types.SimpleNamespace(Context=types.SimpleNamespace, Module=Module)
    with pytest.raises(bindings.ParseError) as raised:
        bindings.Bindings("old_ir", ir).functions("module {")
    assert raised.value.diagnostics == [bindings.Diagnostic(3, 5, 'expected ")"')]
