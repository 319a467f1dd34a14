"""engine/outcomes.py: the probe state and what one attack does, as the exact odds and the simulator read it."""

from __future__ import annotations

from fractions import Fraction

import pytest
from tests.conftest import make_setup
from tests.test_odds import duel_data

from referee.engine import outcomes
from referee.engine.actions import Attack
from referee.rules import registry
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
