"""Allo's expression types and the operations its builder lowers them to, one row per rule of
`allo/ir/typing_rule.py` and `allo/ir/builder.py` (a098603f), each value worked out from the
rule named beside it.

(Checked once against Allo's own `typing_rule.py` for every pair of 11 types under all 14
operators: 1,694 cases, no difference; that check needs Allo's source and is not run here.)"""

import pytest
from allo_lsp.protocol.typing_rules import (
    BFLOAT16,
    BOOL,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    INDEX,
    INT32,
    Fixed,
    Int,
    TypingError,
    UFixed,
    UInt,
    binary,
    cast,
    literal_type,
    result_type,
    stream_cast,
    unary_type,
)

I8, I16, U8, U16 = Int(8), Int(16), UInt(8), UInt(16)

RESULT_TYPES = [
    # add_sub_rule: one bit more than the wider operand; an unsigned side beside a signed one +1
    ("+", I8, I8, Int(9)),
    ("-", U8, U8, UInt(9)),  # 3 - 5 in UInt(9) is 510 once zero-extended
    ("+", I8, U8, Int(10)),
    ("+", U8, I8, Int(10)),
    ("+", INT32, INT32, Int(33)),
    ("+", INDEX, INDEX, INDEX),
    ("+", INDEX, INT32, Int(34)),  # a loop variable plus an int literal
    ("+", I8, FLOAT32, FLOAT32),
    ("+", FLOAT16, FLOAT32, FLOAT32),
    ("+", Fixed(12, 4), Fixed(8, 2), Fixed(13, 4)),
    ("+", Int(8), UFixed(8, 3), Fixed(12, 3)),  # max(8, 8 - 3 + 1) + 3 + 1
    # mul_rule (commutative): the widths add up
    ("*", I8, I8, I16),
    ("*", U8, U8, U16),
    ("*", U8, I8, I16),
    ("*", INDEX, INDEX, INDEX),
    ("*", INT32, FLOAT32, FLOAT32),
    ("*", FLOAT64, INT32, FLOAT64),
    ("*", Fixed(12, 4), Fixed(8, 2), Fixed(20, 6)),
    ("*", Int(8), Fixed(12, 4), Fixed(20, 4)),
    # div_rule: the left operand's type; unsigned over signed becomes signed of the left's width
    ("/", INT32, INT32, INT32),
    ("/", I8, INT32, I8),
    ("/", U8, I8, I8),
    ("/", U8, U16, U8),
    ("//", INT32, INT32, INT32),
    ("/", INT32, FLOAT32, FLOAT32),
    ("/", FLOAT32, INT32, FLOAT32),
    ("/", Int(8), Fixed(12, 4), Fixed(20, 4)),
    # mod_rule and cmp_rule: the wider operand, no carry bit
    ("%", I8, INT32, INT32),
    ("%", U8, I8, Int(9)),
    ("%", U8, U16, U16),
    ("cmp", I8, U8, Int(9)),
    ("cmp", INDEX, INT32, Int(33)),
    ("cmp", FLOAT32, INT32, FLOAT32),
    # select_rule (commutative; the formula of the sorted classes applied to the operands as written)
    ("select", I8, U8, Int(9)),
    ("select", BOOL, I8, Int(9)),
    ("select", Fixed(12, 4), I8, Fixed(12, 0)),
    ("select", INT32, FLOAT32, FLOAT32),
    # shift_rule: the left operand's type, whatever the right
    ("<<", INT32, INT32, INT32),
    ("<<", I8, INT32, I8),
    (">>", U8, INT32, U8),
    ("<<", INDEX, INT32, INDEX),
    # and_or_rule (commutative): the wider; signed if either is
    ("&", I8, U16, I16),
    ("|", U8, U16, U16),
    ("^", INDEX, INDEX, INDEX),
    # pow_rule (commutative): always a float, by the first operand's width
    ("**", INT32, INT32, FLOAT32),
    ("**", Int(64), INT32, FLOAT64),
    ("**", FLOAT64, INT32, FLOAT64),
    ("**", BFLOAT16, FLOAT32, FLOAT32),
]


@pytest.mark.parametrize("op, t1, t2, expected", RESULT_TYPES, ids=lambda v: str(v))
def test_result_type(op, t1, t2, expected):
    assert result_type(op, t1, t2) == expected


@pytest.mark.parametrize(
    "op, t1, t2",
    [("<<", FLOAT32, INT32), ("<<", INT32, FLOAT32), ("&", FLOAT32, INT32), ("|", Fixed(8, 2), INT32)],
)
def test_operators_without_a_rule_do_not_build(op, t1, t2):
    with pytest.raises(TypingError, match="Typing rule is not defined"):
        result_type(op, t1, t2)


LOWERED = [
    # build_general_binop: by the result's class (index as int)
    ("/", INT32, INT32, "divsi"),  # truncating: -7 / 2 is -3
    ("/", U8, U8, "divui"),
    ("/", FLOAT32, INT32, "divf"),
    ("//", INT32, INT32, "floordivsi"),
    ("%", INT32, INT32, "remsi"),  # C's remainder: -4 % 3 is -1
    ("%", U8, U8, "remui"),
    ("%", FLOAT32, FLOAT32, "remf"),
    (">>", INT32, INT32, "shrsi"),
    (">>", U8, INT32, "shrui"),
    ("+", INDEX, INDEX, "addi"),
    ("**", FLOAT32, FLOAT32, "powf"),
    ("**", INT32, INT32, "powf"),  # typed float32 first
]


@pytest.mark.parametrize("op, t1, t2, expected", LOWERED, ids=lambda v: str(v))
def test_lowered_operation(op, t1, t2, expected):
    assert binary(op, t1, t2)[1] == expected


@pytest.mark.parametrize(
    "op, t1, t2",
    [("//", U8, U8), ("//", FLOAT32, FLOAT32), ("%", Fixed(8, 2), Fixed(8, 2)), ("&", U8, UInt(4))],
)
def test_what_the_builder_cannot_lower(op, t1, t2):
    if op == "&":  # a control: bitwise on unsigned builds
        assert binary(op, t1, t2) == (U8, "andi")
        return
    with pytest.raises(TypingError, match="Allo cannot build"):
        binary(op, t1, t2)


@pytest.mark.parametrize(
    "src, dst, zero_extends, expected",
    [
        (I8, INT32, False, "extsi"),
        (U8, INT32, False, "extui"),
        (BOOL, INT32, False, "extui"),  # a 1-bit value widens unsigned
        (I8, INT32, True, "extui"),  # a bit get, slice or shift left
        (INT32, I8, False, "trunci"),
        (INT32, FLOAT32, False, "sitofp"),
        (U8, FLOAT32, False, "uitofp"),
        (FLOAT32, INT32, False, "fptosi"),
        (FLOAT32, U8, False, "fptoui"),
        (FLOAT64, FLOAT32, False, "truncf"),
        (FLOAT32, FLOAT64, False, "extf"),
        (FLOAT32, BFLOAT16, False, "truncf"),
        (INDEX, INT32, False, "index_cast"),
        (INT32, INT32, False, None),
        (Int(32), UInt(32), False, None),  # same width: no operation, the bits are kept
    ],
)
def test_build_cast_op(src, dst, zero_extends, expected):
    assert cast(src, dst, zero_extends) == expected


def test_the_simulator_zero_extends_a_narrower_put_and_truncates_a_wider_one():
    assert stream_cast(I16, INT32) == "extui"  # -15 as i16 arrives as 65521
    assert stream_cast(Int(64), INT32) == "trunci"
    assert stream_cast(INT32, INT32) is None
    assert stream_cast(FLOAT32, FLOAT64) is None


def test_literals_and_unary_operators():
    assert literal_type(3) == INT32 and literal_type(1 << 40) == INT32
    assert literal_type(0.5) == FLOAT32
    assert unary_type(U8) == I8  # -x on an unsigned value is signed of its width
    assert unary_type(FLOAT32) == FLOAT32


def test_printed_names_are_allos():
    assert [str(t) for t in (INT32, U8, INDEX, FLOAT32, BFLOAT16, Fixed(12, 4))] == [
        "i32",
        "ui8",
        "index",
        "f32",
        "bf16",
        "fixed(12, 4)",
    ]
