"""Quick fixes, rust-analyzer style: the design before, the diagnostic code, the design after.

`check_fix` analyses `before`, asks for actions over the first problem with `code`, applies the
chosen one and compares the text exactly; then the fixed text must no longer report `code`, nor
any code `before` did not report (a test that allows one says why).
"""

from textwrap import dedent

import pytest
from allo_lsp.analysis import analyze
from allo_lsp.analysis.model import Position, Range
from allo_lsp.ide.code_actions import code_actions
from paths import EXAMPLES

HEADER = """\
import allo
from allo.ir.types import int32, float32, Stream
import allo.dataflow as df
import numpy as np

M = 16
"""


def apply_edits(text: str, edits) -> str:
    """Apply from the end backwards, so earlier positions stay valid; columns are code points."""
    starts, offset = [], 0
    for line in text.split("\n"):
        starts.append(offset)
        offset += len(line) + 1
    for edit in sorted(edits, key=lambda e: (e.range.start, e.range.end), reverse=True):
        start = starts[edit.range.start.line] + edit.range.start.column
        end = starts[edit.range.end.line] + edit.range.end.column
        text = text[:start] + edit.new_text + text[end:]
    return text


def actions_for(text: str, code: str):
    analysis = analyze(text)
    problem = next(p for p in analysis.problems if p.code == code)
    return code_actions(text, analysis, problem.range)


def fix(text: str, code: str, title_contains: str | None = None) -> str:
    actions = [a for a in actions_for(text, code) if code in a.codes]
    if title_contains is not None:
        actions = [a for a in actions if title_contains in a.title]
    assert len(actions) == 1, [a.title for a in actions]
    action = actions[0]
    assert action.kind == "quickfix" and action.preferred
    return apply_edits(text, action.edits)


def check_fix(before: str, code: str, after: str, title_contains: str | None = None,
              *, header: str = HEADER, allow_new: tuple[str, ...] = ()) -> None:
    before, after = header + dedent(before), header + dedent(after)
    fixed = fix(before, code, title_contains)
    assert fixed == after
    codes_after = {p.code for p in analyze(fixed).problems}
    assert code not in codes_after
    assert codes_after - {p.code for p in analyze(before).problems} <= set(allow_new)


def titles(text: str, code: str) -> list[str]:
    return [a.title for a in actions_for(text, code)]


# -- ADF001 / ADF002: bare scalar region parameter -------------------------------------------


def test_bare_scalar_becomes_one_element_array_in_region_kernel_body_and_call():
    check_fix(
        """
        @df.region()
        def top(A: int32[M], n: int32, B: int32[M]):
            @df.kernel(mapping=[1], args=[A, n, B])
            def scale(local_A: int32[M], local_n: int32, local_B: int32[M]):
                for i in range(M):
                    local_B[i] = local_A[i] * local_n + local_n.bit_length()


        def test_top():
            A = np.arange(M, dtype=np.int32)
            B = np.zeros(M, dtype=np.int32)
            mod = df.build(top, target="simulator")
            mod(A, 3, B)
        """,
        "ADF002",
        """
        @df.region()
        def top(A: int32[M], n: int32[1], B: int32[M]):
            @df.kernel(mapping=[1], args=[A, n, B])
            def scale(local_A: int32[M], local_n: int32[1], local_B: int32[M]):
                for i in range(M):
                    local_B[i] = local_A[i] * local_n[0] + local_n[0].bit_length()


        def test_top():
            A = np.arange(M, dtype=np.int32)
            B = np.zeros(M, dtype=np.int32)
            mod = df.build(top, target="simulator")
            mod(A, np.array([3], dtype=np.int32), B)
        """,
        title_contains="Declare 'n' as int32[1] (and update 1 kernel, 1 call)",
    )


def test_bare_scalar_captured_by_kernels_and_calls_that_already_pass_arrays():
    # `scale_k` reads the region parameter directly; `twice` indexes its own `n`, which is
    # another name. The first call passes a variable holding an array: left as is.
    check_fix(
        """
        Ty = float32


        @df.region()
        def top(A: Ty[M], B: Ty[M], k: Ty):
            @df.kernel(mapping=[1], args=[A, B])
            def scale_k(local_A: Ty[M], local_B: Ty[M]):
                for i in range(M):
                    local_B[i] = local_A[i] * k + k


        mod = df.build(top, target="simulator")
        k_arr = np.array([2.0], dtype=np.float32)
        mod(np.ones(M, dtype=np.float32), np.zeros(M, dtype=np.float32), k_arr)
        mod(np.ones(M, dtype=np.float32), np.zeros(M, dtype=np.float32), 0.5 * 3)
        """,
        "ADF001",
        """
        Ty = float32


        @df.region()
        def top(A: Ty[M], B: Ty[M], k: Ty[1]):
            @df.kernel(mapping=[1], args=[A, B])
            def scale_k(local_A: Ty[M], local_B: Ty[M]):
                for i in range(M):
                    local_B[i] = local_A[i] * k[0] + k[0]


        mod = df.build(top, target="simulator")
        k_arr = np.array([2.0], dtype=np.float32)
        mod(np.ones(M, dtype=np.float32), np.zeros(M, dtype=np.float32), k_arr)
        mod(np.ones(M, dtype=np.float32), np.zeros(M, dtype=np.float32), np.array([0.5 * 3], dtype=np.float32))
        """,
        title_contains="Declare 'k' as Ty[1] (and update 1 kernel, 1 call)",
    )


def test_bare_scalar_string_annotation_and_numpy_imported_under_its_own_name():
    header = HEADER.replace("import numpy as np", "import numpy")
    check_fix(
        """
        @df.region()
        def top(A: "int32[M]", n: "uint8"):
            @df.kernel(mapping=[1], args=[A, n])
            def add(local_A: "int32[M]", local_n: "uint8"):
                for i in range(M):
                    local_A[i] += local_n


        mod = df.build(top, target="simulator")
        mod(numpy.zeros(M, dtype=numpy.int32), 7)
        """,
        "ADF002",
        """
        @df.region()
        def top(A: "int32[M]", n: "uint8[1]"):
            @df.kernel(mapping=[1], args=[A, n])
            def add(local_A: "int32[M]", local_n: "uint8[1]"):
                for i in range(M):
                    local_A[i] += local_n[0]


        mod = df.build(top, target="simulator")
        mod(numpy.zeros(M, dtype=numpy.int32), numpy.array([7], dtype=numpy.uint8))
        """,
        header=header,
    )


def test_bare_scalar_imports_numpy_when_the_file_does_not():
    before = HEADER.replace("import numpy as np\n", "") + dedent(
        """
        @df.region()
        def top(A: int32[M], n: int32):
            @df.kernel(mapping=[1], args=[A, n])
            def add(local_A: int32[M], local_n: int32):
                for i in range(M):
                    local_A[i] += local_n


        mod = df.build(top, target="simulator")
        mod(a_buffer, 7)
        """
    )
    after = fix(before, "ADF002")
    assert after.startswith("import allo\nfrom allo.ir.types import int32, float32, Stream\n"
                            "import allo.dataflow as df\nimport numpy as np\n\nM = 16\n")
    assert "mod(a_buffer, np.array([7], dtype=np.int32))" in after
    assert analyze(after).problems == []


def test_bool_scalar_call_site_uses_np_bool_():
    # `np.bool` does not exist in numpy 1.24 to 1.26: the fix must write `np.bool_`.
    before = HEADER.replace("int32, float32", "int32, float32, bool") + dedent(
        """
        @df.region()
        def top(A: int32[M], flag: bool):
            @df.kernel(mapping=[1], args=[A, flag])
            def add(local_A: int32[M], local_flag: bool):
                for i in range(M):
                    local_A[i] += 1


        mod = df.build(top, target="simulator")
        mod(a_buffer, True)
        """
    )
    after = fix(before, "ADF002")
    assert "mod(a_buffer, np.array([True], dtype=np.bool_))" in after


def test_scalar_in_args_is_reported_once_and_offers_the_fix():
    # Allo rejects a bound scalar at the `args` only: ADF002 there, no ADF001 at the parameter.
    text = (EXAMPLES / "pitfall_bare_scalar.py").read_text()
    analysis = analyze(text)
    assert [p.code for p in analysis.problems] == ["ADF002"]
    [action] = code_actions(text, analysis, analysis.problems[0].range)
    assert action.codes == ("ADF002",)
    assert action.title == "Declare 'n' as int32[1] (and update 1 kernel, 1 call)"


def test_pitfall_bare_scalar_example_is_clean_after_the_fix():
    text = (EXAMPLES / "pitfall_bare_scalar.py").read_text()
    fixed = fix(text, "ADF002")
    assert "def top(A: int32[M], n: int32[1], B: int32[M]):" in fixed
    assert "pipe.put(local_A[i] + local_n[0])" in fixed
    assert "mod(A, np.array([5], dtype=np.int32), B)" in fixed
    assert analyze(fixed).problems == []


# -- ADF003 / ADF005: parameter order ------------------------------------------------------


def test_pitfall_arg_order_example_is_clean_after_the_fix():
    text = (EXAMPLES / "pitfall_arg_order.py").read_text()
    assert titles(text, "ADF003") == ["Reorder top(...) to top(arr_in, n, arr_out) and update 1 call"]
    fixed = fix(text, "ADF003")
    assert "def top(arr_in: int32[N], n: int32[1], arr_out: int32[N]):" in fixed
    assert "    mod(inp, n_arr, out)\n" in fixed
    assert analyze(fixed).problems == []


def test_legacy_order_keeps_the_layout_of_a_multiline_signature_and_puts_unused_last():
    # `spare` is bound by no kernel: it keeps its place relative to the others, at the end.
    # Each parameter takes its comment along. The call in the test function is updated, odd
    # spacing included; the keyword call is left alone (it is already right on every build).
    check_fix(
        """
        @df.region()
        def top(
            spare: int32[M],  # reserved
            out: int32[M],
            inp: int32[M],    # the input
        ):
            @df.kernel(mapping=[1], args=[inp])
            def load(local_in: int32[M]):
                pass

            @df.kernel(mapping=[1], args=[out])
            def store(local_out: int32[M]):
                for i in range(M):
                    local_out[i] = 0


        mod = df.build(top, target="simulator")


        def test_top():
            mod(s,   o,   i)  # odd spacing survives
            mod(spare=s, out=o, inp=i)
        """,
        "ADF003",
        """
        @df.region()
        def top(
            inp: int32[M],    # the input
            out: int32[M],
            spare: int32[M],  # reserved
        ):
            @df.kernel(mapping=[1], args=[inp])
            def load(local_in: int32[M]):
                pass

            @df.kernel(mapping=[1], args=[out])
            def store(local_out: int32[M]):
                for i in range(M):
                    local_out[i] = 0


        mod = df.build(top, target="simulator")


        def test_top():
            mod(i,   o,   s)  # odd spacing survives
            mod(spare=s, out=o, inp=i)
        """,
        title_contains="Reorder top(...) to top(inp, out, spare) and update 1 call",
    )


def test_outputs_last_updates_calls_and_one_action_fixes_every_output():
    # C and D are both flagged; both problems offer the same reorder, which fixes both.
    before = HEADER + dedent(
        """
        @df.region()
        def top(C: int32[M], A: int32[M], D: int32[M], B: int32[M]):
            @df.kernel(mapping=[1], args=[A, B, C, D])
            def add_sub(local_A: int32[M], local_B: int32[M], local_C: int32[M], local_D: int32[M]):
                for i in range(M):
                    local_C[i] = local_A[i] + local_B[i]
                    local_D[i] = local_A[i] - local_B[i]


        def test_top():
            mod = df.build(top)
            mod(c, a, d, b)
        """
    )
    analysis = analyze(before)
    flagged = [p for p in analysis.problems if p.code == "ADF005"]
    assert len(flagged) == 2
    [action] = code_actions(before, analysis, Range(flagged[0].range.start, flagged[1].range.end))
    assert action.codes == ("ADF005",)
    check_fix(
        before.removeprefix(HEADER),
        "ADF005",
        """
        @df.region()
        def top(A: int32[M], B: int32[M], C: int32[M], D: int32[M]):
            @df.kernel(mapping=[1], args=[A, B, C, D])
            def add_sub(local_A: int32[M], local_B: int32[M], local_C: int32[M], local_D: int32[M]):
                for i in range(M):
                    local_C[i] = local_A[i] + local_B[i]
                    local_D[i] = local_A[i] - local_B[i]


        def test_top():
            mod = df.build(top)
            mod(a, b, c, d)
        """,
        title_contains="Reorder top(...) to top(A, B, C, D) and update 1 call",
    )


def test_reorder_updates_a_region_called_from_a_kernel():
    check_fix(
        """
        @df.region()
        def inner(Y: int32[M], X: int32[M]):
            @df.kernel(mapping=[1], args=[X, Y])
            def copy(local_X: int32[M], local_Y: int32[M]):
                for i in range(M):
                    local_Y[i] = local_X[i]


        @df.region()
        def top(A: int32[M], B: int32[M]):
            @df.kernel(mapping=[1], args=[A, B])
            def wrapper(local_A: int32[M], local_B: int32[M]):
                inner(local_B, local_A)
        """,
        "ADF005",
        """
        @df.region()
        def inner(X: int32[M], Y: int32[M]):
            @df.kernel(mapping=[1], args=[X, Y])
            def copy(local_X: int32[M], local_Y: int32[M]):
                for i in range(M):
                    local_Y[i] = local_X[i]


        @df.region()
        def top(A: int32[M], B: int32[M]):
            @df.kernel(mapping=[1], args=[A, B])
            def wrapper(local_A: int32[M], local_B: int32[M]):
                inner(local_A, local_B)
        """,
        title_contains="Reorder inner(...) to inner(X, Y) and update 1 call",
    )


def test_outputs_last_reorders_kernel_bindings_so_older_builds_agree():
    # `A` is written and comes before the read-only `B`: the region becomes (B, A, C). Older
    # builds compile kernel-appearance order, so `first` binds `B` before `A` too (its
    # parameters follow their arguments); otherwise ADF003 would report the fixed region.
    check_fix(
        """
        @df.region()
        def top(A: int32[M], B: int32[M], C: int32[M]):
            @df.kernel(mapping=[1], args=[A, B])
            def first(local_A: int32[M], local_B: int32[M]):
                for i in range(M):
                    local_A[i] = local_B[i]

            @df.kernel(mapping=[1], args=[C])
            def second(local_C: int32[M]):
                for i in range(M):
                    local_C[i] = 0
        """,
        "ADF005",
        """
        @df.region()
        def top(B: int32[M], A: int32[M], C: int32[M]):
            @df.kernel(mapping=[1], args=[B, A])
            def first(local_B: int32[M], local_A: int32[M]):
                for i in range(M):
                    local_A[i] = local_B[i]

            @df.kernel(mapping=[1], args=[C])
            def second(local_C: int32[M]):
                for i in range(M):
                    local_C[i] = 0
        """,
        title_contains="Reorder top(...) to top(B, A, C) and update 1 kernel",
    )


def test_outputs_last_when_older_builds_cannot_follow():
    # The first kernel writes `C`, the second reads `A`: older builds compile (C, A) whatever
    # each kernel's args say, so the outputs-last order (A, C) now differs from it and ADF003
    # appears. The two rules conflict for this kernel order; the fix does what ADF005 asks.
    check_fix(
        """
        @df.region()
        def top(C: int32[M], A: int32[M]):
            pipe: Stream[int32, 4]

            @df.kernel(mapping=[1], args=[C])
            def store(local_C: int32[M]):
                for i in range(M):
                    local_C[i] = pipe.get()

            @df.kernel(mapping=[1], args=[A])
            def load(local_A: int32[M]):
                for i in range(M):
                    pipe.put(local_A[i])
        """,
        "ADF005",
        """
        @df.region()
        def top(A: int32[M], C: int32[M]):
            pipe: Stream[int32, 4]

            @df.kernel(mapping=[1], args=[C])
            def store(local_C: int32[M]):
                for i in range(M):
                    local_C[i] = pipe.get()

            @df.kernel(mapping=[1], args=[A])
            def load(local_A: int32[M]):
                for i in range(M):
                    pipe.put(local_A[i])
        """,
        title_contains="Reorder top(...) to top(A, C)",
        allow_new=("ADF003",),
    )


# -- ADF011 / ADF010: mapping first ---------------------------------------------------------


def test_mapping_moves_first_in_a_multiline_decorator():
    check_fix(
        """
        @df.region()
        def top(A: int32[M], B: int32[M]):
            pipe: Stream[int32, 4]

            @df.kernel(
                args=[A],     # what it reads
                mapping=[1],  # one PE
            )
            def producer(local_A: int32[M]):
                for i in range(M):
                    pipe.put(local_A[i])

            @df.kernel(mapping=[1], args=[B])
            def consumer(local_B: int32[M]):
                for i in range(M):
                    local_B[i] = pipe.get()
        """,
        "ADF011",
        """
        @df.region()
        def top(A: int32[M], B: int32[M]):
            pipe: Stream[int32, 4]

            @df.kernel(
                mapping=[1],  # one PE
                args=[A],     # what it reads
            )
            def producer(local_A: int32[M]):
                for i in range(M):
                    pipe.put(local_A[i])

            @df.kernel(mapping=[1], args=[B])
            def consumer(local_B: int32[M]):
                for i in range(M):
                    local_B[i] = pipe.get()
        """,
        title_contains="Move mapping= first",
    )


def test_pitfall_mapping_order_example_is_clean_after_the_fix():
    text = (EXAMPLES / "pitfall_mapping_order.py").read_text()
    fixed = fix(text, "ADF011")
    assert "    @df.kernel(mapping=[1], args=[A])\n" in fixed
    assert analyze(fixed).problems == []


@pytest.mark.parametrize(
    "decorator, fixed",
    [
        ("@df.kernel(args=[A, B])", "@df.kernel(mapping=[1], args=[A, B])"),
        ("@df.kernel()", "@df.kernel(mapping=[1])"),
        ("@df.kernel", "@df.kernel(mapping=[1])"),
    ],
)
def test_missing_mapping_is_added_first(decorator, fixed):
    body = """
        @df.region()
        def top(A: int32[M], B: int32[M]):
            {}
            def k(local_A: int32[M], local_B: int32[M]):
                for i in range(M):
                    local_B[i] = local_A[i]
        """
    # Without args= the kernel's parameters stay unbound: ADF012 remains, another problem.
    check_fix(body.format(decorator), "ADF010", body.format(fixed), "Add mapping=[1] as the first keyword")


# -- ADF016 / ADF004: rename a kernel parameter ---------------------------------------------


def test_shadowing_parameter_is_renamed_in_its_kernel_only():
    # Renamed: the parameter and its uses. Kept: `args=[A]` (the region parameter), the
    # attribute `.A`, the keyword `A=`, and the other kernel, where `A` is the region parameter
    # (captured) and whose own parameter `local_A` does not make the name taken.
    check_fix(
        """
        @df.region()
        def top(A: int32[M], B: int32[M]):
            @df.kernel(mapping=[1], args=[A, B])
            def inc(A: int32[M], local_B: int32[M]):
                for i in range(M):
                    local_B[i] = A[i] + A.shape[0] + helper(A=1) + cfg.A

            @df.kernel(mapping=[1], args=[A])
            def other(local_A: int32[M]):
                local_A[0] = A[1]
        """,
        "ADF016",
        """
        @df.region()
        def top(A: int32[M], B: int32[M]):
            @df.kernel(mapping=[1], args=[A, B])
            def inc(local_A: int32[M], local_B: int32[M]):
                for i in range(M):
                    local_B[i] = local_A[i] + local_A.shape[0] + helper(A=1) + cfg.A

            @df.kernel(mapping=[1], args=[A])
            def other(local_A: int32[M]):
                local_A[0] = A[1]
        """,
        title_contains="Rename 'A' to 'local_A'",
    )


def test_rename_picks_a_free_name_when_the_suggested_one_is_taken():
    # `local_A` is a module global and `local_A_1` a local of the kernel: both taken.
    # `other` may reuse any name: its parameter `local_A_2` does not count.
    check_fix(
        """
        local_A = 3


        @df.region()
        def top(A: int32[M]):
            @df.kernel(mapping=[1], args=[A])
            def inc(A: int32[M]):
                local_A_1: int32 = 2
                A[0] = local_A_1

            @df.kernel(mapping=[1], args=[A])
            def other(local_A_2: int32[M]):
                local_A_2[1] = 0
        """,
        "ADF016",
        """
        local_A = 3


        @df.region()
        def top(A: int32[M]):
            @df.kernel(mapping=[1], args=[A])
            def inc(local_A_2: int32[M]):
                local_A_1: int32 = 2
                local_A_2[0] = local_A_1

            @df.kernel(mapping=[1], args=[A])
            def other(local_A_2: int32[M]):
                local_A_2[1] = 0
        """,
        title_contains="Rename 'A' to 'local_A_2'",
    )


def test_pitfall_merged_names_example_is_clean_after_the_fix():
    text = (EXAMPLES / "pitfall_merged_names.py").read_text()
    assert titles(text, "ADF004") == ["Rename 'x' to 'x_B'"]
    fixed = fix(text, "ADF004")
    assert "    def consumer(x_B: int32[M]):\n" in fixed
    assert "            x_B[i] = pipe.get()\n" in fixed
    assert "pipe.put(x[i] + 10)" in fixed  # the producer's `x` is its own
    assert analyze(fixed).problems == []


# -- ADF040: removed syntax -------------------------------------------------------------------

PIPE_REGION = """
        @df.region()
        def top(A: int32[M], B: int32[M]):
            {}

            @df.kernel(mapping=[1], args=[A])
            def producer(local_A: int32[M]):
                for i in range(M):
                    pipe.put(local_A[i])

            @df.kernel(mapping=[1], args=[B])
            def consumer(local_B: int32[M]):
                for i in range(M):
                    local_B[i] = pipe.get()
        """


def test_df_pipe_becomes_a_stream_declaration_and_stream_is_imported():
    header = HEADER.replace("int32, float32, Stream", "int32, float32")
    before = header + dedent(PIPE_REGION.format("pipe = df.pipe(dtype=int32, shape=(), depth=4)  # the only channel"))
    after = fix(before, "ADF040", "Migrate df.pipe to 'pipe: Stream[int32, 4]'")
    assert after == HEADER + dedent(PIPE_REGION.format("pipe: Stream[int32, 4]  # the only channel"))
    assert analyze(after).problems == []


def test_df_pipe_with_stream_already_imported_only_rewrites_the_statement():
    check_fix(
        PIPE_REGION.format("pipe = df.pipe(dtype=int32, shape=(), depth=2)"),
        "ADF040",
        PIPE_REGION.format("pipe: Stream[int32, 2]"),
    )


def test_string_layout_becomes_a_list():
    layout = """
        from allo.memory import Layout

        S = Layout.Shard
        R = Layout.Replicate
        Ly = {}


        @df.region()
        def top(A: int32[M, 8], B: int32[M, 8]):
            @df.kernel(mapping=[2], args=[A, B])
            def rows(local_A: int32[M, 8] @ Ly, local_B: int32[M, 8] @ Ly):
                for i, j in allo.grid(M // 2, 8):
                    local_B[i, j] = local_A[i, j] + 1
        """
    check_fix(layout.format('Layout("S0R")'), "ADF040", layout.format("[S(0), R]"),
              title_contains='Replace Layout("S0R") with [S(0), R]')


def test_parameterless_region_gets_region_parameters_and_args():
    # Both kernels take `A`: one region parameter. `local_B` is already a name in `consumer`,
    # so its `B` becomes `local_B_1`.
    check_fix(
        """
        @df.region()
        def top():
            pipe: Stream[int32, 4]

            @df.kernel(mapping=[1])
            def producer(A: int32[M]):
                for i in range(M):
                    pipe.put(A[i])

            @df.kernel(
                mapping=[1],
            )
            def consumer(A: int32[M], B: int32[M]):
                for i in range(M):
                    local_B: int32 = pipe.get()
                    B[i] = local_B + A[i]


        mod = df.build(top, target="simulator")
        """,
        "ADF040",
        """
        @df.region()
        def top(A: int32[M], B: int32[M]):
            pipe: Stream[int32, 4]

            @df.kernel(mapping=[1], args=[A])
            def producer(local_A: int32[M]):
                for i in range(M):
                    pipe.put(local_A[i])

            @df.kernel(
                mapping=[1], args=[A, B],
            )
            def consumer(local_A: int32[M], local_B_1: int32[M]):
                for i in range(M):
                    local_B: int32 = pipe.get()
                    local_B_1[i] = local_B + local_A[i]


        mod = df.build(top, target="simulator")
        """,
        title_contains="Migrate top() to top(A, B) with args=[...] on 2 kernels",
    )


def test_pitfall_removed_syntax_example_is_clean_after_both_fixes():
    text = (EXAMPLES / "pitfall_removed_syntax.py").read_text()
    for title in ("Migrate top()", "Migrate df.pipe"):
        analysis = analyze(text)
        [action] = [a for p in analysis.problems for a in code_actions(text, analysis, p.range) if title in a.title]
        text = apply_edits(text, action.edits)
    assert "def top(A: Ty[M, N], B: Ty[M, N]):\n    pipe: Stream[Ty, 4]\n" in text
    assert "from allo.ir.types import int32, Stream\n" in text
    assert analyze(text).problems == []


# -- which problems, and robustness ---------------------------------------------------------


def test_no_action_where_there_is_no_problem_or_no_fix():
    text = (EXAMPLES / "pitfall_bare_scalar.py").read_text()
    analysis = analyze(text)
    assert code_actions(text, analysis, Range.of(0, 0, 0, 3)) == []
    problem = analysis.problems[0]
    just_before = Position(problem.range.start.line, problem.range.start.column - 1)
    assert code_actions(text, analysis, Range(just_before, just_before)) == []
    assert code_actions(text, analysis, Range(problem.range.end, problem.range.end)) != []
    deadlock = (EXAMPLES / "pitfall_deadlock_stream.py").read_text()  # ADF022: no quick fix
    deadlock_analysis = analyze(deadlock)
    assert code_actions(deadlock, deadlock_analysis, deadlock_analysis.problems[0].range) == []


def test_columns_are_code_points():
    check_fix(
        """
        @df.region()
        def top(Ä: int32[M], n: int32):
            @df.kernel(mapping=[1], args=[Ä, n])
            def add(local_Ä: int32[M], local_n: int32):
                for i in range(M):
                    local_Ä[i] += local_n  # «n» fois


        mod = df.build(top, target="simulator")
        mod(Ä, n)  # «Ä»
        """,
        "ADF002",
        """
        @df.region()
        def top(Ä: int32[M], n: int32[1]):
            @df.kernel(mapping=[1], args=[Ä, n])
            def add(local_Ä: int32[M], local_n: int32[1]):
                for i in range(M):
                    local_Ä[i] += local_n[0]  # «n» fois


        mod = df.build(top, target="simulator")
        mod(Ä, np.array([n], dtype=np.int32))  # «Ä»
        """,
    )


def test_a_syntax_error_elsewhere_does_not_stop_the_fix():
    text = (EXAMPLES / "pitfall_arg_order.py").read_text()
    broken = text.replace("if __name__", "x = np.zeros(\nif __name__")
    assert any(p.code == "ADF900" for p in analyze(broken).problems)
    fixed = fix(broken, "ADF003")
    assert fixed == fix(text, "ADF003").replace("if __name__", "x = np.zeros(\nif __name__")


def test_a_fix_that_would_touch_a_broken_line_leaves_it_alone():
    # The call is half typed: the parser sets its line aside, the model has no call there, and
    # the fix changes the region and the kernel only.
    text = (EXAMPLES / "pitfall_bare_scalar.py").read_text().replace("mod(A, 5, B)", "mod(A, 5, B")
    assert titles(text, "ADF002") == ["Declare 'n' as int32[1] (and update 1 kernel)"]
    assert "    mod(A, 5, B\n" in fix(text, "ADF002")


def test_a_stale_analysis_gives_no_action_rather_than_a_wrong_one():
    text = (EXAMPLES / "pitfall_bare_scalar.py").read_text()
    analysis = analyze(text)
    for edited in ("\n\n" + text, text.replace("def top(", "def top_renamed(")):
        for problem in analysis.problems:
            assert code_actions(edited, analysis, problem.range) == []


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("pitfall_*.py")), ids=lambda p: p.stem)
def test_half_typed_files_never_raise(path):
    """Every prefix of each pitfall example, cut mid-line, as a user typing it would have it."""
    text = path.read_text()
    lines = text.split("\n")
    for n in range(1, len(lines) + 1):
        prefix = "\n".join(lines[:n])
        prefix = prefix[: len(prefix) - len(lines[n - 1]) // 2]
        analysis = analyze(prefix)
        everything = Range.of(0, 0, len(lines), 0)
        for action in code_actions(prefix, analysis, everything):
            apply_edits(prefix, action.edits)


def test_df_pipe_with_positional_arguments():
    check_fix(
        PIPE_REGION.format("pipe = df.pipe(float32, (), 8)"),
        "ADF040",
        PIPE_REGION.format("pipe: Stream[float32, 8]"),
    )


def test_df_pipe_of_blocks_is_not_rewritten():
    # A non-empty shape made a stream of blocks; the replacement would silently drop it.
    text = HEADER + dedent(PIPE_REGION.format("pipe = df.pipe(dtype=int32, shape=(4,), depth=2)"))
    assert titles(text, "ADF040") == []
