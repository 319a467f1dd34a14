"""Issue 15 through the command line: forgiving names (synonyms, "did you mean", `long sword +1`,
`class:`) and every problem of a file at once, one line each with its place."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from tests.conftest import referee


def write(tmp_path: Path, *combatants: dict[str, Any], other: dict[str, Any] | None = None) -> str:
    data = {
        "name": "forgiving",
        "ruleset": "odd",
        "sides": [
            {"name": "Fighters", "combatants": list(combatants)},
            {"name": "Orcs", "combatants": [other or {"name": "Orc", "hd": 1, "weapons": ["axe"], "ac": 13}]},
        ],
    }
    path = tmp_path / "e.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return str(path)


def account(path: str) -> list[str]:
    """The lines of `referee fight`'s account (to a pipe: one line per event, never wrapped)."""
    out = referee("fight", path, "--seed", "1")
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_every_problem_at_once_one_line_each_with_its_place(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {"name": "Angthar", "level": 3, "hp": 20, "armor": "chain", "weapons": ["long swrod"]},
        other={"name": "Orc", "hd": 1, "hp": -3, "armr": "chain", "shield": "tower shild"},
    )
    out = referee("fight", path)
    assert out.returncode == 2
    lines = out.stderr.splitlines()
    assert lines == [
        f"error: {path}: sides.0.combatants.0.weapons.0: unknown weapon 'long swrod'; did you mean 'long sword'?",
        f"error: {path}: sides.1.combatants.0.armr: unknown field 'armr'; did you mean 'armour'?",
        f"error: {path}: sides.1.combatants.0.hp: Input should be greater than or equal to 1",
        f"error: {path}: sides.1.combatants.0.shield: unknown shield 'tower shild'; did you mean 'tower shield'?",
    ], out.stderr  # the orc fails validation; its shield is looked up all the same
    assert "more problems" not in out.stderr


def test_every_unknown_item_of_a_combatant(tmp_path: Path) -> None:
    path = write(
        tmp_path, {"name": "A", "hp": 5, "weapons": ["long swrod", "dagger", "maze"], "shield": "tower shild"}
    )
    lines = referee("fight", path).stderr.splitlines()
    assert [line.split(": ")[2] for line in lines] == [
        "sides.0.combatants.0.weapons.0", "sides.0.combatants.0.weapons.2", "sides.0.combatants.0.shield",
    ]  # fmt: skip
    assert "did you mean 'tower shield'?" in lines[2]


def test_synonyms_read_as_the_names_they_stand_for(tmp_path: Path) -> None:
    path = write(
        tmp_path, {"name": "Angthar", "level": 3, "hp": 20, "armor": "chainmail", "weapons": ["sword", "bow"]}
    )
    out = referee("ac", path, "--json")
    assert out.returncode == 0, out.stderr
    angthar = json.loads(out.stdout)[0]
    assert angthar["total"] == 15  # chain mail +5 (ODD-AC-ARMOR)
    texts = " ".join(account(path))
    assert "(sword)" in texts and "1d8" in texts  # sword is the long sword: 1d8 (GAP-WEAPONS)


def test_long_sword_plus_one_adds_to_hit_and_damage(tmp_path: Path) -> None:
    # rule: ODD-MELEE-3 (magic weapon bonus), ODD-AC-MAGIC-1 (armour enchantment)
    path = write(
        tmp_path, {"name": "A", "level": 1, "hp": 20, "armour": "chain mail +1", "weapons": ["long sword +1"]}
    )
    attack = next(line for line in account(path) if line.startswith("A attacks"))
    assert "+1 long sword +1 bonus [ODD-MELEE-3]" in attack
    assert json.loads(referee("ac", path, "--name", "A", "--json").stdout)["total"] == 16


def test_class_and_level_give_the_bonus_and_the_hit_die(tmp_path: Path) -> None:
    # rule: ODD-BTH-1, ODD-HD-1, GAP-CLASS-BTH, GAP-CLASS-HD
    path = write(
        tmp_path,
        {"name": "Mara", "class": "magic-user", "level": 6, "weapons": ["dagger"]},
        {"name": "Bors", "class": "fighter", "level": 5, "weapons": ["sword"]},
        other={"name": "Ogre", "hd": 4, "hp": 60, "weapons": ["club"], "ac": 13},
    )
    texts = account(path)[1:]
    assert any(t.startswith("Bors attacks") and "+4 basic to-hit" in t for t in texts)
    assert any(t.startswith("Mara attacks") and "+2 basic to-hit" in t for t in texts)
    assert "(d4=" in texts[0] and "d10=" in texts[0]  # 6d4 and 5d10 hit points


def test_an_unknown_class_is_one_line_with_the_nearest(tmp_path: Path) -> None:
    out = referee("fight", write(tmp_path, {"name": "A", "class": "figter", "level": 2}))
    assert out.returncode == 2
    assert "unknown class 'figter'; did you mean 'fighter'?" in out.stderr
