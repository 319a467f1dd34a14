"""engine/outcomes.py: the probe state and what one attack does, as the exact odds and the simulator read it."""

from __future__ import annotations

from fractions import Fraction

import pytest
from tests.conftest import make_setup
from tests.test_odds import duel_data

from referee.engine import outcomes, plan_reads, resolve
from referee.engine.actions import Attack
from referee.rules import memo, registry
from referee.rules.attack import Effect


def test_probe_state_sets_hit_points_round_and_earlier_attackers() -> None:
    # rule: ODD-AC-SHIELD (attackers this round are read from the state), ODD-ROUND-4 (the round number)
    setup = make_setup(duel_data())
    state = outcomes.probe_state(setup, {"Orc": 2}, number=3, earlier={"Orc": ["Hero"]})
    assert state.round == 3
    assert state["Orc"].hp == 2 and state["Hero"].hp == outcomes.PROBE_HP
    assert state["Orc"].attackers_this_round == ["Hero"]


def test_the_outcome_distribution_is_the_engine_s_damage() -> None:
    # rule: ODD-ATK-1, ODD-ATK-2: +2 BTH +1 Str vs AC 15 hits on 12+ (9 in 20); 1d4+1 +1 Str on a hit
    setup = make_setup(duel_data())
    dist = outcomes.attack_outcome_distribution(outcomes.probe_state(setup), Attack("Hero", target="Orc"))
    assert dist[(0, 0, 0)] == Fraction(11, 20)
    assert {o: p for o, p in dist.items() if o[0]} == {(d, 0, 0): Fraction(9, 80) for d in range(3, 7)}


def test_a_fumble_s_free_attack_back_is_damage_to_the_attacker() -> None:
    # rule: MF-FUMBLE-2: a fumble gives the target a free attack on the fumbler
    setup = make_setup(duel_data(fumbles="free_attack_or_ally_reroll"))
    dist = outcomes.attack_outcome_distribution(outcomes.probe_state(setup), Attack("Hero", target="Orc"))
    back = sum((p for (_t, _a, n), p in dist.items() if n), Fraction(0))
    assert back == Fraction(1, 20)
    assert any(to_attacker for (_t, to_attacker, _n) in dist)


def test_anything_else_is_refused_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: HR-NET-1 kind of attacks (a condition on a hit) are more than an Outcome can say
    monkeypatch.setattr(
        registry, "EFFECT_RULES", [lambda ctx: [("hit", Effect("entangled", "defender", None, "HR-NET-1"))]]
    )
    setup = make_setup(duel_data())
    with pytest.raises(outcomes.UnsupportedOutcome, match="more than damage"):
        outcomes.attack_outcome_distribution(outcomes.probe_state(setup), Attack("Hero", target="Orc"))


def _counted(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[int]:
    calls = [0]
    real = getattr(module, name)

    def counting(*args: object, **kwargs: object) -> object:
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return calls


def test_an_exact_walk_plans_its_attack_once_and_tells_each_roll_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """GAP-ADV (advantage keeps the higher of 2d20), ODD-ATK-1, ODD-ATK-2: the walk over every sequence of
    dice resolves one attack in one state, so its plan is found once and the ATTACK event of each pair of
    d20s is told once, not once per sequence; the distribution is the one worked out with the caches off."""
    monkeypatch.setattr(registry, "ADVANTAGE_RULES", [lambda ctx: [(1, "GAP-ADV", "a test's advantage")]])
    setup = make_setup(duel_data())
    state, action = outcomes.probe_state(setup), Attack("Hero", target="Orc")
    before = memo.ENABLED
    try:
        memo.set_enabled(False)
        afresh = outcomes.attack_effects_distribution(state, action)
        memo.set_enabled(True)
        plans = _counted(monkeypatch, plan_reads, "recorded_plan")
        told = _counted(monkeypatch, resolve, "attack_event")
        walks = _counted(monkeypatch, outcomes, "attack_effects")
        kept = outcomes.attack_effects_distribution(state, action)
    finally:
        memo.set_enabled(before)
    assert kept == afresh
    assert sum(afresh.values()) == 1
    assert walks[0] > 400  # 20 x 20 pairs of d20s, and the damage die after each hit
    assert plans[0] == 1
    assert told[0] == 400


def test_an_exact_walk_plans_a_fumble_s_free_attack_back_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """MF-FUMBLE-2: the free attack a fumble gives the target is planned like any other attack, so a walk
    over every sequence of dice plans it once for the step, not once for each sequence that fumbles."""
    setup = make_setup(duel_data(fumbles="free_attack_or_ally_reroll"))
    state, action = outcomes.probe_state(setup), Attack("Hero", target="Orc")
    plannings = [0]

    def counted(ctx: object) -> list[object]:  # asked once by every planning of an attack
        plannings[0] += 1
        return []

    monkeypatch.setattr(registry, "TO_HIT_RULES", [counted, *registry.TO_HIT_RULES])
    before = memo.ENABLED
    try:
        memo.set_enabled(False)
        afresh = outcomes.attack_effects_distribution(state, action)
        memo.set_enabled(True)
        plan_reads.forget()
        plannings[0] = 0
        walks = _counted(monkeypatch, outcomes, "attack_effects")
        kept = outcomes.attack_effects_distribution(state, action)
    finally:
        memo.set_enabled(before)
    assert kept == afresh
    assert any(outcome[2] for (outcome, *_rest) in afresh)  # some sequences fumble: the free attack back
    assert walks[0] > 20 * 4  # the fumbles' sequences go on with the free attack's d20 and damage
    assert plannings[0] == 2  # the attack and the free attack back, each once
