"""The ODD maneuver examples run with `referee fight FILE --seed 1` and show their rules in the account."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from tests.conftest import EXAMPLES
from typer.testing import CliRunner

from referee.cli import app

SHOWN = {
    # example: rule IDs its account must name with seed 1
    "charge.yaml": ["ODD-CHARGE-1", "ODD-CHARGE-3", "ODD-CHARGE-4"],
    "grapple.yaml": ["ODD-GRAP-1", "ODD-GRAP-3", "ODD-SIT-DEFENCELESS"],
    "ranged_volley.yaml": ["ODD-RANGED-1", "ODD-RANGED-3", "ODD-RANGED-4", "ODD-RANGED-5"],
    "pummel.yaml": ["ODD-PUMMEL-1", "ODD-PUMMEL-2", "ODD-SIT-1"],
    "overbear.yaml": ["ODD-OVERB-1", "ODD-OVERB-3", "ODD-OVERB-5"],
    "touch.yaml": ["ODD-BTH-2"],
}


@pytest.mark.parametrize("name", sorted(SHOWN))
def test_example_runs_and_names_its_rules(name: str) -> None:
    # rule: ODD-CHARGE-3, ODD-GRAP-3, ODD-RANGED-4, ODD-PUMMEL-2, ODD-OVERB-5 (each example's maneuver)
    result = CliRunner().invoke(app, ["fight", str(EXAMPLES / name), "--seed", "1"], terminal_width=200)
    assert result.exit_code == 0, result.output
    for rule in SHOWN[name]:
        assert f"[{rule}]" in result.output, rule
    assert " win" in result.output or "no winner" in result.output


def events_of(name: str) -> list[dict]:  # type: ignore[type-arg]
    result = CliRunner().invoke(app, ["fight", str(EXAMPLES / name), "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)["events"]  # type: ignore[no-any-return]


def test_charge_example_numbers() -> None:
    # rule: ODD-CHARGE-3 (+2 damage), ODD-CHARGE-2 (Una 45 ft from the orc: within 30..60)
    events = events_of("charge.yaml")
    charge = next(e for e in events if e["type"] == "action" and e.get("data", {}).get("kind") == "charge")
    assert charge["data"]["position"] == [0, 8]
    damage = next(e for e in events if e["type"] == "damage")
    assert {"value": 2, "rule": "ODD-CHARGE-3", "reason": "charge"} in damage["modifiers"]


def test_touch_example_uses_the_touch_ac() -> None:
    # rule: ODD-TOUCH-1, ODD-AC-MAGIC-2 (the knight's touch AC: 10 + Dex 14 (+1) + ring +1 = 12)
    events = events_of("touch.yaml")
    touches = [e for e in events if e["type"] == "attack" and e["data"]["form"] == "touch"]
    assert touches and {e["target_number"] for e in touches} == {12}
    assert all(e["data"]["ac_kind"] == "touch" for e in touches)


def test_grapple_example_holds_the_halfling() -> None:
    # rule: ODD-GRAP-2 (TV-000-10: grapple AC 13), ODD-GRAP-4 (breaking free against the troll's 22)
    events = events_of("grapple.yaml")
    grapples = [e for e in events if e["type"] == "attack" and e["data"]["form"] == "grapple"]
    assert {(e["actor"], e["target_number"]) for e in grapples} == {("Troll", 13), ("Hob", 22)}


def test_an_example_runs_as_a_real_command() -> None:
    # rule: ODD-OVERB-3 (the overbear example through the installed command line)
    out = subprocess.run(
        [sys.executable, "-c", "from referee.cli import main; main()", "fight", str(EXAMPLES / "overbear.yaml"),
         "--seed", "1"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "ODD-OVERB-1" in out.stdout
