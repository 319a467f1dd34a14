"""Surprise (ODD-SURP-1 to ODD-SURP-5): the procedure rolled live (scripted dice) and exactly, and the
engine's events built from it."""

from __future__ import annotations

from fractions import Fraction

from tests.conftest import angthar_data, make_setup

from referee import chance
from referee.dice import ScriptedDice
from referee.engine.events import EventType
from referee.engine.fight import Fight
from referee.files import Setup
from referee.model import SurpriseSpec
from referee.rules.surprise import roll_surprise


def party() -> Setup:
    data = angthar_data(goblins=2)
    goblin = data["sides"][1]["combatants"][0]
    del goblin["count"]
    second = {**goblin, "name": "Sharp-eyed goblin", "abilities": {"wis": 14}}
    data["sides"][1]["combatants"] = [goblin, second]
    return make_setup(data)


def test_impossible_surprise_rolls_nothing() -> None:
    # rule: ODD-SURP-1 (TV-000-06): the referee rules it out; no check is rolled
    setup = party()
    found, dice = chance.run(
        lambda d: roll_surprise(SurpriseSpec(possible=False, sides=["Goblins"]), setup.combatants, d),
        ScriptedDice([]),
    )
    assert not found.possible and found.surprised == () and dice == ()


def test_one_check_for_the_side_by_its_best_member() -> None:
    # rule: ODD-SURP-2: the member with the best chance checks for the group; d20 <= Wis passes
    setup = party()
    spec = SurpriseSpec(sides=["Goblins"])
    failed = roll_surprise(spec, setup.combatants, ScriptedDice([15]))
    assert [r.check.who for r in failed.checks] == ["Sharp-eyed goblin"]
    assert failed.surprised == ("Goblin", "Sharp-eyed goblin")
    assert failed.acting == ("Angthar",) and failed.rule == "ODD-SURP-4"  # a free round for Angthar
    passed = roll_surprise(spec, setup.combatants, ScriptedDice([14]))
    assert passed.surprised == () and not passed.free_round


def test_one_check_per_member_and_the_referees_modifier() -> None:
    # rule: ODD-SURP-2 (one check each), ODD-SURP-3 (the referee's -5 on the goblins)
    setup = party()
    spec = SurpriseSpec(sides=["Goblins"], check="per_combatant", modifiers={"Goblins": -5})
    found = roll_surprise(spec, setup.combatants, ScriptedDice([5, 10]))
    assert [(r.check.who, r.check.check.target, r.passed) for r in found.checks] == [
        ("Goblin", 5, True),
        ("Sharp-eyed goblin", 9, False),
    ]
    assert found.surprised == ("Sharp-eyed goblin",)


def test_both_sides_surprised_is_a_silent_free_round() -> None:
    # rule: ODD-SURP-5: both fail, both are surprised, nobody acts in the free round
    setup = party()
    found = roll_surprise(
        SurpriseSpec(sides=["Village", "Goblins"]), setup.combatants, ScriptedDice([20, 20])
    )
    assert found.acting == () and found.rule == "ODD-SURP-5" and found.free_round


def test_exact_surprise() -> None:
    # rule: ODD-SURP-2, ODD-SURP-3: Wis 14 - 2 passes on 12 faces of 20; per member, both can fail
    setup = party()
    spec = SurpriseSpec(sides=["Goblins"], modifiers={"Goblins": -2})
    dist = chance.distribution(lambda d: roll_surprise(spec, setup.combatants, d).surprised)
    assert dist == {(): Fraction(12, 20), ("Goblin", "Sharp-eyed goblin"): Fraction(8, 20)}
    each = SurpriseSpec(sides=["Goblins"], check="per_combatant")
    dist = chance.distribution(lambda d: roll_surprise(each, setup.combatants, d).surprised)
    assert dist[("Goblin", "Sharp-eyed goblin")] == Fraction(10, 20) * Fraction(6, 20)
    assert sum(dist.values()) == 1


def test_the_engine_records_the_procedure() -> None:
    # rule: ODD-SURP-2 (the check event), ODD-SURP-4 (the free round's order: only who is not surprised)
    data = angthar_data(surprise={"sides": ["Goblins"]})
    fight = Fight(make_setup(data))
    events = fight.begin(ScriptedDice([11]))
    check = next(e for e in events if e.type is EventType.CHECK)
    assert (check.actor, check.total, check.hit, check.rule) == ("Goblin", 11, False, "ODD-SURP-2")
    assert [(d.sides, d.value) for d in check.dice] == [(20, 11)]
    free = events[-1]
    assert free.type is EventType.ROUND_START and free.data == {"free_round": True, "order": [["Angthar"]]}
