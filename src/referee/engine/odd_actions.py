"""ODD actions beyond the plain attack, and the engine hooks of the ODD maneuvers.

Actions (ODD-ACT-1: attack, cast a spell, move, use an ability, use an item):

- :class:`Move` (ODD-MOVE-1..7), :class:`MoveAttack` (ODD-ACT-ATK: up to half a move, then attack),
  :class:`Charge` (ODD-CHARGE-1..5), :class:`CastSpell` (ODD-ACT-CAST-1..3), :class:`UseItem`
  (ODD-ACT-ITEM-1/2), :class:`UseAbility` (ODD-ACT-ABIL-1/2), :class:`DefensiveManeuver` (ODD-MANEUVER-1),
  :class:`QuickAct` (ODD-ACT-FREE-2/3, GAP-READY) and :class:`ExtraAction` (ODD-ACT-MULTI).
- The effect of a spell, item or ability is the referee's input (ODD-ATK-4): an optional target and
  damage the action applies as stated.

Hooks: a charge declared before the round (:func:`declare_charge`) and its negation (ODD-CHARGE-5);
breaking a hold (ODD-GRAP-4, GAP-GRAPPLE-BREAK); stray missiles (ODD-RANGED-4/5, GAP-STRAY); holds that
end when the holder falls; and the choices of unsteered combatants (a held creature tries to break
free, a caster keeps casting, the encounter file's `tactic`, closing in on the grid).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, ClassVar

from referee.checks import Check, Compare, Modifier
from referee.dice import DiceSource, DiceTape
from referee.engine import tactics
from referee.engine.actions import (
    Action,
    Attack,
    Wait,
    action_from_dict,
    register_action,
    situation_from_dict,
)
from referee.engine.events import Event, EventType, event
from referee.engine.fight import END_OF_ROUND, START_OF_ROUND
from referee.engine.resolve import (
    AFTER_ATTACK,
    FORM_RULES,
    AttackOutcome,
    attack_context,
    attack_events,
    damage_events,
    resolve,
    resolver,
)
from referee.engine.state import CombatantState, FightState
from referee.errors import IllegalActionError
from referee.model import Weapon
from referee.rules import maneuvers, movement
from referee.rules.attack import AttackPlan, plan_attack
from referee.rules.context import AttackContext, AttackForm, Situation

Point = tuple[int, int]


# --- shared checks ----------------------------------------------------------------------------------


def actor_state(state: FightState, name: str) -> CombatantState:
    """The actor, refusing anyone a hold keeps from acting (ODD-GRAP-3)."""
    c = state[name]
    hold = c.conditions.get("grappled")
    if hold is not None and state.setup.ruleset["grapple_state"] == "odd_held_defenceless":
        raise IllegalActionError(
            f"{name} is held by {hold.source} and can only try to break the hold (ODD-GRAP-3, ODD-GRAP-4)"
        )
    return c


def no_movement(what: str, moved: int, rule: str) -> None:
    if moved:
        raise IllegalActionError(f"{what} allows no movement ({rule})")


def referee_effect(
    state: FightState, actor: str, target: str | None, damage: int | None, subdual: bool, what: str
) -> list[Event]:
    """ODD-ATK-4: spells, items and abilities are resolved by their own rules; the engine applies the
    damage the referee states for them."""
    if damage is None:
        return []
    if target is None:
        raise IllegalActionError(f"{what}: damage needs a target")
    if damage < 0:
        raise IllegalActionError(f"{what}: damage must be 0 or more, not {damage}")
    return damage_events(
        state, state[target], damage, round_no=state.round, by=actor, subdual=subdual, rule="ODD-ATK-4",
        text=f"{damage}{' subdual' if subdual else ''} damage from {what} (stated by the referee)",
    )  # fmt: skip


def action_event(state: FightState, actor: str, rule: str, text: str, **data: Any) -> Event:
    return event(
        EventType.ACTION, state.round, actor=actor, target=data.get("target"), rule=rule, text=text, data=data
    )


# --- moving -------------------------------------------------------------------------------------------


@register_action
@dataclass(frozen=True)
class Move(Action):
    """ODD-MOVE-2: the whole round spent moving: walk (the rate), jog (2×) or run (4×).

    Give `to` (a square), `path` (squares, turning corners: ODD-MOVE-5), `toward` (a combatant: stop
    next to it) or, without positions, `distance` in feet. `reduction` is the referee's terrain
    reduction (ODD-MOVE-6), e.g. "1/2".
    """

    kind: ClassVar[str] = "move"
    pace: str = "walk"
    to: tuple[int, int] | None = None
    path: tuple[tuple[int, int], ...] = ()
    toward: str | None = None
    distance: int | None = None
    reduction: str | None = None


def destination(
    state: FightState,
    c: CombatantState,
    to: Point | None,
    path: tuple[Point, ...],
    toward: str | None,
    limit: int,
) -> tuple[Point | None, int | None]:
    """Where a move ends and how many feet it covers (None when positions are not known)."""
    start = c.position
    if start is None:
        if to is not None or path or toward is not None:
            raise IllegalActionError(f"{c.name} has no position on the grid; state the distance instead")
        return None, None
    if path:
        points: list[Point] = [start, *((int(p[0]), int(p[1])) for p in path)]
        return points[-1], movement.path_length(points)
    if to is not None:
        end = (int(to[0]), int(to[1]))
        return end, movement.feet_between(start, end)
    if toward is not None:
        goal = state[toward].position
        if goal is None:
            raise IllegalActionError(f"{toward} has no position on the grid")
        span = movement.squares(movement.feet_between(start, goal))
        end = movement.along_line(start, goal, min(movement.squares(limit), max(0, span - 1)))
        return end, movement.feet_between(start, end)
    return start, 0


@resolver(Move)
def resolve_move(state: FightState, action: Move, dice: DiceSource) -> list[Event]:
    c = actor_state(state, action.actor)
    reduction = movement.parse_reduction(action.reduction)
    limit = movement.allowance(c, action.pace, reduction)
    if limit == 0:
        raise IllegalActionError(f"{c.name} is restrained and cannot move (ODD-MOVE-7)")
    end, feet = destination(state, c, action.to, tuple(action.path), action.toward, limit)
    if feet is None:
        if action.distance is None:
            raise IllegalActionError(f"{c.name}'s move needs a distance in feet (no grid positions)")
        feet = action.distance
    if feet > limit:
        raise IllegalActionError(
            f"{c.name} can {action.pace} {limit} ft this round, not {feet} ft (ODD-MOVE-2)"
        )
    where = f" to {list(end)}" if end is not None else ""
    text = f"{c.name} {action.pace}s {feet} ft{where} (allowance {limit} ft)"
    return [action_event(state, c.name, "ODD-MOVE-2", text, kind="move", moved=feet, pace=action.pace,
                         position=list(end) if end is not None else None, allowance=limit)]  # fmt: skip


@register_action
@dataclass(frozen=True)
class MoveAttack(Action):
    """ODD-ACT-ATK: move up to half the movement rate, then attack. Without `to` on the grid the attacker
    closes along a straight line to the target; without positions give `moved` in feet and the
    `distance` to the target after moving."""

    kind: ClassVar[str] = "move_attack"
    target: str = ""
    weapon: str | None = None
    form: AttackForm | None = None
    to: tuple[int, int] | None = None
    moved: int | None = None
    distance: int | None = None
    reduction: str | None = None
    situation: Situation = field(default_factory=Situation)


def _moved_copy(c: CombatantState, position: Point | None) -> CombatantState:
    return replace(c, position=position) if position is not None else c


@resolver(MoveAttack)
def resolve_move_attack(state: FightState, action: MoveAttack, dice: DiceSource) -> list[Event]:
    c = actor_state(state, action.actor)
    half = movement.half_move(movement.allowance(c, "walk", movement.parse_reduction(action.reduction)))
    target = state[action.target] if action.target else None
    end, feet = destination(
        state, c, action.to, (), None if action.to or target is None else target.name, half
    )
    if feet is None:
        feet = action.moved or 0
    if feet > half:
        raise IllegalActionError(
            f"{c.name} may move only {half} ft (half its rate) and still attack, not {feet} ft (ODD-ACT-ATK)"
        )
    distance = action.distance
    if end is not None and target is not None and target.position is not None:
        distance = movement.feet_between(end, target.position)
    attack = Attack(action.actor, target=action.target, weapon=action.weapon, form=action.form,
                    distance=distance, situation=action.situation)  # fmt: skip
    ctx = attack_context(state, attack)
    ctx = replace(ctx, attacker=_moved_copy(ctx.attacker, end))
    plan = plan_attack(ctx)
    text = f"{c.name} moves {feet} ft{f' to {list(end)}' if end else ''} and attacks (half move {half} ft)"
    first = action_event(state, c.name, "ODD-ACT-ATK", text, kind="move_attack", moved=feet, target=plan.defender,
                         position=list(end) if end is not None else None, weapon=plan.weapon, form=plan.form.value)  # fmt: skip
    return [first, *attack_events(state, ctx, plan, dice, None)]


# --- charging (ODD-CHARGE-1..5) -------------------------------------------------------------------------


@register_action
@dataclass(frozen=True)
class Charge(Action):
    """ODD-CHARGE-1: a declared melee attack after a straight jog or run (ODD-CHARGE-2: base..jog feet).

    `distance` is the referee's stated distance to the target when there are no grid positions; on the
    grid the charger ends next to the target. Declare it before the round with :func:`declare_charge`
    so its AC penalty also meets earlier attacks (ODD-CHARGE-4)."""

    kind: ClassVar[str] = "charge"
    target: str = ""
    weapon: str | None = None
    distance: int | None = None
    situation: Situation = field(default_factory=Situation)


def charge_distance(state: FightState, c: CombatantState, target: CombatantState, given: int | None) -> int:
    if c.position is not None and target.position is not None:
        return movement.feet_between(c.position, target.position)
    if given is None:
        raise IllegalActionError(
            f"{c.name}'s charge needs the distance to {target.name} in feet (no grid positions)"
        )
    return given


@resolver(Charge)
def resolve_charge(state: FightState, action: Charge, dice: DiceSource) -> list[Event]:
    c = actor_state(state, action.actor)
    if not action.target:
        raise IllegalActionError(f"{action.actor}'s charge needs a target")
    target = state[action.target]
    run = charge_distance(state, c, target, action.distance)
    attack = Attack(action.actor, target=action.target, weapon=action.weapon, form=AttackForm.MELEE, charge=True,
                    distance=run, situation=action.situation)  # fmt: skip
    ctx = attack_context(state, attack)
    plan = plan_attack(ctx)
    end = None
    moved = run
    if c.position is not None and target.position is not None:
        end = movement.adjacent_toward(c.position, target.position)
        moved = movement.feet_between(c.position, end)
    text = f"{c.name} charges {target.name} over {run} ft"
    first = action_event(state, c.name, "ODD-CHARGE-1", text, kind="charge", charge=True, moved=moved, target=target.name,
                         position=list(end) if end is not None else None, weapon=plan.weapon)  # fmt: skip
    return [first, *attack_events(state, ctx, plan, dice, None)]


def declare_charge(state: FightState, actor: str, target: str, distance: int | None = None) -> list[Event]:
    """ODD-CHARGE-1/4: a charge announced before anyone acts this round: the charger is `charging`
    (AC 4 worse) from now to the end of the round, even against first strikes and missiles.
    Push the returned events into the fight (``fight.push(declare_charge(...))``)."""
    if state.setup.ruleset["charge"] != "odd_damage_bonus":
        raise IllegalActionError(
            "declaring a charge ahead of the round is the ODD charge (option charge=odd_damage_bonus)"
        )
    c = actor_state(state, actor)
    movement.check_charge(c, charge_distance(state, c, state[target], distance))
    return [
        event(EventType.CONDITION, state.round, actor=actor, target=actor, rule="ODD-CHARGE-4",
              text=f"{actor} declares a charge at {target}: AC 4 worse this round",
              data={"condition": "charging", "added": True, "until_round": state.round, "extra": {"target": target}})
    ]  # fmt: skip


def charge_negation(
    state: FightState, ctx: AttackContext, plan: AttackPlan, outcome: AttackOutcome, dice: DiceSource
) -> list[Event]:
    """ODD-CHARGE-5: the charged defender hitting the charger first negates the charge (no +2 damage)."""
    cond = ctx.defender.conditions.get("charging")
    if (
        not outcome.hit
        or cond is None
        or cond.data.get("target") != ctx.attacker.name
        or cond.data.get("negated")
    ):
        return []
    extra = {**cond.data, "negated": True, "negated_by": ctx.attacker.name}
    return [
        event(EventType.CONDITION, state.round, actor=ctx.attacker.name, target=ctx.defender.name, rule="ODD-CHARGE-5",
              text=f"{ctx.attacker.name} hit {ctx.defender.name} first: the charge is negated (no +2 damage)",
              data={"condition": "charging", "added": True, "until_round": cond.until_round, "extra": extra})
    ]  # fmt: skip


# --- grapple hooks (ODD-GRAP-3, ODD-GRAP-4) ----------------------------------------------------------


def release_events(state: FightState, held: str, holder: str, rule: str, why: str) -> list[Event]:
    out = []
    for name, who in [*((n, held) for n in maneuvers.HOLD_CONDITIONS), ("grappling", holder)]:
        if state[who].has(name):
            out.append(
                event(EventType.CONDITION, state.round, actor=held, target=who, rule=rule,
                      text=f"{who} is no longer {name} ({why})", data={"condition": name, "added": False})
            )  # fmt: skip
    return out


def break_free(
    state: FightState, ctx: AttackContext, plan: AttackPlan, outcome: AttackOutcome, dice: DiceSource
) -> list[Event]:
    """ODD-GRAP-4: a held creature that hits its holder with a grapple (against the holder's grapple AC,
    GAP-GRAPPLE-BREAK) is free; the hold's conditions end."""
    if not outcome.hit or not maneuvers.is_breaking_free(ctx):
        return []
    return release_events(state, ctx.attacker.name, ctx.defender.name, "ODD-GRAP-4", "broke the hold")


def holds_without_holder(state: FightState, dice: DiceSource) -> list[Event]:
    """A hold ends when its holder is out of the fight (an assumption: nobody is left holding)."""
    out = []
    for c in state.combatants.values():
        hold = c.conditions.get("grappled")
        if hold is None or hold.source is None or hold.source not in state.combatants:
            continue
        if not state[hold.source].is_active():
            out += release_events(
                state, c.name, hold.source, "ODD-GRAP-3", f"{hold.source} is {state[hold.source].status}"
            )
    return out


def bare_hands_pummel(attacker: CombatantState, weapon: Weapon, form: AttackForm) -> AttackForm:
    """ODD-UNARMED-2: a character (not a monster) fighting bare-handed is pummelling."""
    if form is AttackForm.MELEE:
        return maneuvers.default_form(attacker.spec.is_monster, weapon)
    return form


# --- stray missiles (ODD-RANGED-4, ODD-RANGED-5, GAP-STRAY) --------------------------------------------


def on_line_beyond(shooter: Point, missed: Point, other: Point) -> bool:
    """Whether `other` lies on the straight line from the shooter through the missed target, beyond it
    (within half a square of the line)."""
    dx, dy = missed[0] - shooter[0], missed[1] - shooter[1]
    ox, oy = other[0] - shooter[0], other[1] - shooter[1]
    length = math.hypot(dx, dy)
    if length == 0:
        return False
    along = (ox * dx + oy * dy) / length
    if along <= length:
        return False
    across = abs(ox * dy - oy * dx) / length
    return across <= 0.5


def stray_reach(weapon: Weapon) -> int:
    """ODD-RANGED-4: a stray flies on within close range; ODD-RANGED-5: a crossbow bolt to long range."""
    increment = weapon.range or 0
    return 3 * increment if weapon.bolt else increment


def stray_missiles(
    state: FightState, ctx: AttackContext, plan: AttackPlan, outcome: AttackOutcome, dice: DiceSource
) -> list[Event]:
    """A missile that misses flies on: a new roll against each creature on the line beyond the target,
    nearest first, at -1 per full 10 ft past the missed target, until one is hit (GAP-STRAY)."""
    if outcome.hit or not ctx.is_ranged or ctx.situation.has("stray"):
        return []
    if state.setup.ruleset["missiles_into_melee"] != "odd_stray":
        return []
    shooter, missed = ctx.attacker.position, ctx.defender.position
    if shooter is None or missed is None:
        return []
    reach = stray_reach(ctx.weapon)
    candidates = [
        c for c in state.combatants.values()
        if c.name not in {ctx.attacker.name, ctx.defender.name} and c.is_active() and c.position is not None
        and on_line_beyond(shooter, missed, c.position) and movement.feet_between(shooter, c.position) <= reach
    ]  # fmt: skip
    candidates.sort(key=lambda c: movement.feet_between(shooter, c.position or shooter))
    out: list[Event] = []
    for c in candidates:
        assert c.position is not None
        past = movement.feet_between(missed, c.position)
        penalty = -(past // 10)
        mods = (
            (Modifier(penalty, "ODD-RANGED-4", f"stray missile, {past} ft past {ctx.defender.name}"),)
            if penalty
            else ()
        )
        rule = "ODD-RANGED-5" if ctx.weapon.bolt else "ODD-RANGED-4"
        situation = Situation(modifiers=mods, flags=frozenset({"stray", "friendly"}))
        stray = replace(ctx, defender=c, distance=movement.feet_between(shooter, c.position), situation=situation,
                        free_attack=True)  # fmt: skip
        try:
            stray_plan = plan_attack(stray)
        except IllegalActionError:
            continue
        out.append(
            event(EventType.ACTION, state.round, actor=ctx.attacker.name, target=c.name, rule=rule,
                  text=f"the missile flies on past {ctx.defender.name} toward {c.name}",
                  data={"kind": "stray", "free": True})
        )  # fmt: skip
        events = attack_events(state, stray, stray_plan, dice, None)
        out += events
        if any(e.type is EventType.ATTACK and e.hit for e in events):
            break
    return out


# --- casting, items, abilities (ODD-ACT-CAST-1..3, ODD-ACT-ITEM-1/2, ODD-ACT-ABIL-1/2) -----------


@register_action
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


# Checks on a spell as its casting starts (blind or deafened casters...). Each raises IllegalActionError
# when the spell cannot be cast, returns events when it is cast but fails, or None.
CAST_CHECKS: list[Callable[[FightState, CombatantState, CastSpell, DiceSource], list[Event] | None]] = []


def _cast_failure(
    state: FightState, c: CombatantState, action: CastSpell, dice: DiceSource
) -> list[Event] | None:
    for check in CAST_CHECKS:
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
        variant = state.setup.ruleset["move_and_cast"]
        if variant == "forbidden":
            raise IllegalActionError(f"{c.name} may not move in a round it casts (ODD-ACT-CAST-3)")
        half = movement.half_move(movement.allowance(c))
        if action.rounds > 1 or action.moved > half:
            raise IllegalActionError(
                f"{c.name} may move at most {half} ft with a one-round spell (HR-CAST-MOVE), not {action.moved} ft"
            )


@resolver(CastSpell)
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


@register_action
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


@resolver(UseItem)
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


@register_action
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


@resolver(UseAbility)
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


@register_action
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
    score = int(getattr(c.spec.abilities, name))
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


@resolver(CheckedAttack)
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


@register_action
@dataclass(frozen=True)
class DefensiveManeuver(Action):
    """ODD-MANEUVER-1: a maneuver to avoid being hit; the referee sets its AC adjustment for the round."""

    kind: ClassVar[str] = "maneuver"
    ac: int = 0
    reason: str = "defensive maneuver"


@resolver(DefensiveManeuver)
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


@register_action
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


@resolver(QuickAct)
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


@register_action
@dataclass(frozen=True)
class ExtraAction(Action):
    """ODD-ACT-MULTI: the referee allows one more action this round (a hasted character): `action` is
    resolved without using the actor's action for the round."""

    kind: ClassVar[str] = "extra"
    action: Any = None
    reason: str = "the referee allows an extra action"


@resolver(ExtraAction)
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


# --- unsteered combatants -----------------------------------------------------------------------------


def _legal(state: FightState, action: Action) -> bool:
    """Whether an action resolves without an error (the dice are not touched: nothing is rolled)."""
    try:
        if isinstance(action, Attack):
            plan_attack(attack_context(state, action))
        elif isinstance(action, Charge):
            c, t = state[action.actor], state[action.target]
            distance = charge_distance(state, c, t, action.distance)
            plan_attack(attack_context(state, Attack(action.actor, target=action.target, weapon=action.weapon,
                                                     form=AttackForm.MELEE, charge=True, distance=distance,
                                                     situation=action.situation)))  # fmt: skip
        elif isinstance(action, MoveAttack):
            c = state[action.actor]
            half = movement.half_move(movement.allowance(c))
            t = state[action.target]
            if c.position is None or t.position is None:
                return False
            end = movement.along_line(c.position, t.position, min(movement.squares(half), movement.squares(
                movement.feet_between(c.position, t.position)) - 1))  # fmt: skip
            ctx = attack_context(state, Attack(action.actor, target=action.target, weapon=action.weapon,
                                               form=action.form, distance=movement.feet_between(end, t.position),
                                               situation=action.situation))  # fmt: skip
            plan_attack(replace(ctx, attacker=_moved_copy(ctx.attacker, end)))
    except IllegalActionError:
        return False
    return True


def held_tries_to_break_free(state: FightState, actor: str) -> Action | None:
    """ODD-GRAP-3/4: an unsteered held creature spends its action trying to break the hold."""
    hold = state[actor].conditions.get("grappled")
    if hold is None or hold.source is None or state.setup.ruleset["grapple_state"] != "odd_held_defenceless":
        return None
    if hold.source not in state.combatants or not state[hold.source].is_active():
        return None  # the holder is down: the hold ends with the round, nothing to break
    return Attack(actor, target=hold.source, weapon="unarmed", form=AttackForm.GRAPPLE)


def caster_keeps_casting(state: FightState, actor: str) -> Action | None:
    """ODD-ACT-CAST-2: a spell of several rounds goes on until it is complete."""
    going = state[actor].conditions.get("casting")
    if going is None or "spell" not in going.data:
        return None
    return CastSpell(actor, spell=str(going.data["spell"]), rounds=2, target=going.data.get("target"))


def tactic_situation(c: CombatantState) -> Situation:
    tactic = c.spec.tactic
    if tactic is None:
        return Situation()
    return situation_from_dict(tactic.situation.model_dump(exclude_none=True), f"{c.name}'s tactic")


def scripted_maneuver(state: FightState, actor: str) -> Action | None:
    """The encounter file's `tactic` (docs/encounter-file.md): its maneuver when legal, else None."""
    c = state[actor]
    tactic = c.spec.tactic
    if tactic is None or (tactic.rounds is not None and state.round not in tactic.rounds):
        return None
    target = (
        tactic.target
        if tactic.target and state[tactic.target].is_active()
        else tactics.choose_target(state, actor)
    )
    if target is None:
        return None
    situation = tactic_situation(c)
    choice: Action
    if tactic.maneuver == "hold":  # stand and fight where it is: attack what is in reach, else wait
        names: list[str | None] = (
            [tactic.weapon] if tactic.weapon else [w.name for w in c.spec.weapons] or [None]
        )
        for name in names:
            if _legal(state, attack := Attack(actor, target=target, weapon=name, situation=situation)):
                return attack
        return Wait(actor, "holds its ground")
    if tactic.maneuver == "charge":
        choice = Charge(
            actor, target=target, weapon=tactic.weapon, distance=tactic.distance, situation=situation
        )
    elif tactic.maneuver == "attack":
        choice = Attack(actor, target=target, weapon=tactic.weapon, situation=situation)
    else:
        form = AttackForm(tactic.maneuver)
        if form is AttackForm.GRAPPLE and state[target].has("grappled"):
            form = AttackForm.PUMMEL if not c.spec.weapons else AttackForm.MELEE  # hold it and hit it (+10)
        weapon: str | None = tactic.weapon
        if form in {AttackForm.PUMMEL, AttackForm.GRAPPLE, AttackForm.OVERBEAR} and weapon is None:
            weapon = "unarmed"  # bare hands (a monster's natural weapon stays its own, ODD-UNARMED-2)
        if form is AttackForm.PUMMEL and c.spec.is_monster:
            weapon = tactic.weapon
        choice = Attack(actor, target=target, weapon=weapon, form=form, situation=situation)
    if _legal(state, choice):
        return choice
    if isinstance(choice, Attack) and c.position is not None:
        closing = MoveAttack(
            actor, target=target, weapon=choice.weapon, form=choice.form, situation=situation
        )
        if _legal(state, closing):
            return closing
    return None


def close_in(state: FightState, actor: str) -> Action | None:
    """On the grid, an unsteered combatant with no legal attack closes in: half a move and attack when
    that reaches, else a jog toward the nearest enemy (it cannot attack after more than half a move)."""
    c = state[actor]
    if c.position is None:
        return None
    target = tactics.choose_target(state, actor)
    if target is None or state[target].position is None:
        return None
    weapons: list[str | None] = [w.name for w in c.spec.weapons] or [None]
    for weapon in weapons:
        if _legal(state, Attack(actor, target=target, weapon=weapon, situation=tactic_situation(c))):
            return None  # the default choice attacks
    for weapon in weapons:
        closing = MoveAttack(actor, target=target, weapon=weapon, situation=tactic_situation(c))
        if _legal(state, closing):
            return closing
    if movement.allowance(c, "jog") and not movement.is_restrained(c):
        return Move(actor, pace="jog", toward=target)
    return None


def declare_scripted_charges(state: FightState, dice: DiceSource) -> list[Event]:
    """Start of round: combatants whose `tactic` is a charge announce it before anyone acts (ODD-CHARGE-1)."""
    out: list[Event] = []
    if state.setup.ruleset["charge"] != "odd_damage_bonus":
        return out
    for c in state.active():
        tactic = c.spec.tactic
        if (
            tactic is None
            or tactic.maneuver != "charge"
            or (tactic.rounds is not None and state.round not in tactic.rounds)
        ):
            continue
        choice = scripted_maneuver(state, c.name)
        if isinstance(choice, Charge):
            out += declare_charge(state, c.name, choice.target, choice.distance)
    return out


tactics.OVERRIDES.extend([held_tries_to_break_free, caster_keeps_casting, scripted_maneuver, close_in])
FORM_RULES.append(bare_hands_pummel)
AFTER_ATTACK.extend([charge_negation, break_free, stray_missiles])
END_OF_ROUND.append(holds_without_holder)
START_OF_ROUND.append(declare_scripted_charges)

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
    "Charge",
    "CheckedAttack",
    "DefensiveManeuver",
    "ExtraAction",
    "Move",
    "MoveAttack",
    "QuickAct",
    "UseAbility",
    "UseItem",
    "declare_charge",
]
