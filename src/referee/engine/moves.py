"""Moving and charging: :class:`Move` (ODD-MOVE-1..7), :class:`MoveAttack` (ODD-ACT-ATK: up to half a
move, then attack) and :class:`Charge` (ODD-CHARGE-1..5), with the charge declared before the round
(:func:`declare_charge`) and its negation when the charged defender hits first (ODD-CHARGE-5).

The distances and rates are :mod:`referee.rules.movement`'s."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

from referee.dice import DiceSource
from referee.engine.action_support import action_event, actor_state
from referee.engine.actions import Action, Attack
from referee.engine.caches import plan_attack  # the engine's planner (kept by what a plan read)
from referee.engine.events import Event, EventType, event
from referee.engine.resolve import MELEE_CONTACT, AttackOutcome, attack_context, attack_events, off_grid_gap
from referee.engine.state import CombatantState, FightState
from referee.errors import IllegalActionError
from referee.rules import movement
from referee.rules.attack import AttackPlan
from referee.rules.context import AttackContext, AttackForm, Situation
from referee.rules.options import Charge as ChargeOption  # not the Charge action

Point = tuple[int, int]


# --- moving -------------------------------------------------------------------------------------------


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
        if to is not None or path:
            raise IllegalActionError(f"{c.name} has no position on the grid; state the distance instead")
        return None, None  # without positions a move `toward` a foe closes the gap (resolve_move)
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


def resolve_move(state: FightState, action: Move, dice: DiceSource) -> list[Event]:
    c = actor_state(state, action.actor)
    reduction = movement.parse_reduction(action.reduction)
    limit = movement.allowance(c, action.pace, reduction)
    if limit == 0:
        raise IllegalActionError(f"{c.name} is restrained and cannot move (ODD-MOVE-7)")
    end, feet = destination(state, c, action.to, tuple(action.path), action.toward, limit)
    closed = 0  # without positions: feet closed toward the enemy side (off_grid_gap)
    if feet is None:
        if action.distance is None and action.toward is None:
            raise IllegalActionError(f"{c.name}'s move needs a distance in feet (no grid positions)")
        if action.toward is not None:  # up to melee contact with the foe, at most the allowance
            room = max(0, off_grid_gap(state, c, state[action.toward]) - MELEE_CONTACT)
            feet = min(limit, room) if action.distance is None else min(action.distance, room)
            closed = feet
        else:
            feet = action.distance or 0
    if feet > limit:
        raise IllegalActionError(
            f"{c.name} can {action.pace} {limit} ft this round, not {feet} ft (ODD-MOVE-2)"
        )
    where = f" to {list(end)}" if end is not None else (f" toward {action.toward}" if closed else "")
    text = f"{c.name} {action.pace}s {feet} ft{where} (allowance {limit} ft)"
    return [action_event(state, c.name, "ODD-MOVE-2", text, kind="move", moved=feet, pace=action.pace,
                         position=list(end) if end is not None else None, allowance=limit,
                         **({"closed": closed} if closed else {}))]  # fmt: skip


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


def moved_copy(c: CombatantState, position: Point | None) -> CombatantState:
    """The combatant as it stands after moving to `position` (to plan the attack at the end of a move)."""
    return replace(c, position=position) if position is not None else c


def resolve_move_attack(state: FightState, action: MoveAttack, dice: DiceSource) -> list[Event]:
    c = actor_state(state, action.actor)
    half = movement.half_move(movement.allowance(c, "walk", movement.parse_reduction(action.reduction)))
    target = state[action.target] if action.target else None
    end, feet = destination(
        state, c, action.to, (), None if action.to or target is None else target.name, half
    )
    closed = 0
    if feet is None:
        feet = action.moved or 0
        closed = feet  # without positions the move closes the gap toward the target (off_grid_gap)
    if feet > half:
        raise IllegalActionError(
            f"{c.name} may move only {half} ft (half its rate) and still attack, not {feet} ft (ODD-ACT-ATK)"
        )
    distance = action.distance
    if end is not None and target is not None and target.position is not None:
        distance = movement.feet_between(end, target.position)
    elif distance is None and target is not None and end is None:
        distance = max(MELEE_CONTACT, off_grid_gap(state, c, target) - feet)
    attack = Attack(action.actor, target=action.target, weapon=action.weapon, form=action.form,
                    distance=distance, situation=action.situation)  # fmt: skip
    ctx = attack_context(state, attack)
    ctx = replace(ctx, attacker=moved_copy(state[action.actor], end))
    plan = plan_attack(ctx)
    text = f"{c.name} moves {feet} ft{f' to {list(end)}' if end else ''} and attacks (half move {half} ft)"
    first = action_event(state, c.name, "ODD-ACT-ATK", text, kind="move_attack", moved=feet, target=plan.defender,
                         position=list(end) if end is not None else None, weapon=plan.weapon, form=plan.form.value,
                         **({"closed": closed} if closed else {}))  # fmt: skip
    from referee.engine import routines  # it imports this module's neighbours; ODD-ATK-3, HR-MOVE-2

    return routines.after_move(state, attack, ctx, plan, first, dice, moved=feet)


# --- charging (ODD-CHARGE-1..5) -------------------------------------------------------------------------


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
    if given is None:  # without positions: the gap left between them (off_grid_gap)
        return off_grid_gap(state, c, target)
    return given


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
    closed = 0
    if c.position is not None and target.position is not None:
        end = movement.adjacent_toward(c.position, target.position)
        moved = movement.feet_between(c.position, end)
    elif c.position is None:  # without positions the charge ends in melee contact (off_grid_gap)
        closed = max(0, off_grid_gap(state, c, target) - MELEE_CONTACT)
    text = f"{c.name} charges {target.name} over {run} ft"
    rule = "HR-CHARGE-2" if state.setup.ruleset.charge is ChargeOption.HR_TO_HIT_BONUS else "ODD-CHARGE-1"
    first = action_event(state, c.name, rule, text, kind="charge", charge=True, moved=moved, target=target.name,
                         position=list(end) if end is not None else None, weapon=plan.weapon,
                         **({"closed": closed} if closed else {}))  # fmt: skip
    return [first, *attack_events(state, ctx, plan, dice, None)]


def declare_charge(state: FightState, actor: str, target: str, distance: int | None = None) -> list[Event]:
    """ODD-CHARGE-1/4: a charge announced before anyone acts this round: the charger is `charging`
    (AC 4 worse) from now to the end of the round, even against first strikes and missiles.
    Push the returned events into the fight (``fight.push(declare_charge(...))``)."""
    if state.setup.ruleset.charge is not ChargeOption.ODD_DAMAGE_BONUS:
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
    """ODD-CHARGE-5: the charged defender hitting the charger first negates the charge (no +2 damage).

    Only a hit before the charge lands: once the charger has made its charge attack this round (it has
    acted), a later hit by the defender changes nothing of the charge."""
    cond = ctx.defender.conditions.get("charging")
    if (
        not outcome.hit
        or cond is None
        or cond.data.get("target") != ctx.attacker.name
        or cond.data.get("negated")
        or ctx.defender.name in state.acted  # the charge has already landed (or been spent)
    ):
        return []
    extra = {**cond.data, "negated": True, "negated_by": ctx.attacker.name}
    return [
        event(EventType.CONDITION, state.round, actor=ctx.attacker.name, target=ctx.defender.name, rule="ODD-CHARGE-5",
              text=f"{ctx.attacker.name} hit {ctx.defender.name} first: the charge is negated (no +2 damage)",
              data={"condition": "charging", "added": True, "until_round": cond.until_round, "extra": extra})
    ]  # fmt: skip
