from allo_lsp.analysis import analyze
from allo_lsp.ide.inlay_hints import inlay_hints
from allo_lsp.ide.navigation import definition, references
from allo_lsp.ide.symbols import document_symbols
from cursor import position_of, split_cursor

SRC = """
@df.region()
def top(A: int32[4], B: int32[4]):
    pipe: Stream[int32, 2]

    @df.kernel(mapping=[1], args=[A])
    def producer(local_A: int32[4]):
        for i in range(4):
            pipe.put(local_A[i])

    @df.kernel(mapping=[2, 2], args=[B])
    def consumer(local_B: int32[4]):
        local_B[0] = pipe.get()

mod = df.build(top, target="simulator")
mod(B, A)
"""


def check_definition(cursor_src: str, target_needle: str) -> None:
    text, pos = split_cursor(cursor_src)
    found = definition(analyze(text), pos)
    assert found is not None and found.start == position_of(text, target_needle)


def test_definition_of_args_name_stream_use_call_and_kernel_parameter():
    check_definition(SRC.replace("args=[A]", "args=[$0A]"), "A: int32[4], B")
    check_definition(SRC.replace("pipe.get", "pi$0pe.get"), "pipe: Stream")
    check_definition(SRC.replace("mod(B, A)", "m$0od(B, A)"), "top(A")
    check_definition(SRC.replace("pipe.put(local_A[i])", "pipe.put(loc$0al_A[i])"), "local_A: int32")


def test_references_follow_kernel_bindings():
    text, pos = split_cursor(SRC.replace("def top(A:", "def top($0A:"))
    found = references(analyze(text), pos)
    lines = [text.split("\n")[r.start.line].strip() for r in found]
    assert lines == [
        "def top(A: int32[4], B: int32[4]):",
        "@df.kernel(mapping=[1], args=[A])",
        "def producer(local_A: int32[4]):",
        "pipe.put(local_A[i])",
    ]


def test_document_symbols():
    text, _ = split_cursor(SRC + "$0")
    (region,) = document_symbols(analyze(text))
    assert (region.name, region.detail) == ("top", "(A, B)")
    assert [(c.name, c.kind, c.detail) for c in region.children] == [
        ("pipe", "stream", "Stream[int32, 2]"),
        ("producer", "kernel", "mapping [1] · 1 PE"),
        ("consumer", "kernel", "mapping [2, 2] · 4 PEs"),
    ]


def test_inlay_hints_name_swapped_call_arguments_and_pe_counts():
    text, _ = split_cursor(SRC + "$0")
    hints = [(h.label, text.split("\n")[h.position.line][h.position.column :][:6]) for h in inlay_hints(analyze(text))]
    assert hints == [("1 PE", ", args"), ("4 PEs", ", args"), ("A:", "B, A)"), ("B:", "A)")]


def test_mlir_view_outline_and_definition():
    from allo_lsp.ide.mlir_view import definition_in_view, view_symbols

    text, _ = split_cursor(SRC + "$0")
    analysis = analyze(text)
    mlir = (
        "module {\n"
        '  func.func @producer_0(%arg0: memref<4xi32>, %arg1: !allo.stream<i32, 2>) attributes {df.kernel, itypes = "s_"} {\n'
        "    return\n  }\n"
        "  func.func @consumer_1_0(%arg0: memref<4xi32>) attributes {df.kernel} {\n    return\n  }\n"
        "  func.func @top(%arg0: memref<4xi32>, %arg1: memref<4xi32>) attributes {dataflow} {\n    return\n  }\n}\n"
    )
    assert [(s.name, s.detail) for s in view_symbols(mlir, analysis, "top")] == [
        ("producer_0", "kernel producer, PE 0"),
        ("consumer_1_0", "kernel consumer, PE 1, 0"),
        ("top", "the top function"),
    ]
    line = mlir.split("\n").index("  func.func @consumer_1_0(%arg0: memref<4xi32>) attributes {df.kernel} {")
    target = definition_in_view(mlir, line, 15, analysis, "top")
    assert target is not None and target.start == position_of(text, "consumer(local_B")
