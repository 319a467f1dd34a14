"""A referee's own catalog through the command line (issue 15, item 3): `catalog:` in an encounter and
`--catalog FILE` add weapons, armour, shields and monsters to the built-in ones and replace those of the
same name; `referee catalog --catalog FILE` lists them marked as the referee's own."""

from __future__ import annotations

import json
from pathlib import Path

from tests.commands.test_output import at_80_columns
from tests.conftest import referee

from referee.render import print_catalog

HERE = Path(__file__).resolve().parents[1] / "data" / "catalog"
MINE = HERE / "mine.yaml"
ELVES = HERE / "elves.yaml"

# the same encounter without `catalog:`, for `--catalog FILE`
BARE = """\
name: Elves without their catalog
sides:
  - name: Elves
    combatants:
      - {name: Elrin, class: fighter, level: 3, hp: 20, weapons: [elven blade], armour: elven mail, shield: buckler}
  - name: Goblins
    combatants:
      - {monster: cave goblin, hp: 3}
"""


def bare(tmp_path: Path) -> Path:
    path = tmp_path / "bare.yaml"
    path.write_text(BARE)
    return path


def test_an_encounter_naming_its_catalog_fights_with_the_referees_own_items() -> None:
    # rule: ODD-AC-ARMOR, ODD-AC-SHIELD, ODD-ATK-2 (the own armour, shield and weapon damage are used)
    out = referee("fight", str(ELVES), "--seed", "1", "--json")
    assert out.returncode == 0, out.stderr
    attacks = [e for e in json.loads(out.stdout)["events"] if e["type"] == "attack"]
    assert any(e["data"]["weapon"] == "elven blade" for e in attacks)
    ac = json.loads(referee("ac", str(ELVES), "--name", "Elrin", "--json").stdout)
    assert ac["total"] == 10 + 6 + 1  # elven mail +6, buckler +1
    reasons = [(part["value"], part["reason"]) for part in ac["breakdown"]["total"]]
    assert (6, "elven mail") in reasons and (1, "buckler") in reasons


def test_an_own_entry_replaces_the_built_in_one_of_its_name() -> None:
    # rule: ODD-ATK-2 (this table's long sword does 1d10, not the catalog's 1d8)
    out = referee("odds", str(ELVES), "--attacker", "Maelis", "--target", "Cave Goblin 1", "--json")
    assert out.returncode == 0, out.stderr
    damage = json.loads(out.stdout)["damage"]
    assert max(int(k) for k in damage) == 10


def test_dash_dash_catalog_on_every_command_that_reads_an_encounter(tmp_path: Path) -> None:
    path = bare(tmp_path)
    refused = referee("fight", str(path))
    assert refused.returncode == 2 and "unknown weapon 'elven blade'" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 4  # weapon, armour, shield, monster: all at once
    for command in (["fight", "--seed", "2"], ["ac"], ["odds", "--fight"], ["sim", "-n", "200"]):
        out = referee(command[0], str(path), *command[1:], "--catalog", str(MINE))
        assert out.returncode == 0, (command, out.stderr)
    monster = tmp_path / "goblin.yaml"
    monster.write_text("monster: cave goblin\nname: Cave goblin\n")
    out = referee(
        "balance", str(monster), "--levels", "1", "--fights", "50", "--catalog", str(MINE), "--json"
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["levels"][0]["fighters"] >= 1


def test_near_misses_suggest_the_referees_own_names(tmp_path: Path) -> None:
    path = bare(tmp_path)
    path.write_text(BARE.replace("elven blade", "elven blaed").replace("buckler", "bucklr"))
    out = referee("fight", str(path), "--catalog", str(MINE))
    assert out.returncode == 2
    assert "unknown weapon 'elven blaed'; did you mean 'elven blade'?" in out.stderr
    assert "unknown shield 'bucklr'; did you mean 'buckler'?" in out.stderr


def test_a_bad_catalog_names_every_problem_with_its_file_and_entry(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "weapons:\n"
        "  - {name: elven blade, damage: 1d8}\n"
        "  - {name: troll club, damage: 1d3/1d3/1d6}\n"
        "  - {name: whip}\n"
        "armor:\n"
        "  - {name: mithral, ac_bonus: 40}\n"
        "shields:\n"
        "  - {name: pot lid, bonus: 1, colour: red}\n"
        "trinkets: []\n"
    )
    out = referee("fight", str(bare(tmp_path)), "--catalog", str(bad))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 5, lines
    assert f"{bad}: weapons.1.damage:" in lines[1] and "attacks:" in lines[1]
    assert f"{bad}: weapons.2: weapon 'whip' gives no damage" in lines[2]
    assert f"{bad}: armor.0.ac_bonus: Input should be less than or equal to 30" in lines[3]
    assert f"{bad}: shields.0.colour: unknown field 'colour'" in lines[4]
    assert f"{bad}: trinkets: unknown list" in lines[0]


def test_the_catalog_lists_the_referees_own_marked(tmp_path: Path) -> None:
    out = referee("catalog", "--catalog", str(MINE), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    weapons = {w["name"]: w for w in data["weapons"]}
    assert weapons["elven blade"]["own"] is True and "own" not in weapons["dagger"]
    assert weapons["long sword"] == {"name": "long sword", "damage": "1d10", "kind": "melee", "reach": 5,
                                     "type": ["slashing"], "to_hit": 0, "damage_bonus": 0,
                                     "assumed": False, "own": True}  # fmt: skip
    assert weapons["goblin spear"]["assumed"] is True  # the referee's own `assumed` mark is kept
    elven_mail = next(a for a in data["armour"] if a["name"] == "elven mail")
    assert (elven_mail["ac_bonus"], elven_mail["ac"]) == (6, 4)  # AAC = 20 - DAC (RULES.md 1.3)
    assert any(s["name"] == "buckler" and s["own"] for s in data["shields"])
    text = referee("catalog", "--catalog", str(MINE))  # to a pipe: whole lines, no trailing spaces
    assert text.returncode == 0, text.stderr
    assert "elven blade" in text.stdout and "own: from" in text.stdout
    assert all(line == line.rstrip() for line in text.stdout.splitlines())
    at_80 = at_80_columns(lambda console: print_catalog(console, data))  # a terminal 80 columns wide
    assert "…" not in at_80 and " elven blade " in at_80 and " own " in at_80


def test_the_bestiary_lists_the_referees_own_monsters() -> None:
    out = referee("bestiary", "cave goblin", "--catalog", str(MINE), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["attacks"] == [{"weapon": "goblin spear", "damage": "1d6", "count": 1}]


def test_a_ruleset_file_given_as_an_encounter_says_what_it_is() -> None:
    out = referee("sim", "examples/house_rules.yaml", "-n", "10")
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "this is a ruleset file" in out.stderr and "ruleset: house_rules.yaml" in out.stderr
    assert "--ruleset" in out.stderr


def test_the_documented_catalog_is_the_one_tested_here() -> None:
    doc = (HERE.parents[2] / "docs" / "encounter-file.md").read_text(encoding="utf-8")
    entries = "".join(MINE.read_text(encoding="utf-8").splitlines(keepends=True)[2:])
    assert entries in doc


def test_an_encounter_given_as_the_catalog_says_what_it_is() -> None:
    out = referee("fight", str(ELVES), "--catalog", "examples/duel.yaml")
    assert out.returncode == 2
    assert (
        out.stderr == "error: examples/duel.yaml: this is an encounter, not a catalog (monsters, weapons,"
        " armour, shields: docs/encounter-file.md)\n"
    )
