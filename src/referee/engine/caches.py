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

Plans are reused this way only while :func:`referee.engine.fight.Fight.step` runs (:func:`stepping`),
where the state is the fold of the log. Any other request (and the first of each step) goes to
:mod:`referee.engine.plan_reads`, which keeps plans across steps and fights together with what they read
and checks those reads on the fight at hand, so a state changed by hand is safe there too.
``REFEREE_ENGINE_CACHES=off`` (:mod:`referee.rules.memo`) turns both off, and the memo of what decided an
attack (:func:`attack_decisive`, a pure function of a frozen plan and the roll) with them.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from referee.engine import plan_reads
from referee.engine.actions import Attack
from referee.engine.state import FightState
from referee.errors import IllegalActionError, raised_afresh
from referee.rules import decisive, memo
from referee.rules.attack import AttackPlan
from referee.rules.attack import plan_attack as _plan_attack
from referee.rules.attack_roll import AttackOutcome
from referee.rules.context import AttackContext
from referee.rules.ruleset import Ruleset

T = TypeVar("T")
_MODULES: dict[str, Any] = {}


def late(name: str) -> Any:
    """The engine module `name` (``late("registry")``), imported on first use and then kept: for modules
    that import the caller (the registry lists every resolver and hook), without an import statement's
    cost in each call of a hot function. Their lists are still read at each call (tests may change them)."""
    found = _MODULES.get(name)
    if found is None:
        found = _MODULES[name] = importlib.import_module(f"referee.engine.{name}")
    return found


class _Step:
    """The plans of one step of one fight, for the moment (event count) they were made at."""

    def __init__(self, state: FightState) -> None:
        self.state = state
        self.count = state.event_count
        self.plans: dict[Hashable, tuple[AttackContext, AttackPlan | IllegalActionError]] = {}
        self.declared: dict[Hashable, tuple[AttackContext, AttackPlan] | IllegalActionError] = {}
        self.answers: dict[Hashable, Any] = {}
        self.same: dict[int, tuple[Attack, tuple[AttackContext, AttackPlan] | IllegalActionError]] = {}

    def now(self) -> _Step:
        """These plans, emptied first if the fight has changed since they were made."""
        if self.count != self.state.event_count:
            self.plans.clear()
            self.declared.clear()
            self.answers.clear()
            self.same.clear()
            self.count = self.state.event_count
        return self


_local = threading.local()  # each thread steps its own fight (the tracker may serve several at once)


def _step_of(state: object) -> _Step | None:
    """The plans of the step being taken, when `state` is the fight being stepped (else None)."""
    step: _Step | None = getattr(_local, "step", None)
    if step is None or step.state is not state or not memo.ENABLED:
        return None
    return step.now()


@contextmanager
def stepping(state: FightState) -> Iterator[None]:
    """Plans asked for about `state` while the block runs may be reused (nested blocks keep the outer)."""
    began = begin_step(state)
    try:
        yield
    finally:
        end_step(began)


def begin_step(state: FightState) -> bool:
    """Start reusing plans about `state` (:func:`stepping` without a context manager's cost, for the
    fight's own loop); True when this call began the step, to hand to :func:`end_step`."""
    if getattr(_local, "step", None) is not None:
        return False  # nested: the outer step goes on
    _local.step = _Step(state)
    return True


def end_step(began: bool) -> None:
    if began:
        _local.step = None


def within_step(state: FightState, key: Hashable, answer: Callable[[], T]) -> T:
    """`answer()`, worked out once per step for the same `key` while `state` is the fight being stepped
    and unchanged (the tactics' default target, asked by several choices of one step); else each time."""
    step = _step_of(state)
    if step is None:
        return answer()
    found = step.answers.get(key, _MISSING)
    if found is _MISSING:
        found = step.answers[key] = answer()
    return found  # type: ignore[no-any-return]


_MISSING = object()


def _key(ctx: AttackContext) -> Hashable:
    return (
        id(ctx.attacker), id(ctx.defender), id(ctx.weapon), ctx.form, ctx.situation,
        ctx.charge, ctx.distance, ctx.free_attack,
    )  # fmt: skip


def plan_attack(ctx: AttackContext) -> AttackPlan:
    """:func:`referee.rules.attack.plan_attack`, answered from the cache when the same attack was planned
    at the same moment of the fight being stepped (else from :mod:`referee.engine.plan_reads`)."""
    if not memo.ENABLED:
        return _plan_attack(ctx)
    step = _step_of(ctx.state)
    if step is None:
        return plan_reads.recorded_plan(ctx)
    key = _key(ctx)
    found = step.plans.get(key)
    if found is None:
        try:
            answer: AttackPlan | IllegalActionError = plan_reads.recorded_plan(ctx)
        except IllegalActionError as exc:
            answer = raised_afresh(exc)
        found = step.plans[key] = (ctx, answer)  # the context keeps its objects' ids theirs
    if isinstance(found[1], IllegalActionError):
        raise raised_afresh(found[1])
    return found[1]


def planned(state: FightState, action: Attack) -> tuple[AttackContext, AttackPlan]:
    """The context and plan of a declared attack (``attack_context`` then :func:`plan_attack`), built once
    per step for the same declaration: the tactics' legality check and the resolver share them."""
    attack_context = late("resolve").attack_context  # it imports this module
    step = _step_of(state)
    if step is None:
        ctx = attack_context(state, action)
        return ctx, plan_attack(ctx)
    same = step.same.get(id(action))  # the very action asked about before (the tactics' choice, resolved)
    found: tuple[AttackContext, AttackPlan] | IllegalActionError
    if same is not None and same[0] is action:
        found = same[1]
    else:
        known = step.declared.get(action)
        if known is None:
            try:
                ctx = attack_context(state, action)
                known = (ctx, plan_attack(ctx))
            except IllegalActionError as exc:
                known = raised_afresh(exc)
            step.declared[action] = known
        step.same[id(action)] = (action, known)  # the action is kept: its id stays its own
        found = known
    if isinstance(found, IllegalActionError):
        raise raised_afresh(found)
    return found


# --- what decided a rolled attack ------------------------------------------------------------------

# (id(plan), the outcome, id(ruleset)) -> (plan, ruleset, the answer); plans are kept across fights
# (plan_reads), so the same plan and natural roll come back often. The plan and ruleset are kept with
# the answer so that their ids cannot be reused while the entry exists.
_decided: dict[Hashable, tuple[AttackPlan, Ruleset, tuple[decisive.Decisive, ...]]] = {}
_DECIDED_LIMIT = 8192


def attack_decisive(
    plan: AttackPlan, outcome: AttackOutcome, ruleset: Ruleset
) -> tuple[decisive.Decisive, ...]:
    """:func:`referee.rules.decisive.attack_decisive`, a pure function of a frozen plan, the outcome (and
    whether it showed faces: the outcome's equality leaves them out) and the ruleset, worked out once."""
    if not memo.ENABLED:
        return decisive.attack_decisive(plan, outcome, ruleset)
    key = (id(plan), outcome, bool(outcome.faces), id(ruleset))
    found = _decided.get(key)
    if found is None or found[0] is not plan or found[1] is not ruleset:
        if len(_decided) >= _DECIDED_LIMIT:
            _decided.clear()
        found = _decided[key] = (plan, ruleset, decisive.attack_decisive(plan, outcome, ruleset))
    return found[2]
