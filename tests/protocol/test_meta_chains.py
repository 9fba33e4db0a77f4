"""Allo's meta_if/meta_elif/meta_else pairing (protocol/meta_chains.py), as infer.py applies it."""

import pytest
from allo_lsp.protocol.meta_chains import MetaChainError, MetaLevel


def taken(events):
    level = MetaLevel()
    return [level.branch(kind, cond)[0] for kind, cond in events]


def test_if_elif_else_takes_exactly_one_branch():
    for first, second in [(True, False), (False, True), (False, False), (True, True)]:
        got = taken([("meta_if", first), ("meta_elif", second), ("meta_else", None)])
        expected = [first, (not first) and second, not (first or second)]
        assert got == expected
        assert got.count(True) == 1


def test_else_pairs_with_the_last_open_if_across_other_statements():
    # `if A` stays open, `if B ... else` closes B, then the next `else` pairs with A.
    assert taken([("meta_if", True), ("meta_if", False), ("meta_else", None), ("meta_else", None)]) == [
        True,
        False,
        True,
        False,
    ]


def test_chain_ids_group_the_branches_of_one_chain():
    level = MetaLevel()
    ids = [
        level.branch(k, c)[1]
        for k, c in [
            ("meta_if", True),
            ("meta_if", False),
            ("meta_elif", True),
            ("meta_else", None),
            ("meta_else", None),
        ]
    ]
    assert ids == [0, 1, 1, 1, 0]


@pytest.mark.parametrize(
    "kind, message", [("meta_else", "Unmatched allo.meta_else()"), ("meta_elif", "Unmatched allo.meta_elif()")]
)
def test_unmatched_branch_raises_allos_message(kind, message):
    with pytest.raises(MetaChainError, match=message.replace("(", r"\(").replace(")", r"\)")):
        MetaLevel().branch(kind, True)


def test_elif_after_else_is_unmatched():
    level = MetaLevel()
    level.branch("meta_if", True)
    level.branch("meta_else")
    with pytest.raises(MetaChainError, match="meta_elif"):
        level.branch("meta_elif", True)


def test_unknown_conditions_give_unknown_branches_unless_decided():
    assert taken([("meta_if", None), ("meta_elif", True), ("meta_else", None)]) == [None, None, False]
    assert taken([("meta_if", True), ("meta_elif", None), ("meta_else", None)]) == [True, False, False]
