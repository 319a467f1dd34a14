"""The chance-node drivers: live, exact and requests agree on the same procedure."""

from __future__ import annotations

from fractions import Fraction

import pytest

from referee.chance import TooManyOutcomes, dice_requests, distribution, expectation, run
from referee.dice import DiceSource, ScriptedDice


def attack(dice: DiceSource) -> int:
    """A d20 against 11 or more; a hit rolls 1d6 damage."""
    if dice.roll(20, "attack") < 11:
        return 0
    return dice.roll(6, "damage")


def test_live_run_records_every_die_in_order() -> None:
    result, rolled = run(attack, ScriptedDice([15, 4]))
    assert result == 4
    assert [(d.sides, d.value, d.purpose) for d in rolled] == [(20, 15, "attack"), (6, 4, "damage")]


def test_exact_distribution_sums_every_way_through() -> None:
    dist = distribution(attack)
    assert dist[0] == Fraction(1, 2)
    assert all(dist[d] == Fraction(1, 12) for d in range(1, 7))
    assert sum(dist.values()) == 1
    assert expectation(dist, lambda d: d) == Fraction(7, 4)


def test_dice_requests_mark_the_conditional_die() -> None:
    asked = dice_requests(attack)
    assert [(r.sides, r.purpose, r.always) for r in asked] == [(20, "attack", True), (6, "damage", False)]


def test_a_walk_past_its_budget_is_refused_not_truncated() -> None:
    def many(dice: DiceSource) -> int:
        return sum(dice.roll(10, "d") for _ in range(6))

    with pytest.raises(TooManyOutcomes, match="more than 1,000 dice sequences"):
        distribution(many, limit=1000)
