"""Never silently under other rules: a house rule written where the rule lives reaches the simulator
(it changes the fast path's answer as it changes the event engine's), or the simulator refuses and
the run falls back to the event engine, saying why."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from tests.sim.cases import assert_samples_agree

from referee import sim
from referee.dice import DiceSource
from referee.files import Setup, setup_from_data
from referee.model import Combatant
from referee.rules import attack_roll, hit_points, initiative, targeting, turns
from referee.rules.ruleset import Ruleset

ENGINE_FIGHTS = 3000
FAST_FIGHTS = 100_000


def one_blow_duel() -> Setup:
    """Two fighters who fell each other with any hit: who acts first mostly wins (ODD-INIT-1)."""

    def fighter(name: str, dex: int) -> dict[str, Any]:
        return {"name": name, "kind": "character", "level": 1, "hit_die": "d8", "hp": 1, "attack_bonus": 10,
                "abilities": {"str": 10, "dex": dex, "con": 10, "int": 10, "wis": 10, "cha": 10},
                "weapons": [{"name": "sword", "damage": "1d6"}]}  # fmt: skip

    quick = {"name": "Quick", "combatants": [fighter("Nimble", 16)]}
    slow = {"name": "Slow", "combatants": [fighter("Plodder", 10)]}
    return setup_from_data({"sides": [quick, slow]})


def dex_initiative(original: Any) -> Any:
    """A house rule: d10 + (Dex - 10) // 3 (Nimble +2), ties still to the higher Dex."""

    def roll_unit(ruleset: Ruleset, unit: str, members: Any, number: int, dice: DiceSource) -> Any:
        rolled = original(ruleset, unit, members, number, dice)
        bonus = (members[0].abilities.dexterity - 10) // 3
        return replace(rolled, key=(rolled.key[0] + bonus, *rolled.key[1:]))

    return roll_unit


def test_an_initiative_house_rule_reaches_the_simulator(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: ODD-INIT-1, ODD-INIT-2 with a house rule in rules/initiative.py (d10 + Dex modifier)
    setup = one_blow_duel()
    before = sim.simulate(setup, FAST_FIGHTS, seed=1)
    monkeypatch.setattr(initiative, "roll_unit", dex_initiative(initiative.roll_unit))
    fast = sim.simulate(setup, FAST_FIGHTS, seed=2)
    slow = sim.simulate(setup, ENGINE_FIGHTS, seed=3, force_engine=True)
    assert fast.path == sim.VECTORISED, fast.reason
    assert_samples_agree(fast, slow)  # 3,000 engine fights see about 3.5 points here
    # the rule moves Nimble's chance a lot (about 0.55 → 0.72 of striking first)
    assert fast.win_rate("Quick") - before.win_rate("Quick") > 0.1


def test_a_hit_point_house_rule_reaches_the_simulator(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: ODD-HD-1, ODD-HD-2 with a house rule in rules/hit_points.py (the best of two rolls)
    def side(name: str, monster: str) -> dict[str, Any]:
        axe = {"name": "axe", "damage": "1d6"}
        return {"name": name, "combatants": [{"name": monster, "hit_dice": "1", "ac": 12, "weapons": [axe]}]}

    setup = setup_from_data({"sides": [side("A", "Orc"), side("B", "Gnoll")]})
    original = hit_points.roll_hit_points

    def best_of_two(c: Combatant, dice: DiceSource) -> int:
        first = original(c, dice)
        return max(first, original(c, dice)) if c.name == "Orc" else first

    before = sim.compile_setup(setup)
    monkeypatch.setattr(hit_points, "roll_hit_points", best_of_two)
    after = sim.compile_setup(setup)
    assert after.hp.table(0).mean() > before.hp.table(0).mean() + 1
    assert after.hp.table(1).tolist() == before.hp.table(1).tolist()


def test_a_target_house_rule_is_followed_or_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # the default tactics with a house rule in rules/targeting.py: the strongest enemy first
    from tests.conftest import angthar_data, make_setup

    setup = make_setup(angthar_data(goblins=2))
    monkeypatch.setattr(targeting, "target_priority", lambda hp, subdual, index: (-(hp - subdual), index))
    compiled, reason = sim.plan_run(setup)
    if compiled is None:
        assert reason  # refused, and the run says why
        return
    fast = sim.simulate(setup, FAST_FIGHTS, seed=4)
    assert_samples_agree(fast, sim.simulate(setup, 1000, seed=5, force_engine=True))


def test_an_end_rule_the_tables_cannot_carry_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: ODD-ROUND-4 with a house rule in rules/turns.py: the fight stops as soon as anyone falls
    from tests.conftest import angthar_data, make_setup

    original = turns.fight_end

    def first_blood(
        sides_standing: Any,
        round_no: int,
        max_rounds: int,
        round_over: bool,
        pending: bool = False,
        fallen_to_finish: bool = False,
    ) -> Any:
        if not round_over and len(sides_standing) > 1:
            return turns.FightEnd(None, "first blood", "HOUSE")
        return original(sides_standing, round_no, max_rounds, round_over, pending, fallen_to_finish)

    monkeypatch.setattr(turns, "fight_end", first_blood)
    result = sim.simulate(make_setup(angthar_data()), 5, seed=1)
    assert result.path == sim.EVENT_ENGINE and "middle of a round" in result.reason


def test_a_confirmation_house_rule_reaches_the_simulator(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: MF-CRIT-1 with a house rule in rules/attack_roll.py: no natural 20 is ever a critical
    from tests.sim.cases import assert_matches_exact, under

    from referee import odds

    setup = under("lucas_and_krieger.yaml", "mf")

    def mean_damage(compiled: sim.Compiled) -> float:
        return float(compiled.out_target[compiled.dmg.table(int(compiled.plan_index[0, 1, 0, 0, 0]))].mean())

    before = mean_damage(sim.compile_setup(setup))
    monkeypatch.setattr(attack_roll, "confirm_critical", lambda crit, dice: False)
    assert mean_damage(sim.compile_setup(setup)) < before
    result = sim.simulate(setup, FAST_FIGHTS, seed=6)
    exact = odds.fight_odds(setup)  # the exact odds follow the same procedure
    rounds = sum(float(p) * r for r, p in exact.rounds.items())
    wins = {side: float(p) for side, p in exact.wins.items()}
    assert_matches_exact(result, wins, float(exact.draw), float(exact.limit), rounds)
