"""The condition and environment examples run with `referee fight FILE --seed 1` and show their rules."""

from __future__ import annotations

import json

import pytest
from tests.conftest import EXAMPLES
from typer.testing import CliRunner

from referee.cli import app

SHOWN = {
    # example: rule IDs its account must name with seed 1
    "mod_conditions.yaml": [
        "MOD-COND-ENC-1", "MOD-COND-STUN-1", "MOD-HELPLESS-MELEE", "MOD-COND-SLEEP-M", "MOD-COND-FATIGUED",
    ],
    "underwater.yaml": ["MOD-UW-3", "MOD-UW-4", "MOD-UW-6", "MF-DROWN-2"],
    "fog_and_cover.yaml": ["MOD-HIGH-1"],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(SHOWN))
def test_example_runs_and_names_its_rules(name: str) -> None:
    # rule: MOD-COND-ENC-1, MOD-HELPLESS-MELEE, MOD-UW-4, MOD-HIGH-1 (each example's theme)
    result = CliRunner().invoke(app, ["fight", str(EXAMPLES / name), "--seed", "1"], terminal_width=200)
    assert result.exit_code == 0, result.output
    for rule in SHOWN[name]:
        assert rule in result.output, rule
    assert " win" in result.output or "no winner" in result.output or "round limit" in result.output


def test_fog_and_cover_example_puts_both_in_the_armour_class() -> None:
    # rule: MOD-COVER-25 (parapet, +2) and MOD-FOG-1 (50% at 15 ft, +2): wall guard AC 12 → 16
    result = CliRunner().invoke(app, ["fight", str(EXAMPLES / "fog_and_cover.yaml"), "--seed", "1", "--json"])
    assert result.exit_code == 0, result.output
    shots = [
        e
        for e in json.loads(result.output)["events"]
        if e["type"] == "attack" and e["actor"].startswith("Archer")
    ]
    rules = {c["rule"]: c["value"] for c in shots[0]["data"]["ac_components"]}
    assert rules["MOD-COVER-25"] == 2 and rules["MOD-FOG-1"] == 2 and shots[0]["data"]["ac"] == 16
