"""The vectorised simulator against the event engine: tables from the engine's own rules, statistical
agreement on every example the fast path supports under every preset, determinism, fallback."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.conftest import EXAMPLES, angthar_data, make_setup

from referee import sim
from referee.dice import roll
from referee.errors import IllegalActionError
from referee.files import Setup, load_encounter, read_yaml, setup_from_data
from referee.rules.ruleset import PRESETS, Ruleset

FAST_FIGHTS = 20_000
ENGINE_WORK = 1500  # engine fights x combatants x rounds per agreement check (about a second each)


def engine_fights(fast: sim.SimResult) -> int:
    """How many fights the event engine plays to check `fast`: fewer when fights are big or long."""
    return max(30, int(ENGINE_WORK / (len(fast.setup.combatants) * max(1.0, fast.mean_rounds()))))


def encounter_files() -> list[Path]:
    return sorted(
        p for p in EXAMPLES.glob("*.yaml") if isinstance(read_yaml(p), dict) and "sides" in read_yaml(p)
    )


def under(setup: Setup, preset: str) -> Setup:
    return replace(setup, ruleset=Ruleset.preset(preset))


def assert_agree(fast: sim.SimResult, slow: sim.SimResult) -> None:
    """Win rates and mean rounds within 4 standard errors of the event engine's sample.

    The error of a proportion gets a floor of one fight in the sample (a rate of 0.1% must not fail
    because 1 of 150 engine fights went the other way)."""
    n = slow.tally.fights
    for side in fast.setup.sides:
        p = fast.win_rate(side)
        se = math.sqrt((p * (1 - p) + 1 / n) / n)
        assert abs(slow.win_rate(side) - p) <= 4 * se, (side, p, slow.win_rate(side))
    rounds = fast.tally.rounds
    mean = fast.mean_rounds()
    sd = math.sqrt(float(((np.arange(rounds.size) - mean) ** 2 * rounds).sum()) / fast.tally.fights)
    se = math.sqrt((sd * sd + 1) / n)
    assert abs(slow.mean_rounds() - mean) <= 4 * se, (mean, slow.mean_rounds())


# --- tables compiled from the engine --------------------------------------------------------------


def test_enumerate_dice_is_exact() -> None:
    dist = sim.enumerate_dice(lambda dice: roll("1d6+1", dice).total)
    assert dist == {v: Fraction(1, 6) for v in range(2, 8)}
    assert sim.enumerate_dice(lambda dice: roll("2d4", dice).total)[5] == Fraction(4, 16)


def test_enumerate_dice_gives_up_past_its_limit() -> None:
    with pytest.raises(sim.Unsupported):
        sim.enumerate_dice(lambda dice: roll("4d6", dice).total, limit=100)


def test_attack_table_is_the_engines_attack() -> None:
    # rule: ODD-MELEE-1 (TV-000-02): +4 BTH +1 Str against AC 12 hits on a natural 7 or more;
    # rule: ODD-ATK-2, ODD-MELEE-2: a battle axe hit deals d8 + 1
    compiled = sim.compile_setup(make_setup(angthar_data()))
    plan = int(compiled.plan_index[0, 1, 0])
    table = compiled.dmg_values[compiled.dmg_off[plan] : compiled.dmg_off[plan] + compiled.dmg_size[plan]]
    share = {v: Fraction(int((table == v).sum()), table.size) for v in np.unique(table)}
    assert share[0] == Fraction(6, 20)
    assert all(share[v] == Fraction(14, 20) / 8 for v in range(2, 10))


def test_defeat_table_follows_status_after_damage() -> None:
    # rule: ODD-HP-1, GAP-HP-ZERO: a monster dies at 0; a character falls at 0 and dies at -10
    compiled = sim.compile_setup(make_setup(angthar_data()))
    names = compiled.status_names

    def status(who: int, hp: int) -> str:
        return names[compiled.status_values[compiled.status_base[who] + hp]]

    assert status(1, 1) == "active" and status(1, 0) == "dead"
    # Angthar (30 hp) can fall no lower than 1 - 6 (a goblin's best blow): the table covers that range
    assert status(0, 1) == "active" and status(0, 0) == "unconscious" and status(0, -5) == "unconscious"


def test_hit_points_come_from_the_setup_step() -> None:
    # rule: ODD-HD-2: the goblin's 1d6 hit points, each total equally likely
    compiled = sim.compile_setup(make_setup(angthar_data(goblin_hp=None)))
    goblin = compiled.hp_values[compiled.hp_off[1] : compiled.hp_off[1] + compiled.hp_size[1]]
    assert sorted(goblin.tolist()) == [1, 2, 3, 4, 5, 6]


# --- agreement with the event engine --------------------------------------------------------------


CASES = [(path.name, preset) for path in encounter_files() for preset in PRESETS]


@pytest.mark.parametrize(("example", "preset"), CASES)
def test_fast_path_agrees_with_the_event_engine(example: str, preset: str) -> None:
    setup = under(load_encounter(EXAMPLES / example), preset)
    compiled, reason = sim.plan_run(setup)
    if compiled is None:
        result = sim.simulate(setup, 2, seed=1)
        assert result.path == sim.EVENT_ENGINE and result.reason == reason and reason
        return
    fast = sim.simulate(setup, FAST_FIGHTS, seed=11)
    assert fast.path == sim.VECTORISED and not fast.reason
    slow = sim.simulate(setup, engine_fights(fast), seed=12, force_engine=True)
    assert_agree(fast, slow)


def test_first_strike_and_group_initiative_agree() -> None:
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
        fast = sim.simulate(setup, FAST_FIGHTS, seed=3)
        assert_agree(fast, sim.simulate(setup, engine_fights(fast), seed=4, force_engine=True))


def test_round_limit_is_counted_like_the_engine() -> None:
    # two who can barely hurt each other: most fights stop at the round limit
    data = angthar_data(goblin_hp=None, max_rounds=2)
    data["sides"][1]["combatants"][0]["ac"] = 22
    setup = make_setup(data)
    fast = sim.simulate(setup, FAST_FIGHTS, seed=5)
    slow = sim.simulate(setup, 300, seed=6, force_engine=True)
    assert fast.tally.round_limit > 0 and set(np.flatnonzero(fast.tally.rounds)) <= {1, 2}
    assert abs(fast.tally.round_limit / fast.tally.fights - slow.tally.round_limit / 300) < 0.15
    assert_agree(fast, slow)


# --- determinism and paths ------------------------------------------------------------------------


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


def test_fallback_runs_the_event_engine_and_says_why() -> None:
    setup = load_encounter(EXAMPLES / "charge.yaml")
    result = sim.simulate(setup, 3, seed=1)
    assert result.path == sim.EVENT_ENGINE
    assert "positions" in result.reason
    assert result.to_dict()["fallback_reason"] == result.reason
    assert result.tally.fights == 3 and int(result.tally.rounds.sum()) == 3


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


def test_wilson_interval() -> None:
    low, high = sim.wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    assert sim.wilson(0, 10)[0] == 0.0


def test_both_orderings_follow_the_initiative_rules() -> None:
    # rule: ODD-INIT-1, ODD-INIT-2: highest key first; ODD-INIT-3: equal keys share a slot (file order inside)
    keys = np.random.default_rng(0).integers(0, 4, size=(6, 300)).astype(np.int64)
    for order in (sim._order_pairwise, sim._order_by_sorting):
        actor_at, first = order(keys)
        for f in range(keys.shape[1]):
            column = keys[:, f]
            expected = sorted(range(6), key=lambda i: (-column[i], i))
            assert actor_at[:, f].tolist() == expected
            ranked = column[expected]
            assert first[:, f].tolist() == [int((ranked > ranked[p]).sum()) for p in range(6)]


def test_shield_tables_depend_on_earlier_attackers() -> None:
    # rule: ODD-AC-SHIELD: Brenna's medium shield covers the first 2 attackers of a round, not the third
    compiled = sim.compile_setup(load_encounter(EXAMPLES / "skirmish.yaml"))
    brenna, orc = compiled.names.index("Brenna"), compiled.names.index("Orc 1")
    first, second, third = (int(compiled.plan_index[orc, brenna, k]) for k in range(3))
    assert first == second != third

    def hit_rate(plan: int) -> float:
        table = compiled.dmg_values[compiled.dmg_off[plan] : compiled.dmg_off[plan] + compiled.dmg_size[plan]]
        return float((compiled.out_target[table] > 0).mean())

    assert hit_rate(third) - hit_rate(first) == pytest.approx(1 / 20)


def test_fumble_free_attacks_strike_back() -> None:
    # rule: MF-FUMBLE-2: under the mf preset a fumble gives the target a free attack on the fumbler
    compiled = sim.compile_setup(under(make_setup(angthar_data()), "mf"))
    assert compiled.hits_back and int(compiled.out_back.max()) == 1 and int(compiled.out_attacker.max()) > 0


def kernels_available() -> bool:
    return sim._numba_play() is not None


@pytest.mark.skipif(not kernels_available(), reason="numba is not installed")
@pytest.mark.parametrize(
    ("example", "preset"),
    [("skirmish.yaml", "odd"), ("angthar_and_the_goblins.yaml", "mf"), ("duel.yaml", "dac")],
)
def test_numba_and_numpy_kernels_agree(example: str, preset: str) -> None:
    # both kernels play the same compiled tables; a large sample of each must agree closely
    setup = under(load_encounter(EXAMPLES / example), preset)
    compiled = sim.simulate(setup, 60_000, seed=21, kernel=sim.NUMBA)
    arrays = sim.simulate(setup, 60_000, seed=22, kernel=sim.NUMPY)
    assert (compiled.kernel, arrays.kernel) == (sim.NUMBA, sim.NUMPY)
    assert_agree(arrays, compiled)
    for i in range(len(setup.combatants)):
        a, b = compiled.tally.survived[i] / 60_000, arrays.tally.survived[i] / 60_000
        assert abs(a - b) <= 4 * math.sqrt((a * (1 - a) + 1e-5) * 2 / 60_000)


def test_first_strike_kernels_agree() -> None:
    # rule: ODD-INIT-5 under both kernels (the tabulated round-1 order)
    setup = load_encounter(EXAMPLES / "duel.yaml")
    data = dict(setup.source)
    data["sides"][1]["combatants"][0]["size"] = "large"
    big = setup_from_data(data)
    assert sim.compile_setup(big).first_round is not None
    fast = sim.simulate(big, 60_000, seed=1, kernel=sim.NUMPY)
    if kernels_available():
        assert_agree(fast, sim.simulate(big, 60_000, seed=2, kernel=sim.NUMBA))
    assert_agree(fast, sim.simulate(big, engine_fights(fast), seed=3, force_engine=True))


def test_unknown_kernel() -> None:
    with pytest.raises(IllegalActionError, match="kernel"):
        sim.simulate(make_setup(angthar_data()), 10, kernel="fortran")
