"""The fast simulator as a whole: which path each example takes (and why it falls back), the group
fights against the event engine, rule corners against the exact odds, determinism and the kernels.

The small encounters are checked against the exact odds in tests/test_sim_vs_odds.py; the tables
themselves in tests/sim/."""

from __future__ import annotations

import math
from dataclasses import fields
from typing import Any

import numpy as np
import pytest
from tests.conftest import EXAMPLES, angthar_data, make_setup
from tests.sim.cases import (
    ENGINE_CASES,
    FALLBACK_CASES,
    assert_matches_exact,
    assert_samples_agree,
    under,
)

from referee import odds, sim
from referee.errors import IllegalActionError
from referee.files import Setup, load_encounter, setup_from_data
from referee.sim.tables import Packed

FAST_FIGHTS = 200_000
ENGINE_FIGHTS = 400  # event-engine fights per group-fight check (about 25 ms each on one core)


def exact_check(setup: Setup, fights: int = FAST_FIGHTS, seed: int = 1) -> sim.SimResult:
    """Simulate `setup` on the fast path and check it against the exact odds; return the result."""
    result = sim.simulate(setup, fights, seed=seed)
    assert result.path == sim.VECTORISED, result.reason
    exact = odds.fight_odds(setup)
    rounds = sum(float(p) * r for r, p in exact.rounds.items())
    wins = {side: float(p) for side, p in exact.wins.items()}
    assert_matches_exact(result, wins, float(exact.draw), float(exact.limit), rounds)
    return result


# --- paths -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("example", "preset"), FALLBACK_CASES)
def test_fallback_runs_the_event_engine_and_says_why(example: str, preset: str) -> None:
    setup = under(example, preset)
    compiled, reason = sim.plan_run(setup)
    assert compiled is None and reason
    result = sim.simulate(setup, 2, seed=1)
    assert result.path == sim.EVENT_ENGINE and result.reason == reason
    assert result.to_dict()["fallback_reason"] == reason
    assert result.tally.fights == 2 and int(result.tally.rounds.sum()) == 2


def fingerprint(compiled: sim.Compiled) -> bytes:
    """Everything the kernels read: presets with equal fingerprints play the same fights."""
    parts = []
    for f in fields(compiled):
        value = getattr(compiled, f.name)
        if isinstance(value, Packed):
            value = (value.values, value.off, value.size)
        for part in value if isinstance(value, tuple) else (value,):
            parts.append(
                part.tobytes() + str(part.shape).encode()
                if isinstance(part, np.ndarray)
                else repr(part).encode()
            )
    return b"|".join(parts)


@pytest.mark.parametrize("example", sorted({example for example, _ in ENGINE_CASES}))
def test_group_fights_agree_with_the_event_engine(example: str) -> None:
    # Too many combatants for the exact chain: for each distinct set of tables among the presets the
    # engine plays ENGINE_FIGHTS fights, which sees a difference of
    # about 7 points at 4.5 standard errors (2 points would need fights_to_see(p), some 5,500 engine
    # fights of ~25 ms each). The small fights are checked against the exact odds with full power.
    checked: set[bytes] = set()
    for preset in sorted(p for e, p in ENGINE_CASES if e == example):
        setup = under(example, preset)
        compiled, reason = sim.plan_run(setup)
        assert compiled is not None, reason
        mark = fingerprint(compiled)
        if mark in checked:
            continue  # the same tables as a preset already checked (odd and mod, say)
        checked.add(mark)
        fast = sim.simulate(setup, FAST_FIGHTS, seed=11, tables=compiled)  # compiled once
        assert fast.path == sim.VECTORISED and not fast.reason
        assert_samples_agree(fast, sim.simulate(setup, ENGINE_FIGHTS, seed=13, force_engine=True))


# --- rule corners against the exact odds -----------------------------------------------------------


def test_first_strike_and_group_initiative_match_the_exact_odds() -> None:
    # rule: ODD-INIT-5 (a Large ogre acts first in round 1), ODD-INIT-4 (one d10 a side)
    data: dict[str, Any] = {
        "sides": [
            {"name": "Fighters", "combatants": [{"name": "Fighter", "count": 2, "kind": "character", "level": 1,
             "hit_die": "d10", "hp": 6, "armour": "chain mail", "shield": "medium shield",
             "weapons": ["long sword"]}]},
            {"name": "Monsters", "combatants": [{"name": "Ogre", "hit_dice": "4+1", "ac": 15, "size": "large",
             "weapons": [{"name": "club", "damage": "1d10"}]}]},
        ]
    }  # fmt: skip
    for options in ({}, {"initiative": "d10_group"}):
        setup = setup_from_data({**data, "options": options})
        assert sim.compile_setup(setup).first_round is not None
        exact_check(setup)


def test_round_limit_matches_the_exact_odds() -> None:
    # rule: ODD-ROUND-4: two who can barely hurt each other; most fights stop at the round limit
    data = angthar_data(goblin_hp=None, max_rounds=2)
    data["sides"][1]["combatants"][0]["ac"] = 22
    result = exact_check(make_setup(data))
    assert result.tally.round_limit > 0 and set(np.flatnonzero(result.tally.rounds)) <= {1, 2}


def test_first_strike_kernels_match_the_exact_odds() -> None:
    # rule: ODD-INIT-5 under both kernels (the tabulated round-1 order)
    data = dict(load_encounter(EXAMPLES / "duel.yaml").source)
    data["sides"][1]["combatants"][0]["size"] = "large"
    big = setup_from_data(data)
    assert sim.compile_setup(big).first_round is not None
    exact = odds.fight_odds(big)
    wins = {side: float(p) for side, p in exact.wins.items()}
    rounds = sum(float(p) * r for r, p in exact.rounds.items())
    for kernel in (sim.NUMBA, sim.NUMPY) if sim.numba_play() else (sim.NUMPY,):
        result = sim.simulate(big, FAST_FIGHTS, seed=1, kernel=kernel)
        assert result.kernel == kernel
        assert_matches_exact(result, wins, float(exact.draw), float(exact.limit), rounds)


# --- determinism and errors ------------------------------------------------------------------------


def test_same_seed_same_result_and_workers_do_not_change_it() -> None:
    setup = load_encounter(EXAMPLES / "angthar_and_the_goblins.yaml")
    one = sim.simulate(setup, 5000, seed=9, batch=1024)
    again = sim.simulate(setup, 5000, seed=9, batch=1024)
    two = sim.simulate(setup, 5000, seed=9, workers=2, batch=1024)
    other = sim.simulate(setup, 5000, seed=10, batch=1024)
    strip = {"seconds", "fights_per_second", "workers"}

    def numbers(r: sim.SimResult) -> dict[str, Any]:
        return {k: v for k, v in r.to_dict().items() if k not in strip}

    assert numbers(one) == numbers(again) == numbers(two)
    assert numbers(one) != numbers(other)


def test_engine_path_is_deterministic_too() -> None:
    setup = make_setup(angthar_data())
    a = sim.simulate(setup, 40, seed=2, force_engine=True, batch=16)
    b = sim.simulate(setup, 40, seed=2, force_engine=True, batch=16, workers=2)
    assert (
        a.tally.wins.tolist() == b.tally.wins.tolist() and a.tally.rounds.tolist() == b.tally.rounds.tolist()
    )


def test_bad_counts_are_one_line_errors() -> None:
    setup = make_setup(angthar_data())
    with pytest.raises(IllegalActionError, match="at least 1"):
        sim.simulate(setup, 0)
    with pytest.raises(IllegalActionError, match="workers"):
        sim.simulate(setup, 10, workers=0)


def test_unknown_kernel() -> None:
    with pytest.raises(IllegalActionError, match="kernel"):
        sim.simulate(make_setup(angthar_data()), 10, kernel="fortran")


def test_wilson_interval() -> None:
    low, high = sim.wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    assert sim.wilson(0, 10)[0] == 0.0


# --- the two kernels -------------------------------------------------------------------------------


@pytest.mark.skipif(sim.numba_play() is None, reason="numba is not installed")
@pytest.mark.parametrize(
    ("example", "preset"),
    [
        ("house_rules_duel.yaml", "mf"),  # blow backs in a group (MF-FUMBLE-2)
        ("angthar_and_the_goblins.yaml", "odd"),
        ("preset_mf.yaml", "mf"),  # the free round of surprise (ODD-SURP-4, MF-SURP-2)
        ("preset_mf.yaml", "full"),  # surprise and armour damaged by criticals (HR-ARMDMG-1)
        ("skirmish.yaml", "dac"),  # shield deflections spent in the round (DAC-DEFL-3)
        ("pummel.yaml", "odd"),  # subdual damage (GAP-SUBDUAL) and a scripted first action
        ("house_rules_duel.yaml", "hr"),  # the attacker's own state: a blow back's critical (HR-ARMDMG-1)
        ("fog_and_cover.yaml", "hr"),  # a condition to the end of the round (HR-MISSILE-3)
        ("preset_hr.yaml", "hr"),  # a sleeper who wakes (MOD-COND-SLEEP-M)
        ("mod_conditions.yaml", "odd"),  # targets named by tactics, a starting condition that ends
        ("owlbear.yaml", "mf"),  # a routine that moves on, stopped by a blow back (ODD-ATK-3, MF-FUMBLE-2)
        ("owlbear.yaml", "dac"),  # a routine's attacks spend deflections (ODD-ATK-3, DAC-DEFL-3)
        ("underwater.yaml", "odd"),  # drowning: an end of round that rolls dice (MF-DROWN-2/3)
        ("mod_conditions.yaml", "mod"),  # segment delays: keys drawn per state (GAP-SEGMENTS)
        ("skirmish.yaml", "mf"),  # a blow back meets a shield as its attacker's own attackers leave it (J)
        ("preset_hr.yaml", "mf"),  # J with the combatants' states (HR-ARMDMG-1, MOD-COND-SLEEP-M)
        (
            "house_rules_duel.yaml",
            "dac",
        ),  # the attacker's deflections spent, met by a blow back (MF-FUMBLE-2)
    ],
)
def test_numba_and_numpy_kernels_agree(example: str, preset: str) -> None:
    # both kernels play the same compiled tables; large samples of each must agree closely
    setup = under(example, preset)
    fights = 100_000
    compiled = sim.simulate(setup, fights, seed=21, kernel=sim.NUMBA)
    arrays = sim.simulate(setup, fights, seed=22, kernel=sim.NUMPY)
    assert (compiled.kernel, arrays.kernel) == (sim.NUMBA, sim.NUMPY)
    assert_samples_agree(arrays, compiled)
    for i in range(len(setup.combatants)):
        a, b = compiled.tally.alive[i] / fights, arrays.tally.alive[i] / fights
        assert abs(a - b) <= 4.5 * math.sqrt((a * (1 - a) + 1e-5) * 2 / fights)


def test_both_kernels_track_each_one_s_distinct_attackers_this_round() -> None:
    # rule: ODD-AC-SHIELD, MF-FUMBLE-2: the kernels keep each combatant's distinct attackers this round and
    # look up J (the target's place among the attacker's attackers, or their count) and K. Tables made to
    # tell (every attacker beset by another than its target waits) move the fight far from the real ones,
    # and both kernels play them alike
    from dataclasses import replace

    setup = under("skirmish.yaml", "mf")
    compiled, reason = sim.plan_run(setup)
    assert compiled is not None and compiled.own_count > 1, reason
    plans = compiled.plan_index.copy()
    by_own = plans.reshape(*plans.shape[:3], -1, compiled.own_count, plans.shape[4])
    by_own[:, :, :, :, 1:] = -1
    waits = replace(compiled, plan_index=plans, may_wait=True)
    fights = 60_000
    real = sim.simulate(setup, fights, seed=31, tables=compiled)
    told = [
        sim.simulate(setup, fights, seed=s, kernel=k, tables=waits)
        for s, k in ((32, sim.NUMBA), (33, sim.NUMPY))
    ]
    assert_samples_agree(told[0], told[1])
    assert abs(told[0].win_rate("Party") - real.win_rate("Party")) > 0.05  # ~7 points; the kernels' ~1
