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

# What one attack does, for the simulator's tables, beyond an Outcome: the shield deflections it spends on
# its target and on the attacker (a free attack back), DAC-DEFL-3, and the armour events on its target
# (HR-ARMDMG-1..4), each as (rule, sorted data items) so that the caller folds them into its own state, and
# the subdual damage dealt to the target and to the attacker (pummelling, ODD-PUMMEL-2, GAP-SUBDUAL; a
# free blow back, MF-FUMBLE-2).
ArmourKey = tuple[tuple[str, tuple[tuple[str, object], ...]], ...]
Effects = tuple[Outcome, int, int, ArmourKey, int, int]


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
    armour: Mapping[str, ArmourKey] | None = None,
) -> FightState:
    """Round `number` with the given hit points (others: :data:`PROBE_HP`), everyone in one slot, and
    `earlier[target]` having attacked `target` already this round (ODD-AC-SHIELD, GAP-SHIELD-ASSIGN).

    The set-up event is the engine's own (rolled with every die showing 1, its starting conditions
    kept), with the hit points replaced. With `surprised` (a list, maybe empty) the state is the free
    round of surprise instead (ODD-SURP-4: round 0, those named surprised, the others each in a slot of
    their own, as the engine's surprise events leave it); else surprise is left out.
    `deflections[target]`: shield deflections the target has spent this round (DAC-DEFL-3, on the last
    earlier attack); `armour[name]`: the armour events it has taken (HR-ARMDMG-1..4).
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
    for name, key in (armour or {}).items():
        for e in armour_events(name, key):
            state.apply(e)
    spent = deflections or {}
    for target, attackers in (earlier or {}).items():
        for i, name in enumerate(attackers):
            used = spent.get(target, 0) if i == len(attackers) - 1 else 0
            data = {"deflection_used": used} if used else {}
            state.apply(event(EventType.ATTACK, number, actor=name, target=target, data=data))
    return state


def attack_effects(state: FightState, action: Attack, dice: DiceSource) -> Effects:
    """Resolve the attack with the engine and read what it did as :data:`Effects`: an :data:`Outcome`,
    the deflections spent (DAC-DEFL-3), the armour damage to the target (HR-ARMDMG-1..4) and the subdual
    damage to it (GAP-SUBDUAL); anything else an Outcome cannot say is refused (:func:`read_outcome`),
    armour or subdual damage to anyone else too."""
    events = engine.resolve(state, action, dice)
    armour = [e for e in events if e.type is EventType.ARMOUR]
    if any(e.target != action.target for e in armour):
        raise UnsupportedOutcome(
            f"{action.actor}'s attack on {action.target} can damage {action.actor}'s own armour (a blow back)"
        )
    subdual = [e for e in events if e.type is EventType.DAMAGE and e.data.get("subdual")]
    if any(e.target not in {action.target, action.actor} for e in subdual):
        raise UnsupportedOutcome(
            f"{action.actor}'s attack on {action.target} deals subdual damage to another"
        )
    apart = {id(e) for e in armour + subdual}
    rest = [e for e in events if id(e) not in apart]
    outcome = read_outcome(rest, action.actor, action.target)
    spent = {action.target: 0, action.actor: 0}
    for e in events:
        if e.type is EventType.ATTACK and e.target in spent:
            spent[e.target] += int(e.data.get("deflection_used", 0) or 0)
    key = tuple((e.rule or "", tuple(sorted(e.data.items()))) for e in armour)
    knocks = {action.target: 0, action.actor: 0}
    for e in subdual:
        knocks[str(e.target)] += int(e.damage or 0)
    return (
        outcome,
        spent[action.target],
        spent[action.actor],
        key,
        knocks[action.target],
        knocks[action.actor],
    )


def armour_events(target: str, key: ArmourKey) -> list[Event]:
    """The ARMOUR events an :data:`ArmourKey` stands for (to fold into a probe state)."""
    return [event(EventType.ARMOUR, 0, target=target, rule=rule, data=dict(data)) for rule, data in key]


def attack_effects_distribution(
    state: FightState, action: Attack, limit: int = chance.DEFAULT_LIMIT
) -> dict[Effects, Fraction]:
    """The exact distribution of :func:`attack_effects` over every die the attack can ask for. An attack
    routine (ODD-ATK-3) is :func:`routine_outcome_distribution` (its armour events are refused by
    :func:`read_outcome`; the caller refuses a routine that spends deflections)."""
    from referee.engine import routines

    if routines.makes_routine(state, action):
        found = routine_outcome_distribution(state, action, limit)
        return {(outcome, 0, 0, (), 0, 0): p for outcome, p in found.items()}
    return chance.distribution(
        lambda dice: attack_effects(state, action, dice),
        limit,
        what=f"{action.actor}'s attack on {action.target}",
    )


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
