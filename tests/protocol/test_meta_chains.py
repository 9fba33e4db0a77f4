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


# Allo unrolls a meta_for (infer.py `visit_With`, `for i in range(*rargs)`): its body's branches
# at the loop's level pair once per iteration.


def walk_loop(level, body, times, tags=None):
    mark = level.mark()
    for n, kind in enumerate(body):
        level.branch(kind, None, tag=(tags or body)[n])
    level.replay(mark, times)


def test_an_else_in_a_loop_body_closing_an_outer_chain_is_unmatched_in_the_second_iteration():
    level = MetaLevel()
    level.branch("meta_if", True)
    walk_loop(MetaLevel(), [], 3)  # nothing to pair: nothing raised
    with pytest.raises(MetaChainError, match=r"Unmatched allo\.meta_else\(\)") as raised:
        walk_loop(level, ["meta_else"], 2, tags=["the else"])
    assert raised.value.tag == "the else"


def test_one_iteration_pairs_as_written():
    level = MetaLevel()
    level.branch("meta_if", True)
    walk_loop(level, ["meta_else"], 1)
    assert level.exact


def test_an_elif_continuing_an_outer_chain_pairs_with_it_every_iteration():
    level = MetaLevel()
    level.branch("meta_if", False)
    walk_loop(level, ["meta_elif"], 4)
    assert level.exact
    assert level.branch("meta_else")[1] == 0  # the outer chain is still the one open


def test_a_self_contained_body_stays_exact():
    level = MetaLevel()
    walk_loop(level, ["meta_if", "meta_elif", "meta_else"], 5)
    assert level.exact
    with pytest.raises(MetaChainError):
        level.branch("meta_else")


def test_a_chain_left_open_by_the_body_closes_after_the_loop_with_its_last_copy():
    level = MetaLevel()
    walk_loop(level, ["meta_if"], 3)
    assert level.branch("meta_else")[1] == 0 and level.exact  # the last copy: one flag per statement
    level.branch("meta_else")  # an earlier copy: its flag was overwritten by later iterations
    assert not level.exact


def test_an_else_pairing_with_another_chain_in_a_later_iteration_is_not_exact():
    # else closes the outer chain, then if opens one that the next iteration's else closes
    level = MetaLevel()
    level.branch("meta_if", True)
    walk_loop(level, ["meta_else", "meta_if"], 2)
    assert not level.exact


def test_nested_loops_replay_the_inner_copies_in_every_outer_iteration():
    level = MetaLevel()
    level.branch("meta_if", True)
    outer = level.mark()
    walk_loop(level, ["meta_elif"], 2)  # inner loop, 2 iterations: both pair with the outer chain
    level.replay(outer, 3)
    assert level.exact and len(level._log) == 1 + 2 * 3
