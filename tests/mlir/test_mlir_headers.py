"""Reducing a dump to function headers, for bindings that cannot read Allo's ops (pure text)."""

from allo_lsp.mlir import parse_functions
from allo_lsp.mlir.headers import ELIDED, reduce, restore

DUMP = """\
module {
  // a comment with func.func @not_a_function() {
  func.func private @declared(memref<4xi32>) attributes {note = "{"}
  func.func @k_0(%arg0: memref<4x!allo.Fixed<12, 4>>, %arg1: !allo.stream<i32, 4>) attributes {df.kernel, itypes = "s}_"} {
    %0 = allo.stream_get %arg1 : !allo.stream<i32, 4> -> i32
    affine.for %i = 0 to 4 {
      "allo.nothing"() {text = "}"} : () -> ()
    }
    return
  }
}
"""


def test_bodies_are_elided_keeping_headers_and_line_numbers():
    reduced, placeholders = reduce(DUMP)
    lines = reduced.splitlines()
    assert len(lines) == len(DUMP.splitlines())
    assert lines[2] == DUMP.splitlines()[2]  # a declaration has no body to elide
    assert lines[3].endswith(f'attributes {{df.kernel, itypes = "s}}_"}} {{ {ELIDED} ')
    assert lines[-2:] == ["}", "}"]
    assert "stream_get" not in reduced and "allo.nothing" not in reduced
    assert sorted(placeholders.values()) == ["!allo.Fixed<12, 4>", "!allo.stream<i32, 4>"]


def test_placeholders_map_back():
    reduced, placeholders = reduce(DUMP)
    header = reduced.splitlines()[3]
    assert "!allo." not in header
    original_signature = DUMP.splitlines()[3].split(" attributes")[0]
    assert restore(header, placeholders).startswith(original_signature + " attributes")


def test_reduced_dump_reads_through_the_bindings(mlir_bindings):
    declared, kernel = parse_functions(DUMP).functions
    assert (declared.name, declared.arg_types) == ("declared", ("memref<4xi32>",))
    assert (kernel.name, kernel.itypes, kernel.kernel) == ("k_0", "s}_", True)
    assert kernel.arg_types == ("memref<4x!allo.Fixed<12, 4>>", "!allo.stream<i32, 4>")
