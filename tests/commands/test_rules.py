"""`referee rules [PRESET|FILE] [--json]`: options, values, variants and rule IDs; one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from tests.conftest import EXAMPLES, referee

from referee.rules.ruleset import OPTIONS, PRESETS


def rules_json(*args: str) -> dict:  # type: ignore[type-arg]
    out = referee("rules", *args, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_rules_json_lists_every_option_with_variants_and_rule_ids() -> None:
    data = rules_json("hr")
    assert data["preset"] == "hr"
    values = {row["option"]: row["value"] for row in data["options"]}
    assert set(values) == set(OPTIONS)
    assert values["critical_hits"] == "confirm_16_20" and values["charge"] == "hr_to_hit_bonus"
    crit = next(row for row in data["options"] if row["option"] == "critical_hits")
    variants = {v["name"]: v for v in crit["variants"]}
    assert variants["confirm_16_20"]["rules"] == ["HR-CRIT-1"]
    assert variants["max_plus_half_level"]["source"] == "003"


@pytest.mark.parametrize("preset", ["mf", "full", "002"])
def test_rules_json_for_presets_and_aliases(preset: str) -> None:
    data = rules_json(preset)
    name = {"002": "hr"}.get(preset, preset)
    values = {row["option"]: row["value"] for row in data["options"]}
    for option, value in PRESETS[name].items():
        assert values[option] == value


def test_rules_default_table_is_odd() -> None:
    out = referee("rules")
    assert out.returncode == 0, out.stderr
    assert "ruleset odd" in out.stdout and "ODD-ATK-1" in out.stdout


def test_rules_reads_a_house_rules_file() -> None:
    data = rules_json(str(EXAMPLES / "house_rules.yaml"))
    assert data["preset"] == "odd"
    assert data["overrides"]["critical_hits"] == "max_plus_half_level"
    out = referee("rules", str(EXAMPLES / "house_rules.yaml"))
    assert "critical_hits=max_plus_half_level" in out.stdout.replace("\n", " ").replace("  ", " ")


def test_rules_bad_option_in_file_is_exit_2_with_the_valid_ones(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({"preset": "odd", "options": {"critical_hits": "always"}}))
    out = referee("rules", str(bad))
    assert out.returncode == 2
    assert out.stderr.startswith("error: ") and "Traceback" not in out.stderr
    assert "has no variant 'always'; choose one of: none, confirm_16_20" in out.stderr.replace("\n", "")
    bad.write_text(yaml.safe_dump({"preset": "odd", "options": {"crits": "none"}}))
    out = referee("rules", str(bad))
    assert out.returncode == 2 and "unknown ruleset option 'crits'; valid options:" in out.stderr


def test_rules_unknown_preset_is_exit_2() -> None:
    out = referee("rules", "gygax")
    assert out.returncode == 2
    assert "neither a preset (odd, mod, hr, mf, dac, full) nor a file" in out.stderr.replace("\n", "")


@pytest.mark.parametrize("name", ["preset_hr", "preset_mf", "preset_full", "house_rules_duel"])
def test_preset_example_fights_run(name: str) -> None:
    out = referee("fight", str(EXAMPLES / f"{name}.yaml"), "--seed", "1", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["winner"] is not None
