"""Chained comparisons, `.reverse()` and `.bitcast()` as Allo a098603f builds them (issue 27):
the value each computes in the operand's Allo type, and the builds Allo refuses (`allo/ir/infer.py`:
`visit_Compare` asserts one comparator, `visit_Attribute` reverses only integers, `visit_Call`
bitcasts only integers of a float's width). Each design runs through the executor as a user's
`df.build(top, target="simulator")`."""

import numpy as np
import pytest

from tests.runner.reference_harness import load, run, shim


def _design(decls: str, expr: str, out: str) -> str:
    body = "\n".join(f"            {d}" for d in decls.splitlines() if d.strip())
    return f"""
    @df.region()
    def top(R: {out}[1]):
        @df.kernel(mapping=[1], args=[R])
        def k(r: {out}[1]):
{body}
            r[0] = {expr}
    """


@pytest.mark.parametrize(
    ("decls", "expr", "out", "expected", "why"),
    [
        ("a: int8 = 1", "a.reverse()", "int32", -128, "0x01 -> 0x80, an Int(8): sign-extended into int32"),
        ("a: int8 = 1\nb: int8 = 2", "(a + b).reverse()", "int32", -128, "Int(9): 0b000000011 -> 0b110000000"),
        ("a: uint8 = 3\nb: uint8 = 1", "(a - b).reverse()", "int32", 128, "UInt(9): 0b000000010 -> 0b010000000"),
        ("a: int32 = 0x3F800000\nb: int32 = 0x400000", "(a | b).bitcast()", "float32", 1.5, "Int(32) -> float32"),
        ("w: int32 = 0x3C00", "(w[0:16] | w[16:32]).bitcast()", "float32", 1.0, "UInt(16) -> float16 0x3C00"),
        ("h: bfloat16 = 1.0", "h.bitcast()", "int32", 0x3F80, "bfloat16 -> UInt(16): the top half of float32 1.0"),
    ],
)
def test_value_methods_compute_in_the_operands_allo_type(tmp_path, decls, expr, out, expected, why):
    result = np.zeros(1, np.dtype(out))
    run(tmp_path, _design(decls, expr, out), result)
    assert result[0].item() == expected, why


def _refused(tmp_path, capsys, source: str, message: str) -> None:
    with shim():
        module, _ = load(tmp_path, source)
        with pytest.raises(SystemExit) as exited:
            module.df.build(module.top, target="simulator")
    assert exited.value.code == 1
    assert message in capsys.readouterr().out


@pytest.mark.parametrize(
    ("decls", "expr", "message"),
    [
        ("f: float32 = 1.0", "f.reverse()", "Can only reverse integers"),
        ("a: int32 = 1", "a + 0 < a < 3", "Only support one comparator for now"),
        ("a: int8 = 1", "a.bitcast()", "Unsupported bitwidth 8"),
        ("a: int16 = 1", "(a + a).bitcast()", "Unsupported bitwidth 17"),
    ],
)
def test_a_construct_allo_does_not_type_stops_the_build(tmp_path, capsys, decls, expr, message):
    _refused(tmp_path, capsys, _design(decls, expr, "int32"), message)


def test_only_a_meta_conditions_comparison_may_chain(tmp_path, capsys):
    # Allo evaluates a meta_if condition in Python (`ASTResolver.resolve_constant`): it chains.
    chained_in = """
    @df.region()
    def top(R: int32[2]):
        @df.kernel(mapping=[2], args=[R])
        def k(r: int32[2]):
            p = df.get_pid()
            with allo.meta_if(0 < p < 2):
                r[p] = 7
            {extra}
    """
    result = np.zeros(2, np.int32)
    run(tmp_path, chained_in.format(extra=""), result)
    assert result.tolist() == [0, 7]
    _refused(tmp_path, capsys, chained_in.format(extra="r[0] = 0 < r[1] < 9"), "Only support one comparator")
