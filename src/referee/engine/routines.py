"""Attack routines: several attacks in one attack action (ODD-ATK-3: "one attack each round unless they
possess a special ability allowing them to exceed the limitation").

A combatant's `attacks: [claw, claw, bite]` (encounter file) is its routine; an :class:`Attack` without a
`weapon` makes every attack of it, each its own roll with its own events and dice, in order. With a
`weapon` the attack is that one blow (MF-FUMBLE-2's "choose just one attack" is such a blow).

- Targets: `targets` names the target of each attack in turn, the rest go at `target`.
- A target that falls mid-routine: the remaining attacks go to the target the default tactics would
  choose (:func:`rules.targeting.target_priority`: fewest hit points, ties first in the file) among the
  standing enemies the attack can legally reach, with the attacker's standing situation; with none, the
  attack is lost (a note names ODD-ATK-3). An attacker that falls mid-routine (a fumble's free attack
  back, MF-FUMBLE-2) makes no more attacks.
- HR-MOVE-2 (option `move_and_attack = half_move_single_attack`): after any movement this round the
  routine drops to its first attack.
- ODD-ACT-MULTI: `extra_attacks` are attacks the referee grants this round (haste, a fighter's blows
  against weak foes); they repeat the routine from its start (a one-weapon fighter: more blows with it).

Each attack after the first is resolved in the state the earlier attacks' events leave
(:func:`scratch_state`), by :func:`routine_step`; the exact odds and the simulator compose the same steps
(:func:`routine_distribution`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Hashable
from dataclasses import dataclass, fields, replace
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from referee import chance
from referee.dice import DiceSource
from referee.engine.actions import Attack
from referee.engine.caches import plan_attack  # the engine's planner (kept by what a plan read)
from referee.engine.events import Event, EventType, event
from referee.engine.resolve import attack_context, attack_events, plan_declared_attack
from referee.engine.state import CombatantState, FightState
from referee.errors import IllegalActionError
from referee.model import Combatant
from referee.rules import house, targeting
from referee.rules.attack import AttackPlan
from referee.rules.context import AttackContext

MAX_EXTRA_ATTACKS = 20  # ODD-ACT-MULTI: a sanity bound on the referee's extra attacks in one action


@dataclass(frozen=True)
class Routine:
    """The attacks one action makes: weapon and declared target of each, and what limited them."""

    action: Attack
    weapons: tuple[str | None, ...]
    targets: tuple[str, ...]
    limited_by: str | None = None  # HR-MOVE-2 when movement cut the routine down
    granted: int = 0  # ODD-ACT-MULTI: extra attacks the referee granted
    status: str = "active"  # the attacker's at the start (one down in its own slot still acts, ODD-INIT-3)

    @property
    def actor(self) -> str:
        return self.action.actor


def routine_weapons(spec: Combatant, weapon: str | None, extra: int) -> tuple[str | None, ...]:
    """ODD-ATK-3: the routine (`weapon` given: that one attack), then ODD-ACT-MULTI's extra attacks."""
    if not 0 <= extra <= MAX_EXTRA_ATTACKS:
        raise IllegalActionError(f"extra attacks must be between 0 and {MAX_EXTRA_ATTACKS}, not {extra}")
    base: tuple[str | None, ...] = (
        (weapon,) if weapon is not None else (tuple(spec.attacks) or (spec.weapon(None).name,))
    )
    return base + tuple(base[i % len(base)] for i in range(extra))


def makes_routine(state: FightState, action: Attack) -> bool:
    """Whether an attack action makes more than one attack (routine or extra attacks)."""
    return (
        action.extra_attacks != 0
        or bool(action.targets)
        or (action.weapon is None and len(state[action.actor].spec.attacks) > 1)
    )


def weapon_choices(spec: Combatant) -> list[str | None]:
    """What the default tactics try, in order: the whole routine (None), then each weapon alone."""
    singles: list[str | None] = [w.name for w in spec.weapons] or [None]
    return [None, *singles] if len(spec.attacks) > 1 else singles


def routine_of(state: FightState, action: Attack, moved: int = 0) -> Routine:
    """The attacks `action` makes; `moved`: feet moved in this same action (half a move and attack)."""
    me = state[action.actor]
    weapons = routine_weapons(me.spec, action.weapon, action.extra_attacks)
    view = replace(me, moved_this_round=me.moved_this_round + moved) if moved else me
    allowed = house.attacks_allowed(state.setup.ruleset, view, len(weapons))  # HR-MOVE-2
    limited = "HR-MOVE-2" if allowed < len(weapons) else None
    if len(action.targets) > len(weapons):
        raise IllegalActionError(
            f"{me.name} makes {len(weapons)} attacks this action, not {len(action.targets)} (ODD-ATK-3)"
        )
    for name in action.targets:
        state[name]  # an unknown name is refused with the list of names
    main = action.target or (action.targets[0] if action.targets else "")
    targets = (*action.targets, *(main,) * (len(weapons) - len(action.targets)))
    return Routine(
        replace(action, target=main),
        weapons[:allowed],
        targets[:allowed],
        limited,
        action.extra_attacks,
        me.status,
    )


def routine_data(routine: Routine) -> dict[str, Any]:
    """What the routine's ACTION event records about it."""
    data: dict[str, Any] = {
        "routine": [w or "first weapon" for w in routine.weapons],
        "targets": list(routine.targets),
    }
    if routine.limited_by:
        data["limited_by"] = routine.limited_by
    if routine.granted:
        data["extra_attacks"] = routine.granted
    return data


def routine_text(routine: Routine) -> str:
    names = ", ".join(w or "first weapon" for w in routine.weapons)
    text = f"{routine.actor} attacks: {names} (ODD-ATK-3)"
    if routine.granted:
        text += f"; {routine.granted} extra attack(s): {routine.action.extra_reason} (ODD-ACT-MULTI)"
    if routine.limited_by:
        text += f"; it moved this round: one attack only ({routine.limited_by})"
    return text


def scratch_state(state: FightState, events: list[Event]) -> FightState:
    """A copy of the state with `events` applied (the state the next attack of a routine meets). Copies
    what the fold changes; the set-up and the combatants' specs are shared."""
    new = copy.copy(state)
    new.order = [list(slot) for slot in state.order]
    new.rolls = state.rolls  # the fold replaces it, never changes it in place: shared
    new.acted = set(state.acted)
    new.may_act_though_down = set(state.may_act_though_down)
    new.combatants = {}
    for name, c in state.combatants.items():
        twin = copy.copy(c)
        twin.fight = new
        twin.conditions = {k: replace(v, data=copy.deepcopy(v.data)) for k, v in c.conditions.items()}
        twin.attackers_this_round = list(c.attackers_this_round)
        new.combatants[name] = twin
    new.apply_all(events)
    return new


def _marked(events: list[Event], routine: Routine, index: int) -> list[Event]:
    """The step's events with its own attack numbered ("attack 2 of 3") for the account and the JSON."""
    out, done = [], False
    for e in events:
        if not done and e.type is EventType.ATTACK and e.actor == routine.actor:
            n = len(routine.weapons)
            e = replace(
                e, data=MappingProxyType({**e.data, "routine_attack": index + 1, "routine_attacks": n})
            )
            done = True
        out.append(e)
    return out


def _lost(state: FightState, routine: Routine, index: int, why: str) -> list[Event]:
    weapon = routine.weapons[index] or "attack"
    return [
        event(EventType.ACTION, state.round, actor=routine.actor, rule="ODD-ATK-3",
              text=f"{routine.actor}'s {weapon} ({index + 1} of {len(routine.weapons)}) is lost: {why}",
              data={"kind": "routine_attack_lost", "free": True, "attack": index + 1})
    ]  # fmt: skip


def _next_target(state: FightState, base: Attack) -> Attack | None:
    """The default tactics' next target for an attack whose target fell: the standing enemy with the
    fewest hit points (ties first in the file) that the attack can legally reach."""
    from referee.engine.odd_tactics import standing_situation  # it imports the engine's attack modules

    me = state[base.actor]
    order = {c.name: i for i, c in enumerate(state.setup.combatants)}
    enemies = sorted(
        state.living_enemies(me.name), key=lambda c: targeting.target_priority(c.hp, c.subdual, order[c.name])
    )
    for foe in enemies:
        candidate = replace(base, target=foe.name, distance=None, situation=standing_situation(state, me))
        try:
            plan_attack(attack_context(state, candidate))
        except IllegalActionError:
            continue
        return candidate
    return None


def step_action(state: FightState, routine: Routine, index: int) -> Attack | str:
    """Attack `index` of the routine as a one-blow attack, or why it is lost."""
    template = routine.action
    base = Attack(
        routine.actor, target=routine.targets[index], weapon=routine.weapons[index], form=template.form,
        distance=template.distance, situation=template.situation, knockout=template.knockout,
    )  # fmt: skip
    if state[base.target].is_active():
        return base
    found = _next_target(state, base)
    return found if found is not None else f"{base.target} is down and no other enemy stands within reach"


def attack_step(
    state: FightState, action: Attack, dice: DiceSource, data: dict[str, Any] | None
) -> list[Event]:
    """One attack of a routine, as :func:`engine.resolve.resolve_attack` makes one (retarget rules too)."""
    from referee.engine import registry  # the retarget rules

    before: list[Event] = []
    for retarget in registry.RETARGET_RULES:
        found = retarget(state, action, dice)
        if found is not None:
            flags = action.situation.flags | {"friendly"}  # the blow may land on a friend
            action = replace(action, target=found[0], situation=replace(action.situation, flags=flags))
            before += found[1]
    ctx, plan = plan_declared_attack(state, action)
    if data is not None:
        data = {
            "kind": "attack",
            "weapon": plan.weapon,
            "form": plan.form.value,
            "charge": action.charge,
            **data,
        }
    return before + attack_events(state, ctx, plan, dice, data)


def routine_step(state: FightState, routine: Routine, index: int, dice: DiceSource) -> list[Event]:
    """Attack `index` (after the first) in the state the earlier attacks left."""
    if state[routine.actor].status != routine.status:
        return []  # the attacker fell mid-routine (a free attack back, MF-FUMBLE-2)
    action = step_action(state, routine, index)
    if isinstance(action, str):
        return _lost(state, routine, index, action)
    try:
        return _marked(attack_step(state, action, dice, None), routine, index)
    except IllegalActionError as exc:
        return _lost(state, routine, index, str(exc))


def first_step(state: FightState, routine: Routine, dice: DiceSource) -> list[Event]:
    """The routine's ACTION event and its first attack (an illegal first attack refuses the action)."""
    action = step_action(state, routine, 0)
    if isinstance(action, str):
        raise IllegalActionError(f"{routine.actor} has no target: {action}")
    data = {**routine_data(routine), "rule": "ODD-ATK-3"}
    events = attack_step(state, action, dice, data)
    head = next(i for i, e in enumerate(events) if e.type is EventType.ACTION and e.actor == routine.actor)
    events[head] = replace(events[head], rule="ODD-ATK-3", text=routine_text(routine))
    return _marked(events, routine, 0)


def rest_of_routine(
    state: FightState, routine: Routine, events: list[Event], dice: DiceSource
) -> list[Event]:
    """The attacks after the first, each in the state the earlier events left."""
    out = list(events)
    for index in range(1, len(routine.weapons)):
        out += routine_step(scratch_state(state, out), routine, index, dice)
    return out[len(events) :]


def resolve_routine(state: FightState, action: Attack, dice: DiceSource) -> list[Event]:
    """ODD-ATK-3: an attack action that makes every attack of the routine (and any extra ones)."""
    routine = routine_of(state, action)
    first = first_step(state, routine, dice)
    return first + rest_of_routine(state, routine, first, dice)


def after_move(
    state: FightState,
    action: Attack,
    ctx: AttackContext,
    plan: AttackPlan,
    head: Event,
    dice: DiceSource,
    moved: int,
) -> list[Event]:
    """Half a move and attack (ODD-ACT-ATK): the move's ACTION event `head`, the first attack (planned
    from where the move ends), then the rest of the routine (none after any move under HR-MOVE-2)."""
    routine = routine_of(state, action, moved)
    if len(routine.weapons) <= 1 and routine.limited_by is None:
        return [head, *attack_events(state, ctx, plan, dice, None)]
    data = MappingProxyType({**head.data, **routine_data(routine)})
    first = [replace(head, data=data, text=f"{head.text}; {routine_text(routine)}")]
    first += _marked(attack_events(state, ctx, plan, dice, None), routine, 0)
    return first + rest_of_routine(state, routine, first, dice)


# --- the exact odds and the simulator: the same steps, composed --------------------------------------


def fingerprint(state: FightState) -> Hashable:
    """What tells two states apart for the attacks that follow (every field the fold changes)."""
    people = tuple(
        tuple(repr(getattr(c, f.name)) for f in fields(CombatantState) if f.name not in {"spec", "fight"})
        for c in state.combatants.values()
    )
    return (state.round, state.phase, state.current_slot, tuple(sorted(state.acted)),
            tuple(sorted(state.may_act_though_down)), state.winner, people)  # fmt: skip


Reader = Callable[[list[Event]], tuple[int, int, int]]


def routine_distribution(
    state: FightState, routine: Routine, read: Reader, limit: int = chance.DEFAULT_LIMIT
) -> dict[tuple[int, int, int], Fraction]:
    """The exact distribution of the summed (damage to target, damage to attacker, attacks back) of the
    routine's steps, each step enumerated over its own dice (:func:`referee.chance.distribution`) from
    every distinct state the earlier steps leave: the engine's resolution, without the product of
    every attack's dice sequences."""
    layer: dict[tuple[tuple[int, int, int], Hashable], tuple[FightState, Fraction]] = {}
    budget = [limit]

    def walk(
        s: FightState, step: Callable[[FightState, DiceSource], list[Event]]
    ) -> list[tuple[tuple[int, int, int], FightState, Fraction]]:
        after: dict[Hashable, FightState] = {}

        def run(dice: DiceSource) -> tuple[tuple[int, int, int], Hashable]:
            budget[0] -= 1  # every dice sequence of every step counts against the one budget
            if budget[0] < 0:
                raise chance.TooManyOutcomes(limit, f"{routine.actor}'s attack routine")
            events = step(s, dice)
            nxt = scratch_state(s, events)
            key = fingerprint(nxt)
            after.setdefault(key, nxt)
            return read(events), key

        dist = chance.distribution(run, limit, what=f"{routine.actor}'s attack routine")
        return [(o, after[key], p) for (o, key), p in dist.items()]

    for o, nxt, p in walk(state, lambda s, d: first_step(s, routine, d)):
        _add(layer, o, nxt, p)
    for index in range(1, len(routine.weapons)):
        following: dict[tuple[tuple[int, int, int], Hashable], tuple[FightState, Fraction]] = {}

        def later(st: FightState, d: DiceSource, i: int = index) -> list[Event]:
            return routine_step(st, routine, i, d)

        for (total, _key), (s, p) in layer.items():
            for o, nxt, q in walk(s, later):
                _add(following, _plus(total, o), nxt, p * q)
        layer = following
    out: dict[tuple[int, int, int], Fraction] = {}
    for (total, _key), (_s, p) in layer.items():
        out[total] = out.get(total, Fraction(0)) + p
    return out


def _plus(a: tuple[int, int, int], b: tuple[int, int, int]) -> tuple[int, int, int]:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def _add(
    layer: dict[tuple[tuple[int, int, int], Hashable], tuple[FightState, Fraction]],
    total: tuple[int, int, int],
    state: FightState,
    p: Fraction,
) -> None:
    key = (total, fingerprint(state))
    old = layer.get(key)
    layer[key] = (state, p if old is None else old[1] + p)
