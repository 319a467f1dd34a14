"""Combatants that start with conditions (issue 12): the attacks are compiled from a probe state that
carries them (a condition that lasts the whole fight), and from every state the fight can move them to:
a condition that ends after some rounds, or that an attack takes off (a sleeper who wakes)."""

from __future__ import annotations

from typing import Any

import pytest
from tests.conftest import angthar_data
from tests.sim.cases import assert_matches_exact, assert_samples_agree

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


def test_a_condition_that_ends_during_the_fight_is_carried() -> None:
    # rule: MOD-COND-FATIGUED for 3 rounds: the goblin's state moves on at the end of each round
    # (3 rounds left, 2, 1, none) and the attacks are compiled in each; against the engine's fights
    setup = goblin_with({"name": "fatigued", "rounds": 3})
    compiled, reason = sim.plan_run(setup)
    assert compiled is not None, reason
    assert compiled.round_end is not None
    goblin = list(compiled.names).index("Goblin")
    walk = [0]
    for _ in range(4):
        walk.append(int(compiled.round_end[goblin, walk[-1]]))
    assert len(set(walk)) == 4 and walk[-1] == walk[-2]  # three rounds fatigued, then as it stays
    fast = sim.simulate(setup, FAST_FIGHTS, seed=3)
    assert_samples_agree(fast, sim.simulate(setup, 3_000, seed=4, force_engine=True))


def test_a_condition_an_attack_changes_is_carried() -> None:
    # rule: MOD-COND-SLEEP-M: a sleeping goblin wakes when wounded: its state as a target and as an
    # attacker (asleep it waits, awake it attacks)
    compiled, reason = sim.plan_run(goblin_with("sleeping"))
    assert compiled is not None, reason
    assert compiled.attacker_states >= 2 and (compiled.out_wear >= 0).any()


@pytest.mark.parametrize("preset", ["mod", "mf"])
def test_an_invisible_foe_found_once_it_attacks_is_refused_with_the_reason(preset: str) -> None:
    # rule: MOD-COND-INVIS-1 (mod), MF-VIS-2 (mf): Angthar may attack the invisible goblin once it has
    # attacked him this round; the tables plan his attack with him unattacked, so the fast path refuses
    compiled, reason = sim.plan_run(goblin_with("invisible", preset))
    assert compiled is None
    assert "changes once Angthar has been attacked this round" in reason and "MOD-COND-INVIS-1" in reason
    result = sim.simulate(goblin_with("invisible", preset), 2, seed=1)
    assert result.path == sim.EVENT_ENGINE and result.reason == reason
