"""Events: the facts a fight is made of. State is only ever the fold of its events.

One small frozen record serves every kind of fact; what is particular to a kind sits in `data`.
Every event carries the dice it used and the modifiers (with rule IDs) behind its numbers, so the
account a referee reads and the JSON a program reads are two renderings of the same events.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from referee.checks import Modifier
from referee.deferred import deferrable
from referee.dice import DieRoll


class EventType(StrEnum):
    SETUP = "setup"  # hit points fixed or rolled at set-up
    SURPRISE = "surprise"  # who is surprised (ODD-SURP-1 to ODD-SURP-5)
    ROUND_START = "round_start"
    INITIATIVE = "initiative"  # the order of this round
    ATTACK = "attack"  # a to-hit roll and its outcome
    DAMAGE = "damage"  # hit points lost (lethal or subdual)
    HEAL = "heal"  # hit points regained
    DEFEAT = "defeat"  # a combatant leaves the fight (dead, unconscious)
    CONDITION = "condition"  # a condition applied or removed
    ACTION = "action"  # any other action: move, cast, use an item or ability, wait
    CHECK = "check"  # an attribute check or saving throw outside an attack
    ARMOUR = "armour"  # armour or shield damaged or destroyed
    ROUND_END = "round_end"
    FIGHT_END = "fight_end"


@dataclass(frozen=True)
class Event:
    """A fact. `actor` did something to `target`; `dice` and `modifiers` explain the numbers."""

    type: EventType
    round: int
    actor: str | None = None
    target: str | None = None
    dice: tuple[DieRoll, ...] = ()
    modifiers: tuple[Modifier, ...] = ()
    total: int | None = None
    target_number: int | None = None
    hit: bool | None = None
    damage: int | None = None
    text: str = ""
    rule: str | None = None
    data: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"round": self.round, "type": self.type.value}
        for key in ("actor", "target", "total", "target_number", "hit", "damage", "rule"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        out["dice"] = [d.to_dict() for d in self.dice]
        out["modifiers"] = [m.to_dict() for m in self.modifiers]
        if self.text:
            out["text"] = self.text
        if self.data:
            out["data"] = _plain(self.data)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Event:
        return cls(
            type=EventType(data["type"]),
            round=int(data["round"]),
            actor=data.get("actor"),
            target=data.get("target"),
            dice=tuple(DieRoll.from_dict(d) for d in data.get("dice", [])),
            modifiers=tuple(Modifier.from_dict(m) for m in data.get("modifiers", [])),
            total=data.get("total"),
            target_number=data.get("target_number"),
            hit=data.get("hit"),
            damage=data.get("damage"),
            text=str(data.get("text", "")),
            rule=data.get("rule"),
            data=MappingProxyType(dict(data.get("data", {}))),
        )


# an event's rule and text may be worked out when first read (an INITIATIVE event's: engine/fight.py)
deferrable(Event, ("rule", "text"))


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, Modifier):
        return value.to_dict()
    return value


_FIELDS = frozenset(f.name for f in dataclass_fields(Event))
# every field in the dataclass's order, with its default (the three always given: None here)
_TEMPLATE = {
    f.name: None if f.name in {"type", "round", "data"} else f.default for f in dataclass_fields(Event)
}


def event(type: EventType, round: int, **fields: Any) -> Event:
    """Build an event; `data` may be given as a plain dict.

    Built as the dataclass would build it (every field, defaults for those not given), without a frozen
    dataclass's per-field ``object.__setattr__``: events are made many times each fight."""
    data = fields.pop("data", None)
    if not fields.keys() <= _FIELDS:
        return Event(type, round, data=MappingProxyType(dict(data or {})), **fields)  # its own error
    made = object.__new__(Event)
    values = made.__dict__
    values.update(_TEMPLATE)
    values.update(fields)
    values["type"], values["round"], values["data"] = type, round, MappingProxyType(dict(data or {}))
    return made


def at_round(e: Event, round: int) -> Event:
    """`e` as it reads in round `round`: itself, or a copy with only the round changed (kept events are
    served in whichever round they happen again)."""
    return e if e.round == round else renamed_at(e, e.actor, e.target, round)


def with_names(e: Event, actor: str | None, target: str | None) -> Event:
    """`e` with another actor and target (an event told for one plan, served for another that differs only
    in the names): itself when they are the same."""
    return renamed_at(e, actor, target, e.round)


def renamed_at(e: Event, actor: str | None, target: str | None, round: int) -> Event:
    """`e` with another actor, target and round, in one copy (an event told for another plan, served in
    this round; :func:`with_names` and :func:`at_round` change one part): itself when nothing changes."""
    if e.actor == actor and e.target == target and e.round == round:
        return e
    made = object.__new__(Event)
    values = made.__dict__
    values.update(e.__dict__)
    values["actor"], values["target"], values["round"] = actor, target, round
    return made
