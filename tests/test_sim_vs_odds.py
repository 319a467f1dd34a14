"""The fast simulator against the exact fight odds, with power: every example and preset the fast path
plays with at most odds.MAX_FIGHTERS combatants (tests/sim/cases.py lists them; the others fall back
to the event engine or are too big for the exact chain, so no case is generated for them).

The exact side has no error, so FIGHTS simulated fights put a 2-point difference in a win rate at
more than 4.5 standard errors (`fights_to_see(0.5)` is about 12,700); the draws, the round limit and
the mean rounds are checked the same way."""

from __future__ import annotations

import pytest
from tests.sim.cases import EXACT_CASES, assert_matches_exact, fights_to_see, under

from referee import odds, sim

FIGHTS = 100_000


def test_enough_fights_to_see_two_points() -> None:
    assert fights_to_see(0.5) <= FIGHTS


@pytest.mark.parametrize(("example", "preset"), EXACT_CASES)
def test_simulation_agrees_with_exact_odds(example: str, preset: str) -> None:
    setup = under(example, preset)
    result = sim.simulate(setup, FIGHTS, seed=3)
    assert result.path == sim.VECTORISED, result.reason
    exact = odds.fight_odds(setup)  # the exact odds take whatever the fast path plays
    rounds = sum(float(p) * r for r, p in exact.rounds.items())
    wins = {side: float(p) for side, p in exact.wins.items()}
    assert_matches_exact(result, wins, float(exact.draw), float(exact.limit), rounds)
