"""What one attack does, for the exact odds and the simulator alike.

Both compile a fight into tables of "what an attack by A on T does". They ask the same two things of
the engine, here:

- :func:`probe_state`: a state the planners and the default tactics look at — round `number`, the
  given hit points (everyone else standing with plenty), and, per target, who has already attacked
  it this round (ODD-AC-SHIELD counts them). Built only through events, from the engine's own set-up
  event, so starting conditions and every fold rule apply as in a real fight;
- :func:`attack_outcome_distribution`: the engine's real :func:`~referee.engine.resolve.resolve` run on
  every sequence of dice it can ask for (:func:`referee.chance.distribution`), read as an
  :data:`Outcome` — damage to the target, damage to the attacker (a fumble's free attack back,
  MF-FUMBLE-2) and the number of attacks back (they count on the attacker's shield, ODD-AC-SHIELD).
  Any other event is refused with the reason (:class:`UnsupportedOutcome`), never ignored.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from types import MappingProxyType
from typing import TypeVar

from referee import chance
from referee.dice import DiceSource
from referee.engine import caches
from referee.engine import resolve as engine
from referee.engine.actions import Attack
from referee.engine.events import Event, EventType, event
from referee.engine.state import UNCONSCIOUS, CombatantState, FightState
from referee.errors import RefereeError
from referee.setup import Setup
from referee.vocabulary import PAIRED

T = TypeVar("T")

PROBE_HP = 1000  # hit points of combatants the caller does not name (nobody falls by accident)

# What one attack does: damage to its target, damage to the attacker (a free attack back on a fumble,
# MF-FUMBLE-2) and the number of such attacks back (they count on the attacker's shield, ODD-AC-SHIELD).
Outcome = tuple[int, int, int]

# The events of an attack that change a combatant's own state, beyond its hit points: armour damaged by a
# critical (HR-ARMDMG-1..4) and conditions put on or taken off (MOD-COND-SLEEP-M: a wounded sleeper wakes;
# HR-MISSILE-3: an archer who fires is `firing_missile` to the end of the round), each as (event type,
# rule, its data as JSON with a condition's `until_round` counted from the attack's round) so that the
# caller folds them into a state of its own (:func:`state_events`).
StateEvents = tuple[tuple[str, str, str], ...]
ArmourKey = StateEvents  # the older name: the armour events were the first state events carried
# What one attack does, for the simulator's tables, beyond an Outcome: the shield deflections it spends on
# its target and on the attacker (a free attack back), DAC-DEFL-3, the state events on its target, the
# subdual damage dealt to the target and to the attacker (pummelling, ODD-PUMMEL-2, GAP-SUBDUAL; a free
# blow back, MF-FUMBLE-2) and the state events on the attacker (a blow back's critical, HR-ARMDMG-1; a
# condition on the attacker, HR-MISSILE-3).
Effects = tuple[Outcome, int, int, StateEvents, int, int, StateEvents]
# A combatant's state as the tables carry it (:func:`mark_of`): its armour as the fold leaves it
# (armour_loss, armour_destroyed, shield_destroyed) and its conditions, each (name, rounds it lasts after
# this one or None: until removed, its data as JSON).
Mark = tuple[int, bool, bool, tuple[tuple[str, int | None, str], ...]]
STATE_EVENTS = frozenset({EventType.ARMOUR, EventType.CONDITION})


PLAIN_ATTACK_EVENTS = frozenset({EventType.ACTION, EventType.ATTACK, EventType.DAMAGE, EventType.DEFEAT})


class UnsupportedOutcome(RefereeError, ValueError):
    """The attack can do something an :data:`Outcome` cannot say (a condition, a third party...)."""


def probe_state(
    setup: Setup,
    hp: Mapping[str, int] | None = None,
    number: int = 1,
    earlier: Mapping[str, Sequence[str]] | None = None,
    surprised: Sequence[str] | None = None,
    deflections: Mapping[str, int] | None = None,
    marks: Mapping[str, Mark] | None = None,
    down: Sequence[str] = (),
) -> FightState:
    """Round `number` with the given hit points (others: :data:`PROBE_HP`), everyone in one slot, and
    `earlier[target]` having attacked `target` already this round (ODD-AC-SHIELD, GAP-SHIELD-ASSIGN).

    The set-up event is the engine's own (rolled with every die showing 1, its starting conditions
    kept), with the hit points replaced. With `surprised` (a list, maybe empty) the state is the free
    round of surprise instead (ODD-SURP-4: round 0, those named surprised, the others each in a slot of
    their own, as the engine's surprise events leave it); else surprise is left out.
    `deflections[target]`: shield deflections the target has spent this round (DAC-DEFL-3, on the last
    earlier attack); `marks[name]`: its armour and conditions (:func:`mark_events`, HR-ARMDMG-1..4);
    `down`: combatants fallen unconscious before the round (ODD-HP-1), e.g. a tactic's named target.
    """
    from referee.engine.fight import Fight  # the fight module registers the rules on import

    chosen = {c.name: PROBE_HP for c in setup.combatants}
    chosen.update(hp or {})
    first = Fight(replace(setup, surprise=None)).begin(chance.PrefixDice([]))[0]
    state = FightState.initial(setup)
    state.apply(replace(first, data=MappingProxyType({**first.data, "hp": chosen})))
    everyone = [[c.name for c in setup.combatants]]
    if surprised is not None:
        acting = [[c.name] for c in setup.combatants if c.name not in surprised]
        state.apply(event(EventType.SURPRISE, 0, data={"surprised": list(surprised), "possible": True}))
        state.apply(event(EventType.ROUND_START, 0, data={"free_round": True, "order": acting}))
        number = 0
    else:
        state.apply(event(EventType.ROUND_START, 1, data={"order": everyone}))
    if number > 1:
        state.apply(event(EventType.ROUND_START, number, data={"order": everyone}))
    for name, mark in (marks or {}).items():
        state.apply_all(mark_events(state, name, mark))
    for name in down:
        state.apply(event(EventType.DEFEAT, number, target=name, data={"status": UNCONSCIOUS}))
    spent = deflections or {}
    for target, attackers in (earlier or {}).items():
        for i, name in enumerate(attackers):
            used = spent.get(target, 0) if i == len(attackers) - 1 else 0
            data = {"deflection_used": used} if used else {}
            state.apply(event(EventType.ATTACK, number, actor=name, target=target, data=data))
    return state


def attack_effects(state: FightState, action: Attack, dice: DiceSource) -> Effects:
    """Resolve the attack with the engine and read what it did as :data:`Effects`: an :data:`Outcome`,
    the deflections spent (DAC-DEFL-3), the state events on the target and on the attacker (armour damage,
    HR-ARMDMG-1..4; conditions put on or taken off, e.g. MOD-COND-SLEEP-M, HR-MISSILE-3) and the subdual
    damage to either (GAP-SUBDUAL); anything else an Outcome cannot say is refused (:func:`read_outcome`),
    as are state events or subdual damage on anyone else and holds (a condition that names its holder,
    ODD-GRAP-3)."""
    return read_effects(state, engine.resolve(state, action, dice), action.actor, action.target)


def read_effects(state: FightState, events: Sequence[Event], actor: str, target: str) -> Effects:
    """What the events of `actor`'s attack (or one attack of its routine) on `target` did, as
    :data:`Effects` (see :func:`attack_effects`)."""
    pair = {target, actor}
    changes = [e for e in events if e.type in STATE_EVENTS]
    for e in changes:
        if e.target not in pair:
            raise UnsupportedOutcome(f"{actor}'s attack on {target} changes {e.target} ({e.text})")
        if e.type is EventType.CONDITION and e.data.get("condition") in PAIRED:
            raise UnsupportedOutcome(
                f"{actor}'s attack on {target} makes a hold ({e.text}): who holds whom, and"
                " since when, decide later attacks and escapes (ODD-GRAP-3)"
            )
    subdual = [e for e in events if e.type is EventType.DAMAGE and e.data.get("subdual")]
    if any(e.target not in pair for e in subdual):
        raise UnsupportedOutcome(f"{actor}'s attack on {target} deals subdual damage to another")
    apart = {id(e) for e in changes + subdual}
    rest = [e for e in events if id(e) not in apart]
    outcome = read_outcome(rest, actor, target)
    spent = {target: 0, actor: 0}
    for e in events:
        if e.type is EventType.ATTACK and e.target in spent:
            spent[e.target] += int(e.data.get("deflection_used", 0) or 0)
    knocks = {target: 0, actor: 0}
    for e in subdual:
        knocks[str(e.target)] += int(e.damage or 0)
    return (
        outcome,
        spent[target],
        spent[actor],
        state_events(changes, target, state.round),
        knocks[target],
        knocks[actor],
        state_events(changes, actor, state.round) if actor != target else (),
    )


def state_events(events: Sequence[Event], name: str, number: int) -> StateEvents:
    """The armour and condition events on `name` as :data:`StateEvents`, a condition's end counted from
    round `number` (so that they fold into a state of any round, :func:`fold_state_events`)."""
    out = []
    for e in events:
        if e.type not in STATE_EVENTS or e.target != name:
            continue
        data = dict(e.data)
        if data.get("until_round") is not None:
            data["until_round"] = int(data["until_round"]) - number
        out.append((e.type.value, e.rule or "", json.dumps(data, sort_keys=True, default=str)))
    return tuple(out)


def fold_state_events(state: FightState, name: str, key: StateEvents) -> None:
    """Fold :data:`StateEvents` on `name` into `state` (a probe), a condition's end from its round."""
    for kind, rule, text in key:
        data = json.loads(text)
        if data.get("until_round") is not None:
            data["until_round"] = state.round + int(data["until_round"])
        state.apply(event(EventType(kind), state.round, target=name, rule=rule or None, data=data))


def mark_of(c: CombatantState, number: int) -> Mark:
    """The state of `c` the simulator's tables carry (:data:`Mark`), a condition's end counted from
    round `number` (HR-ARMDMG-1..4, the conditions that come and go)."""
    conditions = tuple(
        sorted(
            (cond.name, None if cond.until_round is None else cond.until_round - number,
             json.dumps(cond.data, sort_keys=True, default=str))
            for cond in c.conditions.values()
        )
    )  # fmt: skip
    return c.armour_loss, c.armour_destroyed, c.shield_destroyed, conditions


def mark_events(state: FightState, name: str, mark: Mark) -> list[Event]:
    """The events that bring `name` in a probe `state` (undamaged armour, its starting conditions) to
    `mark` in the probe's round: the conditions the mark lacks taken off, the mark's put on, the armour
    damage (HR-ARMDMG-1..4)."""
    c = state[name]
    loss, destroyed, shield, conditions = mark
    number = state.round
    wanted = {n for n, _, _ in conditions}
    out = [
        event(EventType.CONDITION, number, target=name, data={"condition": n, "added": False})
        for n in c.conditions if n not in wanted
    ]  # fmt: skip
    for n, left, extra in conditions:
        until = None if left is None else number + left
        out.append(event(EventType.CONDITION, number, target=name,
                         data={"condition": n, "added": True, "until_round": until, "extra": json.loads(extra)}))  # fmt: skip
    if (loss, destroyed, shield) != (c.armour_loss, c.armour_destroyed, c.shield_destroyed):
        data = {
            "armour_loss": loss - c.armour_loss,
            "armour_destroyed": destroyed,
            "shield_destroyed": shield,
        }
        out.append(event(EventType.ARMOUR, number, target=name, data=data))
    return out


def round_start_events(state: FightState, dice: DiceSource) -> list[Event]:
    """The engine's own start of round in `state` (a probe whose round has just begun), applied to it:
    the initiative event and its start-of-round hooks' events (``Fight.start_round``: a segment delay
    re-makes the order, GAP-SEGMENTS)."""
    from referee.engine.fight import START_OF_ROUND, Fight

    fight = Fight(state.setup)
    fight.state = state
    out = [fight.initiative_event(state.round, dice)]
    state.apply(out[0])
    for hook in START_OF_ROUND:
        found = hook(state, dice)
        state.apply_all(found)
        out += found
    return out


def round_end_events(state: FightState, dice: DiceSource) -> list[Event]:
    """The engine's own end of round in `state` (a probe): its end-of-round hooks' events and the
    conditions that end with the round (``Fight.end_round``: a condition lasts to the end of round
    `until_round`)."""
    return round_end_step(state)(dice)


def round_end_step(state: FightState) -> Callable[[DiceSource], list[Event]]:
    """:func:`round_end_events` in `state` as a step of dice alone (the fight around the probe made
    once, for :func:`referee.chance.distribution` to walk)."""
    from referee.engine.fight import END_OF_ROUND, Fight

    fight = Fight(state.setup)
    fight.state = state
    hooks = tuple(END_OF_ROUND)

    def step(dice: DiceSource) -> list[Event]:
        out: list[Event] = []
        for hook in hooks:
            out += hook(state, dice)
        return out + fight._expiry_events(state.round)

    return step


def walked(state: FightState, fn: Callable[[DiceSource], T], limit: int, what: str) -> dict[T, Fraction]:
    """:func:`chance.distribution` of `fn`, which resolves in `state` without changing it: every sequence of
    dice is one more resolution of the same step, so its plans (and the events of an attack with two dice)
    are worked out once for the walk (:func:`caches.stepping`), not once per sequence."""
    with caches.stepping(state):
        return chance.distribution(fn, limit, what=what)


def attack_effects_distribution(
    state: FightState, action: Attack, limit: int = chance.DEFAULT_LIMIT
) -> dict[Effects, Fraction]:
    """The exact distribution of :func:`attack_effects` over every die the attack can ask for. An attack
    routine (ODD-ATK-3) is :func:`routine_outcome_distribution` (its armour events are refused by
    :func:`read_outcome`; the caller refuses a routine that spends deflections)."""
    from referee.engine import routines

    if routines.makes_routine(state, action):
        found = routine_outcome_distribution(state, action, limit)
        return {(outcome, 0, 0, (), 0, 0, ()): p for outcome, p in found.items()}
    return walked(
        state,
        lambda dice: attack_effects(state, action, dice),
        limit,
        f"{action.actor}'s attack on {action.target}",
    )


def routine_step_distribution(
    state: FightState, action: Attack, index: int, target: str, limit: int = chance.DEFAULT_LIMIT
) -> dict[Effects, Fraction]:
    """ODD-ATK-3: the exact distribution of :data:`Effects` of attack `index` of `action`'s routine, made
    in `state` as the engine makes it (``routines.first_step``, then ``routines.routine_step`` in the state
    the earlier attacks left), read as one attack on `target`: the declared target, or the one the
    default tactics move on to when it has fallen (``routines.step_action``). Refused where the step
    would strike another, or is lost (no enemy it can reach)."""
    from referee.engine import routines

    routine = routines.routine_of(state, action)
    step = routines.step_action(state, routine, index)
    weapon = routine.weapons[index] or "attack"
    what = f"{action.actor}'s {weapon} ({index + 1} of {len(routine.weapons)})"
    if isinstance(step, str) or step.target != target:
        raise UnsupportedOutcome(
            f"{what} does not strike {target}: {step if isinstance(step, str) else step.target}"
        )

    def one(dice: DiceSource) -> Effects:
        if index == 0:
            events = routines.first_step(state, routine, dice)
        else:
            events = routines.routine_step(state, routine, index, dice)
        return read_effects(state, events, action.actor, target)

    return walked(state, one, limit, f"{what} on {target}")


def attack_outcome(state: FightState, action: Attack, dice: DiceSource) -> Outcome:
    """Resolve the attack with the engine and read what it did; refuse anything an Outcome cannot say."""
    return read_outcome(engine.resolve(state, action, dice), action.actor, action.target)


def read_outcome(events: Sequence[Event], actor: str, target: str) -> Outcome:
    """What the events of `actor`'s attack(s) on `target` did, as an :data:`Outcome` (or refused)."""
    to_target = to_attacker = back = 0
    for e in events:
        if e.type not in PLAIN_ATTACK_EVENTS:
            raise UnsupportedOutcome(
                f"{actor}'s attack on {target} can do more than damage ({e.type.value}: {e.text})"
            )
        if e.type is EventType.ACTION and e.actor != actor and not e.data.get("free"):
            raise UnsupportedOutcome(f"{actor}'s attack on {target} makes {e.actor} act")
        if e.type is EventType.ATTACK and (e.actor, e.target) != (actor, target):
            if (e.actor, e.target) != (target, actor):
                raise UnsupportedOutcome(
                    f"{actor}'s attack on {target} leads to an attack by {e.actor} on {e.target}"
                )
            back += 1
        if e.type is EventType.DAMAGE:
            if e.data.get("subdual") or e.target not in {target, actor}:
                raise UnsupportedOutcome(
                    f"{actor}'s attack on {target} deals subdual damage or damage to a third party"
                )
            if e.target == target:
                to_target += int(e.damage or 0)
            else:
                to_attacker += int(e.damage or 0)
    return to_target, to_attacker, back


def attack_outcome_distribution(
    state: FightState, action: Attack, limit: int = chance.DEFAULT_LIMIT, down_is_enough: bool = False
) -> dict[Outcome, Fraction]:
    """The exact joint distribution of (damage to target, damage to attacker, attacks back) of the
    engine's real resolution of `action` in `state`, over every die it can ask for (attack d20s,
    confirmation dice, miss-chance dice, damage dice, a free attack back's dice).

    Raises :class:`UnsupportedOutcome` for an attack that does more, and
    :class:`~referee.chance.TooManyOutcomes` past `limit` dice sequences. An attack routine (ODD-ATK-3):
    :func:`routine_outcome_distribution` (`down_is_enough`: the caller tracks hit points down to 0 only).
    """
    from referee.engine import routines  # several attacks in one action (ODD-ATK-3, ODD-ACT-MULTI)

    if routines.makes_routine(state, action):
        return routine_outcome_distribution(state, action, limit, down_is_enough)
    return walked(
        state,
        lambda dice: attack_outcome(state, action, dice),
        limit,
        f"{action.actor}'s attack on {action.target}",
    )


def routine_outcome_distribution(
    state: FightState, action: Attack, limit: int = chance.DEFAULT_LIMIT, down_is_enough: bool = False
) -> dict[Outcome, Fraction]:
    """An attack routine's summed Outcome at one target (engine/routines.py composes the engine's own steps).

    The target stands through the whole routine (its hit points are lifted): a routine at one target deals
    the sum of its attacks. Refused (the reason named) where that is not what the engine does: an attacker
    with several enemies (the rest of the routine goes on to another one when the target falls), a target
    that can lie unconscious below 0 unless the caller tracks hit points only down to 0 (`down_is_enough`:
    where in the routine it fell decides how far below 0 it ends, ODD-HP-1), a free attack back mid-routine
    (MF-FUMBLE-2: it can fell the attacker before its later attacks)."""
    from referee.engine import routines
    from referee.rules import hit_points

    routine = routines.routine_of(state, action)
    me, names = state[action.actor], ", ".join(w or "first weapon" for w in routine.weapons)
    what = f"{me.name}'s attack routine ({names})"
    if len(set(routine.targets)) > 1 or sum(c.side != me.side for c in state.setup.combatants) > 1:
        raise UnsupportedOutcome(
            f"{what} can strike several targets (when its target falls the rest goes on to another enemy, "
            "ODD-ATK-3); the tables carry one target per action"
        )
    target = routine.targets[0]
    fallen = hit_points.status_after_damage(-1, 0, state[target].spec.is_monster, state.setup.ruleset)
    if not down_is_enough and fallen != hit_points.DEAD:
        raise UnsupportedOutcome(
            f"{what}: where in the routine {target} falls decides how far below 0 it ends (unconscious or"
            " dead, ODD-HP-1); the tables carry one damage per action"
        )
    lifted = routines.scratch_state(state, [])
    lifted.combatants[target].hp = lifted.combatants[target].max_hp = PROBE_HP  # a private probe copy
    found = routines.routine_distribution(
        lifted, routine, lambda events: read_outcome(events, me.name, target), limit
    )
    if any(back for (_dt, _da, back) in found):
        raise UnsupportedOutcome(f"{what}: a free attack back (MF-FUMBLE-2) can fell {me.name} mid-routine")
    return found
