"""The engine side of the house-rules post (002, HR-*): the Strength-check actions (escape a net or a
garrotte, re-set a garrotte), the garrotte's count (HR-GARROTE-2..6), the second roll of a missile into
melee (HR-MISSILE-5), charged touch spells (HR-TOUCH-3), armour damaged by critical hits (HR-ARMDMG-1..5)
and the choices of held creatures nobody steers.

The numbers are :mod:`referee.rules.house`'s; this module rolls dice and writes the events. The
fighting withdrawal (HR-WITHDRAW-1..3) is :mod:`referee.engine.withdrawal`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

from referee.dice import DiceSource, DiceTape, roll
from referee.engine.actions import Action, Wait
from referee.engine.events import Event, EventType, event
from referee.engine.fumbles import free_attack_events
from referee.engine.resolve import AttackOutcome
from referee.engine.state import FightState
from referee.errors import IllegalActionError
from referee.rules import movement
from referee.rules.attack import AttackPlan
from referee.rules.context import AttackContext, AttackForm
from referee.rules.criticals import pick_one
from referee.rules.house import (
    armour_after_critical_hit,
    armour_recovery,
    is_garrotte,
    is_magical,
    missed_only_for_cover,
    others_in_the_melee,
    second_roll_possible,
    shield_takes_critical,
    strength_check,
)
from referee.rules.options import TouchAc
from referee.rules.view import CombatantView

# --- Strength checks (GAP-ATTR-CHECK) and condition events ----------------------------------------------


def check_event(
    state: FightState, c: CombatantView, dice_count: int, dice: DiceSource, rule: str, purpose: str
) -> tuple[Event, bool]:
    """An Nd6 Strength check (GAP-ATTR-CHECK) as a CHECK event, and whether it succeeded."""
    tape = DiceTape(dice)
    check, total, ok = strength_check(c, dice_count, tape, rule, purpose)
    faces = tape.take()
    e = event(
        EventType.CHECK, state.round, actor=c.name, dice=faces, total=total, target_number=check.target,
        hit=ok, rule=rule, text=f"{purpose}: {check.breakdown([f.value for f in faces])}",
        data={"check": "strength", "dice": f"{dice_count}d6", "purpose": purpose},
    )  # fmt: skip
    return e, ok


def condition_event(
    round_no: int, target: str, name: str, *, added: bool, rule: str, text: str,
    by: str | None = None, until: int | None = None, extra: dict[str, Any] | None = None,
) -> Event:  # fmt: skip
    data: dict[str, Any] = {"condition": name, "added": added}
    if added:
        data.update({"until_round": until, "extra": extra or {}})
    return event(EventType.CONDITION, round_no, actor=by, target=target, rule=rule, text=text, data=data)


# --- HR-GARROTE-1..6 -----------------------------------------------------------------------------------


def garrotte_events(
    state: FightState, attacker: str, victim: str, dice: DiceSource, rule: str
) -> list[Event]:
    """HR-GARROTE-2: the victim asphyxiates in 1d4+1 rounds: it dies at the end of round (now + count)."""
    tape = DiceTape(dice)
    count = roll("1d4+1", tape, "garrotte: rounds to asphyxiation").total
    dies = state.round + count
    r = state.round
    return [
        condition_event(r, victim, "garrotted", added=True, rule=rule, by=attacker,
                        text=f"{victim} is garrotted: dead at the end of round {dies} unless freed ({count} rounds)",
                        extra={"by": attacker, "dies_round": dies, "count": count}),
        replace(condition_event(r, attacker, "garrotting", added=True, rule="HR-GARROTE-5", by=attacker,
                                text=f"{attacker} holds the garrotte on {victim}",
                                extra={"victim": victim, "checked_round": None}), dice=tape.take()),
    ]  # fmt: skip


def release_events(state: FightState, victim: str, attacker: str, rule: str, why: str) -> list[Event]:
    r = state.round
    out = [condition_event(r, victim, "garrotted", added=False, rule=rule, text=f"{victim} is free: {why}")]
    if state[attacker].has("garrotting"):
        out.append(condition_event(r, attacker, "garrotting", added=False, rule=rule,
                                   text=f"{attacker} loses the garrotte"))  # fmt: skip
    return out


def garrotte_after_attack(
    state: FightState, ctx: AttackContext, plan: AttackPlan, outcome: AttackOutcome, dice: DiceSource
) -> list[Event]:
    """HR-GARROTE-2 after a garrotte hit; HR-GARROTE-6 when a garrotter is hurt (3d6 Str, once a round)."""
    out: list[Event] = []
    if is_garrotte(ctx) and outcome.hit:
        out += garrotte_events(state, ctx.attacker.name, ctx.defender.name, dice, "HR-GARROTE-2")
    hurt = ctx.defender
    holding = hurt.conditions.get("garrotting")
    if holding is None or not outcome.hit or plan.damage.none or not hurt.is_active():
        return out
    if holding.data.get("checked_round") == state.round:
        return out  # at most one check a round
    check, kept = check_event(state, hurt, 3, dice, "HR-GARROTE-6", "keeping the garrotte on")
    out.append(check)
    victim = str(holding.data.get("victim"))
    if kept:
        out.append(condition_event(state.round, hurt.name, "garrotting", added=True, rule="HR-GARROTE-6",
                                   by=hurt.name, text=f"{hurt.name} keeps the garrotte on",
                                   extra={**holding.data, "checked_round": state.round}))  # fmt: skip
    else:
        out += release_events(state, victim, hurt.name, "HR-GARROTE-6", f"{hurt.name} was hurt and let go")
    return out


def garrotte_end_of_round(state: FightState, dice: DiceSource) -> list[Event]:
    """HR-GARROTE-2: at the end of the count the victim dies (interpretation: death, not unconsciousness)."""
    out: list[Event] = []
    for c in state.combatants.values():
        cond = c.conditions.get("garrotted")
        if cond is None:
            continue
        holder = state.combatants.get(str(cond.data.get("by")))
        if holder is None or not holder.is_active() or not holder.has("garrotting"):
            out.append(condition_event(state.round, c.name, "garrotted", added=False, rule="HR-GARROTE-2",
                                       text=f"{c.name} is no longer garrotted"))  # fmt: skip
            continue
        if c.is_active() and state.round >= int(cond.data.get("dies_round", state.round + 1)):
            out.append(event(EventType.DEFEAT, state.round, actor=holder.name, target=c.name, rule="HR-GARROTE-2",
                             text=f"{c.name} is dead, strangled by the garrotte",
                             data={"status": "dead", "hp": c.hp}))  # fmt: skip
            out += release_events(state, c.name, holder.name, "HR-GARROTE-2", "strangled")
    return out


# --- Escape and re-set: the Strength-check actions -----------------------------------------------------------


@dataclass(frozen=True)
class Escape(Action):
    """Break a net (HR-NET-2) or a garrotte (HR-GARROTE-3) with a 4d6 Strength check, once a round,
    as the round's action (GAP-NET-ESCAPE)."""

    kind: ClassVar[str] = "escape"


@dataclass(frozen=True)
class ResetGarrotte(Action):
    """HR-GARROTE-4: re-set the garrotte without a to-hit roll by a 4d6 Strength check; a new 1d4+1 count."""

    kind: ClassVar[str] = "reset_garrotte"
    target: str = ""


def resolve_escape(state: FightState, action: Escape, dice: DiceSource) -> list[Event]:
    me = state[action.actor]
    held = "garrotted" if me.has("garrotted") else ("netted" if me.has("netted") else None)
    if held is None:
        raise IllegalActionError(f"{me.name} is neither netted nor garrotted")
    rule = "HR-GARROTE-3" if held == "garrotted" else "HR-NET-2"
    out = [event(EventType.ACTION, state.round, actor=me.name, rule=rule, text=f"{me.name} struggles to break free",
                 data={"kind": "escape", "from": held})]  # fmt: skip
    check, ok = check_event(
        state, me, 4, dice, rule, f"breaking the {'garrotte' if held == 'garrotted' else 'net'}"
    )
    out.append(check)
    if ok and held == "netted":
        out.append(condition_event(state.round, me.name, "netted", added=False, rule=rule,
                                   text=f"{me.name} breaks the net and is free"))  # fmt: skip
    elif ok:
        holder = str(me.conditions["garrotted"].data.get("by"))
        out += release_events(state, me.name, holder, rule, "broke loose")
    return out


def resolve_reset(state: FightState, action: ResetGarrotte, dice: DiceSource) -> list[Event]:
    me, victim = state[action.actor], state[action.target]
    if not victim.is_active():
        raise IllegalActionError(f"{victim.name} is out of the fight")
    if not any(w.name.lower() in {"garrotte", "garrote"} for w in me.spec.weapons):
        raise IllegalActionError(f"{me.name} has no garrotte")
    out = [
        event(
            EventType.ACTION,
            state.round,
            actor=me.name,
            target=victim.name,
            rule="HR-GARROTE-4",
            text=f"{me.name} tries to re-set the garrotte on {victim.name}",
            data={"kind": "reset_garrotte"},
        )
    ]
    check, ok = check_event(state, me, 4, dice, "HR-GARROTE-4", "re-setting the garrotte")
    out.append(check)
    if ok:
        out += garrotte_events(state, me.name, victim.name, dice, "HR-GARROTE-4")
    return out  # fmt: skip


def held_choices(state: FightState, actor: str) -> Action | None:
    """Unsteered combatants: the netted or garrotted struggle (HR-NET-2, HR-GARROTE-3); a garrotter keeps
    its hold (HR-GARROTE-5)."""
    me = state[actor]
    if me.has("netted") or me.has("garrotted"):
        return Escape(actor)
    if me.has("garrotting"):
        return Wait(actor, "keeps the garrotte tight (HR-GARROTE-5)")
    return None


# --- HR-MISSILE-5: the second roll of a missile into melee ------------------------------------------------


def second_roll_events(
    state: FightState, ctx: AttackContext, plan: AttackPlan, outcome: AttackOutcome, dice: DiceSource
) -> list[Event]:
    """HR-MISSILE-4: a target in a melee (flag `into_melee`) has the cover the referee gives it.
    HR-MISSILE-5: a missile that missed only because of that cover (it would have hit without it,
    interpretation) gets a second to-hit roll against another combatant in the melee (random if several)."""
    if not second_roll_possible(ctx) or outcome.hit or outcome.fumble or outcome.missed_by_chance:
        return []
    if not outcome.natural or not missed_only_for_cover(ctx, outcome.natural):
        return []
    others = others_in_the_melee(ctx)
    if not others:
        return []
    tape = DiceTape(dice)
    other = pick_one(others, tape, "which combatant the stray missile meets")
    note = event(
        EventType.ACTION, state.round, actor=ctx.attacker.name, target=other, dice=tape.take(), rule="HR-MISSILE-5",
        text=f"the missile missed {ctx.defender.name} only for the melee cover: a second roll against {other}",
        data={"kind": "second_roll", "free": True, "candidates": others},
    )  # fmt: skip
    second = free_attack_events(
        state, ctx.attacker.name, other, dice, rule="HR-MISSILE-5", reason="rolls again",
        weapon=ctx.weapon.name, distance=ctx.distance, flags=frozenset({"friendly"}),
    )  # fmt: skip
    return [note, *second[1:]]


# --- HR-TOUCH-3: charged touch spells ---------------------------------------------------------------------


def touch_after_attack(
    state: FightState, ctx: AttackContext, plan: AttackPlan, outcome: AttackOutcome, dice: DiceSource
) -> list[Event]:
    """HR-TOUCH-3 (`touch_ac = hr_dex_cover`): a touch spell (flag `spell`) that misses stays charged;
    a hit delivers it (its effect is the spell's, ODD-ATK-4; the touch itself does no damage, HR-TOUCH-2)."""
    if ctx.form is not AttackForm.TOUCH or not ctx.situation.has("spell"):
        return []
    if ctx.ruleset.touch_ac is not TouchAc.HR_DEX_COVER:
        return []
    me, r = ctx.attacker.name, state.round
    if outcome.hit:
        if ctx.attacker.has("charged_touch"):
            return [condition_event(r, me, "charged_touch", added=False, rule="HR-TOUCH-3",
                                    text=f"{me} delivers the touch spell to {ctx.defender.name}")]  # fmt: skip
        return []
    if ctx.attacker.has("charged_touch"):
        return []
    return [condition_event(r, me, "charged_touch", added=True, rule="HR-TOUCH-3", by=me,
                            text=f"{me}'s touch missed; the spell stays charged")]  # fmt: skip


def touch_lost(state: FightState, action: Action, events: list[Event]) -> list[Event]:
    """HR-TOUCH-3: the charged spell is lost when the caster takes another action (a non-touch attack, a
    move of more than half its rate...). Waiting is no combat action (ODD-ACT-FREE-1) and keeps it."""
    me = state.combatants.get(action.actor)
    if me is None or not me.has("charged_touch") or action.kind == "wait":
        return []
    if getattr(action, "out_of_turn", False):
        return []  # the referee's own acts (a condition, hit points changed by hand) are nobody's action
    if getattr(action, "form", None) is AttackForm.TOUCH:
        return []  # another try to touch (an attack, or a half move and attack)
    moved = sum(
        int(e.data.get("moved", 0) or 0) for e in events if e.type is EventType.ACTION and e.actor == me.name
    )
    if action.kind in {"move", "withdraw"} and moved <= movement.half_move(movement.allowance(me)):
        return []
    return [condition_event(state.round, me.name, "charged_touch", added=False, rule="HR-TOUCH-3",
                            text=f"{me.name} acts otherwise: the charged touch spell is lost")]  # fmt: skip


# --- HR-ARMDMG-1..5 ---------------------------------------------------------------------------------------


def armour_after_critical(
    state: FightState, ctx: AttackContext, plan: AttackPlan, outcome: AttackOutcome, dice: DiceSource
) -> list[Event]:
    """HR-ARMDMG-1: a critical hit makes the defender's worn armour 1 AC worse (leather DAC 8 → 9, TV-002-01).
    HR-ARMDMG-3: non-magical armour that reaches DAC 10 (ascending bonus 0) is destroyed.
    HR-ARMDMG-4: a non-magical shield may take the loss instead (`sacrifice_shield`) and is destroyed.
    HR-ARMDMG-5: enchanted armour is not destroyed; it recovers (see :func:`rest_events`)."""
    if not outcome.critical or not ctx.ruleset.armour_damage:
        return []
    d = ctx.defender
    r = state.round
    if shield_takes_critical(d):
        shield = d.spec.shield
        assert shield is not None
        return [event(EventType.ARMOUR, r, actor=ctx.attacker.name, target=d.name, rule="HR-ARMDMG-4",
                      text=f"{d.name}'s {shield.name} takes the critical and is destroyed",
                      data={"shield_destroyed": True, "armour_loss": 0})]  # fmt: skip
    found = armour_after_critical_hit(d)
    if found is None:
        return []
    dac_now, dac_after, destroyed = found
    armour = d.spec.armour
    assert armour is not None
    text = f"{d.name}'s {armour.name} is damaged: AC {dac_now} → {dac_after} (descending)"
    if destroyed:
        text += ", destroyed (HR-ARMDMG-3)"
    return [event(EventType.ARMOUR, r, actor=ctx.attacker.name, target=d.name,
                  rule="HR-ARMDMG-3" if destroyed else "HR-ARMDMG-1", text=text,
                  data={"armour_loss": dac_after - dac_now, "armour_destroyed": destroyed,
                        "dac_before": dac_now, "dac_after": dac_after})]  # fmt: skip


def rest_events(state: FightState, days: int) -> list[Event]:
    """ARMOUR events for `days` of rest: each damaged enchanted armour heals 1 point a day (HR-ARMDMG-5)."""
    out: list[Event] = []
    for c in state.combatants.values():
        armour = c.spec.armour
        if armour is None or not c.armour_loss or c.armour_destroyed or not is_magical(armour):
            continue
        left = armour_recovery(c.armour_loss, days, True)
        span = "1 day" if days == 1 else f"{days} days"
        out.append(event(EventType.ARMOUR, state.round, target=c.name, rule="HR-ARMDMG-5",
                         text=f"{c.name}'s {armour.name} recovers {c.armour_loss - left} AC in {span}",
                         data={"armour_loss": left - c.armour_loss, "days": days}))  # fmt: skip
    return out
