"""The fast simulator against the exact fight odds, with power: every example and preset the fast path
plays with at most cases.EXACT_COMBATANTS combatants (tests/sim/cases.py lists them; the others fall back
to the event engine or are too big for the exact chain, so no case is generated for them).

The exact side has no error, so FIGHTS simulated fights put a 2-point difference in a win rate at
more than 4.5 standard errors (`fights_to_see(0.5)` is about 12,700); the draws, the round limit and
the mean rounds are checked the same way."""

from __future__ import annotations

import pytest
from tests.sim.cases import EXACT_CASES, assert_matches_exact, fights_to_see, under

from referee import odds, sim
from referee.files import setup_from_data

FIGHTS = 100_000


def test_enough_fights_to_see_two_points() -> None:
    assert fights_to_see(0.5) <= FIGHTS


@pytest.mark.parametrize(("example", "preset"), EXACT_CASES)
def test_simulation_agrees_with_exact_odds(example: str, preset: str) -> None:
    setup = under(example, preset)
    compiled, reason = sim.plan_run(setup)
    assert compiled is not None, reason  # (tests/sim/cases.py lists the cases the fast path plays)
    result = sim.simulate(setup, FIGHTS, seed=3)
    assert result.path == sim.VECTORISED, result.reason
    exact = odds.fight_odds(setup)  # the exact odds take whatever the fast path plays
    rounds = sum(float(p) * r for r, p in exact.rounds.items())
    wins = {side: float(p) for side, p in exact.wins.items()}
    assert_matches_exact(result, wins, float(exact.draw), float(exact.limit), rounds)


def test_the_shield_fight_agrees_with_exact_odds() -> None:
    # rule: ODD-AC-SHIELD: a small shield covers one attacker a round; the second orc's attack in a
    # round meets the knight's AC without it (the exact odds once probed a round nobody had attacked in)
    knight = {"name": "Knight", "kind": "character", "level": 1, "hit_die": "d8", "hp": 12,
              "armour": "chain mail", "shield": "small shield", "weapons": [{"name": "mace", "damage": "1d4"}]}  # fmt: skip
    orc = {
        "name": "Orc",
        "count": 2,
        "hit_dice": "1",
        "hp": 4,
        "ac": 14,
        "weapons": [{"name": "axe", "damage": "1d4"}],
    }
    sides = [{"name": "Knight", "combatants": [knight]}, {"name": "Orcs", "combatants": [orc]}]
    setup = setup_from_data({"sides": sides})
    compiled = sim.compile_setup(setup)
    assert compiled.plan_index.shape[2] > 1  # the tables count the attackers on the knight
    result = sim.simulate(setup, FIGHTS, seed=5)
    exact = odds.fight_odds(setup)
    rounds = sum(float(p) * r for r, p in exact.rounds.items())
    wins = {side: float(p) for side, p in exact.wins.items()}
    assert_matches_exact(result, wins, float(exact.draw), float(exact.limit), rounds)
