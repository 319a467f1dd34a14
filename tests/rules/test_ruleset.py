"""Ruleset options, presets and house-rules files (RULES.md section 8; docs/rulesets.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from tests.conftest import EXAMPLES, ROOT, angthar_data

from referee.errors import EncounterFileError, OptionError
from referee.files import load_encounter, load_ruleset, load_ruleset_file, setup_from_data
from referee.rules.ruleset import OPTIONS, PRESET_ALIASES, PRESETS, Ruleset

DOC = (ROOT / "docs" / "rulesets.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_builds_and_round_trips(name: str) -> None:
    ruleset = Ruleset.preset(name)
    assert ruleset.overrides() == {}
    assert Ruleset.from_dict(ruleset.to_dict()) == ruleset
    for option, value in PRESETS[name].items():
        assert ruleset[option] == value
        assert value in OPTIONS[option].names


def test_aliases_name_the_sources() -> None:
    assert {alias: Ruleset.preset(alias).name for alias in ("000", "001", "002", "003", "004")} == {
        "000": "odd", "001": "mod", "002": "hr", "003": "mf", "004": "dac",
    }  # fmt: skip
    assert all(target in PRESETS for target in PRESET_ALIASES.values())


def test_source_presets_pick_their_source_variants() -> None:
    # conflicts `critical_hits`, `fumbles`, `charge`: each source preset picks its own variant
    hr, mf = Ruleset.preset("hr"), Ruleset.preset("mf")
    assert (hr["critical_hits"], hr["fumbles"], hr["charge"]) == (
        "confirm_16_20",
        "confirm_1_5",
        "hr_to_hit_bonus",
    )
    assert (mf["critical_hits"], mf["fumbles"], mf["knockout"]) == (
        "max_plus_half_level", "free_attack_or_ally_reroll", "on",
    )  # fmt: skip
    sources = {"mod": ("001", "MOD-"), "hr": ("002", "HR-"), "mf": ("003", "MF-"), "dac": ("004", "DAC-")}
    for name, (source, prefix) in sources.items():
        for option, value in PRESETS[name].items():
            variant = OPTIONS[option].variant(value)
            mine = variant.source.startswith(source) or any(r.startswith(prefix) for r in variant.rules)
            # 001 and 002 word the Dex loss as "no Dex bonus": the 004 `bonus_only` variant
            assert mine or option == "dex_loss", (name, option, value)


def test_full_preset_is_the_documented_combination() -> None:
    full = Ruleset.preset("full")
    assert full["critical_hits"] == "confirm_16_20_max_plus_half_level"  # HR-CRIT-1 + MF-CRIT-2
    assert full["natural_rolls"] == "auto_hit_miss"  # HR-NAT-1
    assert full.is_on("armour_damage") and full.is_on("knockout") and full.is_on("fighting_withdrawal")
    assert full["surprise"] == "bonus_round_with_advantage"  # MF-SURP-2
    assert full["charge"] == "odd_damage_bonus" and full["armour_class"] == "ascending"
    section = DOC.split("## `full`", 1)[1]
    for option, value in PRESETS["full"].items():
        assert re.search(rf"`{option}` \| `{value}`", section), f"docs/rulesets.md does not explain {option}"


def test_docs_cover_every_preset_and_every_override() -> None:
    for name, values in PRESETS.items():
        assert f"## `{name}`" in DOC
        for option in values:
            assert f"`{option}`" in DOC, f"{name}: {option} is not in docs/rulesets.md"


def test_unknown_option_lists_the_valid_ones() -> None:
    with pytest.raises(OptionError) as err:
        Ruleset.preset("odd").with_options(critical_hit="none")
    message = str(err.value)
    assert "unknown ruleset option 'critical_hit'" in message and "critical_hits" in message
    assert "\n" not in message


def test_bad_value_lists_the_variants() -> None:
    with pytest.raises(OptionError, match="choose one of: none, confirm_16_20, max_plus_half_level"):
        Ruleset.preset("odd").with_options(critical_hits="always")


def test_unknown_preset_lists_the_presets() -> None:
    with pytest.raises(OptionError, match="presets: odd, mod, hr, mf, dac, full"):
        Ruleset.preset("gygax")


def test_yaml_on_off_are_words() -> None:
    assert Ruleset.preset("odd").with_options(knockout=True)["knockout"] == "on"
    assert Ruleset.preset("mf").with_options(knockout=False)["knockout"] == "off"


def test_house_rules_example_file() -> None:
    ruleset = load_ruleset_file(EXAMPLES / "house_rules.yaml")
    assert ruleset.name == "odd"
    assert ruleset.overrides() == {
        "natural_rolls": "auto_hit_miss",
        "critical_hits": "max_plus_half_level",
        "fumbles": "free_attack_or_ally_reroll",
        "knockout": "on",
        "fighting_withdrawal": "on",
    }
    setup = load_encounter(EXAMPLES / "house_rules_duel.yaml")
    assert setup.ruleset == ruleset


def write(path: Path, data: object) -> Path:
    path.write_text(yaml.safe_dump(data))
    return path


def test_bad_option_in_a_house_rules_file_is_one_clear_line(tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.yaml", {"preset": "odd", "options": {"criticals": "max_plus_half_level"}})
    with pytest.raises(EncounterFileError) as err:
        load_ruleset_file(bad)
    assert str(err.value).startswith(f"{bad}: unknown ruleset option 'criticals'; valid options:")
    assert "critical_hits" in str(err.value)
    worse = write(tmp_path / "worse.yaml", {"preset": "odd", "options": {"critical_hits": "always"}})
    with pytest.raises(EncounterFileError, match="has no variant 'always'; choose one of: none,"):
        load_ruleset_file(worse)
    with pytest.raises(EncounterFileError, match="unknown preset 'gygax'"):
        load_ruleset_file(write(tmp_path / "p.yaml", {"preset": "gygax"}))


def test_bad_option_through_an_encounter_file(tmp_path: Path) -> None:
    write(tmp_path / "house.yaml", {"preset": "hr", "options": {"charge": "lance"}})
    data = angthar_data(ruleset="house.yaml")
    with pytest.raises(
        EncounterFileError, match="option 'charge' has no variant 'lance'; choose one of: odd_damage_bonus"
    ):
        setup_from_data(data, "enc.yaml", base_dir=tmp_path)
    data = angthar_data(ruleset="hr", options={"knock_out": "on"})
    with pytest.raises(
        EncounterFileError, match=r"unknown ruleset option 'knock_out'; valid options: .*knockout"
    ):
        setup_from_data(data, "enc.yaml")


def test_load_ruleset_names_presets_or_files() -> None:
    assert load_ruleset("house").name == "hr"
    with pytest.raises(OptionError, match="neither a preset"):
        load_ruleset("no-such-file.yaml")


def test_load_ruleset_reads_a_relative_file_from_the_encounter_folder(tmp_path: Path) -> None:
    write(tmp_path / "house.yaml", {"preset": "mf", "options": {"knockout": False}})
    ruleset = load_ruleset("house.yaml", {"critical_hits": "none"}, base_dir=tmp_path)
    assert ruleset.name == "mf" and ruleset.overrides() == {"knockout": "off", "critical_hits": "none"}
    assert load_ruleset("002", {"knockout": "on"}).overrides() == {"knockout": "on"}


def test_the_rules_layer_builds_rulesets_from_presets_and_mappings_only() -> None:
    from referee.rules import ruleset as module

    with pytest.raises(OptionError, match="neither a preset"):
        module.preset_or_options(str(EXAMPLES / "house_rules.yaml"))
    assert module.preset_or_options("combined", {"knockout": "off"}).name == "full"
    assert Ruleset.from_dict({"preset": "hr", "options": None}) == Ruleset.preset("hr")
