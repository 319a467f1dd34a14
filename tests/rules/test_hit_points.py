"""Hit points at set-up (ODD-HD-1, ODD-HD-2), live and exact; defeat at zero hit points (ODD-HP-1 with
GAP-HP-ZERO) and subdual damage (GAP-SUBDUAL)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from tests.conftest import angthar_data, make_setup

from referee import chance
from referee.dice import DiceSource, ScriptedDice
from referee.engine.events import EventType
from referee.engine.fight import Fight
from referee.model import Combatant
from referee.rules import hit_points
from referee.rules.hit_points import roll_hit_points, status_after_damage
from referee.rules.ruleset import Ruleset

ODD = Ruleset()


def test_monsters_die_at_zero_characters_fall() -> None:
    # rule: ODD-HP-1
    assert status_after_damage(0, 0, is_monster=True, ruleset=ODD) == "dead"
    assert status_after_damage(0, 0, is_monster=False, ruleset=ODD) == "unconscious"
    assert status_after_damage(-9, 0, is_monster=False, ruleset=ODD) == "unconscious"
    assert status_after_damage(-10, 0, is_monster=False, ruleset=ODD) == "dead"
    assert status_after_damage(1, 0, is_monster=False, ruleset=ODD) == "active"


def test_die_at_zero_option() -> None:
    # rule: ODD-HP-1 ("killed")
    rs = ODD.with_options(zero_hp="die_at_zero")
    assert status_after_damage(0, 0, is_monster=False, ruleset=rs) == "dead"


def test_subdual_knocks_out() -> None:
    # rule: ODD-PUMMEL-2 (GAP-SUBDUAL): subdual at or above current hit points → unconscious
    assert status_after_damage(5, 5, is_monster=True, ruleset=ODD) == "unconscious"
    assert status_after_damage(5, 4, is_monster=True, ruleset=ODD) == "active"


def test_knockout_leaves_the_target_alive() -> None:
    # rule: MF-KO-1
    assert status_after_damage(0, 0, is_monster=True, ruleset=ODD, knockout=True) == "unconscious"


def monster(**fields: object) -> Combatant:
    return Combatant(name="Orc", side="Orcs", is_monster=True, **fields)  # type: ignore[arg-type]


def test_fixed_hit_points_roll_nothing() -> None:
    # the encounter's fixed hit points stand (no die asked for)
    assert chance.run(lambda d: roll_hit_points(monster(hp=7, hp_dice="1d8"), d), ScriptedDice([])) == (7, ())


def test_hit_dice_are_rolled_and_summed() -> None:
    # rule: ODD-HD-1 (L dice of the class's type), ODD-HD-2 (the sum of the listed hit dice)
    hp, dice = chance.run(lambda d: roll_hit_points(monster(hp_dice="2d8"), d), ScriptedDice([3, 8]))
    assert hp == 11
    assert [(d.sides, d.purpose) for d in dice] == [(8, "hit points Orc"), (8, "hit points Orc")]


def test_at_least_one_hit_point() -> None:
    # rule: ODD-HD-2 with a penalty: a roll below 1 still gives 1; nothing to roll gives 1
    assert roll_hit_points(monster(hp_dice="1d6-2"), ScriptedDice([2])) == 1
    assert roll_hit_points(monster(), ScriptedDice([])) == 1


def test_exact_hit_points() -> None:
    # rule: ODD-HD-2: 2d4 is 2..8 with the triangle's chances; 1d6-2 gives 1 on three faces of six
    dist = chance.distribution(lambda d: roll_hit_points(monster(hp_dice="2d4"), d))
    assert dist == {n: Fraction(4 - abs(n - 5), 16) for n in range(2, 9)}
    low = chance.distribution(lambda d: roll_hit_points(monster(hp_dice="1d6-2"), d))
    assert low == {1: Fraction(1, 2), 2: Fraction(1, 6), 3: Fraction(1, 6), 4: Fraction(1, 6)}


def test_the_engine_rolls_hit_points_with_the_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: ODD-HD-2: the goblin's 1d6 is rolled at set-up; a house rule replacing the procedure reaches it
    setup = make_setup(angthar_data(goblin_hp=None))
    fight = Fight(setup)
    begun = fight.begin(ScriptedDice([5]))
    assert begun[0].type is EventType.SETUP and begun[0].data["hp"] == {"Angthar": 30, "Goblin": 5}

    def six_when_unrolled(c: Combatant, dice: DiceSource) -> int:
        return c.hp if c.hp is not None else 6

    monkeypatch.setattr(hit_points, "roll_hit_points", six_when_unrolled)
    fight = Fight(setup)
    assert fight.begin(ScriptedDice([]))[0].data["hp"] == {"Angthar": 30, "Goblin": 6}


def test_healing_wakes_the_unconscious_never_raises_the_dead() -> None:
    # rule: ODD-HP-1, GAP-HP-ZERO (read backwards), GAP-SUBDUAL
    assert hit_points.status_after_healing(hit_points.UNCONSCIOUS, 2, 0) == hit_points.ACTIVE
    assert hit_points.status_after_healing(hit_points.UNCONSCIOUS, 2, 2) == hit_points.UNCONSCIOUS  # subdual
    assert hit_points.status_after_healing(hit_points.UNCONSCIOUS, 0, 0) == hit_points.UNCONSCIOUS
    assert hit_points.status_after_healing(hit_points.DEAD, 5, 0) == hit_points.DEAD


def test_healing_stops_at_the_maximum() -> None:
    # rule: ODD-HD-2 (a creature's hit points are what it rolled)
    assert hit_points.healed_hit_points(3, 10, 4) == 7
    assert hit_points.healed_hit_points(8, 10, 5) == 10
    assert hit_points.healed_hit_points(-4, 10, 3) == -1
