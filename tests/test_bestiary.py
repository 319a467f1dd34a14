"""The bestiary and `monster:` / `stat_block:` in encounter files (issue 15, items 2 and 3; ODD-ATK-3)."""

from __future__ import annotations

from typing import Any

import pytest

from referee.bestiary import monster, monsters
from referee.errors import EncounterFileError
from referee.files import setup_from_data

CLASSIC = (
    "kobold goblin orc hobgoblin gnoll bugbear ogre troll wolf bear skeleton zombie ghoul wight wraith"
).split() + ["lizard man", "giant rat", "giant spider"]


def encounter(*monsters_side: dict[str, Any], ruleset: str = "odd") -> dict[str, Any]:
    return {
        "ruleset": ruleset,
        "sides": [
            {"name": "Party", "combatants": [{"name": "Angthar", "level": 3, "hp": 20, "weapons": ["long sword"]}]},
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
    setup = setup_from_data(encounter({"monster": "troll", "hp": 30}, {"monster": "orc", "name": "Orc", "count": 2}))
    troll = setup.combatant("Troll")
    assert troll.is_monster and troll.hit_dice == 6 and troll.hp == 30 and troll.hp_dice == "6d8+3"
    assert troll.attacks == ("claw", "claw", "bite") and troll.ac == 15
    assert [w.damage for w in troll.weapons] == ["1d6", "1d10"] and troll.weapons[0].natural
    assert troll.attack_bonus == 6  # no THAC0 in the bestiary: ODD-BTH-2, one per hit die
    assert [c.name for c in setup.combatants[2:]] == ["Orc 1", "Orc 2"]


def test_ac_is_read_in_the_rulesets_convention() -> None:
    """"5 [14]": 14 under ascending rules (ODD-AC-1), 5 under descending ones (DAC-AC-1)."""
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
        ({"name": "X", "stat_block": "HD 2, AC lots"}, "sides.1.combatants.0.stat_block: stat block part 'AC lots'"),
        (
            {"name": "X", "hit_dice": 2, "weapons": [{"name": "claw", "damage": "1d3/1d3/1d6"}]},
            "lists several attacks; give each its weapon and name them in `attacks:`",
        ),
    ],
)
def test_errors_name_the_place_and_the_part(combatant: dict[str, Any], message: str) -> None:
    with pytest.raises(EncounterFileError, match=message.replace("(", r"\(").replace("[", r"\[")):
        setup_from_data(encounter(combatant))
