"""A free attack back (MF-FUMBLE-2) meets the deflections the attacker who fumbled has spent this round
(DAC-DEFL-3), and a later attack meets those a blow back spent: the fast path's tables for
`house_rules_duel.yaml` under `dac` against the engine's own resolution, exactly, in states the engine's
own fights reach. (Their effect on the fight's odds is below a tenth of a point, beyond what any sample
of fights could see: the comparison is made attack by attack, where it is exact.)"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction

import pytest
from tests.sim.cases import under

from referee import sim
from referee.dice import RandomDice
from referee.engine import outcomes
from referee.engine.actions import Attack
from referee.engine.fight import Fight
from referee.engine.state import FightState
from referee.engine.tactics import choose_action
from referee.files import Setup
from referee.sim import blow_backs

Read = tuple[int, int, int, int, int]  # damage to the target, to the attacker, attacks back, spent on each


def table_effects(compiled: sim.Compiled, plan: int) -> dict[Read, Fraction]:
    entries = compiled.dmg.table(plan).tolist()
    out: dict[Read, Fraction] = {}
    for o in entries:
        key = (int(compiled.out_target[o]), int(compiled.out_attacker[o]), int(compiled.out_back[o]),
               int(compiled.out_spent[o]), int(compiled.out_spent_back[o]))  # fmt: skip
        out[key] = out.get(key, Fraction(0)) + Fraction(1, len(entries))
    return out


def engine_effects(state: FightState, action: Attack) -> dict[Read, Fraction]:
    out: dict[Read, Fraction] = {}
    for (outcome, spent, spent_back, *_), p in outcomes.attack_effects_distribution(state, action).items():
        key = (*outcome, spent, spent_back)
        out[key] = out.get(key, Fraction(0)) + p
    return out


def first_state(setup: Setup, wanted: Callable[[FightState, str], bool]) -> tuple[FightState, str]:
    """The first state of the engine's own fights (seeds 0, 1, ...) where `wanted(state, actor)` holds
    for the combatant about to act."""
    for seed in range(500):
        fight = Fight(setup)
        dice = RandomDice(seed)
        while not fight.is_over():
            actor = fight.next_actor() if fight.needs() == "action" else None
            if actor is not None and wanted(fight.state, actor):
                return fight.state, actor
            fight.step(choose_action, dice)
    raise AssertionError("no fight reached the state")


def cell(compiled: sim.Compiled, state: FightState, actor: str, target: str) -> int:
    """The plan the kernels look up for `actor`'s attack on `target` in `state`."""
    names = list(compiled.names)
    a, t = names.index(actor), names.index(target)
    k = min(len(state[target].attackers_this_round), compiled.plan_index.shape[2] - 1)
    back = compiled.back_spent
    top = compiled.plan_index.shape[3] // back - 1
    u = min(state[target].deflections_used, top) * back + min(state[actor].deflections_used, back - 1)
    return int(compiled.plan_index[a, t, k, u, 0])


def test_a_blow_back_meets_the_deflections_the_attacker_spent_as_in_the_engine() -> None:
    # rule: MF-FUMBLE-2, DAC-DEFL-3 (a small shield deflects once a round, GAP-SHIELD-USES): a bandit who
    # fumbles after Angthar's blow spent his deflection is struck back more often (14/400, not 13/400)
    setup = under("house_rules_duel.yaml", "dac")
    compiled = sim.compile_setup(setup)
    assert compiled.back_spent == 2  # the attacker's deflections spent are counted
    found = []
    for spent in (0, 1):
        state, actor = first_state(
            setup, lambda s, who, n=spent: who.startswith("Bandit") and s[who].deflections_used == n
        )
        action = choose_action(state, actor)
        assert isinstance(action, Attack) and action.target == "Angthar"
        plan = cell(compiled, state, actor, "Angthar")
        assert table_effects(compiled, plan) == engine_effects(state, action)
        found.append(table_effects(compiled, plan))
    struck = [sum(p for o, p in f.items() if o[1] > 0) for f in found]
    assert struck == [Fraction(13, 400), Fraction(14, 400)]


def test_a_later_attack_meets_the_deflection_a_blow_back_spent_as_in_the_engine() -> None:
    # rule: MF-FUMBLE-2, DAC-DEFL-3: Angthar's free attack back spent the bandit's deflection; Angthar's own
    # attack later in the round meets the bandit without it (hits on 7 in 10, not 13 in 20)
    setup = under("house_rules_duel.yaml", "dac")
    compiled = sim.compile_setup(setup)

    def struck_back_first(s: FightState, who: str) -> bool:  # the bandit Angthar attacks: struck back
        if who != "Angthar":
            return False
        target = s[getattr(choose_action(s, who), "target", "") or who]
        return target.deflections_used == 1 and "Angthar" in target.attackers_this_round

    state, actor = first_state(setup, struck_back_first)
    action = choose_action(state, actor)
    assert isinstance(action, Attack) and state[action.target].deflections_used == 1
    plan = cell(compiled, state, actor, action.target)
    effects = table_effects(compiled, plan)
    assert effects == engine_effects(state, action)
    assert sum(p for o, p in effects.items() if o[0] > 0) == Fraction(7, 10)


def test_a_blow_back_that_meets_the_attacker_s_shield_as_its_own_attackers_leave_it_is_refused() -> None:
    # rule: MF-FUMBLE-2, ODD-AC-SHIELD (a small shield covers one opponent a round): Tomas, attacked already
    # by an orc this round, fumbles on another orc; that orc's free attack back finds his shield taken by
    # the first. The tables resolve a blow back with the attacker's own attackers left out: the engine's
    # own resolution differs there, so the fast path refuses, naming the rules, and the engine plays it
    setup = under("skirmish.yaml", "mf")

    def attacked_then_attacks_another(s: FightState, who: str) -> bool:
        action = choose_action(s, who)
        mine = s[who].attackers_this_round
        return who == "Tomas" and isinstance(action, Attack) and bool(mine) and action.target not in mine

    state, actor = first_state(setup, attacked_then_attacks_another)
    action = choose_action(state, actor)
    assert isinstance(action, Attack)
    alone = replace(state[actor], attackers_this_round=[])  # as the tables would resolve it
    unattacked = replace(state, combatants={**state.combatants, actor: alone})
    struck = [sum(p for o, p in engine_effects(s, action).items() if o[1] > 0) for s in (unattacked, state)]
    assert struck[0] < struck[1]  # the shield's cover is there unattacked, gone once attacked
    compiled, reason = sim.plan_run(setup)
    assert compiled is None
    assert (
        "MF-FUMBLE-2" in reason and "ODD-AC-SHIELD" in reason and "not carried by the fast tables" in reason
    )
    assert reason.startswith("a blow back (MF-FUMBLE-2) by ") and "shield" in reason


def test_a_shield_bearer_s_blow_backs_are_carried_where_only_the_target_can_have_attacked_it() -> None:
    # rule: MF-FUMBLE-2, ODD-AC-SHIELD: in a duel the only attacker of one who fumbles is the one it
    # fumbled on, whom its shield faces either way: lucas_and_krieger.yaml (shields on both) stays fast
    compiled, reason = sim.plan_run(under("lucas_and_krieger.yaml", "mf"))
    assert compiled is not None and compiled.hits_back, reason


def test_a_count_of_attacks_that_can_run_ahead_of_the_distinct_attackers_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # rule: MF-FUMBLE-2, ODD-AC-SHIELD: the kernels count the attacks a combatant received this round; one
    # struck back by a foe who attacked it already (or attacks it later) is counted twice. Where a combatant
    # with several enemies can draw a blow back and the attacks on it change with the count, refused, even
    # where the blow backs themselves would be carried (the check of the attacker's own attackers off here)
    monkeypatch.setattr(blow_backs, "check_own_attackers", lambda *_: None)
    compiled, reason = sim.plan_run(under("skirmish.yaml", "mf"))
    assert compiled is None
    assert "can draw a blow back (MF-FUMBLE-2)" in reason and "not its distinct attackers" in reason
    assert sim.plan_run(under("house_rules_duel.yaml", "mf"))[0] is not None  # no count changes an attack
