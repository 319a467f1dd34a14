"""`referee import FILE|-`: pasted stat blocks into an encounter file (issue 15, item 2; ODD-ATK-3)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml
from tests.conftest import referee

PASTED = """Owlbear
AC 5 [14], HD 5 (25hp), Att 2 × claw (1d4), 1 × bite (1d8), THAC0 15 [+4],
MV 120' (40'), SV D10 W11 P12 B13 S14 (3), ML 9, AL Neutral

Ghouls (3)
HD 4; AC 4[15]; Atk 2 claws (1d3), 1 bite (1d6); Move 14; Save 13; AL C; CL/XP 6/400
"""


def from_stdin(*args: str, text: str = PASTED) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from referee.cli import main; main()", "import", *args],
        input=text,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_pasted_blocks_become_an_encounter_that_fights(tmp_path: Path) -> None:
    source = tmp_path / "blocks.txt"
    source.write_text(PASTED, encoding="utf-8")
    out = referee("import", str(source))
    assert out.returncode == 0, out.stderr
    data = yaml.safe_load(out.stdout)
    monsters = data["sides"][1]["combatants"]
    assert [(m["name"], m.get("count", 1)) for m in monsters] == [("Owlbear", 1), ("Ghouls", 3)]
    assert monsters[0]["stat_block"].startswith("AC 5 [14], HD 5 (25hp)")
    encounter = tmp_path / "e.yaml"
    encounter.write_text(out.stdout, encoding="utf-8")
    fight = referee("fight", str(encounter), "--seed", "1")
    assert fight.returncode == 0, fight.stderr
    assert "Ghouls 3" in fight.stdout


def test_fields_spell_out_the_routine() -> None:
    out = from_stdin("-", "--fields", "--ruleset", "dac")
    assert out.returncode == 0, out.stderr
    owlbear = yaml.safe_load(out.stdout)["sides"][1]["combatants"][0]
    assert owlbear["attacks"] == ["claw", "claw", "bite"] and owlbear["ac"] == 5  # descending under dac
    assert (owlbear["hp"], owlbear["attack_bonus"], owlbear["morale"]) == (25, 4, 9)


def test_a_part_that_cannot_be_read_is_one_line_naming_it() -> None:
    out = from_stdin("-", text="Thing\nAC 5, HD 2, Att 1 × bite (1d6/1d6)\n")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("error: -: block 1 (Thing): stat block part 'Att 1 × bite (1d6/1d6)'")
    out = from_stdin("-", text="\n\n")
    assert out.returncode == 2 and "no stat blocks found" in out.stderr


def test_every_block_that_cannot_be_read_is_named_at_once() -> None:
    text = PASTED + "\nBlob\nHD lots, AC 5\n\nOrc\nAC 6 [13], HD 1\n\nThing\nHD 2; AC x\n"
    out = from_stdin("-", text=text)
    assert out.returncode == 2 and out.stdout == ""
    lines = out.stderr.splitlines()
    assert [line.split(": ")[2] for line in lines] == ["block 3 (Blob)", "block 5 (Thing)"], lines
    assert "stat block part 'HD lots'" in lines[0] and "stat block part 'AC x'" in lines[1]
