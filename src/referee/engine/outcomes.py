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

from collections.abc import Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from types import MappingProxyType

from referee import chance
from referee.dice import DiceSource
from referee.engine import resolve as engine
from referee.engine.actions import Attack
from referee.engine.events import Event, EventType, event
from referee.engine.state import FightState
from referee.errors import RefereeError
from referee.setup import Setup

PROBE_HP = 1000  # hit points of combatants the caller does not name (nobody falls by accident)

# What one attack does: damage to its target, damage to the attacker (a free attack back on a fumble,
# MF-FUMBLE-2) and the number of such attacks back (they count on the attacker's shield, ODD-AC-SHIELD).
Outcome = tuple[int, int, int]

PLAIN_ATTACK_EVENTS = frozenset({EventType.ACTION, EventType.ATTACK, EventType.DAMAGE, EventType.DEFEAT})


class UnsupportedOutcome(RefereeError, ValueError):
    """The attack can do something an :data:`Outcome` cannot say (a condition, a third party...)."""


def probe_state(
    setup: Setup,
    hp: Mapping[str, int] | None = None,
    number: int = 1,
    earlier: Mapping[str, Sequence[str]] | None = None,
) -> FightState:
    """Round `number` with the given hit points (others: :data:`PROBE_HP`), everyone in one slot, and
    `earlier[target]` having attacked `target` already this round (ODD-AC-SHIELD, GAP-SHIELD-ASSIGN).

    The set-up event is the engine's own (rolled with every die showing 1, its starting conditions
    kept), with the hit points replaced; surprise is left out (the callers refuse it).
    """
    from referee.engine.fight import Fight  # the fight module registers the rules on import

    chosen = {c.name: PROBE_HP for c in setup.combatants}
    chosen.update(hp or {})
    first = Fight(replace(setup, surprise=None)).begin(chance.PrefixDice([]))[0]
    state = FightState.initial(setup)
    state.apply(replace(first, data=MappingProxyType({**first.data, "hp": chosen})))
    everyone = [[c.name for c in setup.combatants]]
    state.apply(event(EventType.ROUND_START, 1, data={"order": everyone}))
    if number > 1:
        state.apply(event(EventType.ROUND_START, number, data={"order": everyone}))
    for target, attackers in (earlier or {}).items():
        for name in attackers:
            state.apply(event(EventType.ATTACK, number, actor=name, target=target))
    return state


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
    return chance.distribution(
        lambda dice: attack_outcome(state, action, dice),
        limit,
        what=f"{action.actor}'s attack on {action.target}",
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
