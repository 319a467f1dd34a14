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
