"""Ability score modifiers (option `ability_modifiers`, GAP-ABILITY-MOD, X-10)."""

from __future__ import annotations

from referee.rules.ruleset import Ruleset


def odd_table(score: int) -> int:
    """3: -3, 4-5: -2, 6-8: -1, 9-12: 0, 13-15: +1, 16-17: +2, 18-19: +3 (fits 000's 14 → +1).

    Scores beyond the table continue by one step per two points (an assumption for 20+).
    """
    if score <= 3:
        return -3
    if score <= 5:
        return -2
    if score <= 8:
        return -1
    if score <= 12:
        return 0
    if score <= 15:
        return 1
    if score <= 17:
        return 2
    if score <= 19:
        return 3
    return 3 + (score - 18) // 2


def half_score_minus_10(score: int) -> int:
    """floor((score - 10) / 2): 13 → +1, 17 → +3 (003's examples)."""
    return (score - 10) // 2


def modifier(score: int, ruleset: Ruleset) -> int:
    """The attribute modifier of `score` under the ruleset's scale."""
    if ruleset["ability_modifiers"] == "half_score_minus_10":
        return half_score_minus_10(score)
    return odd_table(score)
