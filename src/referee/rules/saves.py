"""Saving throws (GAP-SAVES): save tables as data, Luck (X) saves, and the modifiers of 001 and 003.

The sources use saves without defining them (001 throughout, 003's Luck (Dex) and Luck (Con) saves).
GAP-SAVES (ASSUMPTION): a class save is d20 + modifiers >= the table's target number for the level; a
Luck (X) save is d20 <= the score of X, the modifiers raising or lowering that target (cover adds its
bonus to the target number). Advantage / disadvantage keep the higher / lower of 2d20 (GAP-ADV).

Modifiers (each names its rule):

- MOD-COVER-1: cover (not concealment) adds to saves; the values are GAP-001-COVER's AC values.
- MF-COVER-1 / MF-COVER-2: half cover +2, three-quarters +4 on Luck (Dex) saves.
- MOD-COND-BLIND-1: a blind creature saves at -4 (option `blindness = mod`).
- MOD-COND-UNSEEN: +4 against a creature that cannot see the saver (it is blind, or the saver invisible).
- MOD-COND-CLIMB-1 / MOD-COND-CLIMB-2: -2 (-1 on a severe slope) on saves to dodge or evade.
- MOD-COND-FATIGUED / MOD-COND-EXHAUSTED: -2 (option `conditions_fatigue = mod_fixed`).
- MOD-COND-CASTING: no Dex or shield modifier to the caster's saves (nothing to add here: saves carry none).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from referee.checks import Check, Compare, Keep, Modifier
from referee.dice import DiceTape
from referee.rules import abilities
from referee.rules.options import Blindness, ConditionsFatigue, Cover
from referee.rules.ruleset import Ruleset

if TYPE_CHECKING:
    from referee.rules.view import CombatantView

# GAP-SAVES (ASSUMPTION): one generic table, target number by level band, for a d20 roll-over save.
# A referee with real tables replaces it (keys are the lowest level of each band).
SAVE_TABLE: dict[int, int] = {0: 16, 1: 15, 4: 13, 7: 11, 10: 9, 13: 7, 16: 5}

# GAP-001-COVER (ASSUMPTION): the save bonus of 001's cover equals its AC bonus.
MOD_COVER_SAVE: dict[str, int] = {"quarter": 2, "half": 4, "three_quarters": 7, "ninety": 10}
# MF-COVER-1 / MF-COVER-2 (the +4 on saves is an interpretation, GAP-INTERPRETATIONS).
MF_COVER_SAVE: dict[str, int] = {"half": 2, "three_quarters": 4}


def save_target(level: int) -> int:
    """GAP-SAVES: the d20 number a creature of `level` (hit dice for monsters) must reach."""
    best = max(k for k in SAVE_TABLE if k <= max(0, level))
    return SAVE_TABLE[best]


@dataclass(frozen=True)
class SaveCircumstances:
    """What a save is against: the cover the saver has, whether it dodges, who it resists."""

    cover: str = "none"
    dodge: bool = False  # an effect one dodges or evades (climbing penalty, cover bonus)
    source_blind: bool = False  # the creature behind the effect cannot see (MOD-COND-UNSEEN)
    slope: bool = False  # MOD-COND-CLIMB-2


def cover_save_bonus(cover: str, ruleset: Ruleset, luck_dex: bool) -> list[Modifier]:
    """MOD-COVER-1 (cover to saves, GAP-001-COVER values) or MF-COVER-1 / MF-COVER-2 (Luck (Dex) saves)."""
    variant = ruleset.cover
    if variant is Cover.MOD_PERCENT and cover in MOD_COVER_SAVE:
        return [Modifier(MOD_COVER_SAVE[cover], "MOD-COVER-1", f"{cover} cover")]
    if variant is Cover.MF_HALF_THREE_QUARTERS and luck_dex and cover in MF_COVER_SAVE:
        rule = "MF-COVER-1" if cover == "half" else "MF-COVER-2"
        return [Modifier(MF_COVER_SAVE[cover], rule, f"{cover} cover")]
    return []


def save_modifiers(
    saver: CombatantView, ruleset: Ruleset, how: SaveCircumstances, luck_dex: bool = False
) -> list[Modifier]:
    """Every modifier the saver's state and circumstances give, each with its rule ID."""
    mods = cover_save_bonus(how.cover, ruleset, luck_dex)
    if saver.has("blind") and ruleset.blindness is Blindness.MOD:
        mods.append(Modifier(-4, "MOD-COND-BLIND-1", "blind"))
    if how.source_blind or saver.has("invisible"):
        why = "the source cannot see it" if how.source_blind else "invisible to the source"
        mods.append(Modifier(4, "MOD-COND-UNSEEN", why))
    if saver.has("climbing") and how.dodge:
        mods.append(
            Modifier(-1, "MOD-COND-CLIMB-2", "climbing on a slope")
            if how.slope
            else Modifier(-2, "MOD-COND-CLIMB-1", "climbing")
        )
    if ruleset.conditions_fatigue is ConditionsFatigue.MOD_FIXED:
        if saver.has("exhausted"):
            mods.append(Modifier(-2, "MOD-COND-EXHAUSTED", "exhausted"))
        elif saver.has("fatigued"):
            mods.append(Modifier(-2, "MOD-COND-FATIGUED", "fatigued"))
    return mods


def class_save(saver: CombatantView, ruleset: Ruleset, how: SaveCircumstances = SaveCircumstances()) -> Check:
    """GAP-SAVES: d20 + modifiers >= the table's number for the saver's level (hit dice for monsters)."""
    level = saver.spec.crit_level
    return Check(
        label=f"{saver.name} saving throw",
        modifiers=tuple(save_modifiers(saver, ruleset, how)),
        target=save_target(level),
        target_label="save",
        words=("saved", "failed"),
    )


def luck_save(
    saver: CombatantView,
    ability: str,
    ruleset: Ruleset,
    how: SaveCircumstances = SaveCircumstances(),
    keep: Keep = Keep.ALL,
) -> Check:
    """GAP-SAVES: a Luck (X) save is d20 <= score of X; modifiers move the target number (cover adds)."""
    score = abilities.score(saver, ability, ruleset)  # 2 lower if fatigued or exhausted (MOD-COND-FATIGUED)
    mods = save_modifiers(saver, ruleset, how, luck_dex=ability == "dexterity")
    return Check(
        label=f"{saver.name} Luck ({ability[:3].title()}) save",
        target=score + sum(m.value for m in mods),
        target_label=ability[:3].title(),
        target_modifiers=(Modifier(score, "GAP-SAVES", ability), *mods),
        compare=Compare.AT_MOST,
        keep=keep,
        words=("saved", "failed"),
    )


def roll_save(check: Check, tape: DiceTape, purpose: str = "save") -> tuple[bool, int]:
    """Roll a save (two dice under advantage or disadvantage); returns (saved, natural)."""
    faces = [tape.roll(check.sides, purpose) for _ in range(check.dice_count)]
    natural = check.natural_of(faces)
    return check.succeeds(natural), natural


def evades_all_damage(cover: str, saved: bool, ruleset: Ruleset) -> bool:
    """MOD-COVER-EVADE: 90% cover or better and a successful save: no damage at all."""
    return ruleset.cover is Cover.MOD_PERCENT and saved and cover in {"ninety", "full"}
