"""Initiative (ODD-INIT-1 to ODD-INIT-6): the order as pure functions, and the procedure rolled live
(scripted dice) and exactly (every d10 face), through the engine too."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
from tests.conftest import angthar_data, make_setup

from referee import chance
from referee.dice import DiceSource, ScriptedDice
from referee.engine.fight import Fight
from referee.files import Setup
from referee.model import Combatant
from referee.rules import abilities, initiative
from referee.rules.initiative import Roll, order_groups, order_individual
from referee.rules.ruleset import Ruleset


def test_highest_roll_first() -> None:
    # rule: ODD-INIT-1 (TV-000-01): Angthar 7 beats the goblin's 4
    assert order_individual([Roll("Goblin", 4, 10), Roll("Angthar", 7, 12)]) == [["Angthar"], ["Goblin"]]


def test_ties_by_dex_then_simultaneous() -> None:
    # rule: ODD-INIT-2, ODD-INIT-3
    rolls = [Roll("a", 5, 10), Roll("b", 5, 14), Roll("c", 5, 10), Roll("d", 2, 18)]
    assert order_individual(rolls) == [["b"], ["a", "c"], ["d"]]


def test_delays_lower_the_effective_roll() -> None:
    # GAP-SEGMENTS: a delay of k segments lowers the effective initiative by k
    assert order_individual([Roll("a", 8, 10, delay=6), Roll("b", 5, 10)]) == [["b"], ["a"]]


def test_group_initiative() -> None:
    # rule: ODD-INIT-4; ties act together (GAP-INIT-GROUP-TIE)
    members = {"A": ["a1", "a2"], "B": ["b1"]}
    assert order_groups([("A", 3), ("B", 9)], members) == [["b1"], ["a1", "a2"]]
    assert order_groups([("A", 4), ("B", 4)], members) == [["a1", "a2", "b1"]]


# --- the procedure: units, one roll per unit, the order, first strike -----------------------------


def duel(dex: int = 12, **extra: object) -> Setup:
    data = angthar_data(**extra)
    data["sides"][0]["combatants"][0]["abilities"]["dex"] = dex
    return make_setup(data)


def order_of(setup: Setup, dice: DiceSource, number: int = 1) -> tuple[tuple[str, ...], ...]:
    found = initiative.roll_initiative(setup.ruleset, setup.combatants, setup.sides, number, dice)
    return tuple(tuple(slot) for slot in found.order)


def test_units_are_combatants_or_sides_with_someone_active() -> None:
    # rule: ODD-INIT-1 (each combatant rolls), ODD-INIT-4 (each side with an active member rolls)
    setup = duel(goblins=2)
    assert initiative.initiative_units(setup.ruleset, setup.combatants, setup.sides) == [
        "Angthar",
        "Goblin 1",
        "Goblin 2",
    ]
    group = setup.ruleset.with_options(initiative="d10_group")
    assert initiative.initiative_units(group, setup.combatants, setup.sides) == ["Village", "Goblins"]
    goblins_only = [c for c in setup.combatants if c.side == "Goblins"]
    assert initiative.initiative_units(group, goblins_only, setup.sides) == ["Goblins"]


def test_roll_unit_keys_by_face_then_dex() -> None:
    # rule: ODD-INIT-1 (d10), ODD-INIT-2 (Dex breaks ties)
    setup = duel(dex=14)
    angthar = setup.combatant("Angthar")
    rolled = initiative.roll_unit(setup.ruleset, "Angthar", [angthar], 1, ScriptedDice([7]))
    assert rolled == initiative.UnitRoll("Angthar", 7, (7, 14))


def test_roll_unit_rolls_segment_delays_after_its_d10(monkeypatch: pytest.MonkeyPatch) -> None:
    # GAP-SEGMENTS: a delay of k segments lowers the effective roll by k; its dice follow the d10
    def slowed(c: Combatant, number: int, dice: DiceSource) -> list[tuple[int, str, str]]:
        return [(dice.roll(6, f"delay {c.name}"), "GAP-SEGMENTS", "test")]

    monkeypatch.setattr(initiative, "DELAY_RULES", [slowed])
    setup = duel()
    rolled, dice = chance.run(
        lambda d: initiative.roll_unit(setup.ruleset, "Angthar", [setup.combatant("Angthar")], 1, d),
        ScriptedDice([9, 4]),
    )
    assert rolled.key == (5, 12) and rolled.delays == ((4, "GAP-SEGMENTS", "test"),)
    assert [(d.sides, d.purpose) for d in dice] == [(10, "initiative Angthar"), (6, "delay Angthar")]


def test_order_from_rolls_sorts_and_merges_equal_keys() -> None:
    # rule: ODD-INIT-1, ODD-INIT-2, ODD-INIT-3 (equal roll and Dex act together)
    rolls = [
        initiative.UnitRoll("a", 5, (5, 10)),
        initiative.UnitRoll("b", 5, (5, 14)),
        initiative.UnitRoll("c", 5, (5, 10)),
        initiative.UnitRoll("d", 2, (2, 18)),
    ]
    members = {n: [n] for n in "abcd"}
    assert initiative.order_from_rolls(Ruleset(), rolls, members) == [["b"], ["a", "c"], ["d"]]


def test_live_initiative_rolls_in_file_order() -> None:
    # rule: ODD-INIT-1 (TV-000-01): Angthar 7, goblin 4
    found, dice = chance.run(
        lambda d: initiative.roll_initiative(duel().ruleset, duel().combatants, duel().sides, 1, d),
        ScriptedDice([7, 4]),
    )
    assert found.order == [["Angthar"], ["Goblin"]] and found.rolls == {"Angthar": 7, "Goblin": 4}
    assert found.rule == "ODD-INIT-1"
    assert [d.purpose for d in dice] == ["initiative Angthar", "initiative Goblin"]


def test_exact_individual_order() -> None:
    # rule: ODD-INIT-1, ODD-INIT-2: Angthar (Dex 12) goes first on a higher roll or a tie (55 of 100)
    dist = chance.distribution(lambda d: order_of(duel(), d))
    assert dist == {
        (("Angthar",), ("Goblin",)): Fraction(55, 100),
        (("Goblin",), ("Angthar",)): Fraction(45, 100),
    }
    # ODD-INIT-3: equal Dex, equal roll: the two act together (10 of 100)
    together = chance.distribution(lambda d: order_of(duel(dex=10), d))
    assert together[(("Angthar", "Goblin"),)] == Fraction(1, 10)


def test_exact_group_order() -> None:
    # rule: ODD-INIT-4 (one d10 per side), GAP-INIT-GROUP-TIE (ties act together)
    setup = duel(goblins=2, options={"initiative": "d10_group"})
    dist = chance.distribution(lambda d: order_of(setup, d))
    assert dist == {
        (("Angthar",), ("Goblin 1", "Goblin 2")): Fraction(45, 100),
        (("Goblin 1", "Goblin 2"), ("Angthar",)): Fraction(45, 100),
        (("Angthar", "Goblin 1", "Goblin 2"),): Fraction(10, 100),
    }


def test_first_strike_only_in_round_one() -> None:
    # rule: ODD-INIT-5, ODD-INIT-6 (TV-000-08): the Large giant strikes first in round 1 only
    data = {
        "name": "Hambone and the stone giant",
        "sides": [
            {"name": "Hambone", "combatants": [{"name": "Hambone", "level": 3, "size": "small", "hp": 12,
                                                "weapons": ["short sword"]}]},
            {"name": "Giant", "combatants": [{"name": "Stone giant", "hit_dice": "9d8", "hp": 50, "size": "large",
                                              "ac": 15, "weapons": ["great club"]}]},
        ],
    }  # fmt: skip
    setup = make_setup(data)
    first = initiative.roll_initiative(setup.ruleset, setup.combatants, setup.sides, 1, ScriptedDice([9, 3]))
    assert first.order == [["Stone giant"], ["Hambone"]]
    assert first.first_strike[0]["rule"] == "ODD-INIT-5"
    later = initiative.roll_initiative(setup.ruleset, setup.combatants, setup.sides, 2, ScriptedDice([9, 3]))
    assert later.order == [["Hambone"], ["Stone giant"]] and later.first_strike == []
    # equal rolls (and Dex) are simultaneous: nobody acts before the giant, so it has nothing to move for
    dist = chance.distribution(lambda d: order_of(setup, d))
    assert dist == {
        (("Stone giant",), ("Hambone",)): Fraction(9, 10),
        (("Hambone", "Stone giant"),): Fraction(1, 10),
    }


def dex_modifier_house_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """A house rule written where the initiative rule lives: d10 + Dex modifier (GAP-ABILITY-MOD)."""
    written = initiative.roll_unit

    def d10_plus_dex(
        ruleset: Ruleset, unit: str, members: list[Combatant], number: int, dice: DiceSource
    ) -> initiative.UnitRoll:
        rolled = written(ruleset, unit, members, number, dice)
        bonus = abilities.modifier(members[0].abilities.dexterity, ruleset)
        return replace(rolled, key=(rolled.key[0] + bonus, *rolled.key[1:]))

    monkeypatch.setattr(initiative, "roll_unit", d10_plus_dex)


def test_an_initiative_house_rule_reaches_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: ODD-INIT-1 with a house rule (d10 + Dex modifier): Angthar (Dex 18, +3) rolls 5, the goblin 7
    setup = duel(dex=18)

    def engine_order() -> list[list[str]]:
        fight = Fight(setup)
        fight.begin(ScriptedDice([]))
        fight.start_round(ScriptedDice([5, 7]))
        return fight.state.order

    assert engine_order() == [["Goblin"], ["Angthar"]]
    dex_modifier_house_rule(monkeypatch)
    assert engine_order() == [["Angthar"], ["Goblin"]]
    # the exact procedure sees the same rule: Angthar first unless the goblin rolls 4 or more above him
    dist = chance.distribution(lambda d: order_of(setup, d))
    assert dist[(("Goblin",), ("Angthar",))] == Fraction(21, 100)


def test_the_units_rolled_in_one_loop_as_roll_unit_rolls_them(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: ODD-INIT-1, ODD-INIT-2, ODD-INIT-3: under individual initiative roll_initiative draws each d10
    # itself (roll_unit's own answers); the same dice, labels, order, rule and notes as asking roll_unit
    from pathlib import Path

    from referee.dice import DiceTape, RandomDice
    from referee.files import load_encounter

    melee = load_encounter(Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "melee_3v4.yaml")
    active = list(melee.combatants)
    source = RandomDice(11)

    def told(rounds: int) -> list[tuple[object, ...]]:
        out = []
        for number in range(1, rounds + 1):
            tape = DiceTape(source)
            found = initiative.roll_initiative(melee.ruleset, active, melee.sides, number, tape)
            out.append((tape.take(), found.order, found.rolls, found.rule, found.notes, found.first_strike))
        return out

    source.reseed(5)
    fast = told(40)
    real = initiative.roll_unit
    monkeypatch.setattr(initiative, "roll_unit", lambda *args: real(*args))  # the procedure asked per unit
    source.reseed(5)
    assert told(40) == fast
