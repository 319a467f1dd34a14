"""Ability modifiers per source (GAP-ABILITY-MOD, X-10)."""

from __future__ import annotations

import pytest

from referee.rules.abilities import half_score_minus_10, modifier, odd_table
from referee.rules.ruleset import Ruleset


@pytest.mark.parametrize(
    ("score", "mod"),
    [(3, -3), (5, -2), (8, -1), (9, 0), (12, 0), (13, 1), (14, 1), (16, 2), (17, 2), (18, 3)],
)
def test_odd_table(score: int, mod: int) -> None:
    # rule: ODD-MELEE-2 (Str 14 → +1), ODD-GRAP-2 (Dex 14 → +1)
    assert odd_table(score) == mod


def test_half_score_minus_10() -> None:
    # rule: MF-CRIT-2 examples: Str 17 → +3, Str 13 → +1
    assert (half_score_minus_10(17), half_score_minus_10(13), half_score_minus_10(8)) == (3, 1, -1)


def test_option_selects_the_scale() -> None:
    assert modifier(17, Ruleset()) == 2
    assert modifier(17, Ruleset().with_options(ability_modifiers="half_score_minus_10")) == 3


def test_fatigue_and_exhaustion_lower_every_score_by_two_once() -> None:
    # rule: MOD-COND-FATIGUED, MOD-COND-EXHAUSTED ("reduce a character's ability scores by 2 temporarily"),
    # only under conditions_fatigue = mod_fixed; both at once lose the 2 points once
    from tests.conftest import angthar_data, make_setup

    from referee.dice import ScriptedDice
    from referee.engine.fight import Fight
    from referee.rules.abilities import drain, score, score_note

    for ruleset, conditions, expected in (
        ("mod", ["fatigued"], 12),
        ("mod", ["fatigued", "exhausted"], 12),
        ("odd", ["fatigued"], 14),
        ("mod", [], 14),
    ):
        data = angthar_data(ruleset=ruleset)
        data["sides"][0]["combatants"][0]["conditions"] = conditions
        fight = Fight(make_setup(data))
        fight.begin(ScriptedDice([]))  # the conditions are put on with the hit points (ODD-HD-2)
        angthar, rs = fight.state.combatants["Angthar"], fight.setup.ruleset
        assert score(angthar, "strength", rs) == expected
        assert (drain(angthar, rs) is None) == (expected == 14)
    assert score_note(angthar, "strength", rs) == ""
