"""`referee fight --why` (issue 13, item 12): what decided each outcome, in the JSON, the account and the
table after the fight. The dice are typed (`--dice`); the numbers are worked by hand in the comments."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from tests.conftest import angthar_data, referee

# Initiative d10 7 (Angthar) and 4 (goblin); Angthar's d20 7 + 4 basic to-hit [ODD-BTH-1] + 1 Str
# [ODD-MELEE-1] = 12 against the goblin's AC 12: a hit, and without either bonus a miss (8, 11). The
# battle axe's d8 3 + 1 Str [ODD-MELEE-2] = 4 drops the 4-hp goblin (a monster dies at 0, ODD-HP-1);
# without the +1 it would stand at 1 hp.
EXACT = "7,4,7,3"


def run(tmp_path: Path, *args: str) -> str:
    path = tmp_path / "encounter.yaml"
    path.write_text(yaml.safe_dump(angthar_data()))
    out = referee("fight", str(path), "--dice", EXACT, *args)
    assert out.returncode == 0, out.stderr
    return out.stdout


def only(result: dict[str, Any], kind: str) -> dict[str, Any]:
    (found,) = [e for e in result["events"] if e["type"] == kind]
    return found


def test_json_records_what_decided_the_hit_and_the_defeat(tmp_path: Path) -> None:
    # rule: ODD-BTH-1, ODD-MELEE-1 (the hit), ODD-MELEE-2 (the defeat)
    result = json.loads(run(tmp_path, "--json", "--why"))
    assert only(result, "attack")["data"]["decisive"] == [
        {"value": 4, "rule": "ODD-BTH-1", "reason": "basic to-hit", "side": "to-hit"},
        {"value": 1, "rule": "ODD-MELEE-1", "reason": "Str", "side": "to-hit"},
    ]
    assert only(result, "damage")["data"]["decisive"] == [
        {"value": 1, "rule": "ODD-MELEE-2", "reason": "Str", "side": "damage"}
    ]
    assert result["why"] == [
        {"rule": "ODD-BTH-1", "reason": "basic to-hit", "outcomes": 1},
        {"rule": "ODD-MELEE-1", "reason": "Str", "outcomes": 1},
        {"rule": "ODD-MELEE-2", "reason": "Str", "outcomes": 1},
    ]


def test_json_without_why_has_no_why_key(tmp_path: Path) -> None:
    result = json.loads(run(tmp_path, "--json"))
    assert "why" not in result
    assert only(result, "attack")["data"]["decisive"]  # the events record it either way


def test_the_account_marks_them_and_the_table_counts_them(tmp_path: Path) -> None:
    # rule: ODD-BTH-1, ODD-MELEE-1, ODD-MELEE-2: the account names each, the --why table counts each once
    text = " ".join(run(tmp_path, "--why").split())  # the console wraps long lines
    assert "→ hit; +4 basic to-hit [ODD-BTH-1] and +1 Str [ODD-MELEE-1] decided it" in text
    assert "→ 0 hp [ODD-ATK-2]; +1 Str [ODD-MELEE-2] decided it" in text
    table = text.split("what decided the outcomes", 1)[1]
    for rule, reason in (("ODD-BTH-1", "basic to-hit"), ("ODD-MELEE-1", "Str"), ("ODD-MELEE-2", "Str")):
        assert f"│ {rule} │ {reason} │ 1 │" in table


def test_an_armour_component_decides_a_miss(tmp_path: Path) -> None:
    # rule: ODD-AC-ARMOR: the goblin goes first (initiative 4 and 7); d20 10 + 1 hit dice [ODD-BTH-2] = 11
    # against Angthar's AC 12 (10 base + 2 leather): a miss, a hit at AC 10 without the leather
    path = tmp_path / "encounter.yaml"
    path.write_text(yaml.safe_dump(angthar_data()))
    out = referee("fight", str(path), "--dice", "4,7,10", "--json", "--max-rounds", "1")
    assert out.returncode == 0, out.stderr
    attack = json.loads(out.stdout)["events"]
    first = next(e for e in attack if e["type"] == "attack")
    assert (first["actor"], first["hit"]) == ("Goblin", False)
    assert first["data"]["decisive"] == [
        {"value": 2, "rule": "ODD-AC-ARMOR", "reason": "leather", "side": "AC"}
    ]
