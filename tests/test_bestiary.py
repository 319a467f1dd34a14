"""The bestiary and `monster:` / `stat_block:` in encounter files (issue 15, items 2 and 3; ODD-ATK-3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from referee.bestiary import monster, monsters
from referee.errors import EncounterFileError
from referee.files import setup_from_data

CLASSIC = ("kobold", "goblin", "orc", "hobgoblin", "gnoll", "bugbear", "lizard man", "ogre", "troll",
           "giant rat", "wolf", "bear", "giant spider", "skeleton", "zombie", "ghoul", "wight", "wraith")  # fmt: skip


def encounter(*monsters_side: dict[str, Any], ruleset: str = "odd") -> dict[str, Any]:
    return {
        "ruleset": ruleset,
        "sides": [
            {
                "name": "Party",
                "combatants": [{"name": "Angthar", "level": 3, "hp": 20, "weapons": ["long sword"]}],
            },
            {"name": "Monsters", "combatants": list(monsters_side)},
        ],
    }


def test_at_least_forty_classic_monsters_each_complete_and_assumed() -> None:
    book = monsters()
    assert len(book) >= 40
    for name in CLASSIC:
        m = book[name]
        b = m.block
        assert b.hit_dice and b.attacks and b.move and b.morale and b.saves, name
        assert b.ac_descending is not None and b.ac_ascending == 19 - b.ac_descending, name
        assert m.assumed  # our own common old-school figures (GAP-BESTIARY)


def test_names_forgive_case_spacing_and_aliases() -> None:
    assert monster("Lizard  Man") is monster("lizardman")
    with pytest.raises(EncounterFileError, match="did you mean 'ogre'"):
        monster("ogr")


def test_monster_fills_a_combatant_and_its_own_fields_override() -> None:
    """ODD-ATK-3: the troll's routine is claw, claw, bite; hp and name from the file win."""
    setup = setup_from_data(
        encounter({"monster": "troll", "hp": 30}, {"monster": "orc", "name": "Orc", "count": 2})
    )
    troll = setup.combatant("Troll")
    assert troll.is_monster and troll.hit_dice == 6 and troll.hp == 30 and troll.hp_dice == "6d8+3"
    assert troll.attacks == ("claw", "claw", "bite") and troll.ac == 15
    assert [w.damage for w in troll.weapons] == ["1d6", "1d10"] and troll.weapons[0].natural
    assert troll.attack_bonus == 6  # no THAC0 in the bestiary: ODD-BTH-2, one per hit die
    assert [c.name for c in setup.combatants[2:]] == ["Orc 1", "Orc 2"]


def test_ac_is_read_in_the_rulesets_convention() -> None:
    """ "5 [14]": 14 under ascending rules (ODD-AC-1), 5 under descending ones (DAC-AC-1)."""
    assert setup_from_data(encounter({"monster": "ogre"})).combatant("Ogre").ac == 14
    assert setup_from_data(encounter({"monster": "ogre"}, ruleset="dac")).combatant("Ogre").ac == 5
    data = encounter({"monster": "ogre"}, ruleset="odd")
    data["options"] = {"armour_class": "descending"}
    assert setup_from_data(data).combatant("Ogre").ac == 5


def test_a_stat_block_fills_a_combatant_over_the_monster() -> None:
    line = "AC 4 [15], HD 3 (14hp), Att 1 × weapon (1d8), THAC0 16 [+3], MV 90' (30'), ML 11"
    setup = setup_from_data(encounter({"name": "Chief", "monster": "orc", "stat_block": line, "ac": 16}))
    chief = setup.combatant("Chief")
    assert (chief.hp, chief.hit_dice, chief.attack_bonus, chief.move, chief.ac) == (14, 3, 3, 22, 16)
    assert chief.weapons[0].damage == "1d8"


def test_the_files_own_weapons_replace_the_routine() -> None:
    setup = setup_from_data(encounter({"monster": "ogre", "weapons": ["great club"]}))
    ogre = setup.combatant("Ogre")
    assert ogre.attacks == () and ogre.weapons[0].name == "great club"


@pytest.mark.parametrize(
    ("combatant", "message"),
    [
        ({"monster": "dragonne"}, "sides.1.combatants.0.monster: unknown monster 'dragonne'"),
        (
            {"name": "X", "stat_block": "HD 2, AC lots"},
            "sides.1.combatants.0.stat_block: stat block part 'AC lots'",
        ),
        (
            {"name": "X", "hit_dice": 2, "weapons": [{"name": "claw", "damage": "1d3/1d3/1d6"}]},
            "lists several attacks; give each its weapon and name them in `attacks:`",
        ),
    ],
)
def test_errors_name_the_place_and_the_part(combatant: dict[str, Any], message: str) -> None:
    with pytest.raises(EncounterFileError, match=message.replace("(", r"\(").replace("[", r"\[")):
        setup_from_data(encounter(combatant))


@pytest.mark.parametrize(
    ("fields", "ascending", "descending"),
    [
        ({"ac": "6 [13]"}, 13, 6),
        ({"ac": "4[15]"}, 15, 4),
        ({"ac_descending": 6}, 13, 6),
        ({"ac_ascending": 13}, 13, 6),
        ({"ac": 13}, 13, 13),  # a bare number is the ruleset's own convention, as before
    ],
)
def test_both_ac_notations_are_read_in_the_rulesets_convention(
    fields: dict[str, Any], ascending: int, descending: int
) -> None:
    """Issue 15 item 1: "6 [13]" is descending [ascending] (ODD-AC-1 ascending, DAC-AC-1 descending)."""
    orc = {"name": "Orc", "hit_dice": 1, "weapons": ["spear"], **fields}
    assert setup_from_data(encounter(orc)).combatant("Orc").ac == ascending
    assert setup_from_data(encounter(orc, ruleset="dac")).combatant("Orc").ac == descending


def test_a_bare_low_ac_under_ascending_rules_is_warned_about() -> None:
    orc = {"name": "Orc", "hit_dice": 1, "ac": 6, "weapons": ["spear"]}
    (warning,) = setup_from_data(encounter(orc)).warnings
    assert "(Orc): ac 6 is ascending" in warning and "did you mean descending AC 6 [13]?" in warning
    assert setup_from_data(encounter(orc, ruleset="dac")).warnings == ()
    assert setup_from_data(encounter({**orc, "ac": "6 [13]"})).warnings == ()


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"ac": "six"}, "sides.1.combatants.0.ac: AC 'six' is not like '6 [13]'"),
        ({"ac": 6, "ac_descending": 6}, "give one of ac, ac_descending, not both"),
        ({"ac_descending": "6"}, "ac_descending: expected a whole number"),
    ],
)
def test_a_bad_ac_notation_is_named(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(EncounterFileError, match=message.replace("[", r"\[")):
        setup_from_data(encounter({"name": "Orc", "hit_dice": 1, **fields}))


def test_a_referees_own_catalog_adds_and_overrides_monsters(tmp_path: Path) -> None:
    (tmp_path / "mine.yaml").write_text(
        "monsters:\n"
        '  - {name: ogre, stat: "AC 4 [15], HD 5 (30hp), Att 1 × club (2d6)", size: large, assumed: false}\n'
        '  - {name: cave goblin, stat: "AC 7 [12], HD 1, Att 1 × weapon (1d6)", size: small}\n'
    )
    data = {
        **encounter({"monster": "ogre"}, {"monster": "cave goblin"}, {"monster": "orc"}),
        "catalog": "mine.yaml",
    }
    setup = setup_from_data(data, "e.yaml", base_dir=tmp_path)
    assert [(c.name, c.ac, c.hp) for c in setup.combatants[1:]] == [
        ("Ogre", 15, 30),
        ("Cave Goblin", 12, None),
        ("Orc", 13, None),
    ]
    with pytest.raises(EncounterFileError, match="encounter data not read from a file names no file"):
        setup_from_data(data)
    (tmp_path / "mine.yaml").write_text("monsters: [{name: blob, stat: 'HD lots'}]\n")
    with pytest.raises(EncounterFileError, match=r"mine.yaml: monsters.0.stat: stat block part 'HD lots'"):
        setup_from_data(data, "e.yaml", base_dir=tmp_path)
