"""The state of a fight: nothing but the fold of its events (:meth:`FightState.apply`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from referee.engine.events import Event, EventType
from referee.model import Combatant
from referee.rules import turns
from referee.setup import Setup

ACTIVE = "active"
UNCONSCIOUS = "unconscious"
DEAD = "dead"
FLED = "fled"


@dataclass
class Condition:
    """A condition on a combatant; it ends at the end of round `until_round` (None: until removed)."""

    name: str
    until_round: int | None = None
    source: str | None = None
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class CombatantState:
    spec: Combatant
    fight: FightState | None = field(default=None, repr=False, compare=False)  # the fight it is part of
    hp: int = 0
    max_hp: int = 0
    subdual: int = 0
    status: str = ACTIVE
    conditions: dict[str, Condition] = field(default_factory=dict)
    position: tuple[int, int] | None = None
    armour_loss: int = 0
    armour_destroyed: bool = False
    shield_destroyed: bool = False
    attackers_this_round: list[str] = field(default_factory=list)
    deflections_used: int = 0
    surprised: bool = False
    last_charge_round: int | None = None
    moved_this_round: int = 0
    closed: int = 0  # without grid positions: feet closed toward the enemy side so far (ODD-ACT-ATK)
    # the sheet's name and side, read very often: plain attributes, set from the sheet
    name: str = field(init=False, repr=False, compare=False)
    side: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.name = self.spec.name
        self.side = self.spec.side

    def is_active(self) -> bool:
        return self.status == ACTIVE

    def has(self, condition: str) -> bool:
        return condition in self.conditions

    def shield_faces(self, attacker: str, limit: int) -> bool:
        """Whether `attacker` is among the first `limit` distinct attackers of this round, or there is room
        for it (ODD-AC-SHIELD, GAP-SHIELD-ASSIGN). One question with a yes or no, so that a plan that reads
        it is kept for every list of attackers that gives the same answer (engine/plan_reads.py)."""
        already = self.attackers_this_round
        return attacker in already[:limit] or len(already) < limit

    def snapshot(self) -> dict[str, Any]:
        """A plain summary, used by tests (replay equality) and the JSON output."""
        return {
            "name": self.name,
            "side": self.side,
            "hp": self.hp,
            "max_hp": self.max_hp,
            "subdual": self.subdual,
            "status": self.status,
            "conditions": {k: v.until_round for k, v in sorted(self.conditions.items())},
            "position": list(self.position) if self.position else None,
            "armour_loss": self.armour_loss,
            "armour_destroyed": self.armour_destroyed,
            "shield_destroyed": self.shield_destroyed,
        }


# CombatantState's fields with a plain default, and those made by a factory: what its __init__ sets
_DEFAULTS = {f.name: f.default for f in fields(CombatantState) if f.init and f.default is not MISSING}
_FACTORIES = tuple(
    (f.name, f.default_factory) for f in fields(CombatantState) if f.init and f.default_factory is not MISSING
)


def _new_combatant(spec: Combatant, fight: FightState) -> CombatantState:
    """``CombatantState(spec=spec, fight=fight, position=spec.position)`` field for field, without the
    generated ``__init__``'s keyword handling (each fight makes one per combatant)."""
    made = object.__new__(CombatantState)
    values = made.__dict__
    values.update(_DEFAULTS)
    for name, factory in _FACTORIES:
        values[name] = factory()
    values["spec"], values["fight"], values["position"] = spec, fight, spec.position
    made.__post_init__()
    return made


def _first_values(setup: Setup) -> list[tuple[str, dict[str, Any]]]:
    """Each combatant's name and the fields :func:`_new_combatant` gives it but those made by a factory and
    the fight: the same in every fight of `setup` (its frozen sheets), so worked out once per setup."""
    found = _FIRST.get(id(setup))
    if found is None or found[0] is not setup:
        if len(_FIRST) >= 64:
            _FIRST.clear()
        made = []
        for spec in setup.combatants:
            values = dict(_DEFAULTS)
            values["spec"], values["position"] = spec, spec.position
            values["name"], values["side"] = spec.name, spec.side  # what __post_init__ sets
            made.append((spec.name, values))
        found = _FIRST[id(setup)] = (setup, made)
    return found[1]


# id(setup) -> (the setup, its combatants' first values): the setup is kept so that its id stays its own
_FIRST: dict[int, tuple[Setup, list[tuple[str, dict[str, Any]]]]] = {}


@dataclass
class FightState:
    """Where a fight stands. Change it only through :meth:`apply`."""

    setup: Setup
    combatants: dict[str, CombatantState] = field(default_factory=dict)
    round: int = 0
    phase: str = "setup"  # setup → rounds → over
    order: list[list[str]] = field(default_factory=list)
    rolls: dict[str, int] = field(default_factory=dict)  # this round's initiative rolls
    acted: set[str] = field(default_factory=set)
    current_slot: int = -1
    may_act_though_down: set[str] = field(default_factory=set)
    winner: str | None = None
    free_round: bool = False
    event_count: int = 0

    @classmethod
    def initial(cls, setup: Setup) -> FightState:
        if cls is not FightState:
            state = cls(setup)
        else:  # field for field what __init__ sets, without its keyword handling (one a fight)
            state = object.__new__(FightState)
            values = state.__dict__
            values.update(_STATE_DEFAULTS)
            for name, factory in _STATE_FACTORIES:
                values[name] = factory()
            values["setup"] = setup
        people = state.combatants
        if cls is not FightState or CombatantState.__post_init__ is not _POST_INIT:
            for spec in setup.combatants:
                people[spec.name] = _new_combatant(spec, state)
            return state
        new = object.__new__
        for name, first in _first_values(setup):  # _new_combatant's fields, the sheet's part kept per setup
            made = new(CombatantState)
            values = made.__dict__
            values.update(first)
            for field_name, factory in _FACTORIES:
                values[field_name] = factory()
            values["fight"] = state
            people[name] = made
        return state

    # --- queries -------------------------------------------------------------------------------

    def __getitem__(self, name: str) -> CombatantState:
        try:
            return self.combatants[name]
        except KeyError:
            self.setup.combatant(name)  # raises the one-line error listing the names
            raise

    def active(self) -> list[CombatantState]:
        return [c for c in self.combatants.values() if c.status == ACTIVE]

    def living_enemies(self, name: str) -> list[CombatantState]:
        side = self[name].side
        return [c for c in self.combatants.values() if c.status == ACTIVE and c.side != side]

    def several_sides_standing(self) -> bool:
        """Whether combatants of two sides or more are active (what the fight's end asks first)."""
        first = None
        for c in self.combatants.values():
            if c.status == ACTIVE:
                if first is None:
                    first = c.side
                elif c.side != first:
                    return True
        return False

    def sides_standing(self) -> list[str]:
        standing = {c.side for c in self.combatants.values() if c.status == ACTIVE}
        return [s for s in self.setup.sides if s in standing]

    def is_over(self) -> bool:
        return self.phase == "over"

    def ready_to_act(self, name: str) -> bool:
        """Active, and not surprised in a free round (ODD-SURP-4)."""
        c = self.combatants[name]
        return c.status == ACTIVE and not (self.free_round and c.surprised)

    def next_actor(self) -> str | None:
        """The combatant whose turn it is, or None when everyone in this round's order has acted
        (:func:`rules.turns.next_actor`, ODD-INIT-3)."""
        return turns.next_actor(
            self.order, self.acted, self.current_slot, self.may_act_though_down, self.ready_to_act
        )

    def may_act(self, name: str) -> bool:
        """Whether `name` may act now: its turn, or its slot's (:func:`rules.turns.may_act`, ODD-INIT-3)."""
        return turns.may_act(
            name, self.order, self.acted, self.current_slot, self.may_act_though_down, self.ready_to_act
        )

    def slot_of(self, name: str) -> int:
        return turns.slot_index(self.order, name)

    def snapshot(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "phase": self.phase,
            "winner": self.winner,
            "order": [list(s) for s in self.order],
            "acted": sorted(self.acted),
            "combatants": [c.snapshot() for c in self.combatants.values()],
        }

    # --- the one door ----------------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        _APPLY[event.type](self, event)
        self.event_count += 1

    def apply_all(self, events: Iterable[Event]) -> None:
        for e in events:
            self.apply(e)

    def apply_logged(self, events: Iterable[Event], log: Callable[[Event], object]) -> None:
        """:meth:`apply` each event, then hand it to `log`, in turn (a fight's push). While `apply` is this
        class's own, its table is read here, without a call per event (the same folds, in the same order)."""
        if self.__class__.apply is not _APPLY_METHOD:  # a subclass's own apply: asked per event
            for e in events:
                self.apply(e)
                log(e)
            return
        table = _APPLY
        for e in events:
            table[e.type](self, e)
            self.event_count += 1
            log(e)


_POST_INIT = CombatantState.__post_init__
_APPLY_METHOD = FightState.apply
_STATE_DEFAULTS = {f.name: f.default for f in fields(FightState) if f.init and f.default is not MISSING}
_STATE_FACTORIES = tuple(
    (f.name, f.default_factory) for f in fields(FightState) if f.init and f.default_factory is not MISSING
)


def _setup(state: FightState, e: Event) -> None:
    for name, hp in e.data["hp"].items():
        c = state.combatants[name]
        c.hp = c.max_hp = int(hp)
    lasting = e.data.get("condition_rounds", {})
    for name, conditions in e.data.get("conditions", {}).items():
        for cond in conditions:
            until = lasting.get(name, {}).get(cond)  # `{name: stunned, rounds: 2}`: to the end of round 2
            state.combatants[name].conditions[cond] = Condition(cond, until, data={"since": 1})


def _surprise(state: FightState, e: Event) -> None:
    for name in e.data.get("surprised", []):
        state.combatants[name].surprised = True


def _round_start(state: FightState, e: Event) -> None:
    state.round = e.round
    state.phase = "rounds"
    state.free_round = bool(e.data.get("free_round", False))
    state.order = [list(slot) for slot in e.data.get("order", [])]
    state.acted = set()
    state.current_slot = -1
    state.may_act_though_down = set()
    for c in state.combatants.values():
        c.attackers_this_round = []
        c.deflections_used = 0
        c.moved_this_round = 0
        if not state.free_round:
            c.surprised = False


def _initiative(state: FightState, e: Event) -> None:
    data = e.data
    state.order = list(map(list, data["order"]))  # each slot copied (the event's lists stay the event's)
    rolls = data.get("rolls")
    if rolls is not None:  # kept so a later re-order (a quick act's penalty, GAP-READY) can use them
        state.rolls = _names_to_faces(rolls)


def _names_to_faces(rolls: Mapping[Any, Any]) -> dict[str, int]:
    """A copy of the rolls as names and faces (an event read from a file may hold other types)."""
    copied = dict(rolls)
    for k, v in copied.items():
        if k.__class__ is not str or v.__class__ is not int:
            return {str(k): int(v) for k, v in rolls.items()}
    return copied


def _action(state: FightState, e: Event) -> None:
    data, actor = e.data, e.actor
    if "joins" in data:  # a latecomer (engine/table_actions.py) becomes part of the fight
        from referee.engine.table_actions import fold_join

        fold_join(state, e)
    if actor is None or data.get("free", False):
        return
    state.acted.add(actor)
    slot = turns.slot_index(state.order, actor)
    if slot != state.current_slot:
        state.current_slot = slot
        state.may_act_though_down = set()
    get = data.get
    if get("kind") == "charge" or get("charge"):
        state.combatants[actor].last_charge_round = e.round
    moved = get("moved")
    if moved:
        state.combatants[actor].moved_this_round += int(moved)
    closed = get("closed")
    if closed:
        state.combatants[actor].closed += int(closed)
    position = get("position")
    if position is not None:
        x, y = position
        state.combatants[actor].position = (int(x), int(y))


def _attack(state: FightState, e: Event) -> None:
    actor, name = e.actor, e.target
    if name is None or actor is None:
        return
    target = state.combatants[name]
    if actor not in target.attackers_this_round:
        target.attackers_this_round.append(actor)
    used = e.data.get("deflection_used")
    if used:
        target.deflections_used += int(used)


def _damage(state: FightState, e: Event) -> None:
    assert e.target is not None and e.damage is not None
    c = state.combatants[e.target]
    if e.data.get("subdual"):
        c.subdual += e.damage
    else:
        c.hp -= e.damage


def _heal(state: FightState, e: Event) -> None:
    assert e.target is not None and e.damage is not None
    c = state.combatants[e.target]
    if e.data.get("subdual"):
        c.subdual = max(0, c.subdual - e.damage)
    else:
        c.hp = min(c.max_hp, c.hp + e.damage)
    if e.data.get("status"):
        c.status = str(e.data["status"])


def _defeat(state: FightState, e: Event) -> None:
    assert e.target is not None
    c = state.combatants[e.target]
    c.status = str(e.data["status"])
    # a dead combatant's conditions end with it (assumption GAP-COND-DEATH, docs/rules.md)
    if c.status == DEAD:
        c.conditions.clear()
    if e.data.get("left"):  # fled, surrendered, removed (engine/table_actions.py): gone, not down
        return
    if e.target not in state.acted and state.slot_of(e.target) == state.current_slot:
        state.may_act_though_down.add(e.target)


def _condition(state: FightState, e: Event) -> None:
    assert e.target is not None
    c = state.combatants[e.target]
    name = str(e.data["condition"])
    if e.data.get("added", True):
        c.conditions[name] = Condition(
            name, e.data.get("until_round"), e.actor, dict(e.data.get("extra", {}))
        )
    else:
        c.conditions.pop(name, None)


def _armour(state: FightState, e: Event) -> None:
    assert e.target is not None
    c = state.combatants[e.target]
    c.armour_loss += int(e.data.get("armour_loss", 0))
    c.armour_destroyed = c.armour_destroyed or bool(e.data.get("armour_destroyed"))
    c.shield_destroyed = c.shield_destroyed or bool(e.data.get("shield_destroyed"))


def _nothing(state: FightState, e: Event) -> None:
    return None


def _round_end(state: FightState, e: Event) -> None:
    state.order = []
    state.free_round = False


def _fight_end(state: FightState, e: Event) -> None:
    state.phase = "over"
    state.winner = e.data.get("winner")


_APPLY: dict[EventType, Callable[[FightState, Event], None]] = {
    EventType.SETUP: _setup,
    EventType.SURPRISE: _surprise,
    EventType.ROUND_START: _round_start,
    EventType.INITIATIVE: _initiative,
    EventType.ATTACK: _attack,
    EventType.DAMAGE: _damage,
    EventType.HEAL: _heal,
    EventType.DEFEAT: _defeat,
    EventType.CONDITION: _condition,
    EventType.ACTION: _action,
    EventType.CHECK: _nothing,
    EventType.ARMOUR: _armour,
    EventType.ROUND_END: _round_end,
    EventType.FIGHT_END: _fight_end,
}
