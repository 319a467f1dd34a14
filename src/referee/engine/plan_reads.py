"""An attack plan remembered with exactly what it read of the fight, and reused wherever that is the same.

Planning an attack (rules/attack.py) is a pure function of its context: the setup and ruleset (fixed for
a fight), the declared attack (attacker, defender, weapon, form, situation, charge, distance, free) and
what the rules read of the fight through the views of rules/view.py. :func:`recorded_plan` plans once
with the fight and its combatants behind recording stand-ins, which note every attribute read and every
method asked (its arguments and answer: ``is_active()``, ``has("prone")``, ``conditions``, this round's
attackers and deflections, positions, the round, the initiative...). The plan is then kept with that
list of reads (plans of one declaration that asked the same questions are kept in one table, by their
answers, so a lookup asks the questions once). Another attack with the same declaration, in this or any later fight of the same setup,
gets the kept plan if every read gives the same answer on its fight, in the same order: the rules would
take the same path and reach the same plan (or the same refusal). A read that cannot be compared (an
unknown kind of value) makes the plan not kept at all. Equal plans are kept as one object (:func:`interned`).
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import replace
from typing import Any

from referee.engine.state import CombatantState, Condition, FightState
from referee.errors import IllegalActionError, raised_afresh
from referee.rules.attack import AttackPlan
from referee.rules.attack import plan_attack as _plan_attack
from referee.rules.context import AttackContext


class Unkept(Exception):
    """A read whose answer cannot be compared: the plan is worked out but not kept."""


def freeze(value: Any) -> Hashable:
    """A comparable copy of what a rule read (containers as tuples; conditions by their fields)."""
    kind = value.__class__
    if kind in _PLAIN:
        return value  # type: ignore[no-any-return]
    if kind is dict and not value:
        return _EMPTY
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return frozenset(freeze(v) for v in value)
    if isinstance(value, Condition):
        return ("condition", value.name, value.until_round, value.source, freeze(value.data))
    if isinstance(value, Mapping):
        return ("mapping", tuple((freeze(k), freeze(v)) for k, v in value.items()))
    raise Unkept(type(value).__name__)


_PLAIN = frozenset({type(None), bool, int, str, float})
_EMPTY = ("mapping", ())


Read = tuple[
    str | None, str, tuple[Any, ...], Hashable
]  # (combatant or None for the fight, name, args, answer)
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


class Recorder:
    """The reads of one planning, with one stand-in per combatant (so `is` between them still holds)."""

    def __init__(self, state: FightState) -> None:
        self.state = state
        self.reads: list[Read] = []
        self.unkept = False
        self.asked: set[tuple[str | None, str, tuple[Any, ...]]] = set()
        self.fight = _FightStandIn(self)
        self.people: dict[str, _CombatantStandIn] = {}

    def release(self) -> None:
        """Let go of the stand-ins once the planning is done: they and this recorder refer to each other,
        a cycle the collector would have to find; cut here, a planning's objects are freed as soon as
        nothing holds them (a simulation's passes of the collector then find no garbage to collect)."""
        self.people.clear()
        self.__dict__.pop("fight", None)

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
            try:
                answer = _frozen(name, value)
            except Unkept:
                self.unkept = True  # noted, in case a rule catches the exception: never kept
                raise
            self.reads.append((who, name, args, answer))
        if name in _LISTS_OF_PEOPLE and who is None:
            return [self.person(c.name) for c in value]
        return value


class _CombatantStandIn:
    def __init__(self, recorder: Recorder, name: str) -> None:
        self._recorder = recorder
        self._name = name

    # Asked only when the ordinary lookup fails: a stand-in has no attributes of its own but its two fields
    # and what it has answered. The fight does not change while planning and a read is noted once (the
    # recorder's `asked`), so an answer is kept on the stand-in and the rules' next read of it is an
    # ordinary attribute read (a plan reads ~60 attributes, most several times).
    def __getattr__(self, attr: str) -> Any:
        if attr in _OWN:  # not set yet (a copy being made): no fighter to ask
            raise AttributeError(attr)
        value = _combatant_read(self._recorder, self._name, attr)
        if attr[:2] != "__":  # a dunder the class has not: the fighter's, as before, not kept
            self.__dict__[attr] = value
        return value


_OWN = frozenset({"_recorder", "_name"})  # the stand-ins' own fields


def _combatant_read(recorder: Recorder, name: str, attr: str) -> Any:
    """What a combatant's stand-in answers for `attr`: the sheet and dunders as they are, the fight's
    stand-in, else the fighter's attribute or method, noted."""
    real = recorder.state.combatants[name]
    if attr in _CONSTANT or attr.startswith("__"):
        return getattr(real, attr)
    if attr == "fight":
        return recorder.fight
    value = getattr(real, attr)
    implied = _IMPLIED.get(attr)
    if implied is not None:  # `has(...)` is a question about `conditions`: one read answers them all
        noted = False  # at its first question: the fight does not change while planning

        def asked(*args: Any) -> Any:
            nonlocal noted
            if not noted:
                recorder.note(name, implied, ())
                noted = True
            return value(*args)

        return asked
    if callable(value):
        return lambda *args: recorder.note(name, attr, args)
    return recorder.note(name, attr, ())


def _fight_method(recorder: Recorder, attr: str) -> Callable[..., Any]:
    """The fight's method `attr` as the stand-in answers it: each call noted with its arguments."""
    return lambda *args: recorder.note(None, attr, args)


class _People(Mapping[str, Any]):
    """The fight's combatants by name, as stand-ins (the names are fixed by the setup)."""

    def __init__(self, recorder: Recorder) -> None:
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
    def __init__(self, recorder: Recorder) -> None:
        self._recorder = recorder

    def __getattr__(self, attr: str) -> Any:  # kept once answered, as the combatants' stand-ins'
        if attr in _OWN:
            raise AttributeError(attr)
        recorder = self._recorder
        state = recorder.state
        if attr in _STATE_CONSTANT or attr.startswith("__"):
            value = getattr(state, attr)
        elif attr == "combatants":
            value = _People(recorder)
        else:
            value = getattr(state, attr)
            value = _fight_method(recorder, attr) if callable(value) else recorder.note(None, attr, ())
        if attr[:2] != "__":
            self.__dict__[attr] = value
        return value

    def __getitem__(self, name: str) -> Any:
        self._recorder.state[name]  # the one-line error for an unknown name
        return self._recorder.person(name)


Ask = tuple[str | None, str, tuple[Any, ...]]  # a read without its answer


class ReadPath:
    """The plans of one declaration that asked the same questions of the fight, by the answers they got."""

    def __init__(self, asks: tuple[Ask, ...], alive: tuple[object, ...]) -> None:
        self.asks = asks
        self.alive = alive  # the setup, specs and weapon whose ids are in the key: kept, so theirs
        self.by_answers: dict[tuple[Hashable, ...], AttackPlan | IllegalActionError] = {}
        # questions about combatants only (most): attributes read straight, methods asked with their
        # arguments, frozen the same way
        self.plain = all(who is not None for who, _name, _args in asks)
        self.methods = tuple(name in _METHODS for _who, name, _args in asks)
        self.reads = tuple((who, name, args, name in _METHODS) for who, name, args in asks)
        # where nobody has a condition or a grid position (the lane's steps, engine/lane.py), a read of
        # `conditions` answers the empty mapping and one of `position` None: only the others are asked
        known = {"conditions": _EMPTY, "position": None}
        self.quiet = [known.get(name, _ASK) for _who, name, _args in asks]
        self.quiet_reads = tuple(
            (i, who, name, args, method)
            for i, (who, name, args, method) in enumerate(self.reads)
            if self.quiet[i] is _ASK
        )

    def quiet_answers(self, state: FightState) -> tuple[Hashable, ...] | None:
        """:meth:`answers` in a state where no combatant has a condition or a grid position."""
        if not self.plain:
            return self.answers(state)
        try:
            people = state.combatants
            out = self.quiet.copy()
            for i, who, name, args, method in self.quiet_reads:
                value = getattr(people[who], name)  # type: ignore[index]
                if method:
                    value = value(*args)
                kind = value.__class__
                out[i] = value if kind in _PLAIN else _EMPTY if kind is dict and not value else freeze(value)
            return tuple(out)
        except Exception:  # a question this fight cannot answer: this path is not the one taken here
            return None

    def answers(self, state: FightState) -> tuple[Hashable, ...] | None:
        try:
            if self.plain:
                people = state.combatants
                out = []
                for who, name, args, method in self.reads:
                    value = getattr(people[who], name)  # type: ignore[index]
                    if method:
                        value = value(*args)
                    kind = value.__class__  # most answers are plain values or no conditions: no call
                    out.append(
                        value if kind in _PLAIN else _EMPTY if kind is dict and not value else freeze(value)
                    )
                return tuple(out)
            return tuple(_answer(state, who, name, args) for who, name, args in self.asks)
        except Exception:  # a question this fight cannot answer: this path is not the one taken here
            return None


_ASK = object()  # a read to ask of the fight (in ReadPath.quiet)
_METHODS = frozenset(name for name in dir(CombatantState) if callable(getattr(CombatantState, name, None)))


class ReadMemo:
    """The answers of one rule about an attack context, each kept with exactly what it read of the fight
    (this module's mechanism, for any rule: the attack plans here, the armour classes the tracker shows in
    referee/web/armour.py). Under a key (what the caller declared), a rule worked out behind the recording
    stand-ins (:func:`behind_stand_ins`) is kept by its list of questions (:class:`ReadPath`) and their
    answers; another state gets the kept answer when every question gives the same answer there.

    `paths`: question lists kept per key (the oldest dropped); `answers`: answers kept per question list
    (then that list's are forgotten; None: no limit); `budget`: answers kept in all (then all are forgotten:
    memory stays bounded). Lookups take no lock (a dict's get and a list's iteration are safe under the
    GIL, and a kept answer is right whenever it is found); keeping takes one (the tracker answers requests
    from a thread pool)."""

    def __init__(self, paths: int, answers: int | None, budget: int) -> None:
        self.most_paths, self.most_answers, self.budget = paths, answers, budget
        self.kept: dict[Hashable, list[ReadPath]] = {}
        self.count = 0
        self.lock = threading.Lock()

    def find(self, key: Hashable, state: FightState, quiet: bool = False) -> Any:
        """The answer kept under `key` whose questions all get the same answers on `state`, else None;
        `quiet`: no combatant has a condition or a grid position (:meth:`ReadPath.quiet_answers`)."""
        for path in self.kept.get(key, ()):
            answers = path.quiet_answers(state) if quiet else path.answers(state)
            if answers is not None:
                found = path.by_answers.get(answers)
                if found is not None:
                    return found
        return None

    def keep(self, key: Hashable, recorder: Recorder, result: Any, alive: tuple[object, ...]) -> None:
        """Keep `result` under `key` with the reads `recorder` noted; `alive`: the objects whose ids are in
        the key (held, so that the ids stay theirs)."""
        asks = tuple((who, name, args) for who, name, args, _ in recorder.reads)
        answers = tuple(answer for *_, answer in recorder.reads)
        with self.lock:
            if self.count >= self.budget:
                self.kept.clear()
                self.count = 0
            paths = self.kept.setdefault(key, [])
            path = next((p for p in paths if p.asks == asks), None)
            if path is None:  # a new list of questions: the oldest dropped past `paths`
                if len(paths) >= self.most_paths:
                    self.count -= len(paths.pop(0).by_answers)
                path = ReadPath(asks, alive)
                paths.append(path)
            if self.most_answers is not None and len(path.by_answers) >= self.most_answers:
                self.count -= len(path.by_answers)
                path.by_answers.clear()
            if answers not in path.by_answers:
                self.count += 1
            path.by_answers[answers] = result

    def forget(self) -> None:
        """Forget every kept answer."""
        with self.lock:
            self.kept.clear()
            self.count = 0


@contextlib.contextmanager
def behind_stand_ins(ctx: AttackContext) -> Iterator[tuple[AttackContext, Recorder]]:
    """`ctx` with its fight and its two combatants behind recording stand-ins, and their recorder; its
    stand-ins let go of at the end (:meth:`Recorder.release`), its reads kept."""
    assert isinstance(ctx.state, FightState)  # a fight's own state, not a view of one
    recorder = Recorder(ctx.state)
    watched = replace(
        ctx, state=recorder.fight, attacker=recorder.person(ctx.attacker.name),
        defender=recorder.person(ctx.defender.name),
    )  # fmt: skip
    try:
        yield watched, recorder
    finally:
        recorder.release()


# the plans, by the declaration's number: 8 question lists a declaration, 512 fights' answers a list,
# 20,000 plans in all (a few tens of MB)
_PLANS_KEPT = ReadMemo(paths=8, answers=512, budget=20_000)
_BUDGET = 20_000  # declarations numbered and plans interned (then forgotten)


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


def recorded_plan(
    ctx: AttackContext, plan: Callable[[AttackContext], AttackPlan] = _plan_attack
) -> AttackPlan:
    """The plan of `ctx`: a kept one whose reads all give the same answers here, else planned and kept."""
    key = declaration(ctx)
    if key is None:
        return plan(ctx)
    return declared_plan(ctx, declared_number(ctx, key), plan)


def declared_number(ctx: AttackContext, key: Hashable) -> int:
    """The number the plans of declaration `key` (of `ctx`) are kept under: the declaration hashed once (its
    form and situation hash through Python code), so that the lane, which keeps the number with the context
    it made (engine/lane.py), looks its plans up by a number. Numbers are never reused."""
    found = _NUMBERS.get(key)
    if found is None:
        if len(_NUMBERS) >= _BUDGET:
            _NUMBERS.clear()
        # the objects whose ids are in the key, kept so that the ids stay theirs
        alive = (ctx.state.setup, ctx.attacker.spec, ctx.defender.spec, ctx.weapon)
        found = _NUMBERS[key] = (next(_NUMBERING), alive)
    return found[0]


_NUMBERS: dict[Hashable, tuple[int, tuple[object, ...]]] = {}
_NUMBERING = itertools.count()


def declared_plan(
    ctx: AttackContext,
    key: int,
    plan: Callable[[AttackContext], AttackPlan] = _plan_attack,
    quiet: bool = False,
) -> AttackPlan:
    """:func:`recorded_plan` of `ctx` whose declaration's number is `key` (:func:`declared_number`);
    `quiet`: no combatant of the fight has a condition or a grid position (the lane checked)."""
    assert isinstance(ctx.state, FightState)
    state = ctx.state
    found = _PLANS_KEPT.find(key, state, quiet)
    if found is not None:
        if isinstance(found, IllegalActionError):
            raise raised_afresh(found)
        return found  # type: ignore[no-any-return]
    unkept = False
    with behind_stand_ins(ctx) as (watched, recorder):
        try:
            result: AttackPlan | IllegalActionError = plan(watched)
        except IllegalActionError as exc:
            result = raised_afresh(exc)  # kept without the frames of the fight it was first raised in
        except Unkept:
            unkept = True
    if unkept or recorder.unkept:
        return plan(ctx)  # a read that cannot be compared: planned again on the fight itself, not kept
    if isinstance(result, AttackPlan):
        result = interned(result)
    _PLANS_KEPT.keep(key, recorder, result, (state.setup, ctx.attacker.spec, ctx.defender.spec, ctx.weapon))
    if isinstance(result, IllegalActionError):
        raise raised_afresh(result)
    return result


def interned(plan: AttackPlan) -> AttackPlan:
    """The one kept plan equal to `plan` (itself the first time): plans equal in every field (another list
    of this round's attackers that changed nothing, another of the same orcs) are one object, so what is
    kept per plan (its events, engine/resolve.py) is worked out once for all of them."""
    try:
        found = _PLANS.get(plan)
    except TypeError:  # a field that cannot be hashed: kept as it is
        return plan
    if found is None:
        if len(_PLANS) >= _BUDGET:
            _PLANS.clear()
        found = _PLANS[plan] = plan
    return found


_PLANS: dict[AttackPlan, AttackPlan] = {}


def forget() -> None:
    """Forget every kept plan (tests)."""
    _PLANS_KEPT.forget()
    _NUMBERS.clear()
    _PLANS.clear()
