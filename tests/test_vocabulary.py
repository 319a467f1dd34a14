"""The words an encounter file may use, read in the model layer: conditions, cover and concealment degrees
(ODD-COVER-25..100), ruling bands (ODD-SIT-2), Defence tags (DAC-CIRC-2) and the environment (MOD-FOG-1)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from referee.errors import EncounterFileError
from referee.rules import context, dac, environment, situational
from referee.rules import vocabulary as rule_words
from referee.vocabulary import (
    CONDITIONS,
    COVER_DEGREES,
    PAIRED,
    degree,
    parse_defence_tag,
    parse_environment,
    ruling_band,
)


def test_model_and_setup_load_no_rule_module() -> None:
    # DESIGN.md layers: model, checks and dice import no rule; the setup record sits beside the model
    code = (
        "import sys, referee.model, referee.setup, referee.checks, referee.dice; "
        "print(sorted(m for m in sys.modules if m.startswith(('referee.rules', 'referee.engine', "
        "'referee.files')) or m == 'yaml'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_rule_modules_use_the_same_words() -> None:
    assert rule_words.CONDITIONS is CONDITIONS and rule_words.PAIRED is PAIRED
    assert context.degree is degree and context.COVER_DEGREES is COVER_DEGREES
    assert situational.ruling_band is ruling_band and dac.parse_defence_tag is parse_defence_tag
    assert environment.parse_environment is parse_environment


def test_degrees_accept_fractions_and_percentages() -> None:
    # ODD-COVER-50 / MOD-COVER-50: half cover however the referee writes it
    assert [degree(v, COVER_DEGREES, "cover") for v in ("half", "1/2", "50%", 50, None)] == [
        "half", "half", "half", "half", "none",
    ]  # fmt: skip
    with pytest.raises(ValueError, match="cover 'most' is not one of: none, quarter"):
        degree("most", COVER_DEGREES, "cover")


def test_ruling_bands() -> None:
    # ODD-SIT-2 (TV-000-11: -10 is difficult)
    assert [ruling_band(v) for v in (5, -6, -10, 11)] == ["easy", "difficult", "difficult", "heroic"]


def test_defence_tags() -> None:
    # DAC-CIRC-2
    assert parse_defence_tag("Defence IX [Giants]") == {"value": 9, "against": "Giants"}
    with pytest.raises(ValueError, match="not a Defence tag"):
        parse_defence_tag("Defence [Giants]")


def test_environment_values_are_checked_on_load() -> None:
    # MOD-FOG-1 with GAP-INCH's outdoor scale
    e = parse_environment({"fog": "typical", "fog_scale": "outdoors", "depths": {"Kraken": "deep"}})
    assert (e.fog, e.inch_feet) == ("typical", 30)
    assert (e.depth_of("Kraken"), e.depth_of("Angthar")) == ("deep", "none")
    with pytest.raises(EncounterFileError, match=r"environment\.water_depth: 'neck' is not one of"):
        parse_environment({"water_depth": "neck"})
