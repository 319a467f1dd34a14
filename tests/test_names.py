"""Forgiving names (issue 15): field synonyms, "did you mean", enhancement suffixes; classes by level
(ODD-BTH-1, ODD-HD-1, GAP-CLASS-BTH, GAP-CLASS-HD). Through the command line in
tests/commands/test_forgiving.py."""

from __future__ import annotations

import pytest

from referee.classes import class_named
from referee.names import did_you_mean, rename_fields, split_enhancement, with_field_synonyms


def test_synonym_fields_are_renamed() -> None:
    renamed = rename_fields({"name": "Orc", "hd": 1, "armor": "chain", "weapon": "sword"})
    assert renamed == {"name": "Orc", "hit_dice": 1, "armour": "chain", "weapons": ["sword"]}


def test_a_synonym_beside_its_field_is_kept_for_validation_to_refuse() -> None:
    assert rename_fields({"armor": "chain", "armour": "plate"}) == {"armor": "chain", "armour": "plate"}


def test_only_combatants_are_renamed() -> None:
    data = {"name": "x", "hd": 1, "sides": [{"name": "A", "combatants": [{"hd": 2}]}]}
    assert with_field_synonyms(data) == {
        "name": "x",
        "hd": 1,
        "sides": [{"name": "A", "combatants": [{"hit_dice": 2}]}],
    }


def test_near_misses_get_the_nearest_name() -> None:
    assert did_you_mean("long swrod", ["long sword", "short sword"]) == "; did you mean 'long sword'?"
    assert did_you_mean("zzz", ["long sword"]) == ""


@pytest.mark.parametrize(
    ("name", "split"),
    [
        ("long sword +1", ("long sword", 1)),
        ("mace+2", ("mace", 2)),
        ("dagger -1", ("dagger", -1)),
        ("mace", None),
    ],
)
def test_enhancement_suffixes(name: str, split: tuple[str, int] | None) -> None:
    # rule: ODD-MELEE-3 (a magic weapon's bonus)
    assert split_enhancement(name) == split


@pytest.mark.parametrize(
    ("name", "level", "bonus", "die"),
    [("fighter", 5, 4, "d10"), ("Fighting-Man", 1, 0, "d10"), ("cleric", 5, 2, "d8"),
     ("wizard", 6, 2, "d4"), ("magic-user", 2, 0, "d4"), ("thief", 4, 2, "d6")],
)  # fmt: skip
def test_classes_give_bonus_and_die(name: str, level: int, bonus: int, die: str) -> None:
    # rule: ODD-BTH-1 (5th-level barbarian +4), ODD-HD-1 (fighter d10, wizard d4), GAP-CLASS-BTH, GAP-CLASS-HD
    klass = class_named(name)
    assert (klass.attack_bonus(level), klass.hit_die) == (bonus, die)


def test_an_unknown_class_names_the_nearest() -> None:
    with pytest.raises(ValueError, match="did you mean 'fighter'"):
        class_named("figter")
    with pytest.raises(ValueError, match="classes: fighter, cleric, magic-user, thief"):
        class_named("xyzzy")
