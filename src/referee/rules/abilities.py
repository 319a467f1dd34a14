"""Ability score modifiers (option `ability_modifiers`, GAP-ABILITY-MOD, X-10)."""

from __future__ import annotations

from referee.rules.options import AbilityModifiers, ConditionsFatigue
from referee.rules.ruleset import Ruleset
from referee.rules.view import CombatantView


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
    if ruleset.ability_modifiers is AbilityModifiers.HALF_SCORE_MINUS_10:
        return half_score_minus_10(score)
    return odd_table(score)


# MOD-COND-FATIGUED / MOD-COND-EXHAUSTED: "reduce a character's ability scores by 2 temporarily" (the more
# severe exhaustion includes fatigue: the 2 points are lost once, not twice).
DRAINING_CONDITIONS: tuple[tuple[str, str], ...] = (
    ("exhausted", "MOD-COND-EXHAUSTED"),
    ("fatigued", "MOD-COND-FATIGUED"),
)
ABILITY_DRAIN = 2


def drain(c: CombatantView, ruleset: Ruleset) -> tuple[int, str, str] | None:
    """The points every ability score of `c` is lowered by now, with the rule and the condition; None if none
    (MOD-COND-FATIGUED, MOD-COND-EXHAUSTED: option `conditions_fatigue = mod_fixed`)."""
    if ruleset.conditions_fatigue is not ConditionsFatigue.MOD_FIXED:
        return None
    for name, rule in DRAINING_CONDITIONS:
        if c.has(name):
            return ABILITY_DRAIN, rule, name
    return None


def score(c: CombatantView, ability: str, ruleset: Ruleset) -> int:
    """The ability score `c` fights with: its sheet's score, 2 lower while fatigued or exhausted."""
    base = int(getattr(c.spec.abilities, ability))
    found = drain(c, ruleset)
    return base - found[0] if found else base


def score_note(c: CombatantView, ability: str, ruleset: Ruleset) -> str:
    """For a breakdown: " (Str 14 → 12: fatigued, MOD-COND-FATIGUED)" when the score is lowered, else ""."""
    found = drain(c, ruleset)
    if found is None:
        return ""
    _points, rule, name = found
    base = int(getattr(c.spec.abilities, ability))
    return f" ({ability[:3].title()} {base} → {score(c, ability, ruleset)}: {name}, {rule})"
