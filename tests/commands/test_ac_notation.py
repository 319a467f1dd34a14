"""Both AC notations through `referee ac` and `referee fight` (issue 15, item 1; ODD-AC-1, DAC-AC-1)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import referee

ORCS = """ruleset: {ruleset}
sides:
  - {{name: Party, combatants: [{{name: Angthar, level: 3, hp: 20, weapons: [long sword]}}]}}
  - name: Orcs
    combatants:
      - {{name: Orc, hit_dice: 1, ac: 6, weapons: [spear]}}
      - {{name: Chief, hit_dice: 2, ac: "4 [15]", weapons: [spear]}}
      - {{name: Ogre, monster: ogre}}
"""


def totals(path: Path) -> dict[str, int]:
    out = referee("ac", str(path), "--json")
    assert out.returncode == 0, out.stderr
    return {row["name"]: row["total"] for row in json.loads(out.stdout)}


def test_descending_ascending_notation_follows_the_ruleset(tmp_path: Path) -> None:
    path = tmp_path / "e.yaml"
    path.write_text(ORCS.format(ruleset="odd"))
    assert totals(path) == {"Angthar": 10, "Orc": 6, "Chief": 15, "Ogre": 14}
    path.write_text(ORCS.format(ruleset="dac"))
    assert totals(path) == {"Angthar": 10, "Orc": 6, "Chief": 4, "Ogre": 5}


def test_a_bare_low_ac_under_ascending_rules_warns_on_stderr(tmp_path: Path) -> None:
    path = tmp_path / "e.yaml"
    path.write_text(ORCS.format(ruleset="odd"))
    commands = (["ac", str(path)], ["fight", str(path), "--seed", "1"], ["sim", str(path), "-n", "100", "--json"],
                ["odds", str(path), "--attacker", "Angthar", "--target", "Orc"])  # fmt: skip
    for args in commands:
        out = referee(*args)
        assert out.returncode == 0, out.stderr
        assert [line for line in out.stderr.splitlines() if line.startswith("warning")] == [
            f"warning: {path}: sides.1.combatants.0 (Orc): ac 6 is ascending under these rules (worse than"
            ' no armour); did you mean descending AC 6 [13]? Write ac: "6 [13]" or ac_descending: 6'
        ]
        assert "ascending" in out.stdout or args[0] != "ac"
    path.write_text(ORCS.format(ruleset="dac"))
    assert referee("ac", str(path)).stderr == ""
