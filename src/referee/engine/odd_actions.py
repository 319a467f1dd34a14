"""ODD actions beyond the plain attack (ODD-ACT-1: attack, cast a spell, move, use an ability, use an item).

- :class:`CastSpell` (ODD-ACT-CAST-1..3), :class:`UseItem` (ODD-ACT-ITEM-1/2), :class:`UseAbility`
  (ODD-ACT-ABIL-1/2), :class:`CheckedAttack` (ODD-SIT-1), :class:`DefensiveManeuver` (ODD-MANEUVER-1),
  :class:`QuickAct` (ODD-ACT-FREE-2/3, GAP-READY) and :class:`ExtraAction` (ODD-ACT-MULTI).
- The effect of a spell, item or ability is the referee's input (ODD-ATK-4): an optional target and
  damage the action applies as stated.

Moving and charging (:class:`Move`, :class:`MoveAttack`, :class:`Charge`, :func:`declare_charge`) are
:mod:`referee.engine.moves`; the maneuver and missile hooks :mod:`referee.engine.odd_hooks`;
the choices of unsteered combatants :mod:`referee.engine.odd_tactics`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, ClassVar

from referee.checks import Check, Compare, Modifier
from referee.dice import DiceSource, DiceTape
from referee.engine.action_support import action_event, actor_state, no_movement, referee_effect
from referee.engine.actions import Action, Attack, action_from_dict
from referee.engine.caches import plan_attack  # the engine's planner (kept by what a plan read)
from referee.engine.events import Event, EventType, event
from referee.engine.resolve import attack_context, attack_events, resolve
from referee.engine.state import CombatantState, FightState
from referee.errors import IllegalActionError
from referee.rules import abilities, movement
from referee.rules.context import AttackForm, Situation
from referee.rules.options import MoveAndCast

Point = tuple[int, int]


# --- casting, items, abilities (ODD-ACT-CAST-1..3, ODD-ACT-ITEM-1/2, ODD-ACT-ABIL-1/2) -----------


@dataclass(frozen=True)
class CastSpell(Action):
    """ODD-ACT-CAST-1: one spell a round. `rounds` is the casting time (ODD-ACT-CAST-2); `moved` the
    feet moved this round (ODD-ACT-CAST-3: none unless option `move_and_cast` or the spell allows,
    `spell_allows_move`). The spell's effect is the referee's (ODD-ATK-4): `target`, `damage`, `effect`."""

    kind: ClassVar[str] = "cast"
    spell: str = ""
    rounds: int = 1
    moved: int = 0
    spell_allows_move: bool = False
    target: str | None = None
    damage: int | None = None
    subdual: bool = False
    effect: str = ""
    delivery: str = "target"  # target, area or touch (MOD-COND-BLIND-2)
    verbal: bool = True  # has a verbal component (MOD-COND-DEAF)
    segments: int | None = None  # casting time in segments; default 10 a round (GAP-CASTING-TIME)


# A check on a spell as its casting starts (blind or deafened casters...): it raises IllegalActionError when
# the spell cannot be cast, returns events when it is cast but fails, or None. Listed in
# referee.engine.registry.CAST_CHECKS.
CastCheck = Callable[[FightState, CombatantState, "CastSpell", DiceSource], "list[Event] | None"]


def _cast_failure(
    state: FightState, c: CombatantState, action: CastSpell, dice: DiceSource
) -> list[Event] | None:
    from referee.engine import registry  # it lists checks of modules that import this one

    for check in registry.CAST_CHECKS:
        failed = check(state, c, action, dice)
        if failed:
            start = action_event(state, c.name, "ODD-ACT-CAST-1", f"{c.name} casts {action.spell}", kind="cast",
                                 spell=action.spell, target=action.target, moved=action.moved)  # fmt: skip
            return [start, *failed]
    return None


def _casting_limits(state: FightState, c: CombatantState, action: CastSpell) -> None:
    if action.rounds < 1:
        raise IllegalActionError(f"a spell's casting time is at least 1 round, not {action.rounds}")
    if action.moved and not action.spell_allows_move:
        variant = state.setup.ruleset.move_and_cast
        if variant is MoveAndCast.FORBIDDEN:
            raise IllegalActionError(f"{c.name} may not move in a round it casts (ODD-ACT-CAST-3)")
        half = movement.half_move(movement.allowance(c))
        if action.rounds > 1:
            raise IllegalActionError(
                f"{c.name} moved {action.moved} ft this round: only a one-round spell may follow a move, not a "
                f"{action.rounds}-round spell (HR-CAST-MOVE)"
            )
        if action.moved > half:
            raise IllegalActionError(
                f"{c.name} may move at most {half} ft (half its rate) with a one-round spell (HR-CAST-MOVE), "
                f"not {action.moved} ft"
            )


def resolve_cast(state: FightState, action: CastSpell, dice: DiceSource) -> list[Event]:
    c = actor_state(state, action.actor)
    if not action.spell:
        raise IllegalActionError(f"{c.name}'s casting needs the spell's name")
    _casting_limits(state, c, action)
    r = state.round
    going = c.conditions.get("casting")
    if going is not None and going.data.get("spell") == action.spell:
        done = int(going.data.get("completes", r))
        if r < done:
            return [action_event(state, c.name, "ODD-ACT-CAST-2", f"{c.name} goes on casting {action.spell} "
                                 f"(takes effect in round {done})", kind="cast", spell=action.spell)]  # fmt: skip
        out = [action_event(state, c.name, "ODD-ACT-CAST-2", f"{c.name} completes {action.spell}: it takes effect "
                            f"{action.effect}".rstrip(), kind="cast", spell=action.spell, target=action.target)]  # fmt: skip
        out.append(event(EventType.CONDITION, r, actor=c.name, target=c.name, rule="ODD-ACT-CAST-2",
                         text=f"{c.name} is no longer casting", data={"condition": "casting", "added": False}))  # fmt: skip
        return out + referee_effect(state, c.name, action.target, action.damage, action.subdual, action.spell)
    failed = _cast_failure(state, c, action, dice)
    if failed:
        return failed
    if action.rounds == 1:
        text = f"{c.name} casts {action.spell}" + (f": {action.effect}" if action.effect else "")
        out = [action_event(state, c.name, "ODD-ACT-CAST-1", text, kind="cast", spell=action.spell, target=action.target,
                            moved=action.moved)]  # fmt: skip
        return out + referee_effect(state, c.name, action.target, action.damage, action.subdual, action.spell)
    done = r + action.rounds - 1
    return [
        action_event(state, c.name, "ODD-ACT-CAST-2", f"{c.name} begins casting {action.spell} ({action.rounds} rounds; "
                     f"takes effect in round {done})", kind="cast", spell=action.spell, moved=action.moved),
        event(EventType.CONDITION, r, actor=c.name, target=c.name, rule="ODD-ACT-CAST-2", text=f"{c.name} is casting",
              data={"condition": "casting", "added": True, "until_round": None,
                    "extra": {"spell": action.spell, "completes": done, "target": action.target}}),
    ]  # fmt: skip


@dataclass(frozen=True)
class UseItem(Action):
    """ODD-ACT-ITEM-1: use a readied item (potion, wand, scroll, grappling hook), normally without moving;
    ODD-ACT-ITEM-2: an item in a backpack takes the whole round to dig out (`readied: false`)."""

    kind: ClassVar[str] = "use_item"
    item: str = ""
    readied: bool = True
    moved: int = 0
    target: str | None = None
    damage: int | None = None
    subdual: bool = False
    effect: str = ""


def resolve_use_item(state: FightState, action: UseItem, dice: DiceSource) -> list[Event]:
    c = actor_state(state, action.actor)
    if not action.item:
        raise IllegalActionError(f"{c.name}'s item use needs the item's name")
    no_movement("using an item", action.moved, "ODD-ACT-ITEM-1")
    if not action.readied:
        text = f"{c.name} spends the round digging {action.item} out of a pack (ODD-ACT-ITEM-2)"
        return [
            action_event(
                state, c.name, "ODD-ACT-ITEM-2", text, kind="use_item", item=action.item, readied=False
            )
        ]
    text = f"{c.name} uses {action.item}" + (f": {action.effect}" if action.effect else "")
    out = [
        action_event(
            state, c.name, "ODD-ACT-ITEM-1", text, kind="use_item", item=action.item, target=action.target
        )
    ]
    return out + referee_effect(state, c.name, action.target, action.damage, action.subdual, action.item)


@dataclass(frozen=True)
class UseAbility(Action):
    """ODD-ACT-ABIL-1: one class or racial ability a round (`uses`), unless the creature's entry allows
    more (`per_round`); ODD-ACT-ABIL-2: any movement with it stays within the normal rate unless the
    referee rules otherwise (`referee_allows_move`)."""

    kind: ClassVar[str] = "use_ability"
    ability: str = ""
    uses: int = 1
    per_round: int = 1
    moved: int = 0
    referee_allows_move: bool = False
    target: str | None = None
    damage: int | None = None
    subdual: bool = False
    effect: str = ""


def resolve_use_ability(state: FightState, action: UseAbility, dice: DiceSource) -> list[Event]:
    c = actor_state(state, action.actor)
    if not action.ability:
        raise IllegalActionError(f"{c.name}'s ability use needs the ability's name")
    if action.uses < 1 or action.uses > action.per_round:
        raise IllegalActionError(
            f"{c.name} may use {action.per_round} ability a round, not {action.uses} (ODD-ACT-ABIL-1)"
        )
    rate = movement.allowance(c)
    if action.moved > rate and not action.referee_allows_move:
        raise IllegalActionError(f"an ability use moves at most the normal rate, {rate} ft (ODD-ACT-ABIL-2)")
    text = f"{c.name} uses {action.ability}" + (f" ×{action.uses}" if action.uses > 1 else "")
    text += f": {action.effect}" if action.effect else ""
    out = [action_event(state, c.name, "ODD-ACT-ABIL-1", text, kind="use_ability", ability=action.ability,
                        moved=action.moved, target=action.target)]  # fmt: skip
    return out + referee_effect(state, c.name, action.target, action.damage, action.subdual, action.ability)


# --- an attack the referee makes depend on a check (ODD-SIT-1) ----------------------------------------

ABILITY_NAMES = {"str": "strength", "dex": "dexterity", "con": "constitution", "int": "intelligence",
                 "wis": "wisdom", "cha": "charisma"}  # fmt: skip


@dataclass(frozen=True)
class CheckedAttack(Action):
    """ODD-SIT-1: the referee requires an attribute check to decide whether the attack can be made at all
    (GAP-ATTR-CHECK: d20 <= score + the referee's modifier). A failed check spends the round; a passed
    one is followed by the attack (dice: the check's d20, then the attack's)."""

    kind: ClassVar[str] = "checked_attack"
    target: str = ""
    weapon: str | None = None
    form: AttackForm | None = None
    distance: int | None = None
    situation: Situation = field(default_factory=Situation)
    ability: str = "dexterity"
    check_modifier: int = 0
    reason: str = "the referee asks for a check first"


def attribute_check(c: CombatantState, ability: str, modifier: int, reason: str) -> Check:
    """GAP-ATTR-CHECK: a roll-under attribute check, the referee's modifier added to the score."""
    name = ABILITY_NAMES.get(ability.lower(), ability.lower())
    if name not in ABILITY_NAMES.values():
        raise IllegalActionError(
            f"unknown ability {ability!r}; abilities: {', '.join(ABILITY_NAMES.values())}"
        )
    ruleset = c.fight.setup.ruleset if c.fight is not None else None
    # MOD-COND-FATIGUED / -EXHAUSTED: the score is 2 lower while the condition lasts
    score = abilities.score(c, name, ruleset) if ruleset is not None else int(getattr(c.spec.abilities, name))
    parts = [Modifier(score, "ODD-SIT-1", name.capitalize())]
    if modifier:
        parts.append(Modifier(modifier, "ODD-SIT-1", "referee's modifier"))
    short = name[:3].capitalize()
    return Check(
        label=f"{c.name} {name} check: {reason}",
        target=score + modifier,
        target_label=short if not modifier else f"{short} {score}{modifier:+d} =",
        target_modifiers=tuple(parts),
        compare=Compare.AT_MOST,
        words=("the attack can be made", "the attack cannot be made"),
    )


def resolve_checked_attack(state: FightState, action: CheckedAttack, dice: DiceSource) -> list[Event]:
    c = actor_state(state, action.actor)
    attack = Attack(action.actor, target=action.target, weapon=action.weapon, form=action.form,
                    distance=action.distance, situation=action.situation)  # fmt: skip
    ctx = attack_context(state, attack)
    plan = plan_attack(ctx)  # an attack the rules forbid is refused before any die is rolled
    check = attribute_check(c, action.ability, action.check_modifier, action.reason)
    tape = DiceTape(dice)
    face = tape.roll(20, f"{c.name} {action.ability} check")
    passed = check.succeeds(face)
    out = [
        event(EventType.CHECK, state.round, actor=c.name, target=action.target, dice=tape.take(), total=face,
              target_number=check.target, hit=passed, rule="ODD-SIT-1", text=f"{check.label}: {check.breakdown([face])}",
              data={"check": action.ability}),
    ]  # fmt: skip
    if not passed:
        out.append(action_event(state, c.name, "ODD-SIT-1", f"{c.name} cannot make the attack this round",
                                kind="checked_attack", target=action.target))  # fmt: skip
        return out
    data = {"kind": "checked_attack", "weapon": plan.weapon, "form": plan.form.value}
    return out + attack_events(state, ctx, plan, dice, data)


# --- the referee's adjustments ------------------------------------------------------------------------


@dataclass(frozen=True)
class DefensiveManeuver(Action):
    """ODD-MANEUVER-1: a maneuver to avoid being hit; the referee sets its AC adjustment for the round."""

    kind: ClassVar[str] = "maneuver"
    ac: int = 0
    reason: str = "defensive maneuver"


def resolve_maneuver(state: FightState, action: DefensiveManeuver, dice: DiceSource) -> list[Event]:
    c = actor_state(state, action.actor)
    if not -20 <= action.ac <= 20:
        raise IllegalActionError(f"a maneuver's AC adjustment must be within ±20, not {action.ac}")
    return [
        action_event(state, c.name, "ODD-MANEUVER-1", f"{c.name}: {action.reason} (AC {action.ac:+d} this round)",
                     kind="maneuver"),
        event(EventType.CONDITION, state.round, actor=c.name, target=c.name, rule="ODD-MANEUVER-1",
              text=f"{c.name} is maneuvering", data={"condition": "maneuvering", "added": True,
              "until_round": state.round, "extra": {"ac": action.ac, "reason": action.reason}}),
    ]  # fmt: skip


READY_PENALTY = -2  # GAP-READY


@dataclass(frozen=True)
class QuickAct(Action):
    """ODD-ACT-FREE-2: an act of a couple of seconds (drawing a sword, tossing an item) does not use the
    round; ODD-ACT-FREE-3: the referee may attach an initiative penalty (GAP-READY: -2), which moves the
    actor's real action later in this round's order."""

    kind: ClassVar[str] = "quick"
    what: str = ""
    penalty: int = READY_PENALTY


def _roll_of(state: FightState, name: str) -> int | None:
    c = state[name]
    return state.rolls.get(name, state.rolls.get(c.side))


def reorder_after_penalty(state: FightState, actor: str, penalty: int) -> list[list[str]] | None:
    """The round's order with `actor` moved to act as if its initiative roll were `penalty` lower."""
    own = _roll_of(state, actor)
    if own is None or penalty >= 0:
        return None
    lowered = own + penalty
    slots = [[n for n in slot if n != actor] for slot in state.order]
    slots = [s for s in slots if s]
    at = len(slots)
    for i, slot in enumerate(slots):
        roll = _roll_of(state, slot[0])
        if roll is not None and roll < lowered:
            at = i
            break
    slots.insert(at, [actor])
    return slots


def resolve_quick(state: FightState, action: QuickAct, dice: DiceSource) -> list[Event]:
    c = actor_state(state, action.actor)
    if not action.what:
        raise IllegalActionError(f"{c.name}'s quick act needs a description")
    if not -10 <= action.penalty <= 0:
        raise IllegalActionError(f"an initiative penalty is between -10 and 0, not {action.penalty}")
    out = [action_event(state, c.name, "ODD-ACT-FREE-2", f"{c.name} {action.what} (a moment: the round is not used)",
                        kind="quick", free=True)]  # fmt: skip
    order = reorder_after_penalty(state, c.name, action.penalty)
    if order is not None and order != state.order:
        rolls = {**state.rolls}
        if c.name in rolls:
            rolls[c.name] += action.penalty
        out.append(
            event(EventType.INITIATIVE, state.round, actor=c.name, rule="ODD-ACT-FREE-3",
                  text=f"{c.name} acts at initiative {action.penalty:+d} (GAP-READY): "
                  + " > ".join("=".join(s) for s in order), data={"order": order, "rolls": rolls})
        )  # fmt: skip
    return out


@dataclass(frozen=True)
class ExtraAction(Action):
    """ODD-ACT-MULTI: the referee allows one more action this round (a hasted character): `action` is
    resolved without using the actor's action for the round."""

    kind: ClassVar[str] = "extra"
    action: Any = None
    reason: str = "the referee allows an extra action"


def resolve_extra(state: FightState, action: ExtraAction, dice: DiceSource) -> list[Event]:
    inner = action.action
    if isinstance(inner, dict | MappingProxyType):
        inner = action_from_dict({"actor": action.actor, **dict(inner)})
    if not isinstance(inner, Action) or isinstance(inner, ExtraAction):
        raise IllegalActionError("an extra action wraps one ordinary action (ODD-ACT-MULTI)")
    if inner.actor != action.actor:
        raise IllegalActionError(f"an extra action of {action.actor} cannot be {inner.actor}'s")
    out = [
        action_event(
            state, action.actor, "ODD-ACT-MULTI", f"{action.actor}: {action.reason}", kind="extra", free=True
        )
    ]
    for e in resolve(state, inner, dice):
        if e.type is EventType.ACTION:
            e = replace(e, data=MappingProxyType({**e.data, "free": True}))
        out.append(e)
    return out


ODD_ACTION_KINDS: dict[str, str] = {  # ODD-ACT-1: the five kinds of combat action and their actions
    "attack": "attack, move_attack, charge",
    "cast a spell": "cast",
    "move": "move",
    "use an ability": "use_ability",
    "use an item": "use_item",
}


__all__ = [
    "ODD_ACTION_KINDS",
    "CastSpell",
    "CheckedAttack",
    "DefensiveManeuver",
    "ExtraAction",
    "QuickAct",
    "UseAbility",
    "UseItem",
]
