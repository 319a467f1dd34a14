"""Critical hits, fumbles, knock-outs, advantage from surprise, positioning and the referee's free
modifiers of the miscellaneous-factors seed (MF-*), and the fumble side of the house rules (HR-FUMBLE-1).

The core rolls what a natural 1 or 20 means (options `natural_rolls`, `critical_hits`, `fumbles`:
:func:`referee.engine.resolve.roll_attack`) and the critical damage (MF-CRIT-1, MF-CRIT-2, GAP-CRIT-002:
:func:`referee.engine.resolve.roll_damage`). This module adds what happens *after* a fumble
(MF-FUMBLE-2, MF-FUMBLE-3, MF-FUMBLE-4), knock-outs (MF-KO-1, MF-KO-2), the ambusher's advantage
(MF-SURP-2), flanking and prone positions (MF-POS-1..3) and the ±1 scale and stacking of the referee's
own modifiers (MF-OTHER-1, MF-OTHER-2).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import replace
from fractions import Fraction
from typing import TYPE_CHECKING

from referee.checks import Check, Compare, Modifier
from referee.dice import DiceSource, DiceTape
from referee.engine import resolve as engine
from referee.engine.actions import Attack
from referee.engine.events import Event, EventType, event
from referee.errors import IllegalActionError
from referee.rules import hooks
from referee.rules.attack import AttackPlan, DamagePlan, plan_attack
from referee.rules.context import AttackContext, to_hit_rule
from referee.rules.initiative import longest_reach

if TYPE_CHECKING:
    from referee.engine.state import CombatantState, FightState


# --- who is in melee with whom ----------------------------------------------------------------------


def in_melee(state: FightState, a: CombatantState, b: CombatantState) -> bool:
    """Whether two combatants are in melee: within the longer of their melee reaches on the grid.

    Without grid positions the encounter's `distance` decides for everyone: 5 ft or less means the
    sides are engaged (an assumption; the sources never define "in melee").
    """
    gap = engine.grid_distance(a, b)
    if gap is None:
        gap = state.setup.distance
    return gap <= max(5, longest_reach(a.spec), longest_reach(b.spec))


def pick_one(names: list[str], tape: DiceTape, purpose: str) -> str:
    """GAP-FUMBLE-ALLY: one of several at random, each with equal chance, with the die recorded."""
    if len(names) == 1:
        return names[0]
    return names[tape.roll(len(names), purpose) - 1]


def melee_weapon_name(c: CombatantState) -> str | None:
    """The first melee weapon a combatant carries (a free attack is a melee blow), or bare hands."""
    for w in c.spec.weapons:
        if not w.is_ranged:
            return w.name
    return "unarmed"


def scratch_state(state: FightState, events: list[Event]) -> FightState:
    """A copy of the state with `events` applied, to resolve an attack that follows them."""
    scratch = copy.deepcopy(state, memo={id(state.setup): state.setup})
    scratch.apply_all(events)
    return scratch


def free_attack_events(
    state: FightState,
    attacker: str,
    target: str,
    dice: DiceSource,
    *,
    rule: str,
    reason: str,
    weapon: str | None = None,
    distance: int | None = None,
    flags: frozenset[str] = frozenset(),
) -> list[Event]:
    """One free attack (no action used): a note event, then the attack's own events.

    The attack goes through the same planner as any other (engine `attack_events` with no action
    data), so every rule applies to it. An attack the rules forbid is skipped with a note.
    """
    me = state[attacker]
    if not me.is_active():
        return []
    action = Attack(attacker, target=target, weapon=weapon or melee_weapon_name(me), distance=distance)
    if flags:
        action = replace(action, situation=replace(action.situation, flags=action.situation.flags | flags))
    note = event(
        EventType.ACTION, state.round, actor=attacker, target=target, rule=rule,
        text=f"{attacker} {reason}", data={"kind": "free_attack", "free": True, "rule": rule},
    )  # fmt: skip
    try:
        ctx = engine.attack_context(state, action, free=True)
        plan = plan_attack(ctx)
    except IllegalActionError as exc:
        return [replace(note, text=f"{attacker} cannot make the free attack: {exc}")]
    return [note, *engine.attack_events(state, ctx, plan, dice, None)]


# --- fumbles (MF-FUMBLE-1..4) -----------------------------------------------------------------------


def fumble_saved(ctx: AttackContext, dice: DiceSource) -> list[Event]:
    """MF-FUMBLE-4: when the referee allows it (situation flag `fumble_save`), a Luck (Dex) save avoids
    the fumble's effect. GAP-SAVES: a Luck (X) save passes on d20 <= the score of X."""
    if not ctx.situation.has("fumble_save"):
        return []
    dex = ctx.attacker.spec.abilities.dexterity
    check = Check(
        label=f"{ctx.attacker.name} Luck (Dex) save against the fumble",
        target=dex,
        target_label="Dex",
        target_modifiers=(Modifier(dex, "MF-FUMBLE-4", "Dex score (GAP-SAVES)"),),
        compare=Compare.AT_MOST,
        words=("fumble avoided", "fumble stands"),
    )
    tape = DiceTape(dice)
    face = tape.roll(20, "Luck save against a fumble")
    return [
        event(
            EventType.CHECK, ctx.round, actor=ctx.attacker.name, dice=tape.take(), total=face,
            target_number=dex, hit=check.succeeds(face), rule="MF-FUMBLE-4", text=check.breakdown([face]),
            data={"check": "luck_save", "against": "fumble"},
        )
    ]  # fmt: skip


def fumble_events(
    state: FightState, ctx: AttackContext, plan: AttackPlan, outcome: engine.AttackOutcome, dice: DiceSource
) -> list[Event]:
    """MF-FUMBLE-2: a target within melee range of the fumbler gets one immediate free attack on it.
    MF-FUMBLE-3: a fumbler in melee with nobody re-rolls its ranged or thrown attack against an ally in
    melee with the intended target (GAP-FUMBLE-ALLY: a random one of several).

    A fumbled free attack has no further fumble effect (it would never end on scripted dice).
    """
    if not outcome.fumble or ctx.option("fumbles") != "free_attack_or_ally_reroll" or ctx.free_attack:
        return []
    out = fumble_saved(ctx, dice)
    if out and out[0].hit:
        return out
    attacker, defender = ctx.attacker, ctx.defender
    if defender.is_active() and ctx.distance <= max(5, longest_reach(defender.spec)):
        return out + free_attack_events(
            state, defender.name, attacker.name, dice, rule="MF-FUMBLE-2",
            reason=f"gets a free attack on {attacker.name}'s fumble (MF-FUMBLE-2)", distance=ctx.distance,
        )  # fmt: skip
    engaged = ctx.is_melee or ctx.situation.has("in_melee")
    if attacker.position is not None:
        engaged = engaged or any(
            in_melee(state, attacker, foe) for foe in state.living_enemies(attacker.name) if foe.position
        )
    if not ctx.is_ranged or engaged:
        return out
    allies = [
        c.name
        for c in state.active()
        if c.side == attacker.side and c.name != attacker.name and in_melee(state, c, defender)
    ]
    if not allies:
        return out
    tape = DiceTape(dice)
    ally = pick_one(allies, tape, "which ally the fumble strikes")
    chosen = tape.take()
    note = event(
        EventType.ACTION, ctx.round, actor=attacker.name, target=ally, dice=chosen, rule="MF-FUMBLE-3",
        text=f"{attacker.name}'s fumbled missile flies at {ally} (MF-FUMBLE-3"
        f"{', GAP-FUMBLE-ALLY' if chosen else ''})",
        data={"kind": "fumble_reroll", "free": True, "ally": ally, "candidates": allies},
    )  # fmt: skip
    reroll = free_attack_events(
        state, attacker.name, ally, dice, rule="MF-FUMBLE-3", reason=f"re-rolls the attack against {ally}",
        weapon=ctx.weapon.name, distance=ctx.distance, flags=frozenset({"friendly"}),
    )  # fmt: skip
    return [*out, note, *reroll[1:]]


engine.AFTER_ATTACK.append(fumble_events)


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
    if is_knockout(ctx) and not ctx.ruleset.is_on("knockout"):
        raise IllegalActionError("knock-out attempts need the option knockout: on (MF-KO-1)")


@to_hit_rule
def knockout_penalty(ctx: AttackContext) -> Iterator[Modifier]:
    """MF-KO-1: a knock-out attempt takes -2 to hit."""
    if is_knockout(ctx) and ctx.ruleset.is_on("knockout"):
        yield Modifier(-2, "MF-KO-1", "knock-out attempt")


def knockout_damage(ctx: AttackContext, plan: DamagePlan) -> DamagePlan:
    """MF-KO-1: if the attempt brings the target to 0 it is unconscious, alive, at 0 (interpretation)."""
    if is_knockout(ctx) and ctx.ruleset.is_on("knockout"):
        return replace(plan, knockout=True)
    return plan


hooks.ALLOW_RULES.append(knockout_allowed)
hooks.DAMAGE_PLAN_RULES.append(knockout_damage)


def wake_events(state: FightState, name: str, dice: DiceSource) -> list[Event]:
    """MF-KO-2: a knocked-out creature comes round with 1 hit point after 1d6 × 10 minutes.

    Returns a CHECK event with the delay and a HEAL event that brings it back to 1 HP and active.
    The referee applies them when that time has passed (a fight's rounds are 10 s, ODD-ROUND-2).
    """
    c = state[name]
    if c.status != "unconscious":
        raise IllegalActionError(f"{name} is not unconscious")
    tape = DiceTape(dice)
    minutes = tape.roll(6, "knock-out: minutes / 10") * 10
    return [
        event(EventType.CHECK, state.round, target=name, dice=tape.take(), total=minutes, rule="MF-KO-2",
              text=f"{name} will come round after {minutes} minutes",
              data={"check": "wake", "minutes": minutes}),
        event(EventType.HEAL, state.round, target=name, damage=1 - c.hp, rule="MF-KO-2",
              text=f"{name} comes round with 1 hit point after {minutes} minutes",
              data={"status": "active", "minutes": minutes}),
    ]  # fmt: skip


# --- advantage: the ambusher's first attack (MF-SURP-1, MF-SURP-2) --------------------------------------


def ambusher_advantage(ctx: AttackContext) -> Iterator[hooks.Lean]:
    """MF-SURP-1 / MF-SURP-2: under `surprise = bonus_round_with_advantage` the bonus round is 000's
    free round (GAP-INIT-003); an attack in it is the ambusher's first, made with advantage (GAP-ADV)."""
    if ctx.option("surprise") != "bonus_round_with_advantage" or ctx.free_attack:
        return
    if ctx.state.free_round and not ctx.attacker.surprised:
        yield (1, "MF-SURP-2", "ambusher's first attack")


hooks.ADVANTAGE_RULES.append(ambusher_advantage)


# --- positioning (MF-POS-1..3) --------------------------------------------------------------------------


@to_hit_rule
def flanking(ctx: AttackContext) -> Iterator[Modifier]:
    """MF-POS-1: +1 to hit when flanking (an ally on the opposite side; the referee's `flank` flag)."""
    if ctx.option("flank_and_rear") == "mf_plus_1" and ctx.situation.has("flank"):
        yield Modifier(1, "MF-POS-1", "flanking")


@to_hit_rule
def prone_positions(ctx: AttackContext) -> Iterator[Modifier]:
    """MF-POS-2: +2 against a prone target. MF-POS-3: -2 attacking while prone or kneeling."""
    if ctx.option("prone") != "mf_plus_2":
        return
    if ctx.defender.has("prone"):
        yield Modifier(2, "MF-POS-2", "target prone")
    if ctx.attacker.has("prone") or ctx.attacker.has("kneeling"):
        yield Modifier(-2, "MF-POS-3", "attacking from the ground")


# --- the referee's free modifiers (MF-OTHER-1, MF-OTHER-2) ------------------------------------------------


def referee_scale(ctx: AttackContext) -> None:
    """MF-OTHER-1 (`situational_scale = mf_plus_minus_1`): each nebulous factor is worth +1 or -1.
    Under `odd_easy_difficult_heroic` (ODD-SIT-2) any size is allowed."""
    if ctx.option("situational_scale") != "mf_plus_minus_1":
        return
    for m in ctx.situation.modifiers:
        if abs(m.value) > 1:
            raise IllegalActionError(
                f"referee modifier {m.value:+d} ({m.reason}) is too large:"
                " each factor is +1 or -1 (MF-OTHER-1)"
            )


hooks.ALLOW_RULES.append(referee_scale)


@to_hit_rule
def referee_stacking(ctx: AttackContext) -> Iterator[Modifier]:
    """MF-OTHER-2 (`modifier_stacking = referee_decides`): the referee may rule that its modifiers do
    not stack (situation flag `no_stacking`): then only the largest bonus and the largest penalty count,
    and each dropped one is cancelled by an explained modifier. `cumulative` (ODD-SIT-3): all add."""
    if ctx.option("modifier_stacking") != "referee_decides" or not ctx.situation.has("no_stacking"):
        return
    bonuses = sorted((m for m in ctx.situation.modifiers if m.value > 0), key=lambda m: -m.value)
    penalties = sorted((m for m in ctx.situation.modifiers if m.value < 0), key=lambda m: m.value)
    for dropped in [*bonuses[1:], *penalties[1:]]:
        yield Modifier(-dropped.value, "MF-OTHER-2", f"{dropped.reason} does not stack (referee)")


__all__ = [
    "confirmation_chance",
    "free_attack_events",
    "in_melee",
    "pick_one",
    "scratch_state",
    "wake_events",
]
