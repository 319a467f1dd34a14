"""Combatants that start with conditions (issue 12): the attacks are compiled from a probe state that
carries them, so a condition that lasts the whole fight and never changes an attack's plan runs fast."""

from __future__ import annotations

from typing import Any

import pytest
from tests.conftest import angthar_data
from tests.sim.cases import assert_matches_exact

from referee import odds, sim
from referee.files import Setup, setup_from_data

FAST_FIGHTS = 200_000


def goblin_with(condition: Any, preset: str = "mod") -> Setup:
    data = angthar_data(goblin_hp=None)
    data["ruleset"] = preset
    data["sides"][1]["combatants"][0]["conditions"] = [condition]
    return setup_from_data(data, "a goblin with a condition")


@pytest.mark.parametrize("condition", ["fatigued", "prone", "stunned", "held"])
def test_lasting_starting_conditions_match_the_exact_odds(condition: str) -> None:
    # rule: MOD-COND-FATIGUED, MOD-COND-PRONE, MOD-COND-STUN-1, MOD-COND-HELD (the mod preset's
    # conditions) as the engine applies them, against the exact chain
    setup = goblin_with(condition)
    result = sim.simulate(setup, FAST_FIGHTS, seed=2)
    assert result.path == sim.VECTORISED and not result.reason
    exact = odds.fight_odds(setup)
    wins = {side: float(p) for side, p in exact.wins.items()}
    rounds = sum(float(p) * r for r, p in exact.rounds.items())
    assert_matches_exact(result, wins, float(exact.draw), float(exact.limit), rounds)


def test_a_condition_that_ends_during_the_fight_is_refused() -> None:
    # rule: MOD-COND-FATIGUED for 3 rounds: the attacks change when it ends, so the engine plays it
    compiled, reason = sim.plan_run(goblin_with({"name": "fatigued", "rounds": 3}))
    assert compiled is None and "fatigued ends after round 3" in reason


def test_a_condition_an_attack_changes_is_refused() -> None:
    # rule: MOD-COND-SLEEP-M: a sleeping goblin wakes when wounded (a condition event the tables refuse)
    compiled, reason = sim.plan_run(goblin_with("sleeping"))
    assert compiled is None and "wakes" in reason and "starts with conditions" not in reason
