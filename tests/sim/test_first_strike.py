"""First strike in round 1 (ODD-INIT-5, ODD-INIT-6) with any number of initiative dice: the table of who
moves before whom, walked as initiative.apply_first_strike walks the order."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest
from tests.conftest import EXAMPLES
from tests.sim.cases import assert_matches_exact, assert_samples_agree

from referee import odds, sim
from referee.files import Setup, load_encounter, setup_from_data
from referee.rules import initiative
from referee.sim import first_strike

FAST_FIGHTS = 200_000
ENGINE_FIGHTS = 600  # event-engine fights of the eleven-combatant melee (~30 ms each)
OGRE = {"name": "Ogre", "hit_dice": "4+1", "ac": 15, "size": "large",
        "weapons": [{"name": "club", "damage": "1d10"}]}  # fmt: skip


def skirmish_with_an_ogre() -> Setup:
    """Four adventurers against six orcs and a Large ogre: eleven initiative dice."""
    data: dict[str, Any] = copy.deepcopy(dict(load_encounter(EXAMPLES / "skirmish.yaml").source))
    data["sides"][1]["combatants"].append(OGRE)
    return setup_from_data(data, "skirmish and an ogre")


def large_on_both_sides() -> Setup:
    """Each side has a Large creature with first strike over the other's man-sized one (moves chain)."""
    troll = {**OGRE, "name": "Troll", "hp": 9}
    return setup_from_data({"sides": [
        {"name": "Party", "combatants": [
            {"name": "Fighter", "kind": "character", "level": 2, "hit_die": "d10", "hp": 9,
             "armour": "chain mail", "weapons": ["long sword"]}, troll]},
        {"name": "Monsters", "combatants": [
            {**OGRE, "hp": 10}, {"name": "Goblin", "hit_dice": "1d6", "hp": 4, "ac": 12,
                                 "weapons": [{"name": "scimitar", "damage": "1d6"}]}]},
    ]}, "large on both sides")  # fmt: skip


def moves_seen(setup: Setup, orders: int) -> int:
    """How many random rolled orders apply_first_strike changes (so the check below is not idle)."""
    rng = np.random.default_rng(2)
    names = [c.name for c in setup.combatants]
    by_name = {c.name: c for c in setup.combatants}
    changed = 0
    for _ in range(orders):
        rolls = [initiative.UnitRoll(n, 0, (int(rng.integers(1, 4)),)) for n in names]
        order = initiative.order_from_rolls(setup.ruleset, rolls, {n: [n] for n in names})
        changed += bool(initiative.apply_first_strike(order, by_name)[1])
    return changed


@pytest.mark.parametrize("make", [skirmish_with_an_ogre, large_on_both_sides])
def test_the_walk_orders_random_rounds_as_apply_first_strike(make: Any) -> None:
    # rule: ODD-INIT-5 (who has first strike), ODD-INIT-6 (moved before that enemy, alone, in round 1)
    setup = make()
    pairs = first_strike.moves_before(setup)
    assert pairs is not None
    first_strike.check_moves(setup, pairs, orders=3000)  # raises Unsupported on any difference
    assert moves_seen(setup, 300) > 100


def test_a_first_strike_rule_the_table_cannot_carry_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: ODD-INIT-5: a house rule replacing apply_first_strike (here: nobody moves) reaches the check
    monkeypatch.setattr(initiative, "apply_first_strike", lambda slots, combatants: (slots, []))
    setup = skirmish_with_an_ogre()
    compiled, reason = sim.plan_run(setup)
    assert compiled is None and "first strike" in reason


def test_four_against_six_orcs_and_an_ogre_runs_on_the_fast_path() -> None:
    # rule: ODD-INIT-5/6 with eleven initiative dice (once refused past six); both kernels, the engine
    setup = skirmish_with_an_ogre()
    compiled, reason = sim.plan_run(setup)
    assert compiled is not None and compiled.first_strike is not None, reason
    fast = sim.simulate(setup, FAST_FIGHTS, seed=3)
    assert fast.path == sim.VECTORISED and not fast.reason
    if sim.numba_play() is not None:
        assert_samples_agree(fast, sim.simulate(setup, FAST_FIGHTS, seed=4, kernel=sim.NUMPY))
    assert_samples_agree(fast, sim.simulate(setup, ENGINE_FIGHTS, seed=5, workers=2, force_engine=True))


def test_first_strike_on_both_sides_matches_the_exact_odds() -> None:
    # rule: ODD-INIT-5/6: moves on both sides, each kernel against the exact chain (full power)
    setup = large_on_both_sides()
    exact = odds.fight_odds(setup)
    wins = {side: float(p) for side, p in exact.wins.items()}
    rounds = sum(float(p) * r for r, p in exact.rounds.items())
    for kernel in (sim.NUMBA, sim.NUMPY) if sim.numba_play() else (sim.NUMPY,):
        result = sim.simulate(setup, FAST_FIGHTS, seed=1, kernel=kernel)
        assert result.path == sim.VECTORISED and result.kernel == kernel, result.reason
        assert_matches_exact(result, wins, float(exact.draw), float(exact.limit), rounds)
