"""Critical hits, fumbles, knock-outs, advantage from surprise, positioning and the referee's free
modifiers of the miscellaneous-factors seed (MF-*), and the fumble side of the house rules (HR-FUMBLE-1).

The core rolls what a natural 1 or 20 means (options `natural_rolls`, `critical_hits`, `fumbles`:
:func:`referee.rules.attack_roll.roll_attack`) and the critical damage (MF-CRIT-1, MF-CRIT-2, GAP-CRIT-002:
:func:`referee.rules.attack_roll.roll_damage`). This module adds what happens *after* a fumble
(MF-FUMBLE-2, MF-FUMBLE-3, MF-FUMBLE-4: who, and the Luck save; the free attacks themselves are
:mod:`referee.engine.fumbles`), knock-outs (MF-KO-1, MF-KO-2), the ambusher's advantage
(MF-SURP-2), flanking and prone positions (MF-POS-1..3) and the ±1 scale and stacking of the referee's
own modifiers (MF-OTHER-1, MF-OTHER-2).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from fractions import Fraction
from typing import TYPE_CHECKING

from referee.checks import Check, Compare, Modifier
from referee.dice import DiceTape
from referee.errors import IllegalActionError
from referee.rules import abilities
from referee.rules.initiative import longest_reach
from referee.rules.movement import grid_distance
from referee.rules.options import FlankAndRear, Fumbles, ModifierStacking, Prone, SituationalScale, Surprise

if TYPE_CHECKING:
    from referee.rules import hooks
    from referee.rules.attack import DamagePlan
    from referee.rules.context import AttackContext
    from referee.rules.view import CombatantView, FightView


# --- who is in melee with whom ----------------------------------------------------------------------


def in_melee(state: FightView, a: CombatantView, b: CombatantView) -> bool:
    """Whether two combatants are in melee: within the longer of their melee reaches on the grid.

    Without grid positions the encounter's `distance` decides for everyone: 5 ft or less means the
    sides are engaged (an assumption; the sources never define "in melee").
    """
    gap = grid_distance(a, b)
    if gap is None:
        gap = state.setup.distance
    return gap <= max(5, longest_reach(a.spec), longest_reach(b.spec))


def pick_one(names: list[str], tape: DiceTape, purpose: str) -> str:
    """GAP-FUMBLE-ALLY: one of several at random, each with equal chance, with the die recorded."""
    if len(names) == 1:
        return names[0]
    return names[tape.roll(len(names), purpose) - 1]


def melee_weapon_name(c: CombatantView) -> str | None:
    """The first melee weapon a combatant carries (a free attack is a melee blow), or bare hands."""
    for w in c.spec.weapons:
        if not w.is_ranged:
            return w.name
    return "unarmed"


# --- fumbles (MF-FUMBLE-1..4): the free attack and the re-roll are the engine's (engine/fumbles.py) ------


def fumble_save_check(ctx: AttackContext) -> Check | None:
    """MF-FUMBLE-4: when the referee allows it (situation flag `fumble_save`), a Luck (Dex) save avoids
    the fumble's effect. GAP-SAVES: a Luck (X) save passes on d20 <= the score of X."""
    if not ctx.situation.has("fumble_save"):
        return None
    dex = abilities.score(ctx.attacker, "dexterity", ctx.ruleset)  # 2 lower if fatigued (MOD-COND-FATIGUED)
    return Check(
        label=f"{ctx.attacker.name} Luck (Dex) save against the fumble",
        target=dex,
        target_label="Dex",
        target_modifiers=(Modifier(dex, "MF-FUMBLE-4", "Dex score (GAP-SAVES)"),),
        compare=Compare.AT_MOST,
        words=("fumble avoided", "fumble stands"),
    )


def fumble_has_effects(ctx: AttackContext) -> bool:
    """MF-FUMBLE-2/3 apply under `fumbles = free_attack_or_ally_reroll`; a fumbled free attack has no
    further fumble effect (it would never end on scripted dice)."""
    return ctx.ruleset.fumbles is Fumbles.FREE_ATTACK_OR_ALLY_REROLL and not ctx.free_attack


def fumble_gives_free_attack(ctx: AttackContext) -> bool:
    """MF-FUMBLE-2: a defender within melee range of the fumbler gets one immediate free attack on it."""
    return ctx.defender.is_active() and ctx.distance <= max(5, longest_reach(ctx.defender.spec))


def fumbler_engaged(ctx: AttackContext) -> bool:
    """MF-FUMBLE-3 applies only to a fumbler in melee with nobody (grid, or the referee's `in_melee`)."""
    attacker = ctx.attacker
    engaged = ctx.is_melee or ctx.situation.has("in_melee")
    if attacker.position is not None:
        engaged = engaged or any(
            in_melee(ctx.state, attacker, foe)
            for foe in ctx.state.living_enemies(attacker.name)
            if foe.position
        )
    return engaged


def fumble_allies(ctx: AttackContext) -> list[str]:
    """MF-FUMBLE-3: the fumbler's allies in melee with the intended target, in file order."""
    attacker, defender = ctx.attacker, ctx.defender
    return [
        c.name
        for c in ctx.state.active()
        if c.side == attacker.side and c.name != attacker.name and in_melee(ctx.state, c, defender)
    ]


def fumble_redirected(ctx: AttackContext) -> bool:
    """MF-FUMBLE-3 takes a fumbled missile over: it is re-rolled against an ally in melee with the target,
    so the same missile does not also fly on as a stray (ODD-RANGED-4)."""
    return (
        fumble_has_effects(ctx)
        and ctx.is_ranged
        and not fumble_gives_free_attack(ctx)
        and not fumbler_engaged(ctx)
        and bool(fumble_allies(ctx))
    )


def confirmation_chance(natural: int, low: int, high: int) -> Fraction:
    """HR-CRIT-1 / HR-FUMBLE-1 by enumeration of both d20s: the `natural` face, then a second d20 in
    [low, high]. Both come to 1/20 × 5/20 = 1/80 = 1.25% (TV-002-04)."""
    pairs = [(first, second) for first in range(1, 21) for second in range(1, 21)]
    hits = sum(1 for first, second in pairs if first == natural and low <= second <= high)
    return Fraction(hits, 400)


# --- knock-outs (MF-KO-1, MF-KO-2) --------------------------------------------------------------------


def is_knockout(ctx: AttackContext) -> bool:
    return ctx.situation.has("knockout")


def knockout_allowed(ctx: AttackContext) -> None:
    """MF-KO-1 is an option (`knockout`): without it no knock-out attempt can be declared."""
    if is_knockout(ctx) and not ctx.ruleset.knockout:
        raise IllegalActionError("knock-out attempts need the option knockout: on (MF-KO-1)")


def knockout_penalty(ctx: AttackContext) -> Iterator[Modifier]:
    """MF-KO-1: a knock-out attempt takes -2 to hit."""
    if is_knockout(ctx) and ctx.ruleset.knockout:
        yield Modifier(-2, "MF-KO-1", "knock-out attempt")


def knockout_damage(ctx: AttackContext, plan: DamagePlan) -> DamagePlan:
    """MF-KO-1: if the attempt brings the target to 0 it is unconscious, alive, at 0 (interpretation)."""
    if is_knockout(ctx) and ctx.ruleset.knockout:
        return replace(plan, knockout=True)
    return plan


# --- advantage: the ambusher's first attack (MF-SURP-1, MF-SURP-2) --------------------------------------


def ambusher_advantage(ctx: AttackContext) -> Iterator[hooks.Lean]:
    """MF-SURP-1 / MF-SURP-2: under `surprise = bonus_round_with_advantage` the bonus round is 000's
    free round (GAP-INIT-003); an attack in it is the ambusher's first, made with advantage (GAP-ADV)."""
    if ctx.ruleset.surprise is not Surprise.BONUS_ROUND_WITH_ADVANTAGE or ctx.free_attack:
        return
    if ctx.state.free_round and not ctx.attacker.surprised:
        yield (1, "MF-SURP-2", "ambusher's first attack")


# --- positioning (MF-POS-1..3) --------------------------------------------------------------------------


def flanking(ctx: AttackContext) -> Iterator[Modifier]:
    """MF-POS-1: +1 to hit when flanking (an ally on the opposite side; the referee's `flank` flag)."""
    if ctx.ruleset.flank_and_rear is FlankAndRear.MF_PLUS_1 and ctx.situation.has("flank"):
        yield Modifier(1, "MF-POS-1", "flanking")


def prone_positions(ctx: AttackContext) -> Iterator[Modifier]:
    """MF-POS-2: +2 against a prone target. MF-POS-3: -2 attacking while prone or kneeling."""
    if ctx.ruleset.prone is not Prone.MF_PLUS_2:
        return
    if ctx.defender.has("prone"):
        yield Modifier(2, "MF-POS-2", "target prone")
    if ctx.attacker.has("prone") or ctx.attacker.has("kneeling"):
        yield Modifier(-2, "MF-POS-3", "attacking from the ground")


# --- the referee's free modifiers (MF-OTHER-1, MF-OTHER-2) ------------------------------------------------


def referee_scale(ctx: AttackContext) -> None:
    """MF-OTHER-1 (`situational_scale = mf_plus_minus_1`): each nebulous factor is worth +1 or -1.
    Under `odd_easy_difficult_heroic` (ODD-SIT-2) any size is allowed."""
    if ctx.ruleset.situational_scale is not SituationalScale.MF_PLUS_MINUS_1:
        return
    for m in ctx.situation.modifiers:
        if abs(m.value) > 1:
            raise IllegalActionError(
                f"referee modifier {m.value:+d} ({m.reason}) is too large:"
                " each factor is +1 or -1 (MF-OTHER-1)"
            )


def referee_stacking(ctx: AttackContext) -> Iterator[Modifier]:
    """MF-OTHER-2 (`modifier_stacking = referee_decides`): the referee may rule that its modifiers do
    not stack (situation flag `no_stacking`): then only the largest bonus and the largest penalty count,
    and each dropped one is cancelled by an explained modifier. `cumulative` (ODD-SIT-3): all add."""
    stacking = ctx.ruleset.modifier_stacking
    if stacking is not ModifierStacking.REFEREE_DECIDES or not ctx.situation.has("no_stacking"):
        return
    bonuses = sorted((m for m in ctx.situation.modifiers if m.value > 0), key=lambda m: -m.value)
    penalties = sorted((m for m in ctx.situation.modifiers if m.value < 0), key=lambda m: m.value)
    for dropped in [*bonuses[1:], *penalties[1:]]:
        yield Modifier(-dropped.value, "MF-OTHER-2", f"{dropped.reason} does not stack (referee)")


__all__ = [
    "confirmation_chance",
    "fumble_save_check",
    "in_melee",
    "melee_weapon_name",
    "pick_one",
]
