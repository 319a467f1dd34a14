"""Free attacks and what follows a fumble (MF-FUMBLE-2..4), and coming round from a knock-out (MF-KO-2).

The numbers are :mod:`referee.rules.criticals`' (who may strike, the Luck (Dex) save, the allies in
reach); this module rolls them and writes the events. A free attack goes through the same planner as
any other attack, so every rule applies to it.
"""

from __future__ import annotations

import copy
from dataclasses import replace

from referee.dice import DiceSource, DiceTape
from referee.engine.actions import Attack
from referee.engine.caches import plan_attack  # the engine's planner (kept by what a plan read)
from referee.engine.events import Event, EventType, event
from referee.engine.resolve import AttackOutcome, attack_context, attack_events
from referee.engine.state import FightState
from referee.errors import IllegalActionError
from referee.rules.attack import AttackPlan
from referee.rules.context import AttackContext
from referee.rules.criticals import (
    fumble_allies,
    fumble_gives_free_attack,
    fumble_has_effects,
    fumble_save_check,
    fumbler_engaged,
    melee_weapon_name,
    pick_one,
)


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
        ctx = attack_context(state, action, free=True)
        plan = plan_attack(ctx)
    except IllegalActionError as exc:
        return [replace(note, text=f"{attacker} cannot make the free attack: {exc}")]
    return [note, *attack_events(state, ctx, plan, dice, None)]


def fumble_saved(ctx: AttackContext, dice: DiceSource) -> list[Event]:
    """MF-FUMBLE-4: the Luck (Dex) save against a fumble's effect, when the referee allows one."""
    check = fumble_save_check(ctx)
    if check is None:
        return []
    tape = DiceTape(dice)
    face = tape.roll(20, "Luck save against a fumble")
    return [
        event(
            EventType.CHECK, ctx.round, actor=ctx.attacker.name, dice=tape.take(), total=face,
            target_number=check.target, hit=check.succeeds(face), rule="MF-FUMBLE-4",
            text=check.breakdown([face]), data={"check": "luck_save", "against": "fumble"},
        )
    ]  # fmt: skip


def fumble_events(
    state: FightState, ctx: AttackContext, plan: AttackPlan, outcome: AttackOutcome, dice: DiceSource
) -> list[Event]:
    """MF-FUMBLE-2: a target within melee range of the fumbler gets one immediate free attack on it.
    MF-FUMBLE-3: a fumbler in melee with nobody re-rolls its ranged or thrown attack against an ally in
    melee with the intended target (GAP-FUMBLE-ALLY: a random one of several).
    """
    if not outcome.fumble or not fumble_has_effects(ctx):
        return []
    out = fumble_saved(ctx, dice)
    if out and out[0].hit:
        return out
    attacker, defender = ctx.attacker, ctx.defender
    if fumble_gives_free_attack(ctx):
        return out + free_attack_events(
            state, defender.name, attacker.name, dice, rule="MF-FUMBLE-2",
            reason=f"gets a free attack on {attacker.name}'s fumble (MF-FUMBLE-2)", distance=ctx.distance,
        )  # fmt: skip
    if not ctx.is_ranged or fumbler_engaged(ctx):
        return out
    allies = fumble_allies(ctx)
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
