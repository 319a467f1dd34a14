"""One attack plan per declared attack and moment of the fight, however many times it is asked for.

Choosing an action checks that an attack is legal by planning it (engine/tactics.py, the closing-in
check of engine/odd_tactics.py), and resolving it plans it again: the same plan, two or three times, and
planning is most of an attack's cost. :func:`plan_attack` here answers a repeated request from a cache.

What a plan reads is its :class:`~referee.rules.context.AttackContext`: the fight (through the read-only
views of rules/view.py: hit points, conditions, positions, this round's attackers and deflections, the
initiative...), the two combatants, the weapon, the form, the situation, charge, distance and whether
the attack is free. A fight changes only through :meth:`FightState.apply`, which counts the events it
has applied, so the cache is kept for one fight state at one event count and emptied when either
changes; within that moment the key holds every other field of the context. The combatants and the
weapon are keyed by identity (a moved copy of a combatant is another object, so another key); the
context is kept in the cache, so no identity can be reused while its entry exists. A refusal
(IllegalActionError) is remembered like a plan and raised again.

Plans are reused only while :func:`referee.engine.fight.Fight.step` runs (:func:`stepping`), where the
state is the fold of the log; a state changed by hand (a probe of the exact odds) is never served from
the cache. ``REFEREE_ENGINE_CACHES=off`` (:mod:`referee.rules.memo`) turns it off.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from contextlib import contextmanager

from referee.engine import plan_reads
from referee.engine.state import FightState
from referee.errors import IllegalActionError
from referee.rules import memo
from referee.rules.attack import AttackPlan
from referee.rules.attack import plan_attack as _plan_attack
from referee.rules.context import AttackContext

_stepping: FightState | None = None  # the state of the step being taken (the only one served)
_moment: tuple[FightState | None, int] = (None, -1)  # (state, event count) the entries are for
_plans: dict[Hashable, tuple[AttackContext, AttackPlan | IllegalActionError]] = {}


@contextmanager
def stepping(state: FightState) -> Iterator[None]:
    """Plans asked for about `state` while the block runs may be reused (nested blocks keep the outer)."""
    global _stepping
    outer = _stepping
    _stepping = state
    try:
        yield
    finally:
        _stepping = outer
        if outer is None:
            _forget()


def _forget() -> None:
    global _moment
    _plans.clear()
    _moment = (None, -1)


def _key(ctx: AttackContext) -> Hashable:
    return (
        id(ctx.attacker), id(ctx.defender), id(ctx.weapon), ctx.form, ctx.situation,
        ctx.charge, ctx.distance, ctx.free_attack,
    )  # fmt: skip


def plan_attack(ctx: AttackContext) -> AttackPlan:
    """:func:`referee.rules.attack.plan_attack`, answered from the cache when the same attack was planned
    at the same moment of the fight being stepped."""
    global _moment
    state = ctx.state
    if not memo.ENABLED:
        return _plan_attack(ctx)
    if state is not _stepping or not isinstance(state, FightState):
        return plan_reads.recorded_plan(ctx)
    if _moment[0] is not state or _moment[1] != state.event_count:
        _plans.clear()
        _moment = (state, state.event_count)
    key = _key(ctx)
    found = _plans.get(key)
    if found is None:
        try:
            answer: AttackPlan | IllegalActionError = plan_reads.recorded_plan(ctx)
        except IllegalActionError as exc:
            answer = exc
        found = (ctx, answer)
        _plans[key] = found
    if isinstance(found[1], IllegalActionError):
        raise found[1]
    return found[1]
