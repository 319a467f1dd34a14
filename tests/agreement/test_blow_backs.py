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


def place(among: list[str], who: str) -> int:
    """`who`'s place among a combatant's attackers this round, or their count (the kernels' K and J)."""
    return among.index(who) if who in among else len(among)


def cell(compiled: sim.Compiled, state: FightState, actor: str, target: str, own: int | None = None) -> int:
    """The plan the kernels look up for `actor`'s attack on `target` in `state` (`own`: J instead of the
    target's place among the actor's attackers)."""
    names = list(compiled.names)
    a, t = names.index(actor), names.index(target)
    k = min(place(state[target].attackers_this_round, actor), compiled.plan_index.shape[2] - 1)
    back, own_count = compiled.back_spent, compiled.own_count
    top = compiled.plan_index.shape[3] // (back * own_count) - 1
    u = min(state[target].deflections_used, top) * back + min(state[actor].deflections_used, back - 1)
    j = place(state[actor].attackers_this_round, target) if own is None else own
    return int(compiled.plan_index[a, t, k, u * own_count + min(j, own_count - 1), 0])


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


def test_a_blow_back_meets_the_attacker_s_shield_as_its_own_attackers_leave_it_as_in_the_engine() -> None:
    # rule: MF-FUMBLE-2, ODD-AC-SHIELD (a small shield covers one opponent a round): Tomas, attacked already
    # by an orc this round, fumbles on another orc; that orc's free attack back finds his shield taken by
    # the first (struck back 7 in 400, not 6 in 400 as with the shield free). The tables carry the
    # target's place among the attacker's own attackers (J) and give the engine's own resolution there
    setup = under("skirmish.yaml", "mf")

    def attacked_then_attacks_another(s: FightState, who: str) -> bool:
        action = choose_action(s, who)
        mine = s[who].attackers_this_round
        return who == "Tomas" and isinstance(action, Attack) and bool(mine) and action.target not in mine

    state, actor = first_state(setup, attacked_then_attacks_another)
    action = choose_action(state, actor)
    assert isinstance(action, Attack)
    compiled, reason = sim.plan_run(setup)
    assert compiled is not None, reason
    assert compiled.own_count > 1  # J is compiled: some blow back reads it
    plan = cell(compiled, state, actor, action.target)
    assert table_effects(compiled, plan) == engine_effects(state, action)
    alone = replace(state[actor], attackers_this_round=[])  # the shield free, as J = 0 holds it
    unattacked = replace(state, combatants={**state.combatants, actor: alone})
    assert table_effects(compiled, cell(compiled, state, actor, action.target, 0)) == engine_effects(
        unattacked, action
    )
    struck = [
        sum(
            p
            for o, p in table_effects(compiled, cell(compiled, state, actor, action.target, j)).items()
            if o[1]
        )
        for j in (0, 1)
    ]
    assert struck == [Fraction(6, 400), Fraction(7, 400)]


@pytest.mark.parametrize("example", ["skirmish.yaml", "preset_full.yaml"])
def test_every_attack_of_the_engine_s_fights_finds_the_engine_s_resolution_in_the_tables(
    example: str,
) -> None:
    # rule: MF-FUMBLE-2, ODD-AC-SHIELD: in the states of the engine's own fights under `mf` (rounds after the
    # first), each attack's table the kernels look up — K from the attacker's place among the target's
    # distinct attackers (or their count), J from the target's place among the attacker's — is the
    # engine's own resolution, exactly; among them attacks with the attacker beset (J > 0) and attacks
    # on one the attacker struck back earlier in the round (K from its place)
    setup = under(example, "mf")
    compiled, reason = sim.plan_run(setup)
    assert compiled is not None, reason
    assert compiled.plan_index.shape[4] == 1 and compiled.round_plans is None
    seen = {"attacks": 0, "beset": 0, "struck back before": 0}
    for seed in range(60):
        fight = Fight(setup)
        dice = RandomDice(seed)
        while not fight.is_over() and seen["attacks"] < 120:
            actor = fight.next_actor() if fight.needs() == "action" else None
            state = fight.state
            if actor is not None and state.round > 1:
                action = choose_action(state, actor)
                if isinstance(action, Attack):
                    plan = cell(compiled, state, actor, action.target)
                    assert table_effects(compiled, plan) == engine_effects(state, action), (seed, actor)
                    seen["attacks"] += 1
                    seen["beset"] += bool(state[actor].attackers_this_round)
                    seen["struck back before"] += actor in state[action.target].attackers_this_round
            fight.step(choose_action, dice)
    assert seen["attacks"] == 120 and seen["beset"] > 10, seen
    if example == "skirmish.yaml":
        assert compiled.own_count > 1


def test_an_attack_on_one_the_attacker_struck_back_finds_its_place_among_the_attackers() -> None:
    # rule: MF-FUMBLE-2, ODD-AC-SHIELD: an orc who struck Tomas back after Tomas's fumble attacks him on its
    # own turn: it is one of his attackers already (the engine's list holds it once), so K is its place
    # there, not a count of attacks; the table is the engine's own resolution
    setup = under("skirmish.yaml", "mf")
    compiled, reason = sim.plan_run(setup)
    assert compiled is not None, reason

    def struck_back_before(s: FightState, who: str) -> bool:
        action = choose_action(s, who)
        return isinstance(action, Attack) and who in s[action.target].attackers_this_round

    state, actor = first_state(setup, struck_back_before)
    action = choose_action(state, actor)
    assert isinstance(action, Attack)
    assert table_effects(compiled, cell(compiled, state, actor, action.target)) == engine_effects(
        state, action
    )


def test_a_blow_back_that_changes_with_more_than_the_target_s_place_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # rule: MF-FUMBLE-2, ODD-AC-SHIELD: J gives the target's place among the attacker's attackers, or their
    # count; a resolution that also changes with whether the target is among them cannot be told apart
    # and is refused (here made to differ), as is a plan that changes once the attacker struck its target
    # back (K gives its place then)
    real = blow_backs.check_own_attackers

    def differs(attacker: str, target: str, found: object, present: object) -> None:
        real(attacker, target, found, None)  # type: ignore[arg-type]

    monkeypatch.setattr(blow_backs, "check_own_attackers", differs)
    compiled, reason = sim.plan_run(under("skirmish.yaml", "mf"))
    assert compiled is None
    assert reason.startswith("a blow back (MF-FUMBLE-2) by ") and "ODD-AC-SHIELD" in reason
    monkeypatch.setattr(blow_backs, "check_own_attackers", real)
    monkeypatch.setattr(blow_backs, "check_present_plan", lambda *_: real("A", "B", {}, None))  # type: ignore[arg-type]
    assert sim.plan_run(under("skirmish.yaml", "mf"))[0] is None


def test_a_shield_bearer_s_blow_backs_are_carried_where_only_the_target_can_have_attacked_it() -> None:
    # rule: MF-FUMBLE-2, ODD-AC-SHIELD: in a duel the only attacker of one who fumbles is the one it
    # fumbled on, whom its shield faces either way: lucas_and_krieger.yaml (shields on both) needs no J
    compiled, reason = sim.plan_run(under("lucas_and_krieger.yaml", "mf"))
    assert compiled is not None and compiled.hits_back and compiled.own_count == 1, reason
