"""The exact walk of the event engine (src/referee/exact_engine.py): hand-checked fights, the exact odds'
Markov chain on a duel where both apply, the event engine's own random fights, and its budgets."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from tests.conftest import EXAMPLES, angthar_data, make_setup

from referee import odds
from referee.dice import RandomDice
from referee.engine import tactics
from referee.engine.actions import Action
from referee.engine.fight import Fight, run_fight
from referee.engine.state import FightState
from referee.exact_engine import ExactEngineBudget, exact_fight, state_key
from referee.files import load_encounter
from referee.setup import Setup


def one_hp_duel(max_rounds: int) -> Setup:
    """A (AC 16) and B (AC 11): 1 hit point each, no bonus to hit, equal Dexterity, a club doing 1."""

    def side(name: str, ac: int) -> dict[str, Any]:
        fighter = {"name": name, "level": 1, "attack_bonus": 0, "hp": 1, "ac": ac,
                   "abilities": {"str": 10, "dex": 10}, "weapons": [{"name": "club", "damage": "1"}]}  # fmt: skip
        return {"name": name, "combatants": [fighter]}

    return make_setup({"name": "one-hp duel", "ruleset": "odd", "max_rounds": max_rounds,
                       "sides": [side("A", 16), side("B", 11)]})  # fmt: skip


def test_the_hand_checked_duel_uses_the_numbers_the_hand_calculation_assumes() -> None:
    # rule: ODD-ATK-1 (d20 + 0 ≥ AC: A needs 11 on B, B needs 16 on A)
    fight = run_fight(one_hp_duel(1), RandomDice(1))
    numbers = {e.actor: e.target_number for e in fight.events if e.type == "attack"}
    assert numbers == {"A": 11, "B": 16}


@pytest.mark.parametrize("max_rounds", [1, 2])
def test_one_hp_duel_matches_the_hand_calculation(max_rounds: int) -> None:
    # rule: ODD-INIT-1, ODD-INIT-2, ODD-INIT-3 (d10 each; a tie with equal Dex is simultaneous: both strike),
    # ODD-ATK-1, ODD-ATK-2 (any hit drops a 1-hp target), ODD-ROUND-4 (the round limit)
    a, b = Fraction(1, 2), Fraction(1, 4)  # A hits on 11+, B on 16+
    first, tie = Fraction(45, 100), Fraction(10, 100)  # A higher, B higher (same), equal d10s
    a_wins = first * a + first * (1 - b) * a + tie * a * (1 - b)
    b_wins = first * (1 - a) * b + first * b + tie * (1 - a) * b
    draw = tie * a * b  # both drop at once: no side left
    going_on = (1 - a) * (1 - b)  # nobody hit, whatever the order
    assert a_wins + b_wins + draw + going_on == 1
    repeats = sum((going_on**k for k in range(max_rounds)), Fraction(0))
    result = exact_fight(one_hp_duel(max_rounds))
    assert result.wins == {"A": a_wins * repeats, "B": b_wins * repeats}
    assert result.draw == draw * repeats
    assert result.limit == going_on**max_rounds
    assert result.rounds[1] == (1 - going_on if max_rounds > 1 else 1)
    assert result.total() == 1
    assert not result.rolls_in_key


def small_duel(max_rounds: int = 3) -> Setup:
    """Angthar (6 hp, battle axe) against a goblin (4 hp, scimitar)."""
    data = angthar_data(goblin_hp=4, max_rounds=max_rounds)
    data["sides"][0]["combatants"][0]["hp"] = 6
    return make_setup(data)


def test_agrees_exactly_with_the_exact_odds_on_a_small_duel() -> None:
    # rule: ODD-INIT-1, ODD-ATK-1, ODD-ATK-2, ODD-HP-1 (both paths: the whole fight, default tactics)
    setup = small_duel(2)
    walked = exact_fight(setup)
    chain = odds.fight_odds(setup, exact=True)
    for side in setup.sides:
        assert abs(walked.wins[side] - chain.wins[side]) <= 1e-9
    assert abs(walked.draw - chain.draw) <= 1e-9
    assert abs(walked.limit - chain.limit) <= 1e-9
    for number, p in chain.rounds.items():
        assert abs(walked.rounds.get(number, Fraction(0)) - p) <= 1e-9


def test_agrees_with_the_engine_s_own_random_fights_where_positions_change() -> None:
    # rule: ODD-CHARGE-1 (examples/charge.yaml: grid positions and a scripted charge, round 1 only)
    setup = replace(load_encounter(EXAMPLES / "charge.yaml"), max_rounds=1)
    walked = exact_fight(setup)
    n = 1000
    fights = [run_fight(setup, RandomDice(seed)) for seed in range(n)]
    for side in setup.sides:
        p = float(walked.wins[side])
        seen = sum(f.state.winner == side for f in fights) / n
        assert abs(seen - p) <= 4.5 * math.sqrt(max(p * (1 - p), 1e-12) / n) + 1e-12, (side, seen, p)


def test_a_rule_that_reads_the_initiative_rolls_puts_them_in_the_key() -> None:
    # the rolls are left out of the key only while nothing reads them after the order is made
    def reading(state: FightState, actor: str) -> Action:
        state.rolls.get(actor)
        return tactics.choose_action(state, actor)

    setup = one_hp_duel(1)
    plain, watched = exact_fight(setup), exact_fight(setup, choose=reading)
    assert watched.rolls_in_key and not plain.rolls_in_key
    assert (watched.wins, watched.draw, watched.limit) == (plain.wins, plain.draw, plain.limit)
    assert watched.states > plain.states  # the rolls split states the order alone would merge


def test_the_state_key_sees_every_field_of_the_state() -> None:
    fight = Fight(one_hp_duel(1))
    fight.begin(RandomDice(1))
    before = state_key(fight)
    fight.state["A"].deflections_used = 1  # a field no snapshot shows
    assert state_key(fight) != before
    fight.state["A"].deflections_used = 0
    assert state_key(fight) == before
    fight.state.rolls = {"A": 3}
    assert state_key(fight) != before and state_key(fight, rolls=False) == state_key(
        Fight(fight.setup, fight.events), rolls=False
    )


def test_too_many_live_states_is_refused_with_the_figure() -> None:
    with pytest.raises(ExactEngineBudget, match="more than 3 live states") as caught:
        exact_fight(small_duel(3), max_states=3)
    assert "\n" not in str(caught.value)


def test_a_step_with_too_many_dice_sequences_is_refused_up_front() -> None:
    # four goblins of 1d6 hit points: 6**3 ways to roll them, and 10**4 initiative rolls a round
    setup = make_setup(angthar_data(goblins=3, goblin_hp=None, max_rounds=2))
    with pytest.raises(ExactEngineBudget, match=r"about 216 dice sequences, more than 100") as caught:
        exact_fight(setup, max_sequences=100)
    assert "\n" not in str(caught.value)


def test_a_walk_over_its_whole_budget_is_refused_before_it_runs() -> None:
    setup = make_setup(angthar_data(goblins=3, goblin_hp=None, max_rounds=2))
    with pytest.raises(ExactEngineBudget, match=r"needs more than 50,000 dice sequences \(about [\d,]+"):
        exact_fight(setup, max_work=50_000)


def test_budgets_must_be_positive() -> None:
    with pytest.raises(ExactEngineBudget, match="at least 1"):
        exact_fight(one_hp_duel(1), max_states=0)
