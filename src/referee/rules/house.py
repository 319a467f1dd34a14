"""The house-rules post (002, HR-*): movement with attacks, fighting withdrawal and attacks of opportunity,
casting on the move, the 002 charge, garrotte, nets, missile restrictions, missiles into melee, touch
attacks, helpless targets and armour damage.

Each rule is switched on by its ruleset option (RULES.md section 8); under another variant it is silent.
Assumptions beyond the post are named in comments (GAP-AOO, GAP-REAR-AC, GAP-ATTR-CHECK, GAP-NET-ESCAPE).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from referee.checks import Check, Compare, Modifier
from referee.dice import DiceSource, DiceTape, roll
from referee.engine import resolve as engine
from referee.engine.actions import Action, register_action
from referee.engine.events import Event, EventType, event
from referee.engine.fight import END_OF_ROUND
from referee.engine.state import CombatantState, FightState
from referee.engine.tactics import OVERRIDES
from referee.errors import IllegalActionError
from referee.rules import hooks, movement
from referee.rules.attack import AttackPlan, DamagePlan, Effect, plan_attack
from referee.rules.context import AttackContext, AttackForm, DefenceLoss, defence_loss_rule, to_hit_rule
from referee.rules.criticals import free_attack_events, in_melee, pick_one, scratch_state
from referee.rules.ruleset import Ruleset
from referee.rules.vocabulary import HELPLESS

# --- Strength checks (GAP-ATTR-CHECK) ------------------------------------------------------------------


def strength_check(
    c: CombatantState, dice_count: int, tape: DiceTape, rule: str, purpose: str
) -> tuple[Check, int, bool]:
    """An Nd6 Strength check: success if the dice total is at most the Strength score (GAP-ATTR-CHECK)."""
    score = c.spec.abilities.strength
    check = Check(
        label=f"{c.name} {dice_count}d6 Strength check ({purpose})",
        sides=6,
        count=dice_count,
        target=score,
        target_label="Str",
        target_modifiers=(Modifier(score, rule, "Strength score (GAP-ATTR-CHECK)"),),
        compare=Compare.AT_MOST,
        words=("success", "failure"),
    )
    faces = [tape.roll(6, f"{purpose}: Strength check") for _ in range(dice_count)]
    return check, sum(faces), check.succeeds(sum(faces))


def check_event(
    state: FightState, c: CombatantState, dice_count: int, dice: DiceSource, rule: str, purpose: str
) -> tuple[Event, bool]:
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


def moved_feet(c: CombatantState) -> int:
    return c.moved_this_round


# --- HR-MOVE-1, HR-MOVE-2: half move and a single attack --------------------------------------------------


def half_move_attack(ctx: AttackContext) -> None:
    """HR-MOVE-1: up to half the movement rate and still attack. HR-MOVE-2: any movement leaves one attack."""
    if ctx.option("move_and_attack") != "half_move_single_attack" or ctx.free_attack or ctx.charge:
        return
    me = ctx.attacker
    moved = moved_feet(me)
    rate = movement.allowance(me)
    if moved > movement.half_move(rate):
        raise IllegalActionError(
            f"{me.name} moved {moved} ft, more than half its {rate} ft: no attack this round (HR-MOVE-1)"
        )
    attacked = any(me.name in c.attackers_this_round for c in ctx.state.combatants.values())
    if moved and attacked:
        raise IllegalActionError(f"{me.name} moved this round: one attack only (HR-MOVE-2)")


def attacks_allowed(ruleset: Ruleset, c: CombatantState, attacks: int) -> int:
    """HR-MOVE-2: a combatant that moves this round makes one attack, whatever its weapons or skills give."""
    if ruleset["move_and_attack"] == "half_move_single_attack" and moved_feet(c) > 0:
        return min(1, attacks)
    return attacks


# --- HR-CAST-MOVE ------------------------------------------------------------------------------------------
# Casting on the move (option `move_and_cast`) is enforced where spells are cast: the CastSpell action of
# referee.engine.odd_actions (ODD-ACT-CAST-3 / HR-CAST-MOVE), so the rule lives in one place.


# --- HR-CHARGE-1..5 -------------------------------------------------------------------------------------


def hr_charge(ctx: AttackContext) -> bool:
    return ctx.charge and ctx.option("charge") == "hr_to_hit_bonus"


def charge_allowed(ctx: AttackContext) -> None:
    """HR-CHARGE-3: never with a missile weapon. HR-CHARGE-1 (`charge_once_per_10_rounds`): one charge in
    any ten rounds (TV-DER-15: round 1 yes, round 5 no, round 11 yes)."""
    if not ctx.charge:
        return
    if hr_charge(ctx) and ctx.is_ranged:
        raise IllegalActionError(f"{ctx.attacker.name} cannot charge with a missile weapon (HR-CHARGE-3)")
    if hr_charge(ctx) and ctx.distance > ctx.attacker.spec.move:
        raise IllegalActionError(
            f"a charge covers at most the full movement rate, {ctx.attacker.spec.move} ft,"
            f" not {ctx.distance} ft (HR-CHARGE-2)"
        )
    last = ctx.attacker.last_charge_round
    if ctx.ruleset.is_on("charge_once_per_10_rounds") and last is not None and ctx.round - last < 10:
        raise IllegalActionError(
            f"{ctx.attacker.name} charged in round {last}; next charge in round {last + 10} (HR-CHARGE-1)"
        )


@to_hit_rule
def charge_to_hit(ctx: AttackContext) -> Iterator[Modifier]:
    """HR-CHARGE-2: a charge ends with one attack at +2 to hit (and no damage bonus)."""
    if hr_charge(ctx):
        yield Modifier(2, "HR-CHARGE-2", "charging")


def charged_this_round(c: CombatantState, round_no: int) -> bool:
    return c.last_charge_round == round_no


@defence_loss_rule
def charger_loses_dex(ctx: AttackContext) -> Iterator[DefenceLoss]:
    """HR-CHARGE-5: a charging character loses any Dex bonus to AC, for the round (interpretation)."""
    if ctx.option("charge") == "hr_to_hit_bonus" and charged_this_round(ctx.defender, ctx.round):
        yield DefenceLoss("dex", "HR-CHARGE-5", "charging")


def receives_charge(ctx: AttackContext) -> bool:
    """HR-CHARGE-4: the weapons that can be set: two-handed weapons, polearms, spears, horns..."""
    w = ctx.weapon
    settable = w.set_vs_charge or w.two_handed or (w.natural and "horn" in w.name.lower())
    charging = charged_this_round(ctx.defender, ctx.round) or ctx.situation.has("receives_charge")
    return bool(settable and charging and ctx.is_melee)


def set_weapon_double(ctx: AttackContext, plan: DamagePlan) -> DamagePlan:
    """HR-CHARGE-4 (`charge_set_weapons_double`): a set weapon that hits the charger deals double damage,
    read as double damage dice (the core's dice multiplier; modifiers once)."""
    if ctx.ruleset.is_on("charge_set_weapons_double") and receives_charge(ctx):
        return replace(plan, dice_multiplier=plan.dice_multiplier * 2)
    return plan


# --- HR-HELPLESS-1..4 --------------------------------------------------------------------------------------


def helpless_by_hr(ctx: AttackContext) -> str | None:
    """The condition that makes the defender helpless under the 002 rules, if any.

    `helpless_targets = hr_auto_max_damage`: paralysed, bound, sleeping, unconscious, held (and prone
    when `prone = hr_helpless`); `prone = hr_helpless` alone makes prone count too (HR-HELPLESS-1).
    """
    prone_counts = ctx.option("prone") == "hr_helpless"
    if ctx.option("helpless_targets") == "hr_auto_max_damage":
        for name in sorted(HELPLESS):
            if ctx.defender.has(name):
                return name
    if prone_counts and ctx.defender.has("prone"):
        return "prone"
    return None


def is_proficient(ctx: AttackContext) -> bool:
    """HR-HELPLESS-2: proficiency with the weapon: the combatant's list, else its `proficient` flag."""
    spec = ctx.attacker.spec
    if spec.proficiencies:
        return ctx.weapon.name.lower() in {p.lower() for p in spec.proficiencies}
    return spec.proficient


def helpless_auto_hit(ctx: AttackContext) -> hooks.Verdict | None:
    """HR-HELPLESS-1: a melee attack on a helpless creature hits automatically; HR-HELPLESS-3: missiles roll."""
    why = helpless_by_hr(ctx)
    if why is None or ctx.is_ranged or ctx.form.is_unarmed_special:
        return None
    return (True, "HR-HELPLESS-1", f"target {why}")


def helpless_damage(ctx: AttackContext, plan: DamagePlan) -> DamagePlan:
    """HR-HELPLESS-2: maximum damage if proficient, else rolled. HR-HELPLESS-4: additive bonuses stay,
    multiplicative ones (a backstab multiplier) do not apply."""
    if helpless_auto_hit(ctx) is None:
        return plan
    return replace(plan, maximise=is_proficient(ctx), dice_multiplier=1)


# --- HR-GARROTE-1..6 ---------------------------------------------------------------------------------------


def is_garrotte(ctx: AttackContext) -> bool:
    return ctx.weapon.name.lower() in {"garrotte", "garrote"}


def garrotte_allowed(ctx: AttackContext) -> None:
    """HR-GARROTE-1: only from behind (the referee's `rear` flag). HR-GARROTE-5: a garrotter does nothing else."""
    if ctx.attacker.has("garrotting") and not ctx.free_attack:
        raise IllegalActionError(
            f"{ctx.attacker.name} is garrotting and can take no other action (HR-GARROTE-5)"
        )
    if is_garrotte(ctx) and not ctx.situation.has("rear"):
        raise IllegalActionError(
            "a garrotte is used only from behind: declare the `rear` flag (HR-GARROTE-1)"
        )


@defence_loss_rule
def garrotte_rear_ac(ctx: AttackContext) -> Iterator[DefenceLoss]:
    """HR-GARROTE-1 with GAP-REAR-AC: rear AC is AC without Dex and shield (no +2 unless `flank_and_rear = mod`)."""
    if is_garrotte(ctx):
        yield DefenceLoss("both", "HR-GARROTE-1", "rear AC (GAP-REAR-AC)")


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
    state: FightState, ctx: AttackContext, plan: AttackPlan, outcome: engine.AttackOutcome, dice: DiceSource
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


# --- HR-NET-1, HR-NET-2 ---------------------------------------------------------------------------------


def is_net(ctx: AttackContext) -> bool:
    return ctx.weapon.name.lower() == "net"


def net_allowed(ctx: AttackContext) -> None:
    """HR-NET-1: a net reaches 30 ft (TV-DER-13: 30 allowed, 35 not). HR-NET-2: netted, no attack."""
    if ctx.attacker.has("netted"):
        raise IllegalActionError(
            f"{ctx.attacker.name} is netted and cannot attack until it breaks free (HR-NET-2)"
        )
    if is_net(ctx) and ctx.distance > 30:
        raise IllegalActionError(f"a net can be thrown up to 30 ft, not {ctx.distance} ft (HR-NET-1)")


def net_effects(ctx: AttackContext) -> Iterator[tuple[str, Effect]]:
    """HR-NET-1: a hit entangles the target until it breaks the net (HR-NET-2)."""
    if is_net(ctx):
        yield ("hit", Effect("netted", "defender", None, "HR-NET-1"))


def can_move(c: CombatantState) -> bool:
    """HR-NET-2: a netted creature cannot move (with every other immobile condition of ODD-MOVE-7);
    a garrotter holds its place (HR-GARROTE-5)."""
    return not (movement.is_restrained(c) or c.has("garrotting"))


# --- Escape and re-set: the Strength-check actions -----------------------------------------------------------


@register_action
@dataclass(frozen=True)
class Escape(Action):
    """Break a net (HR-NET-2) or a garrotte (HR-GARROTE-3) with a 4d6 Strength check, once a round,
    as the round's action (GAP-NET-ESCAPE)."""

    kind: ClassVar[str] = "escape"


@register_action
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


engine.RESOLVERS[Escape] = resolve_escape
engine.RESOLVERS[ResetGarrotte] = resolve_reset


def held_choices(state: FightState, actor: str) -> Action | None:
    """Unsteered combatants: the netted or garrotted struggle (HR-NET-2, HR-GARROTE-3); a garrotter keeps
    its hold (HR-GARROTE-5)."""
    me = state[actor]
    if me.has("netted") or me.has("garrotted"):
        return Escape(actor)
    if me.has("garrotting"):
        from referee.engine.actions import Wait

        return Wait(actor, "keeps the garrotte tight (HR-GARROTE-5)")
    return None


OVERRIDES.append(held_choices)


# --- HR-MISSILE-1..3 ------------------------------------------------------------------------------------


def shooter_in_melee(ctx: AttackContext) -> bool:
    """In melee with some enemy: on the grid, or when the referee says so (the `in_melee` flag)."""
    if ctx.situation.has("in_melee"):
        return True
    me = ctx.attacker
    if me.position is None:
        return False
    return any(in_melee(ctx.state, me, foe) for foe in ctx.state.living_enemies(me.name) if foe.position)


def missile_allowed(ctx: AttackContext) -> None:
    """HR-MISSILE-1: no missile at a target within 5 ft (TV-DER-14). HR-MISSILE-2: leave melee first."""
    if not ctx.ruleset.is_on("missile_restrictions") or not ctx.is_ranged:
        return
    if ctx.distance <= 5:
        raise IllegalActionError(
            f"missiles only at targets more than 5 ft away, not {ctx.distance} ft (HR-MISSILE-1)"
        )
    if shooter_in_melee(ctx) and not ctx.free_attack:
        raise IllegalActionError(
            f"{ctx.attacker.name} is in melee: move out of it before firing (HR-MISSILE-2)"
        )


def firing_effects(ctx: AttackContext) -> Iterator[tuple[str, Effect]]:
    """HR-MISSILE-3: firing a missile costs the Dex bonus to AC for the rest of the round (interpretation)."""
    firing = ctx.ruleset.is_on("missile_restrictions") and ctx.is_ranged and not ctx.free_attack
    if firing and not ctx.attacker.has("firing_missile"):
        yield ("attempt", Effect("firing_missile", "attacker", 0, "HR-MISSILE-3"))


@defence_loss_rule
def shooter_loses_dex(ctx: AttackContext) -> Iterator[DefenceLoss]:
    """HR-MISSILE-3: a character who fired a missile this round has no Dex bonus to AC."""
    if ctx.ruleset.is_on("missile_restrictions") and ctx.defender.has("firing_missile"):
        yield DefenceLoss("dex", "HR-MISSILE-3", "fired a missile this round")


# --- HR-MISSILE-4, HR-MISSILE-5: missiles into melee ----------------------------------------------------------


def second_roll_events(
    state: FightState, ctx: AttackContext, plan: AttackPlan, outcome: engine.AttackOutcome, dice: DiceSource
) -> list[Event]:
    """HR-MISSILE-4: a target in a melee (flag `into_melee`) has the cover the referee gives it.
    HR-MISSILE-5: a missile that missed only because of that cover (it would have hit without it,
    interpretation) gets a second to-hit roll against another combatant in the melee (random if several)."""
    if ctx.option("missiles_into_melee") != "hr_cover_second_roll" or ctx.free_attack:
        return []
    if not ctx.is_ranged or outcome.hit or outcome.fumble or outcome.missed_by_chance:
        return []
    if not ctx.situation.has("into_melee") or ctx.situation.cover == "none" or not outcome.natural:
        return []
    uncovered = plan_attack(replace(ctx, situation=replace(ctx.situation, cover="none")))
    if not uncovered.check.succeeds(outcome.natural):
        return []
    others = [
        c.name
        for c in state.active()
        if c.name not in {ctx.attacker.name, ctx.defender.name} and in_melee(state, c, ctx.defender)
    ]
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


# --- HR-TOUCH-1..4 -----------------------------------------------------------------------------------------


def touch_allowed(ctx: AttackContext) -> None:
    """HR-TOUCH-4: the quivering palm is not a touch attack; it uses the normal attack rules."""
    if ctx.form is AttackForm.TOUCH and "quivering palm" in ctx.weapon.name.lower():
        raise IllegalActionError(
            "the quivering palm is not a touch attack: make a normal attack (HR-TOUCH-4)"
        )


def touch_after_attack(
    state: FightState, ctx: AttackContext, plan: AttackPlan, outcome: engine.AttackOutcome, dice: DiceSource
) -> list[Event]:
    """HR-TOUCH-3 (`touch_ac = hr_dex_cover`): a touch spell (flag `spell`) that misses stays charged;
    a hit delivers it (its effect is the spell's, ODD-ATK-4; the touch itself does no damage, HR-TOUCH-2)."""
    if ctx.form is not AttackForm.TOUCH or not ctx.situation.has("spell"):
        return []
    if ctx.option("touch_ac") != "hr_dex_cover":
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
    state: FightState, ctx: AttackContext, plan: AttackPlan, outcome: engine.AttackOutcome, dice: DiceSource
) -> list[Event]:
    """HR-ARMDMG-1: a critical hit makes the defender's worn armour 1 AC worse (leather DAC 8 → 9, TV-002-01).
    HR-ARMDMG-3: non-magical armour that reaches DAC 10 (ascending bonus 0) is destroyed.
    HR-ARMDMG-4: a non-magical shield may take the loss instead (`sacrifice_shield`) and is destroyed.
    HR-ARMDMG-5: enchanted armour is not destroyed; it recovers (see :func:`rest_events`)."""
    if not outcome.critical or not ctx.ruleset.is_on("armour_damage"):
        return []
    d = ctx.defender
    spec = d.spec
    shield, armour = spec.shield, spec.armour
    r = state.round
    if spec.sacrifice_shield and shield is not None and not d.shield_destroyed and not is_magical(shield):
        return [event(EventType.ARMOUR, r, actor=ctx.attacker.name, target=d.name, rule="HR-ARMDMG-4",
                      text=f"{d.name}'s {shield.name} takes the critical and is destroyed",
                      data={"shield_destroyed": True, "armour_loss": 0})]  # fmt: skip
    if armour is None or d.armour_destroyed:
        return []
    dac_now = (armour.ac if armour.ac is not None else 10 - (armour.ac_bonus or 0)) + d.armour_loss
    dac_after = min(10, dac_now + 1)
    destroyed = dac_after >= 10 and not is_magical(armour)
    text = f"{d.name}'s {armour.name} is damaged: AC {dac_now} → {dac_after} (descending)"
    if destroyed:
        text += ", destroyed (HR-ARMDMG-3)"
    return [event(EventType.ARMOUR, r, actor=ctx.attacker.name, target=d.name,
                  rule="HR-ARMDMG-3" if destroyed else "HR-ARMDMG-1", text=text,
                  data={"armour_loss": dac_after - dac_now, "armour_destroyed": destroyed,
                        "dac_before": dac_now, "dac_after": dac_after})]  # fmt: skip


def is_magical(item: Any) -> bool:
    return bool(getattr(item, "magical", False) or getattr(item, "enhancement", 0))


def armour_recovery(loss: int, days: int, magical: bool) -> int:
    """HR-ARMDMG-5: enchanted armour regains 1 AC a day (magic plate at AC 4 → AC 3 after 24 h, TV-002-02).
    HR-ARMDMG-2: ordinary armour keeps its loss until repaired. Returns the loss that remains."""
    if days < 0:
        raise IllegalActionError("days of rest cannot be negative")
    return max(0, loss - days) if magical else loss


def rest_events(state: FightState, days: int) -> list[Event]:
    """ARMOUR events for `days` of rest: each damaged enchanted armour heals 1 point a day (HR-ARMDMG-5)."""
    out: list[Event] = []
    for c in state.combatants.values():
        armour = c.spec.armour
        if armour is None or not c.armour_loss or c.armour_destroyed or not is_magical(armour):
            continue
        left = armour_recovery(c.armour_loss, days, True)
        out.append(event(EventType.ARMOUR, state.round, target=c.name, rule="HR-ARMDMG-5",
                         text=f"{c.name}'s {armour.name} recovers {c.armour_loss - left} AC in {days} day(s)",
                         data={"armour_loss": left - c.armour_loss, "days": days}))  # fmt: skip
    return out


# --- HR-WITHDRAW-1..3 and attacks of opportunity (GAP-AOO) ---------------------------------------------------


@register_action
@dataclass(frozen=True)
class Withdraw(Action):
    """Leave melee, moving `feet` (to `position` on a grid). `turns_back`: the mover shows its back."""

    kind: ClassVar[str] = "withdraw"
    feet: int = 0
    position: tuple[int, int] | None = None
    turns_back: bool = False


def resolve_withdraw(state: FightState, action: Withdraw, dice: DiceSource) -> list[Event]:
    """HR-WITHDRAW-1: up to half the rate, a fighting withdrawal, no attacks of opportunity.
    HR-WITHDRAW-2 (GAP-AOO): more than half: each opponent in melee gets one free melee attack, at most one
    per opponent per round, without using its action (rear modifiers if the mover turns its back).
    HR-WITHDRAW-3: no attack that round, before or after."""
    me = state[action.actor]
    if not isinstance(action.feet, int) or isinstance(action.feet, bool):
        raise IllegalActionError(f"withdraw: feet must be a whole number, not {action.feet!r}")
    if not can_move(me):
        raise IllegalActionError(f"{me.name} cannot move (HR-NET-2, HR-GARROTE-5, ODD-MOVE-7)")
    rate, most = movement.allowance(me), movement.allowance(me, "run")
    if action.feet < 0 or action.feet > most:
        raise IllegalActionError(f"{me.name} can move 0 to {most} ft (ODD-MOVE-2), not {action.feet}")
    if any(me.name in c.attackers_this_round for c in state.combatants.values()):
        raise IllegalActionError(f"{me.name} attacked this round and cannot also withdraw (HR-WITHDRAW-3)")
    fighting = action.feet <= movement.half_move(rate)
    rule = "HR-WITHDRAW-1" if fighting else "HR-WITHDRAW-2"
    r = state.round
    data: dict[str, Any] = {"kind": "withdraw", "moved": action.feet, "fighting_withdrawal": fighting}
    if action.position is not None:
        data["position"] = list(action.position)
    out = [event(EventType.ACTION, r, actor=me.name, rule=rule, data=data,
                 text=f"{me.name} {'makes a fighting withdrawal' if fighting else 'leaves melee'} ({action.feet} ft)"),
           condition_event(r, me.name, "withdrawing", added=True, rule="HR-WITHDRAW-3", until=r,
                           text=f"{me.name} makes no attack this round")]  # fmt: skip
    if fighting or not state.setup.ruleset.is_on("fighting_withdrawal"):
        return out
    return out + opportunity_attacks(state, me, action, dice)


def opportunity_attacks(
    state: FightState, mover: CombatantState, action: Withdraw, dice: DiceSource
) -> list[Event]:
    """GAP-AOO: the free attacks of the opponents in melee with a mover leaving at more than half its rate."""
    out: list[Event] = []
    foes = [
        f for f in state.living_enemies(mover.name) if in_melee(state, f, mover) and not f.has("aoo_used")
    ]
    scratch = state
    flags = frozenset({"rear"}) if action.turns_back else frozenset()
    for foe in foes:
        if not scratch[mover.name].is_active():
            break  # the mover fell to an earlier attack
        used = condition_event(state.round, foe.name, "aoo_used", added=True, rule="GAP-AOO", until=state.round,
                               text=f"{foe.name} has used its attack of opportunity")  # fmt: skip
        attack = free_attack_events(
            scratch, foe.name, mover.name, dice, rule="HR-WITHDRAW-2",
            reason=f"gets an attack of opportunity on {mover.name} (HR-WITHDRAW-2, GAP-AOO)", distance=5, flags=flags,
        )  # fmt: skip
        out += [*attack, used]
        scratch = scratch_state(state, out)
    return out


engine.RESOLVERS[Withdraw] = resolve_withdraw


def withdraw_allowed(ctx: AttackContext) -> None:
    """HR-WITHDRAW-3: a creature that withdrew this round attacks nobody."""
    if ctx.attacker.has("withdrawing") and not ctx.free_attack:
        raise IllegalActionError(f"{ctx.attacker.name} withdrew this round and cannot attack (HR-WITHDRAW-3)")


# --- registration ------------------------------------------------------------------------------------------

hooks.ALLOW_RULES.extend(
    [
        half_move_attack,
        charge_allowed,
        garrotte_allowed,
        net_allowed,
        missile_allowed,
        touch_allowed,
        withdraw_allowed,
    ]
)
hooks.AUTOMATIC_RULES.append(helpless_auto_hit)
hooks.DAMAGE_PLAN_RULES.append(set_weapon_double)
hooks.FINAL_DAMAGE_PLAN_RULES.append(helpless_damage)  # after backstab and every other multiplier
hooks.EFFECT_RULES.extend([net_effects, firing_effects])
engine.AFTER_ATTACK.extend(
    [garrotte_after_attack, second_roll_events, touch_after_attack, armour_after_critical]
)
engine.AFTER_ACTION.append(touch_lost)
END_OF_ROUND.append(garrotte_end_of_round)

__all__ = [
    "Escape",
    "ResetGarrotte",
    "Withdraw",
    "armour_recovery",
    "attacks_allowed",
    "can_move",
    "rest_events",
]
