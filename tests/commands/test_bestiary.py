"""`referee bestiary [NAME] [--json]` through the command line (issue 15, item 3)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import referee


def test_the_list_shows_every_monster_with_both_ac_notations() -> None:
    out = referee("bestiary")
    assert out.returncode == 0, out.stderr
    assert "Bestiary: 50 monsters" in out.stdout
    for name in ("kobold", "lizard man", "giant spider", "wraith", "ogre"):
        assert name in out.stdout
    assert "5 [14]" in out.stdout and "GAP-BESTIARY" in out.stdout


def test_one_monster_as_json() -> None:
    out = referee("bestiary", "Troll", "--json")
    assert out.returncode == 0, out.stderr
    troll = json.loads(out.stdout)
    assert troll["ac"] == {"descending": 4, "ascending": 15} and troll["hit_dice"] == "6+3"
    assert troll["attacks"] == [
        {"weapon": "claw", "damage": "1d6", "count": 2},
        {"weapon": "bite", "damage": "1d10", "count": 1},
    ]
    assert troll["morale"] == 10 and troll["saves"]["death"] == 10 and troll["assumed"] is True
    assert len(json.loads(referee("bestiary", "--json").stdout)) >= 40


def test_an_unknown_monster_is_one_line_with_near_names() -> None:
    out = referee("bestiary", "ogr")
    assert out.returncode == 2 and out.stdout == ""
    assert (
        out.stderr.strip()
        == "error: unknown monster 'ogr'; did you mean 'ogre' or 'orc'? (`referee bestiary` lists them)"
    )


def test_an_encounter_with_monster_fights(tmp_path: Path) -> None:
    path = tmp_path / "e.yaml"
    path.write_text(
        "sides:\n"
        "  - {name: Party, combatants: [{name: Angthar, level: 3, hp: 20, weapons: [long sword]}]}\n"
        "  - {name: Monsters, combatants: [{monster: ghoul, count: 2, hp: 9}]}\n"
    )
    out = referee("fight", str(path), "--seed", "3", "--json")
    assert out.returncode == 0, out.stderr
    assert "Ghoul 2" in out.stdout and "claw" in out.stdout


def test_a_referees_own_catalog_adds_to_the_list(tmp_path: Path) -> None:
    mine = tmp_path / "mine.yaml"
    mine.write_text("monsters: [{name: cave goblin, stat: 'AC 7 [12], HD 1, Att 1 × weapon (1d6)'}]\n")
    out = referee("bestiary", "cave goblin", "--catalog", str(mine), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["ac"] == {"descending": 7, "ascending": 12}
    assert len(json.loads(referee("bestiary", "--catalog", str(mine), "--json").stdout)) == 51
