"""The tables the kernels play, each compiled from a procedure in rules/ (or the engine's attack)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from tests.conftest import EXAMPLES, angthar_data, make_setup
from tests.sim.cases import under

from referee import chance, sim
from referee.files import load_encounter
from referee.rules import hit_points, initiative
from referee.sim import procedures
from referee.sim.tables import Packed, to_table


def shares(values: np.ndarray) -> dict[int, Fraction]:  # type: ignore[type-arg]
    return {int(v): Fraction(int((values == v).sum()), values.size) for v in np.unique(values)}


def test_attack_table_is_the_engines_attack() -> None:
    # rule: ODD-MELEE-1 (TV-000-02): +4 BTH +1 Str against AC 12 hits on a natural 7 or more;
    # rule: ODD-ATK-2, ODD-MELEE-2: a battle axe hit deals d8 + 1
    compiled = sim.compile_setup(make_setup(angthar_data()))
    plan = int(compiled.plan_index[0, 1, 0, 0, 0])
    share = shares(compiled.out_target[compiled.dmg.table(plan)])
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


def test_hit_points_come_from_roll_hit_points() -> None:
    # rule: ODD-HD-2: the goblin's 1d6 hit points, each total equally likely
    compiled = sim.compile_setup(make_setup(angthar_data(goblin_hp=None)))
    assert shares(compiled.hp.table(1)) == {v: Fraction(1, 6) for v in range(1, 7)}


def test_many_hit_dice_are_summed_by_convolution() -> None:
    # rule: ODD-HD-1: 12d8 hit points, too many sequences to walk; the same procedure per total
    setup = make_setup(angthar_data(goblin_hp=None))
    giant = setup.combatants[1].model_copy(update={"hp_dice": "12d8"})
    dist = procedures.hit_point_distribution(giant)
    assert min(dist) == 12 and max(dist) == 96 and sum(dist.values()) == 1
    assert chance.expectation(dist, lambda v: v) == Fraction(12 * 9, 2)


def test_initiative_keys_are_roll_unit_ranked() -> None:
    # rule: ODD-INIT-1, ODD-INIT-2: the key (d10, Dex) of each combatant, ranked across combatants
    setup = load_encounter(EXAMPLES / "duel.yaml")
    compiled = sim.compile_setup(setup)
    assert not compiled.group_initiative and compiled.unit_of.tolist() == [0, 1]
    keys = {
        c.name: chance.distribution(
            lambda dice, c=c: initiative.roll_unit(setup.ruleset, c.name, [c], 1, dice).key
        )
        for c in setup.combatants
    }
    rank = {k: i + 1 for i, k in enumerate(sorted({k for d in keys.values() for k in d}))}
    for u, c in enumerate(setup.combatants):
        table = compiled.init.table(int(compiled.init_index[compiled.init_round[1], u]))
        assert shares(table) == {rank[k]: p for k, p in keys[c.name].items()}


def test_group_initiative_rolls_for_the_sides() -> None:
    # rule: ODD-INIT-4: one d10 a side; every member of a side shares its key
    setup = under("skirmish.yaml", "odd")
    from dataclasses import replace

    grouped = replace(setup, ruleset=setup.ruleset.with_options(initiative="d10_group"))
    compiled = sim.compile_setup(grouped)
    assert compiled.group_initiative and compiled.units == 2
    assert compiled.unit_of.tolist() == compiled.side_of.tolist()
    assert shares(compiled.init.table(0)) == {v: Fraction(1, 10) for v in range(1, 11)}


def test_target_keys_follow_target_priority() -> None:
    # the default tactics: fewest hit points first, ties to the first in the file (targeting.py)
    compiled = sim.compile_setup(make_setup(angthar_data(goblins=2)))

    def key(who: int, hp: int) -> int:
        return int(compiled.target_key[compiled.status_base[who] + hp])

    assert key(1, 3) < key(2, 4) and key(2, 3) < key(1, 4) and key(1, 3) < key(2, 3)
    assert key(1, 0) == procedures.NOBODY  # a dead goblin is nobody's target
    assert key(1, 3) & 255 == 1 and key(2, 3) & 255 == 2


def test_may_act_follows_the_turn_rule() -> None:
    # rule: ODD-INIT-3: struck down in its own slot, a combatant still acts; down before it, not
    table = procedures.may_act_table([hit_points.ACTIVE, hit_points.DEAD, hit_points.UNCONSCIOUS])
    assert table.tolist() == [[True, True], [False, True], [False, True]]


def test_end_table_follows_fight_end() -> None:
    # rule: ODD-ROUND-4: one side left wins, none left is a draw, the round limit ends with no winner
    table = procedures.end_table(("A", "B"), 3)
    assert table[1].tolist() == [2, 0, 1, -1]  # nobody / A / B / both standing
    assert table[3].tolist() == [2, 0, 1, 3]  # the last round: both standing → round limit


def test_shield_tables_depend_on_earlier_attackers() -> None:
    # rule: ODD-AC-SHIELD: Brenna's medium shield covers the first 2 attackers of a round, not the third
    compiled = sim.compile_setup(load_encounter(EXAMPLES / "skirmish.yaml"))
    brenna, orc = compiled.names.index("Brenna"), compiled.names.index("Orc 1")
    first, second, third = (int(compiled.plan_index[orc, brenna, k, 0, 0]) for k in range(3))
    assert first == second != third

    def hit_rate(plan: int) -> float:
        return float((compiled.out_target[compiled.dmg.table(plan)] > 0).mean())

    assert hit_rate(third) - hit_rate(first) == pytest.approx(1 / 20)


def test_fumble_free_attacks_strike_back() -> None:
    # rule: MF-FUMBLE-2: under the mf preset a fumble gives the target a free attack on the fumbler
    compiled = sim.compile_setup(under("duel.yaml", "mf"))
    assert compiled.hits_back and int(compiled.out_back.max()) == 1 and int(compiled.out_attacker.max()) > 0


def test_tables_round_only_past_their_limit() -> None:
    exact = to_table({1: Fraction(1, 3), 2: Fraction(2, 3)})
    assert exact.exact and exact.values.tolist() == [1, 2, 2]
    rounded = to_table({1: Fraction(1, 3 << 20), 2: 1 - Fraction(1, 3 << 20)})
    assert not rounded.exact and rounded.values.size == 1 << 20
    packed = Packed.of([exact, exact])
    assert packed.table(1).tolist() == [1, 2, 2]
