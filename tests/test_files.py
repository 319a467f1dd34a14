"""Encounter files: schema, catalog resolution, one-line errors naming the place."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from tests.conftest import EXAMPLES, angthar_data

from referee.errors import EncounterFileError
from referee.files import load_encounter, setup_from_data
from referee.model import CombatantSpec, DamageType, EncounterSpec, WeaponSpec
from referee.structs import SpecError


def write(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "e.yaml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def test_example_loads_with_counted_names() -> None:
    setup = load_encounter(EXAMPLES / "angthar_and_the_goblins.yaml")
    assert [c.name for c in setup.combatants] == ["Angthar", "Goblin 1", "Goblin 2", "Goblin 3"]
    angthar = setup.combatant("Angthar")
    assert angthar.weapons[0].damage == "1d8"  # battle axe from the catalog (ODD-ATK-2)
    assert angthar.armour is not None and angthar.armour.ac_bonus == 2 and angthar.armour.ac == 8


def test_weapon_fields_override_the_catalog() -> None:
    setup = setup_from_data(angthar_data())
    scimitar = setup.combatant("Goblin").weapons[0]
    assert scimitar.damage == "1d6"
    assert scimitar.type  # kept from the catalog entry


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (
            lambda d: d["sides"][0]["combatants"][0].update(weapons=["lightsaber"]),
            "unknown weapon 'lightsaber'",
        ),
        (lambda d: d["sides"][0]["combatants"][0].update(hp=0), "sides.0.combatants.0.hp"),
        (lambda d: d["sides"][0]["combatants"][0].update(colour="red"), "colour"),
        (lambda d: d.update(ruleset="nonsense"), "neither a preset"),
        (lambda d: d.update(options={"critical_hits": "sometimes"}), "choose one of"),
        (lambda d: d.update(options={"no_such": "x"}), "unknown ruleset option"),
        (lambda d: d["sides"][1].update(name="Village"), "two sides are called"),
        (lambda d: d["sides"][0]["combatants"][0].update(weapons=[{"name": "x", "damage": "1d0"}]), "1d0"),
        (
            lambda d: (
                d["sides"][1]["combatants"][0].pop("hp") and d["sides"][1]["combatants"][0].pop("hit_dice")
            ),
            "give hp",
        ),
        (lambda d: d.update(surprise={"sides": ["Nobody"]}), "surprise names side"),
        (lambda d: d["sides"][0]["combatants"][0].update(armour="mithril"), "unknown armour"),
        (
            lambda d: d["sides"][0]["combatants"][0]["abilities"].update(str=99),
            "abilities.str: Input should be less",
        ),
    ],
)
def test_bad_encounters_are_one_line_errors(change, fragment: str) -> None:  # type: ignore[no-untyped-def]
    data = angthar_data()
    change(data)
    with pytest.raises(EncounterFileError) as info:
        setup_from_data(data, "e.yaml")
    message = str(info.value)
    assert fragment in message
    assert message.startswith("e.yaml")
    assert "\n" not in message


def test_bad_files(tmp_path: Path) -> None:
    with pytest.raises(EncounterFileError, match="no such file"):
        load_encounter(tmp_path / "missing.yaml")
    with pytest.raises(EncounterFileError, match="bad YAML at line 3"):
        load_encounter(write(tmp_path, "sides:\n  - [unclosed\n"))
    with pytest.raises(EncounterFileError, match="not UTF-8"):
        load_encounter(write(tmp_path, b"name: \xff\xfe\n"))
    with pytest.raises(EncounterFileError, match="expected a mapping"):
        load_encounter(write(tmp_path, "- just a list\n"))


def test_alias_bombs_are_refused(tmp_path: Path) -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 12):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1 if i > 1 else ''}"] * 10) + "]")
    with pytest.raises(EncounterFileError, match="YAML aliases"):
        load_encounter(write(tmp_path, "\n".join(lines) + "\n"))


def test_yaml_on_off_become_option_words() -> None:
    data = angthar_data(options={"armour_damage": True, "first_strike_reach_size": False})
    setup = setup_from_data(data)
    assert setup.ruleset["armour_damage"] == "on"
    assert setup.ruleset["first_strike_reach_size"] == "off"


def test_paired_conditions_cannot_start_the_fight() -> None:
    data = angthar_data()
    data["sides"][0]["combatants"][0]["conditions"] = ["garrotting"]
    with pytest.raises(EncounterFileError, match="needs a partner"):
        setup_from_data(data, "e.yaml")


def test_an_inline_catalog_adds_weapons_and_its_problems_name_their_place() -> None:
    # rule: ODD-ATK-2 (the own weapon's damage), ODD-AC-ARMOR (the own armour's bonus)
    data = angthar_data()
    data["catalog"] = {
        "weapons": [{"name": "elven blade", "damage": "1d8"}],
        "armor": [{"name": "mithral", "ac": 2}],
    }
    data["sides"][0]["combatants"][0].update(weapons=["elven blade"], armour="mithral")
    setup = setup_from_data(data)
    angthar = setup.combatant("Angthar")
    assert angthar.weapons[0].damage == "1d8" and angthar.armour is not None and angthar.armour.ac_bonus == 8
    assert setup.source["catalog"]["armour"] == [{"name": "mithral", "ac": 2}]  # the stored setup carries it
    data["catalog"] = {"weapons": [{"name": "elven blade", "damage": "d"}, {"name": "whip"}]}
    with pytest.raises(EncounterFileError) as caught:
        setup_from_data(data, "e.yaml")
    lines = str(caught.value).splitlines()
    assert len(lines) == 2 and lines[0].startswith(
        "e.yaml: catalog.weapons.0.damage: bad dice expression 'd'"
    )
    assert lines[1] == "e.yaml: catalog.weapons.1: weapon 'whip' gives no damage (e.g. damage: 1d8)"


def test_a_ruleset_file_is_not_an_encounter() -> None:
    with pytest.raises(EncounterFileError, match=r"house_rules.yaml: this is a ruleset file .*--ruleset"):
        load_encounter(EXAMPLES / "house_rules.yaml")


def test_a_command_lines_catalog_wins_over_the_encounters_and_the_setup_reads_again(tmp_path: Path) -> None:
    # rule: ODD-ATK-2 (the weapon's damage is the winning entry's)
    (tmp_path / "mine.yaml").write_text("weapons: [{name: elven blade, damage: 1d8}]\n")
    (tmp_path / "theirs.yaml").write_text("weapons: [{name: Elven Blade, damage: 1d12}]\n")
    path = write(tmp_path, "")
    data = angthar_data()
    data["catalog"] = "mine.yaml"
    data["sides"][0]["combatants"][0]["weapons"] = ["elven blade"]
    path.write_text(yaml.safe_dump(data))
    assert load_encounter(path).combatant("Angthar").weapons[0].damage == "1d8"
    setup = load_encounter(path, catalog=tmp_path / "theirs.yaml")
    assert setup.combatant("Angthar").weapons[0].damage == "1d12"
    again = setup_from_data(setup.to_dict(), "stored")  # no file named, none needed (the tracker's store)
    assert again.combatant("Angthar").weapons[0].damage == "1d12"


def test_every_built_in_catalog_item_validates_and_is_validated_when_first_looked_up() -> None:
    # The built-in catalog validates an item on first look-up (issue 12); a broken item is still found
    # here, by looking every one up.
    from referee import catalog

    for items in (catalog.weapons(), catalog.armours(), catalog.shields()):
        assert len(items) == len(list(items)) > 0
        assert all(item is items[key] for key, item in items.items())  # each made once
    fresh = catalog.Entries(
        "weapons.yaml", WeaponSpec, {"club": {"name": "club", "damage": "1d4"}, "bad": {}}
    )
    assert fresh["club"].damage == "1d4" and "bad" not in fresh.made
    with pytest.raises(EncounterFileError, match=r"catalog weapons\.yaml is invalid"):
        fresh["bad"]


def test_reading_a_file_and_one_attacks_odds_import_no_pydantic() -> None:
    """Issue 12, the command line at once: the file's models are msgspec structs; pydantic (about 135 ms
    of a one-attack answer with its models) stays with the tracker's request bodies."""
    code = (
        "import sys\nfrom referee.files import load_encounter\nfrom referee import odds\n"
        "from referee.engine.actions import Attack\n"
        f"setup = load_encounter({str(EXAMPLES / 'duel.yaml')!r})\n"
        "print(odds.action_odds(odds.opening_state(setup), Attack('Angthar', target='Goblin')).hit)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'pydantic', 'pydantic_core'}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.splitlines()[-1] == "[]", out.stdout
    assert "/" in out.stdout.splitlines()[0]  # the chance to hit, as a fraction


def test_the_referee_odds_command_imports_no_pydantic() -> None:
    code = (
        "import sys\nfrom referee.cli import main\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'pydantic', 'pydantic_core'}), file=sys.stderr)"
    )
    argv = ["odds", str(EXAMPLES / "duel.yaml"), "--attacker", "Angthar", "--target", "Goblin"]
    out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=120)
    assert "Angthar" in out.stdout and out.stderr.strip().splitlines()[-1] == "[]", out.stderr


@pytest.mark.parametrize(
    ("combatant", "line"),
    [
        ({"hp": "many"}, "sides.0.combatants.0.hp: Input should be a whole number, not text"),
        ({"hp": 0}, "sides.0.combatants.0.hp: Input should be greater than or equal to 1"),
        ({"hp": True}, "sides.0.combatants.0.hp: expected a number, not the boolean true"),
        ({"colour": "red"}, "sides.0.combatants.0.colour: unknown field 'colour'"),
        ({"size": "enormous"}, "sides.0.combatants.0.size: unknown size 'enormous'; sizes: tiny, small"),
        ({"hit_dice": "lots"}, "sides.0.combatants.0.hit_dice: hit_dice 'lots' is not like '5d8'"),
        ({"conditions": ["dizzy"]}, "sides.0.combatants.0.conditions: unknown condition 'dizzy'"),
        ({"weapons": [{"name": "x", "kind": "lobbed"}]}, "weapons.0.kind: Input should be 'melee', 'thrown'"),
        ({"weapons": [{"damage": "1d6"}]}, "sides.0.combatants.0.weapons.0.name: Field required"),
        (
            {"abilities": {"str": 30}},
            "sides.0.combatants.0.abilities.str: Input should be less than or equal",
        ),
    ],
)
def test_a_bad_field_is_one_line_naming_its_place(combatant: dict[str, object], line: str) -> None:
    data = angthar_data()
    data["sides"][0]["combatants"][0].update(combatant)
    with pytest.raises(EncounterFileError) as info:
        setup_from_data(data, "e.yaml")
    assert f"e.yaml: {line}" in str(info.value) or f"e.yaml: sides.0.combatants.0.{line}" in str(info.value)
    assert "\n" not in str(info.value)


def test_fields_given_by_the_files_name_or_by_their_own_are_read_alike() -> None:
    by_alias, by_name = angthar_data(), angthar_data()
    by_alias["sides"][0]["combatants"][0].update(abilities={"str": 17, "dex": 13}, **{"class": "fighter"})
    by_name["sides"][0]["combatants"][0].update(
        abilities={"strength": 17, "dexterity": 13}, character_class="fighter"
    )
    one, other = setup_from_data(by_alias).combatants[0], setup_from_data(by_name).combatants[0]
    assert one == other and one.abilities.strength == 17 and one.abilities.dexterity == 13


def test_every_problem_of_a_file_is_named_at_once() -> None:
    data = angthar_data()
    data["sides"][0]["combatants"][0].update(hp=0, colour="red")
    data["sides"][1]["combatants"][0].update(move=-5)
    data["max_rounds"] = 0
    with pytest.raises(EncounterFileError) as info:
        setup_from_data(data, "e.yaml")
    assert str(info.value).splitlines() == [
        "e.yaml: max_rounds: Input should be greater than or equal to 1",
        "e.yaml: sides.0.combatants.0.colour: unknown field 'colour'",
        "e.yaml: sides.0.combatants.0.hp: Input should be greater than or equal to 1",
        "e.yaml: sides.1.combatants.0.move: Input should be greater than or equal to 0",
    ]


def test_models_dump_and_copy_as_the_library_documents() -> None:
    weapon = WeaponSpec.model_validate({"name": "long sword", "damage": " 1d8 ", "type": ["slashing"]})
    assert weapon.damage == "1d8"  # checked and normalised on reading
    assert weapon.model_dump(exclude_none=True, exclude_defaults=True) == {
        "name": "long sword", "damage": "1d8", "type": [DamageType.SLASHING],
    }  # fmt: skip
    assert weapon.model_dump(mode="json")["type"] == ["slashing"]
    assert WeaponSpec.model_validate(weapon.model_dump()) == weapon
    assert weapon.model_copy(update={"to_hit": 1}).to_hit == 1 and weapon.to_hit == 0
    with pytest.raises(SpecError, match="to_hit: Input should be less than or equal to 20"):
        WeaponSpec.model_validate({"name": "x", "to_hit": 21})
    first, second = CombatantSpec.model_validate({"name": "a", "hp": 1}), CombatantSpec(name="b", hp=1)
    assert first.weapons == [] and first.weapons is not second.weapons  # no shared default
    assert "sides" in EncounterSpec.model_json_schema()["properties"]
