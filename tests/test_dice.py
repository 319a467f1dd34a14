"""Dice: d20 notation, our own sources, limits and clear errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.dice import LIMITS, DiceTape, RandomDice, ScriptedDice, parse_dice, parse_script, roll
from referee.errors import DiceError, DiceExhaustedError


def test_rolls_through_our_source_and_records_every_die() -> None:
    result = roll("2d6+1d4-1", ScriptedDice([3, 5, 2]))
    assert result.total == 3 + 5 + 2 - 1
    assert [(d.sides, d.value) for d in result.dice] == [(6, 3), (6, 5), (4, 2)]


def test_keep_highest_keeps_the_best_dice() -> None:
    assert roll("4d6kh3", ScriptedDice([1, 6, 4, 3])).total == 13
    assert roll("2d20kl1", ScriptedDice([17, 4])).total == 4


def test_percent_die_is_a_d100_not_tens() -> None:
    result = roll("1d%", ScriptedDice([77]))
    assert result.total == 77
    assert result.dice[0].sides == 100


def test_same_seed_same_faces() -> None:
    a = [roll("3d6", RandomDice(42)).total for _ in range(1)]
    first = RandomDice(42)
    second = RandomDice(42)
    assert [first.roll(20, "") for _ in range(50)] == [second.roll(20, "") for _ in range(50)]
    assert a


def test_bounds_of_an_expression() -> None:
    expr = parse_dice("1d8+1")
    assert (expr.minimum, expr.maximum) == (2, 9)
    assert parse_dice("4d6kh3").maximum == 18
    assert parse_dice("-1d6").minimum == -6


def test_linear_form() -> None:
    groups, constant = parse_dice("2d6+1d4-1").linear() or ([], 0)
    assert [(g.count, g.sides) for g in groups] == [(2, 6), (1, 4)]
    assert constant == -1
    assert parse_dice("4d6kh3").linear() is None


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("1d0", "at least 1 face"),
        ("1d", "unexpected the end"),
        ("x" * (LIMITS.max_length + 1), "characters long"),
        ("1d1001", "more than 1000 faces"),
        ("1001d6", "more than 1000 dice"),
        ("1d6>3", "unsupported operator"),
        ("1d6ro1", "keep/drop"),
        ("1d6é", "ASCII"),
        ("", "empty"),
        ("1.5", "not whole"),
        ("(" * 25 + "1" + ")" * 25, "nests deeper"),
        ("3/0", "divides by zero"),
    ],
)
def test_bad_expressions_are_one_line_dice_errors(text: str, fragment: str) -> None:
    with pytest.raises(DiceError) as info:
        parse_dice(text)
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


def test_at_the_limits_expressions_are_accepted() -> None:
    assert parse_dice(f"{LIMITS.max_dice}d6").maximum == 6 * LIMITS.max_dice
    assert parse_dice(f"1d{LIMITS.max_faces}").maximum == LIMITS.max_faces


def test_scripted_die_outside_the_faces_is_refused() -> None:
    with pytest.raises(DiceError, match="not a face of a d8"):
        roll("1d8", ScriptedDice([9]))


def test_scripted_dice_hand_over_to_the_random_source() -> None:
    source = ScriptedDice([4, None], then=RandomDice(1))
    assert source.roll(6, "") == 4
    assert 1 <= source.roll(6, "") <= 6
    assert 1 <= source.roll(6, "") <= 6


def test_scripted_dice_without_a_fallback_run_out_clearly() -> None:
    source = ScriptedDice([])
    with pytest.raises(DiceExhaustedError, match="d20"):
        source.roll(20, "attack")


def test_tape_records_and_forgets() -> None:
    tape = DiceTape(ScriptedDice([1, 2]))
    tape.roll(6, "a")
    assert [d.value for d in tape.take()] == [1]
    tape.roll(6, "b")
    assert [d.purpose for d in tape.take()] == ["b"]


def test_parse_script() -> None:
    assert parse_script("7,4, 12 6") == [7, 4, 12, 6]
    with pytest.raises(DiceError, match="item 2"):
        parse_script("7,x")
    with pytest.raises(DiceError, match="1 or more"):
        parse_script("0")


def test_random_dice_draw_what_randint_draws() -> None:
    # the fast draw (1 + _randbelow) is randint(1, sides): seeds give the same fights as before
    import random

    for seed in range(20):
        fast, plain = RandomDice(seed), random.Random(seed)
        for sides in (1, 2, 3, 4, 6, 8, 10, 12, 20, 100, 1000) * 10:
            assert fast.roll(sides, "") == plain.randint(1, sides)


def test_reseeded_dice_draw_what_new_dice_of_that_seed_draw() -> None:
    # the simulator reuses one source, reseeded per fight: each fight's faces are those of RandomDice(seed)
    reused = RandomDice(5)
    reused.roll(20, "")  # part-way through another seed's faces
    for seed in (0, 1, 2**62 + 7, 2**63 - 2):
        fresh = RandomDice(seed)
        assert reused.reseed(seed) is reused and reused.seed == seed
        assert [reused.roll(s, "") for s in (20, 6, 10, 100) * 5] == [
            fresh.roll(s, "") for s in (20, 6, 10, 100) * 5
        ]


@pytest.mark.parametrize("text", ["1d8", "2d6+1d4-1", "3+1d6", "1d6+1d6+1d6+2", "7"])
def test_a_plain_sum_rolls_the_dice_the_tree_walk_rolls(text: str) -> None:
    from referee.dice import _evaluate

    expr = parse_dice(text)
    assert expr.plain is not None
    for seed in range(30):
        fast = roll(expr, RandomDice(seed), "damage")
        tape = DiceTape(RandomDice(seed))
        assert fast.total == _evaluate(expr.node, tape, "damage")
        assert fast.dice == tape.take()


def test_expressions_that_are_not_plain_sums_walk_the_tree() -> None:
    for text in ("2d20kh1", "(1d6)*2", "1d8-1d4", "4d6kh3"):
        assert parse_dice(text).plain is None
    assert roll("(1d6)*2", ScriptedDice([5])).total == 10
    assert roll("1d8-1d4", ScriptedDice([5, 3])).total == 2


SIMPLE_TEXTS = [
    "1d8",
    "d6",
    "2d4+1",
    "1d6-1",
    "3",
    "01d06",
    "1d6+0",
    "1d63",
    "1000d6",
    "1d1000",
    "0",
    "10d10-10",
]


@pytest.mark.parametrize(
    "text", [*SIMPLE_TEXTS, "+3", "-3", "0d6", "1d0", "1001d6", "1d1001", "1d6+-1", "d%"]
)
def test_a_simple_expression_read_without_d20_is_what_d20_reads(text: str) -> None:
    # `_simple` reads the common forms itself; where it does, everything agrees with d20's tree
    from referee.dice import _bound, _groups, _linear, _simple, _tree

    simple = _simple(text)
    assert (simple is not None) == (text in SIMPLE_TEXTS)
    if simple is None:
        return
    expr, node = parse_dice(text), _tree(text)
    linear = _linear(node, 1)
    assert linear is not None
    assert simple == (tuple((g.count, g.sides) for g in linear[0]), linear[1]) == expr.plain
    assert expr.groups() == list(_groups(node))
    assert (expr.minimum, expr.maximum) == (_bound(node, low=True), _bound(node, low=False))
    assert expr.linear() == linear
    assert str(expr.node) == str(node)  # the tree, parsed when first asked for
    assert expr == parse_dice(f" {text} ") and hash(expr) == hash(parse_dice(text))
    assert repr(expr) == f"DiceExpr(text={text!r})"


def test_an_expression_made_without_its_tree_stays_frozen() -> None:
    import dataclasses

    expr = parse_dice("1d8+1")
    assert "node" not in vars(expr)
    with pytest.raises(dataclasses.FrozenInstanceError):
        expr.text = "1d6"  # type: ignore[misc]
    assert [f.name for f in dataclasses.fields(expr)] == ["text", "node", "plain"]
    assert dataclasses.replace(expr, text="1d6").text == "1d6"
    with pytest.raises(AttributeError):
        _ = expr.nodes  # type: ignore[attr-defined]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789d+-", max_size=9))
def test_any_text_read_without_d20_is_read_the_same_by_d20(text: str) -> None:
    """Whatever `_simple` reads itself, d20 reads too, to the same sum (so refusals and their words stay
    d20's); anything it leaves alone is d20's to read or refuse."""
    from referee.dice import _linear, _simple, _tree

    simple = _simple(text)
    if simple is None:
        return
    linear = _linear(_tree(text), 1)
    assert linear is not None
    assert simple == (tuple((g.count, g.sides) for g in linear[0]), linear[1])
