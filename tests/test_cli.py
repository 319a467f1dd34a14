"""The `referee` command as a user runs it: real processes, exit codes, no tracebacks."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import yaml
from tests.conftest import EXAMPLES, angthar_data, referee

EXAMPLE = str(EXAMPLES / "angthar_and_the_goblins.yaml")


def test_fight_prints_an_explained_account() -> None:
    out = referee("fight", EXAMPLE, "--seed", "7")
    assert out.returncode == 0, out.stderr
    assert "ODD-INIT-1" in out.stdout and "ODD-MELEE-1" in out.stdout
    assert " win" in out.stdout or "no winner" in out.stdout


def test_fight_json_is_byte_identical_for_a_seed() -> None:
    a = referee("fight", EXAMPLE, "--seed", "3", "--json")
    b = referee("fight", EXAMPLE, "--seed", "3", "--json")
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout
    data = json.loads(a.stdout)
    assert set(data) == {"winner", "rounds", "combatants", "events"}
    assert {"name", "side", "hp", "max_hp", "status"} <= set(data["combatants"][0])
    attack = next(e for e in data["events"] if e["type"] == "attack")
    assert {"round", "type", "actor", "target", "dice", "modifiers", "total", "target_number", "hit"} <= set(
        attack
    )
    assert {"value", "rule", "reason"} == set(attack["modifiers"][0])


def test_typed_dice_replay_the_worked_example(tmp_path: Path) -> None:
    # rule: ODD-INIT-1, ODD-MELEE-1, ODD-MELEE-2 (TV-000-01..03) through --dice
    path = tmp_path / "angthar.yaml"
    path.write_text(yaml.safe_dump(angthar_data()))
    out = referee("fight", str(path), "--dice", "7,4,12,6", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    attack = next(e for e in data["events"] if e["type"] == "attack")
    damage = next(e for e in data["events"] if e["type"] == "damage")
    assert (attack["total"], attack["target_number"], damage["damage"]) == (17, 12, 7)
    assert data["winner"] == "Village"


def test_max_rounds(tmp_path: Path) -> None:
    path = tmp_path / "long.yaml"
    path.write_text(yaml.safe_dump(angthar_data(goblin_hp=900)))
    data = json.loads(referee("fight", str(path), "--seed", "1", "--max-rounds", "2", "--json").stdout)
    assert data["rounds"] == 2 and data["winner"] is None


def assert_one_line_error(out: subprocess.CompletedProcess[str], fragment: str) -> None:
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert fragment in out.stderr


def test_errors_exit_2_with_one_line(tmp_path: Path) -> None:
    assert_one_line_error(referee("fight", str(tmp_path / "none.yaml")), "no such file")
    assert_one_line_error(referee("fight", EXAMPLE, "--dice", "1,1,1,40"), "not a face of a d10")
    assert_one_line_error(referee("fight", EXAMPLE, "--dice", "7,x"), "item 2")
    bad = tmp_path / "bad.yaml"
    bad.write_text("sides: [1, 2]\n")
    assert_one_line_error(referee("fight", str(bad)), "bad.yaml: sides.0")
    assert_one_line_error(referee("fight", EXAMPLE, "--max-rounds", "0"), "max-rounds")
    assert_one_line_error(referee("fight"), "Missing argument 'file'")


def test_schema_and_catalog() -> None:
    schema = json.loads(referee("schema").stdout)
    assert "sides" in schema["properties"]
    catalog = json.loads(referee("catalog", "--json").stdout)
    names = {w["name"] for w in catalog["weapons"]}
    assert {"dagger", "battle axe", "long bow", "heavy crossbow", "net", "garrotte"} <= names
    assert {a["name"] for a in catalog["armour"]} >= {"leather", "chain mail", "plate mail", "full plate"}
