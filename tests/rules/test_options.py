"""Ruleset options as enums (RULES.md section 8): every variant is a member named after its source, a
misspelt variant is refused at once naming the option and its variants, and rulesets give typed access."""

from __future__ import annotations

import pytest

from referee.errors import OptionError
from referee.rules.option_catalogue import OPTIONS
from referee.rules.options import (
    Blindness,
    CriticalHits,
    Fumbles,
    Initiative,
    NaturalRolls,
    OptionValue,
    Toggle,
)
from referee.rules.presets import PRESETS
from referee.rules.ruleset import Ruleset


@pytest.mark.parametrize("name", list(OPTIONS))
def test_every_variant_of_every_option_is_a_member_of_its_enum(name: str) -> None:
    option = OPTIONS[name]
    assert issubclass(option.kind, OptionValue)
    assert [m.value for m in option.kind] == list(option.names)
    assert [m.name for m in option.kind] == [n.upper() for n in option.names]  # members named after variants
    assert isinstance(option.default, option.kind)
    if option.kind is Toggle:
        assert option.names == ("off", "on") and option.variants[1].rules
    else:
        assert option.kind.option_name() == name  # CriticalHits is the enum of critical_hits
        for member, variant in zip(option.kind, option.variants, strict=True):
            assert (member.source, member.rules, member.help) == (variant.source, variant.rules, variant.help)
            assert member.rules, f"{name}.{member.value} cites no rule"


def test_each_choice_option_has_its_own_enum() -> None:
    kinds = [o.kind for o in OPTIONS.values() if o.kind is not Toggle]
    assert len(kinds) == len(set(kinds))


def test_members_carry_their_source_and_rules() -> None:
    # HR-CRIT-1: 002's confirmed critical; MF-CRIT-1, MF-CRIT-2: 003's maximum damage
    assert CriticalHits.CONFIRM_16_20.source == "002" and CriticalHits.CONFIRM_16_20.rules == ("HR-CRIT-1",)
    assert CriticalHits.MAX_PLUS_HALF_LEVEL.rules == ("MF-CRIT-1", "MF-CRIT-2")
    assert Initiative.D10_GROUP.rules == ("ODD-INIT-4",)


def test_members_equal_their_spelling() -> None:
    # files, JSON and the CLI spell variants as words; members compare and format as those words
    assert CriticalHits.CONFIRM_16_20 == "confirm_16_20" and f"{CriticalHits.NONE}" == "none"
    assert {"none": 1}[CriticalHits.NONE] == 1 and CriticalHits(
        "max_plus_half_level"
    ).name == "MAX_PLUS_HALF_LEVEL"
    assert type(CriticalHits.NONE.value) is str and type(str(CriticalHits.NONE)) is str


def test_members_of_two_options_are_never_equal() -> None:
    # `none` is a variant of critical_hits (ODD-ATK-1), fumbles and natural_rolls, but not the same choice
    assert CriticalHits.NONE != Fumbles.NONE
    assert CriticalHits.NONE != NaturalRolls.NONE


def test_a_misspelt_variant_in_a_comparison_is_an_error_not_false() -> None:
    # HR-CRIT-1 misspelt: a silent False would turn the rule off without a word
    ruleset = Ruleset.preset("hr")
    with pytest.raises(OptionError) as err:
        _ = ruleset["critical_hits"] == "confirm_16_2"
    message = str(err.value)
    assert "'confirm_16_2' is not a variant of critical_hits" in message
    assert "choose one of: none, confirm_16_20, max_plus_half_level" in message
    with pytest.raises(OptionError, match="not a variant of critical_hits"):
        _ = ruleset["critical_hits"] != "confirm_16_2"
    with pytest.raises(OptionError, match="not a variant of critical_hits"):
        _ = ruleset["critical_hits"] in ("none", "confirm16_20")
    with pytest.raises(
        OptionError, match="'yes' is not a variant of an on/off option; choose one of: off, on"
    ):
        _ = ruleset["knockout"] == "yes"


def test_a_wrong_value_is_refused_naming_the_option_and_its_variants() -> None:
    with pytest.raises(
        OptionError, match="option 'critical_hits' has no variant 'always'; choose one of: none,"
    ):
        Ruleset().with_options(critical_hits="always")
    with pytest.raises(
        OptionError, match=r"option 'critical_hits' takes a CriticalHits \(none, .*\), not Fumbles.NONE"
    ):
        Ruleset().with_options(critical_hits=Fumbles.NONE)  # a member of another option's enum
    with pytest.raises(OptionError, match="option 'knockout' has no variant 'maybe'; choose one of: off, on"):
        Ruleset().with_options(knockout="maybe")
    with pytest.raises(OptionError, match="option 'blindness' has no variant 'blind'"):
        Ruleset.from_dict({"preset": "mod", "options": {"blindness": "blind"}})


def test_typed_access_gives_the_members() -> None:
    # HR-CRIT-1, HR-FUMBLE-1 under `hr`; MF-KO-1 (knockout) is on under `mf`
    hr, mf = Ruleset.preset("hr"), Ruleset.preset("mf")
    assert hr.critical_hits is CriticalHits.CONFIRM_16_20 and hr.fumbles is Fumbles.CONFIRM_1_5
    assert hr["critical_hits"] is CriticalHits.CONFIRM_16_20
    assert mf.knockout is True and hr.knockout is False and hr.armour_damage is True
    assert Ruleset().with_options(critical_hits=CriticalHits.MAX_PLUS_HALF_LEVEL).critical_hits is (
        CriticalHits.MAX_PLUS_HALF_LEVEL
    )


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_option_has_a_typed_attribute(preset: str) -> None:
    ruleset = Ruleset.preset(preset)
    for name, option in OPTIONS.items():
        value = getattr(ruleset, name)
        if option.kind is Toggle:
            assert value is (ruleset[name] is Toggle.ON) and value is ruleset.is_on(name)
        else:
            assert value is ruleset[name] and isinstance(value, option.kind)


def test_uses_asks_for_one_variant() -> None:
    mod = Ruleset.preset("mod")
    assert mod.uses(Blindness.MOD) and not Ruleset().uses(Blindness.MOD)  # MOD-COND-BLIND-1
    with pytest.raises(OptionError, match="use is_on"):
        mod.uses(Toggle.ON)


def test_is_on_refuses_an_option_with_other_variants() -> None:
    with pytest.raises(OptionError, match="option 'critical_hits' is not on/off"):
        Ruleset().is_on("critical_hits")
    with pytest.raises(OptionError, match="unknown ruleset option 'knock_out'"):
        Ruleset().is_on("knock_out")


@pytest.mark.parametrize("preset", list(PRESETS))
def test_preset_values_are_members_of_their_option(preset: str) -> None:
    for name, value in PRESETS[preset].items():
        assert isinstance(value, OPTIONS[name].kind), (preset, name)


def test_files_and_json_get_plain_words() -> None:
    ruleset = Ruleset.preset("odd").with_options(critical_hits="confirm_16_20", knockout=True)
    assert ruleset.overrides() == {"critical_hits": "confirm_16_20", "knockout": "on"}
    assert all(type(v) is str for v in ruleset.overrides().values())
    assert all(type(v) is str for v in ruleset.to_dict()["options"].values())
