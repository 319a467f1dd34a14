"""`referee ac FILE [--name NAME] [--json]`: four armour classes per combatant, explained; one-line errors."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import EXAMPLES, referee
from typer.testing import CliRunner

from referee.cli import app
from referee.files import load_encounter
from referee.rules.dac import armour_classes

LUCAS_AND_KRIEGER = str(EXAMPLES / "lucas_and_krieger.yaml")


def in_process(*args: str) -> str:
    """Run the command in this process (fast); errors are tested through `main` in a subprocess."""
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def ac_json(*args: str) -> Any:
    return json.loads(in_process("ac", *args, "--json"))


def values(row: dict[str, Any]) -> tuple[int, int, int, int]:
    return row["total"], row["flatfooted"], row["touch"], row["flatfooted_touch"]


def test_json_lists_the_seed_numbers() -> None:
    # rule: DAC-AC-TOTAL, DAC-AC-FLATFOOTED, DAC-AC-TOUCH, DAC-AC-FFTOUCH (TV-004-13..17, X-2, X-3)
    rows = ac_json(LUCAS_AND_KRIEGER)
    assert [r["name"] for r in rows] == ["Lucas", "Krieger"]
    assert values(rows[0]) == (0, 3, 6, 9)
    assert values(rows[1]) == (1, 2, 7, 8)
    assert {r["convention"] for r in rows} == {"descending"}
    first = rows[0]["breakdown"]["total"][0]
    assert first == {"value": 5, "rule": "DAC-EQ-1", "reason": "chain mail"}
    assert set(rows[1]["breakdown"]) == {"total", "flatfooted", "touch", "flatfooted_touch"}


def test_name_gives_one_object_equal_to_the_library() -> None:
    # rule: DAC-AC-TOTAL: the command and armour_classes() agree (one code path)
    row = ac_json(LUCAS_AND_KRIEGER, "--name", "Krieger")
    setup = load_encounter(LUCAS_AND_KRIEGER)
    library = armour_classes(setup.combatant("Krieger"), setup.ruleset)
    assert row["name"] == "Krieger"
    assert values(row) == (library.total, library.flatfooted, library.touch, library.flatfooted_touch)


def test_table_shows_values_and_rules() -> None:
    text = in_process("ac", LUCAS_AND_KRIEGER, "--name", "Lucas")
    assert "armour class (descending)" in text and "Lucas" in text
    assert "flatfooted touch" in text and "DAC-ENH-3" in text


def test_ascending_encounter(tmp_path: Any) -> None:
    # rule: ODD-AC-1 / ODD-AC-ARMOR through the same command: leather + Dex 12 → AAC 12
    rows = ac_json(str(EXAMPLES / "duel.yaml"))
    angthar = next(r for r in rows if r["name"] == "Angthar")
    assert angthar["convention"] == "ascending" and angthar["total"] == 12


def test_unknown_name_is_a_one_line_error() -> None:
    out = referee("ac", LUCAS_AND_KRIEGER, "--name", "Nobody")
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "error: no combatant called 'Nobody'; combatants: Lucas, Krieger"
    ]


def test_missing_file_is_a_one_line_error(tmp_path: Any) -> None:
    out = referee("ac", str(tmp_path / "none.yaml"))
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert out.stderr.startswith("error: ")
