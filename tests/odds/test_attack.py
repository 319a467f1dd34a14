"""One attack's odds (referee.odds.attack) follow the engine's procedures in rules/attack_roll.py."""

from __future__ import annotations

from fractions import Fraction

import pytest
from tests.conftest import make_setup
from tests.test_odds import assert_matches_engine, duel_data

from referee import odds
from referee.dice import DiceSource
from referee.engine.actions import Attack
from referee.odds import attack as attack_odds
from referee.rules import attack_roll
from referee.rules.attack import CriticalPlan


def test_a_changed_confirmation_procedure_reaches_the_odds(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: HR-CRIT-1 replaced by a house rule (confirm on 11-20) where the confirmation lives: the
    # engine and the exact odds both follow it (issue 11, the confirmation drift)
    setup = make_setup(duel_data(critical_hits="confirm_16_20"))
    state = odds.opening_state(setup)
    attack = Attack("Hero", target="Orc")
    assert odds.action_odds(state, attack).critical == Fraction(1, 20) * Fraction(5, 20)

    def generous(crit: CriticalPlan, dice: DiceSource) -> bool:
        return not crit.confirms_critical or dice.roll(20, "critical confirmation") >= 11

    monkeypatch.setattr(attack_roll, "confirm_critical", generous)
    result = assert_matches_engine(state, attack)
    assert result.critical == Fraction(1, 20) * Fraction(10, 20)


def test_a_changed_damage_procedure_reaches_the_odds(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: ODD-ATK-2 replaced by a house rule (every hit deals at least 3) where the damage roll lives
    setup = make_setup(duel_data())
    state = odds.opening_state(setup)
    plain = attack_roll.roll_damage

    def at_least_three(plan: object, outcome: object, dice: DiceSource) -> tuple[int, object, str]:
        amount, mods, how = plain(plan, outcome, dice)  # type: ignore[arg-type]
        return max(3, amount), mods, how

    monkeypatch.setattr(attack_roll, "roll_damage", at_least_three)
    result = assert_matches_engine(state, Attack("Hero", target="Orc"))
    assert min(result.damage_on_hit) == 3


@pytest.mark.parametrize(
    ("damage", "walked"),
    [("1d4+1", True), ("2d6-1", True), ("1d6+1d4", True), ("3d6", True), ("2d4*2", True), ("4d6kh3", False)],
)
def test_a_few_damage_dice_walked_give_icepools_sum(
    monkeypatch: pytest.MonkeyPatch, damage: str, walked: bool
) -> None:
    # rule: ODD-ATK-2: a few dice are walked through the engine's own damage roll, more are summed by
    # icepool; the same chances, in the same order (by amount), either way
    data = duel_data()
    data["sides"][0]["combatants"][0]["weapons"] = [{"name": "club", "damage": damage}]
    state = odds.opening_state(make_setup(data))
    attack = Attack("Hero", target="Orc")
    first = odds.action_odds(state, attack)
    monkeypatch.setattr(attack_odds, "SMALL_WALK", 0 if walked else 10**6)  # now the other way
    attack_odds._damage_distribution.cache_clear()
    attack_odds._roll_summary.cache_clear()
    other = odds.action_odds(state, attack)
    assert other == first
    assert list(other.damage) == list(first.damage)
    assert list(other.drop_status) == list(first.drop_status)
