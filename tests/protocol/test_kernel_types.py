"""The Allo type of each expression of a kernel body (`allo/ir/infer.py`, a098603f), and the build
errors and warnings Allo's type inference gives. In the cases, `# => TYPE` at the end of an
assignment names the type Allo gives its value (the right-hand side), in Allo's printed names."""

import ast
import textwrap

import pytest
from allo_lsp.protocol.kernel_model import Environment, Value
from allo_lsp.protocol.kernel_types import SLICE_WARNING, KernelTypes
from allo_lsp.protocol.typing_rules import FLOAT32, INT32, Fixed, Int, UInt

_NAMES = {"int8": Int(8), "int16": Int(16), "int32": INT32, "uint8": UInt(8), "float32": FLOAT32}


def _annotation(node: ast.expr) -> Value | None:
    """`int8`, `int32[8]`, `Fixed(8, 2)`: enough of Allo's annotations for these tests."""
    if isinstance(node, ast.Name):
        return Value(_NAMES[node.id]) if node.id in _NAMES else None
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        dims = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return Value(_NAMES[node.value.id], tuple(d.value for d in dims))
    if isinstance(node, ast.Call) and node.func.id == "Fixed":
        return Value(Fixed(*(a.value for a in node.args)))
    return None


def typed(source: str, **env) -> tuple[KernelTypes, ast.FunctionDef, list[str]]:
    source = textwrap.dedent(source)
    fn = ast.parse(source).body[0]
    params = {a.arg: _annotation(a.annotation) for a in fn.args.args}
    environment = Environment(params=params, annotation=_annotation, **env)
    return KernelTypes(fn, environment), fn, source.splitlines()


def expected_and_actual(source: str, **env):
    types, fn, lines = typed(source, **env)
    pairs = []
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and "# => " in lines[node.lineno - 1]:
            want = lines[node.lineno - 1].split("# => ")[1].strip()
            got = types.of(node.value)
            pairs.append(
                (f"{ast.unparse(node.value)}: {want}", f"{ast.unparse(node.value)}: {got.ty if got else 'untyped'}")
            )
    return sorted(pairs)


CASES = {
    "locals": """
        def k(a: int8[8], out: int32[8]):
            for i in range(8):
                x = a[i]  # => i8
                x = x + 100  # => i33
                acc = 0  # => i32
                y = acc + 0.5  # => f32
                out[i] = x
    """,
    "operators": """
        def k(a: int8[8], b: int8[8], u: uint8[8], v: uint8[8]):
            for i in range(8):
                p = a[i] * b[i]  # => i16
                d = u[i] - v[i]  # => ui9
                q = a[i] / 3  # => i8
                r = a[i] % 3  # => i32
                s = 1 << 35  # => i32
                f = float(a[i])  # => f32
                m = max(a[i], u[i])  # => i9
                c = a[i] < u[i]  # => i9
                w = u[i] // 2  # => i8
    """,
    "bits": """
        def k(a: int32[8], out: int32[8]):
            for i in range(8):
                w = a[i]  # => i32
                b = w[3]  # => ui1
                nib = w[4:8]  # => ui4
                moving = w[i:i + 4]  # => ui4
                n = -w  # => i32
    """,
    "value methods": """
        def k(a: int8[8], h: int16[8], f: float32[8]):
            for i in range(8):
                r = a[i].reverse()  # => i8
                s = (a[i] + a[i]).reverse()  # => i9
                g = h[i].bitcast()  # => f16
                u = f[i].bitcast()  # => ui32
                x = a[i][0:4].reverse()  # => ui4
    """,
    "loop variables and pids": """
        def k(a: int32[8]):
            pi, pj = df.get_pid()
            for i in range(8):
                t = i * 2  # => i64
                u = pi + 1  # => i33
                g = N * 2  # => i64
    """,
}


@pytest.mark.parametrize("name", CASES)
def test_types(name):
    pairs = expected_and_actual(CASES[name], constants={"N": 8})
    assert [want for want, _ in pairs] == [got for _, got in pairs]


def test_a_slice_bounded_by_a_module_constant_warns_as_allo_does():
    types, _, _ = typed(
        """
        def k(a: int32[8]):
            w = a[0]
            x = w[0:N]
        """,
        constants={"N": 8},
    )
    assert [(p.message, p.error) for p in types.problems] == [(SLICE_WARNING, False)]
    (_, value), *_ = [v for v in types.locals.values() if v[0].id == "x"]
    assert value.ty == UInt(32)


def test_a_name_bound_in_a_block_is_unknown_after_it():
    types, _, _ = typed(
        """
        def k(a: int32[8], out: int32[8]):
            for i in range(8):
                if a[i] > 0:
                    last = a[i]
                out[i] = last
            out[0] = last
        """
    )
    assert [(p.message, p.error, p.node.lineno) for p in types.problems] == [
        ("Unsupported Name `last`", True, 6),
        ("Unsupported Name `last`", True, 7),
    ]


def test_a_name_declared_before_a_block_is_known_after_it_whatever_its_type():
    # `packed: UInt(R * 8)` (a type this environment does not read) then bound in meta branches, as
    # Allo's tests/dataflow/test_multi_cache_gemm.py does: Allo declares the name where it is annotated.
    types, _, _ = typed(
        """
        def k(a: int32[8], out: int32[8]):
            packed: UInt(R * 8)
            with allo.meta_if(a[0] > 0):
                packed = 0
            with allo.meta_else():
                packed = 1
            out[0] = packed
        """
    )
    assert types.problems == []


@pytest.mark.parametrize(
    "expression, message",
    [
        ("abs(a[0])", "Unsupported function call abs"),
        (
            "u[0] // u[1]",
            "Allo cannot build `//` on ui8 (build_general_binop has no such operation)",
        ),  # u // 2 is i8 (div_rule) and builds
        ("f[0] << 2", "Typing rule is not defined with input types (f32, i32)"),
        ("0 < a[0] < 10", "Only support one comparator for now"),
        ("f[0].reverse()", "Can only reverse integers"),
        ("u[0].bitcast()", "Unsupported bitwidth 8"),
        ("(a[0] + a[1]).bitcast()", "Unsupported bitwidth 33"),
    ],
)
def test_build_errors(expression, message):
    types, _, _ = typed(
        f"""
        def k(a: int32[8], u: uint8[8], f: float32[8]):
            x = {expression}
        """
    )
    assert [p.message for p in types.problems if p.error] == [message]


def test_only_a_meta_constructs_comparison_may_chain():
    # `ASTResolver.resolve_constant` evaluates a meta construct's arguments in Python.
    types, _, _ = typed(
        """
        def k(a: int32[8]):
            with allo.meta_if(0 <= P < 4):
                with allo.meta_for(2 if 0 < P < 4 else 1) as j:
                    a[0] = 0 < a[1] < 2
        """,
        constants={"P": 2},
    )
    assert [(p.message, p.node.lineno) for p in types.problems] == [("Only support one comparator for now", 5)]


def test_a_stream_get_has_the_stream_element_type():
    types, fn, _ = typed(
        """
        def k(out: int32[8]):
            v = s.get()
            w = fifo[0, 1].get()
        """,
        streams={"s": Value(Int(16)), "fifo": Value(UInt(8))},
    )
    assert [str(v.ty) for _, v in types.locals.values()] == ["i16", "ui8"]


def test_the_untyped_local_keeps_its_first_type():
    types, _, _ = typed(
        """
        def k(a: int8[8]):
            acc = 0
            for i in range(8):
                acc = acc + a[i] * 0.5
        """
    )
    assert [(n.id, str(v.ty)) for n, v in types.locals.values()] == [("acc", "i32")]
    assert not types.problems


def test_an_unknown_name_is_left_untyped_not_guessed():
    types, fn, _ = typed(
        """
        def k(a: int32[8]):
            x = mystery + 1
        """
    )
    assert not types.locals and not types.problems


def test_an_augmented_assignment_is_typed_as_its_operation():
    # visit_AugAssign types `x op= v` by `visit_general_binop(x, v)`: uint8 // int32 is Int(8)
    # (div_rule), int8 + int32 is Int(33) (add_sub_rule); the result is cast back to `x`'s type.
    types, fn, _ = typed(
        """
        def k(a: int8[8]):
            x: uint8 = 200
            x //= 2
            y: int8 = 1
            y += 1
        """
    )
    augmented = [n for n in ast.walk(fn) if isinstance(n, ast.AugAssign)]
    assert [str(types.of(n).ty) for n in augmented] == ["i8", "i33"]


@pytest.mark.parametrize(
    ("expression", "ok"),
    [("min(i, j)", False), ("max(i, j)", False), ("min(i, 2)", True), ("max(a[i], a[j])", True)],
)
def test_min_and_max_build_only_in_int_uint_or_float(expression, ok):
    # build_Call picks MinSIOp/MinUIOp/MinimumFOp by the result's class (select_rule): an index
    # result (two loop variables) has none, and `opcls` is never bound (an UnboundLocalError).
    types, _, _ = typed(
        f"""
        def k(a: int32[8]):
            for i in range(2):
                for j in range(2):
                    x = {expression}
        """
    )
    message = "cannot access local variable 'opcls' where it is not associated with a value"
    assert [p.message for p in types.problems] == ([] if ok else [message])


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("r[0] = a[0] < a[1]", "'affine.store' op value to store"),  # Int(32): no cast, an i1 stored
        ("c = a[0] < a[1]", "'affine.store' op value to store"),  # an untyped local of Int(32)
        ("r[0] = (a[0] < a[1]) + 1", None),  # Int(33): ExtSIOp of the i1 (true is -1)
        ("r[0] = b[0] < b[1]", None),  # Int(8) -> int32: ExtSIOp
        ("x: int8 = b[0] < b[1]", "'affine.store' op value to store"),  # Int(8) -> int8: no cast
        ("x: int8 = a[0] < a[1]", "'arith.trunci' op operand type 'i1' and result type 'i8'"),  # TruncIOp
        ("r[0] = f[0] < f[1]", "'arith.fptosi' op operand #0 must be floating-point-like"),
        ("r[0] = -(a[0] < a[1])", "'arith.subi' op requires the same type"),  # 0 - the uncast i1
        ("r[0] = int(a[0] < a[1])", "'affine.store' op value to store"),  # int() of Int(32): no cast
        ("r[0] = (a[0] < a[1]) if a[0] > 0 else (a[1] < a[0])", "'affine.store' op value to store"),
        ("r[0] = 1 if a[0] < a[1] else 0", None),
        ("r[0] = (a[0] < a[1]) == (a[1] < a[0])", "'affine.store' op value to store"),  # the ==, not its operands
        ("r[0] = a[0] > 0 and a[1] > 0", None),  # andi of i1s: UInt(1), ExtUIOp
        ("g = b[0]\n            g[3] = a[0] < a[1]", "'arith.trunci' op operand type 'i1' and result type 'i1'"),
        ("g = b[0]\n            g[3] = a[0] > 0 and a[1] > 0", None),  # a bit set of a UInt(1): no cast
    ],
)
def test_a_comparisons_value_is_an_i1_cast_from_its_allo_type(statement, message):
    types, _, _ = typed(
        f"""
        def k(a: int32[8], b: int8[8], f: float32[8], r: int32[8]):
            {statement}
        """
    )
    found = [(p.message, p.pipeline) for p in types.problems]
    if message is None:
        assert found == []
    else:
        assert len(found) == 1 and found[0][0].startswith(message) and found[0][1] == "build", found


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("if a[0]:\n                r[0] = 1", "'scf.if' op operand #0 must be 1-bit signless integer, but got 'i32'"),
        ("while a[0]:\n                r[0] = 1", "'scf.condition' op operand #0 must be 1-bit signless integer"),
        ("r[0] = 1 if f[0] else 0", "'arith.select' op operand #0 must be bool-like, but got 'f32'"),
        ("r[0] = 1 if not a[0] else 0", "The operand of 'not' should be a boolean value"),
        ("r[0] = 1 if a[0] and a[1] else 0", "'arith.select' op operand #0 must be bool-like, but got 'i32'"),
        ("r[0] = 1 if a[0] > 0 and a[1] else 0", "'arith.andi' op requires the same type"),
        ("if a[0] > 0 or not (a[1] < 3):\n                r[0] = 1", None),
        ("if a[0][3]:\n                r[0] = 1", None),  # a bit get is an i1
        ("if g:\n                r[0] = 1", None),  # a uint1 (bool) local
    ],
)
def test_a_condition_is_built_as_it_is_and_must_be_an_i1(statement, message):
    types, _, _ = typed(
        f"""
        def k(a: int32[8], f: float32[8], r: int32[8]):
            g = a[0][0]
            {statement}
        """
    )
    found = [p.message for p in types.problems]
    assert found == ([] if message is None else found[:1]) and (message is None or found[0].startswith(message))
