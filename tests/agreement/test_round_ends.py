"""Ends of rounds that roll dice on the fast path: drowning (MF-DROWN-2: the breath, ceil(Con / 3) + 1d4
rounds, fixed at the end of round 1; MF-DROWN-3, GAP-DROWN: then a Luck (Con) save at the end of each
round, death on a failure), compiled per round from the engine's own end of round (sim/round_ends.py),
against the event engine's fights; and the power of the comparison to see it."""

from __future__ import annotations

import math
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
from referee.sim import round_ends


def breathless(preset: str = "odd", rounds: int = 12) -> dict[str, Any]:
    """Two divers underwater (MOD-UW-4 under every preset: -4 to hit and damage), one short of breath
    (Con 6: 2 + 1d4 rounds) and one long (Con 15: 5 + 1d4): drowning decides most fights."""

    def diver(name: str, con: int, side: str) -> dict[str, Any]:
        one = {"name": name, "level": 1, "hp": 6, "armour": "leather", "abilities": {"con": con},
               "weapons": [{"name": "dagger", "damage": "1d8"}]}  # fmt: skip
        return {"name": side, "combatants": [one]}

    return {"name": f"out of breath ({preset})", "ruleset": preset, "max_rounds": rounds,
            "environment": {"underwater": True},
            "sides": [diver("Shallow", 6, "Short breath"), diver("Deep", 15, "Long breath")]}  # fmt: skip


DROWNING = [  # (encounter, engine fights): 3,000 see about 4 points at p = 1/2
    pytest.param(lambda: make_setup(breathless()), ENGINE_FIGHTS, id="out-of-breath"),  # rule: MF-DROWN-2
    pytest.param(
        lambda: make_setup(breathless("mf")), ENGINE_FIGHTS, id="out-of-breath-mf"
    ),  # rule: MF-DROWN-3
    pytest.param(
        lambda: under("underwater.yaml", "odd"), ENGINE_FIGHTS, id="underwater-odd"
    ),  # rule: MF-DROWN-3
    pytest.param(
        lambda: under("underwater.yaml", "dac"), ENGINE_FIGHTS, id="underwater-dac"
    ),  # rule: GAP-DROWN
]


@pytest.mark.parametrize(("make", "fights"), DROWNING)
def test_drowning_agrees_with_the_engine_s_fights(make: Any, fights: int) -> None:
    # rule: MF-DROWN-2, MF-DROWN-3: win rates, draws, the round limit, each one's standing and alive rates
    setup = make()
    compiled = sim.compile_setup(setup)
    assert compiled.end_draw is not None and compiled.round_end is None
    assert_rates_agree(setup, fights)


def deep_wins(compiled: sim.Compiled) -> float:
    result = sim.compiled_batch(compiled, FAST_FIGHTS, np.random.default_rng(5))
    assert result is not None
    return float(result.wins[1]) / result.fights


@pytest.mark.skipif(sim.numba_play() is None, reason="numba is not installed")
def test_each_drowning_mechanism_moves_the_answer_beyond_what_the_comparison_sees() -> None:
    # rule: MF-DROWN-3: without drowning the long breath wins about 33% instead of 87% (all fights but
    # the limit's); MF-DROWN-2: with no breath counted (every round's end as the last round's, the save
    # from round 1) about 68%. The comparison (3,000 engine fights) sees under 3 points at p = 0.87.
    compiled = sim.compile_setup(make_setup(breathless()))
    assert compiled.end_draw is not None
    on = deep_wins(compiled)
    seen = Z * math.sqrt(on * (1 - on) * (1 / FAST_FIGHTS + 1 / ENGINE_FIGHTS))
    nobody_drowns = replace(compiled, end_status=np.full_like(compiled.end_status, -1))
    no_breath = compiled.end_draw.copy()
    no_breath[1:] = no_breath[-1]
    for off in (nobody_drowns, replace(compiled, end_draw=no_breath)):
        moved = on - deep_wins(off)
        assert moved > 4 * seen, (on, moved, seen)


def test_each_combatant_s_end_of_round_is_its_own() -> None:
    # rule: MF-DROWN-2, MF-DROWN-3: the tables draw each combatant's end of round alone, from a probe
    # where the others are down; in the whole probe (all standing, each holding its breath or not) the
    # engine's end of round is the product of those, in round 1 (the breath fixed) and in round 9 (saves)
    setup = under("underwater.yaml", "odd")
    names = [c.name for c in setup.combatants]
    start = outcomes.probe_state(setup)
    for number in (1, 9):
        marks = {n: outcomes.mark_of(start[n], number) for n in names}
        whole = outcomes.probe_state(setup, number=number, marks=marks)
        step = outcomes.round_end_step(whole)

        def each(dice: DiceSource, step: Any = step, number: int = number) -> tuple[Any, ...]:
            events = step(dice)  # one end of round for everyone; then what it did to each
            return tuple(
                round_ends.read_round_end([e for e in events if n in (e.target, e.actor)], n, number)
                for n in names
            )

        joint = chance.distribution(each, limit=20_000)
        alone = [round_ends.round_end_distribution(setup, n, marks[n], number, True) for n in names]
        assert sum(len(d) for d in alone) > len(names)  # something is drawn
        for outcome, p in joint.items():
            assert p == math.prod((alone[i][o] for i, o in enumerate(outcome)), start=Fraction(1))


def test_drowning_with_a_free_round_is_refused_with_the_reason() -> None:
    data = breathless()
    data["surprise"] = {"sides": ["Short breath", "Long breath"], "check": "per_side"}
    compiled, reason = sim.plan_run(make_setup(data))
    assert compiled is None and "drowning" in reason and "surprise" in reason
