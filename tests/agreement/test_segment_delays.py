"""Segment delays on the fast path (GAP-SEGMENTS: under `mod`, initiative in segments, a delay of k
segments lowers the effective initiative by k; MOD-COND-ENC-1: encumbered, 1d6 a round; MOD-UW-3: a
non-native swimmer underwater, 1d6), each combatant's key drawn per state from the engine's own start of
round (sim/delays.py), against the event engine's fights; and the power of the comparison to see it."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from tests.agreement.test_fast_cases import ENGINE_FIGHTS, FAST_FIGHTS, assert_rates_agree
from tests.conftest import make_setup
from tests.sim.cases import Z, under

from referee import chance, sim
from referee.dice import DiceSource
from referee.engine import outcomes
from referee.rules import initiative
from referee.sim import delays, procedures


def laden(rounds: int = 6) -> dict[str, Any]:
    """Two fighters who fell each other with almost every blow, one encumbered (MOD-COND-ENC-1: a 1d6
    segment delay every round): who acts first decides most fights."""

    def fighter(name: str, side: str, conditions: list[str]) -> dict[str, Any]:
        one = {"name": name, "level": 3, "attack_bonus": 8, "hp": 4, "armour": "leather",
               "conditions": conditions, "weapons": [{"name": "axe", "damage": "1d6+2"}]}  # fmt: skip
        return {"name": side, "combatants": [one]}

    return {"name": "a laden fighter (mod)", "ruleset": "mod", "max_rounds": rounds,
            "sides": [fighter("Laden", "Packers", ["encumbered"]), fighter("Light", "Scouts", [])]}  # fmt: skip


DELAYED = [  # (encounter, engine fights): 3,000 see about 4 points at p = 1/2
    pytest.param(lambda: make_setup(laden()), ENGINE_FIGHTS, id="laden"),  # rule: MOD-COND-ENC-1
    pytest.param(
        lambda: under("mod_conditions.yaml", "mod"), ENGINE_FIGHTS, id="mod-conditions"
    ),  # rule: GAP-SEGMENTS
    pytest.param(
        lambda: under("underwater.yaml", "mod"), ENGINE_FIGHTS, id="underwater-mod"
    ),  # rule: MOD-UW-3
]


@pytest.mark.parametrize(("make", "fights"), DELAYED)
def test_segment_delays_agree_with_the_engine_s_fights(make: Any, fights: int) -> None:
    # rule: GAP-SEGMENTS: win rates, draws, the round limit, fights over by round 1, standing and alive
    setup = make()
    compiled = sim.compile_setup(setup)
    assert compiled.init_state is not None
    assert_rates_agree(setup, fights)


@pytest.mark.skipif(sim.numba_play() is None, reason="numba is not installed")
def test_the_delays_move_the_answer_beyond_what_the_comparison_sees() -> None:
    # rule: MOD-COND-ENC-1: with its delay the light fighter wins about 63% of the fights, without it
    # (the plain initiative tables) about 47%; the comparison (3,000 engine fights) sees about 4 points
    setup = make_setup(laden())
    compiled = sim.compile_setup(setup)
    _, _, plain, index, _ = procedures.initiative_tables(setup)
    undelayed = replace(compiled, init=plain, init_index=index, init_state=None)
    wins = []
    for tables in (compiled, undelayed):
        result = sim.compiled_batch(tables, FAST_FIGHTS, np.random.default_rng(5))
        assert result is not None
        wins.append(float(result.wins[1]) / result.fights)
    on, off = wins
    seen = Z * np.sqrt(on * (1 - on) * (1 / FAST_FIGHTS + 1 / ENGINE_FIGHTS))
    assert on - off > 3 * seen, (on, off, seen)


def test_each_combatant_s_delay_is_its_own_and_the_round_is_ordered_as_the_keys_sort() -> None:
    # rule: GAP-SEGMENTS, MOD-UW-3: in the whole probe (everyone standing) the engine's start of round 2
    # gives each combatant the key its own table has, independently of the others', and its order is
    # the keys' sort (higher first, equal keys in one slot: initiative.order_from_rolls), as the kernels
    setup = under("underwater.yaml", "mod")
    names = [c.name for c in setup.combatants]
    start = outcomes.probe_state(setup)
    marks = {n: outcomes.mark_of(start[n], 2) for n in names}

    def whole(dice: DiceSource) -> tuple[Any, ...]:
        probe = outcomes.probe_state(setup, number=2)
        data = outcomes.round_start_events(probe, dice)[-1].data
        late = dict(data.get("delays") or {})
        keys = tuple(
            initiative.Roll(n, int(data["rolls"][n]), probe[n].spec.abilities.dexterity, late.get(n, 0)).key
            for n in names
        )
        return keys, tuple(tuple(slot) for slot in data["order"])

    joint = chance.distribution(whole, limit=20_000)
    alone = []
    for n in names:
        merged: dict[Any, Fraction] = {}
        for (key, _), p in delays.key_distribution(setup, n, marks[n], 2).items():
            merged[key] = merged.get(key, Fraction(0)) + p
        alone.append(merged)
    assert any(len(d) > 10 for d in alone)  # someone's d10 is delayed by a d6
    keys_only: dict[Any, Fraction] = {}
    for (keys, order), p in joint.items():
        keys_only[keys] = keys_only.get(keys, Fraction(0)) + p
        rolls = [initiative.UnitRoll(n, 0, k) for n, k in zip(names, keys, strict=True)]
        made = initiative.order_from_rolls(setup.ruleset, rolls, {n: [n] for n in names})
        assert tuple(tuple(slot) for slot in made) == order
    for keys, p in keys_only.items():
        expected = Fraction(1)
        for i, k in enumerate(keys):
            expected *= alone[i][k]
        assert p == expected
