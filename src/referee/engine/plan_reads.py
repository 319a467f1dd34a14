"""An attack plan remembered with exactly what it read of the fight, and reused wherever that is the same.

Planning an attack (rules/attack.py) is a pure function of its context: the setup and ruleset (fixed for
a fight), the declared attack (attacker, defender, weapon, form, situation, charge, distance, free) and
what the rules read of the fight through the views of rules/view.py. :func:`recorded_plan` plans once
with the fight and its combatants behind recording stand-ins, which note every attribute read and every
method asked (its arguments and answer: ``is_active()``, ``has("prone")``, ``conditions``, this round's
attackers and deflections, positions, the round, the initiative...). The plan is then kept with that
list of reads. Another attack with the same declaration, in this or any later fight of the same setup,
gets the kept plan if every read gives the same answer on its fight, in the same order: the rules would
take the same path and reach the same plan (or the same refusal). A read that cannot be compared (an
unknown kind of value) makes the plan not kept at all.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import replace
from typing import Any

from referee.engine.state import Condition, FightState
from referee.errors import IllegalActionError
from referee.rules.attack import AttackPlan
from referee.rules.attack import plan_attack as _plan_attack
from referee.rules.context import AttackContext


class Unkept(Exception):
    """A read whose answer cannot be compared: the plan is worked out but not kept."""


def freeze(value: Any) -> Hashable:
    """A comparable copy of what a rule read (containers as tuples; conditions by their fields)."""
    if value is None or isinstance(value, (bool, int, str, float)):
        return value
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return frozenset(freeze(v) for v in value)
    if isinstance(value, Condition):
        return ("condition", value.name, value.until_round, value.source, freeze(value.data))
    if isinstance(value, Mapping):
        return ("mapping", tuple((freeze(k), freeze(v)) for k, v in value.items()))
    raise Unkept(type(value).__name__)


Read = tuple[str | None, str, tuple[Any, ...], Hashable]  # (combatant or None for the fight, name, args, answer)
_CONSTANT = frozenset({"spec", "name", "side"})  # a combatant's sheet: fixed by the setup
_STATE_CONSTANT = frozenset({"setup"})
_IMPLIED = {"has": "conditions", "is_active": "status"}  # CombatantState's methods: what they read
_LISTS_OF_PEOPLE = frozenset({"active", "living_enemies"})  # methods of the fight that give combatants


def _evaluate(state: FightState, who: str | None, name: str, args: tuple[Any, ...]) -> Any:
    """The read (`who`, `name`, `args`) on `state` itself: an attribute, or a method asked with `args`."""
    owner: Any = state if who is None else state.combatants[who]
    value = getattr(owner, name)
    return value(*args) if args or callable(value) else value


def _frozen(name: str, value: Any) -> Hashable:
    if name in _LISTS_OF_PEOPLE:
        return tuple(c.name for c in value)
    return freeze(value)


def _answer(state: FightState, who: str | None, name: str, args: tuple[Any, ...]) -> Hashable:
    """What the read gives on `state` now, comparably."""
    return _frozen(name, _evaluate(state, who, name, args))


class _Recorder:
    """The reads of one planning, with one stand-in per combatant (so `is` between them still holds)."""

    def __init__(self, state: FightState) -> None:
        self.state = state
        self.reads: list[Read] = []
        self.asked: set[tuple[str | None, str, tuple[Any, ...]]] = set()
        self.fight = _FightStandIn(self)
        self.people: dict[str, _CombatantStandIn] = {}

    def person(self, name: str) -> _CombatantStandIn:
        found = self.people.get(name)
        if found is None:
            found = self.people[name] = _CombatantStandIn(self, name)
        return found

    def note(self, who: str | None, name: str, args: tuple[Any, ...]) -> Any:
        value = _evaluate(self.state, who, name, args)
        asked = (who, name, args)
        if asked not in self.asked:  # the fight does not change while planning: once is enough
            self.asked.add(asked)
            self.reads.append((who, name, args, _frozen(name, value)))
        if name in _LISTS_OF_PEOPLE and who is None:
            return [self.person(c.name) for c in value]
        return value


class _CombatantStandIn:
    def __init__(self, recorder: _Recorder, name: str) -> None:
        self._recorder = recorder
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        real = self._recorder.state.combatants[self._name]
        if attr in _CONSTANT or attr.startswith("__"):
            return getattr(real, attr)
        if attr == "fight":
            return self._recorder.fight
        value = getattr(real, attr)
        implied = _IMPLIED.get(attr)
        if implied is not None:  # `has(...)` is a question about `conditions`: one read answers them all

            def asked(*args: Any) -> Any:
                self._recorder.note(self._name, implied, ())
                return value(*args)

            return asked
        if callable(value):
            return lambda *args: self._recorder.note(self._name, attr, args)
        return self._recorder.note(self._name, attr, ())


class _People(Mapping[str, Any]):
    """The fight's combatants by name, as stand-ins (the names are fixed by the setup)."""

    def __init__(self, recorder: _Recorder) -> None:
        self._recorder = recorder

    def __getitem__(self, name: str) -> Any:
        if name not in self._recorder.state.combatants:
            raise KeyError(name)
        return self._recorder.person(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._recorder.state.combatants)

    def __len__(self) -> int:
        return len(self._recorder.state.combatants)


class _FightStandIn:
    def __init__(self, recorder: _Recorder) -> None:
        self._recorder = recorder

    def __getattr__(self, attr: str) -> Any:
        state = self._recorder.state
        if attr in _STATE_CONSTANT or attr.startswith("__"):
            return getattr(state, attr)
        if attr == "combatants":
            return _People(self._recorder)
        value = getattr(state, attr)
        if callable(value):
            return lambda *args: self._recorder.note(None, attr, args)
        return self._recorder.note(None, attr, ())

    def __getitem__(self, name: str) -> Any:
        self._recorder.state[name]  # the one-line error for an unknown name
        return self._recorder.person(name)


Entry = tuple[tuple[Read, ...], AttackPlan | IllegalActionError, tuple[object, ...]]
_kept: dict[Hashable, list[Entry]] = {}
_KEPT_LIMIT = 4096  # declarations kept (then all are forgotten: memory stays bounded)
_PER_DECLARATION = 64  # different fights' answers kept for one declaration


def declaration(ctx: AttackContext) -> Hashable | None:
    """The key of what was declared (the fight's own combatants only; a moved copy is not kept)."""
    state = ctx.state
    if not isinstance(state, FightState):
        return None
    people = state.combatants
    if people.get(ctx.attacker.name) is not ctx.attacker or people.get(ctx.defender.name) is not ctx.defender:
        return None
    return (
        id(state.setup), ctx.attacker.name, id(ctx.attacker.spec), ctx.defender.name, id(ctx.defender.spec),
        id(ctx.weapon), ctx.form, ctx.situation, ctx.charge, ctx.distance, ctx.free_attack,
    )  # fmt: skip


def _matches(state: FightState, reads: tuple[Read, ...]) -> bool:
    try:
        return all(_answer(state, who, name, args) == answer for who, name, args, answer in reads)
    except (Unkept, KeyError):
        return False


def recorded_plan(ctx: AttackContext, plan: Callable[[AttackContext], AttackPlan] = _plan_attack) -> AttackPlan:
    """The plan of `ctx`: a kept one whose reads all give the same answers here, else planned and kept."""
    key = declaration(ctx)
    if key is None:
        return plan(ctx)
    assert isinstance(ctx.state, FightState)
    state = ctx.state
    entries = _kept.get(key)
    if entries is not None:
        for reads, answer, _ in entries:
            if _matches(state, reads):
                if isinstance(answer, IllegalActionError):
                    raise answer
                return answer
    recorder = _Recorder(state)
    watched = replace(
        ctx, state=recorder.fight, attacker=recorder.person(ctx.attacker.name),
        defender=recorder.person(ctx.defender.name),
    )  # type: ignore[arg-type]  # fmt: skip
    try:
        result: AttackPlan | IllegalActionError = plan(watched)
    except IllegalActionError as exc:
        result = exc
    except Unkept:
        return plan(ctx)  # a read that cannot be compared: planned again on the fight itself, not kept
    if len(_kept) >= _KEPT_LIMIT:
        _kept.clear()
    entries = _kept.setdefault(key, [])
    if len(entries) >= _PER_DECLARATION:
        entries.pop(0)
    alive = (state.setup, ctx.attacker.spec, ctx.defender.spec, ctx.weapon)  # so their ids stay theirs
    entries.append((tuple(recorder.reads), result, alive))
    if isinstance(result, IllegalActionError):
        raise result
    return result


def forget() -> None:
    """Forget every kept plan (tests; a switch turned off)."""
    _kept.clear()
