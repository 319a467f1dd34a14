"""Actions: what a combatant intends this round (ODD-ACT-1). The engine turns them into events.

Every action is a small frozen record with `to_dict` / `action_from_dict`, so the web tracker and
the JSON API can carry them.
"""

from __future__ import annotations

import types
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar, Union, get_args, get_origin, get_type_hints

from referee.checks import Modifier
from referee.errors import IllegalActionError
from referee.rules.context import (
    CONCEALMENT_DEGREES,
    COVER_DEGREES,
    AttackForm,
    Situation,
    degree,
)


@dataclass(frozen=True)
class Action:
    kind: ClassVar[str] = "action"
    actor: str

    def to_dict(self) -> dict[str, Any]:
        data = {"kind": self.kind}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Situation):
                value = situation_to_dict(value)
            elif isinstance(value, AttackForm):
                value = value.value
            elif isinstance(value, tuple):
                value = list(value)
            data[f.name] = value
        return data


@dataclass(frozen=True)
class Attack(Action):
    """ODD-ACT-ATK: attack a target (melee, missile or an unarmed form), maybe charging (ODD-CHARGE-1)."""

    kind: ClassVar[str] = "attack"
    target: str = ""
    weapon: str | None = None
    form: AttackForm | None = None  # default: ranged for a missile weapon, melee otherwise
    charge: bool = False
    distance: int | None = None  # feet, when the encounter has no grid positions
    situation: Situation = field(default_factory=Situation)
    knockout: bool = False  # MF-KO-1
    # ODD-ATK-3: with no `weapon`, a combatant with `attacks:` makes its whole routine (engine/routines.py);
    # `targets` names the target of each attack in turn (the rest go at `target`)
    targets: tuple[str, ...] = ()
    extra_attacks: int = 0  # ODD-ACT-MULTI: more attacks the referee grants this round (haste...)
    extra_reason: str = "the referee grants them"

    def to_dict(self) -> dict[str, Any]:
        data = super().to_dict()
        for key, default in (
            ("targets", []),
            ("extra_attacks", 0),
            ("extra_reason", "the referee grants them"),
        ):
            if data.get(key) == default:
                del data[key]  # stored attacks without a routine keep their old shape
        return data


@dataclass(frozen=True)
class Wait(Action):
    """ODD-ACT-FREE-1: standing still, talking, doing nothing: no combat action."""

    kind: ClassVar[str] = "wait"
    reason: str = "waits"


def situation_to_dict(s: Situation) -> dict[str, Any]:
    data = asdict(s)
    data["modifiers"] = [m.to_dict() for m in s.modifiers]
    data["ac_modifiers"] = [m.to_dict() for m in s.ac_modifiers]
    data["flags"] = sorted(s.flags)
    data["rulings"] = list(s.rulings)
    if not s.rulings:
        del data["rulings"]  # stored actions without rulings keep their old shape
    return data


MAX_MODIFIER = 1_000  # a referee's modifier (ODD-SIT-1) beyond this is a typing slip, not a ruling
MAX_NUMBER = (
    1_000_000  # any other whole number of an action (feet, a roll, hit points): bounded work and text
)


def _modifier(item: Any, rule: str, where: str) -> Modifier:
    if isinstance(item, Modifier):
        return item
    if isinstance(item, dict):
        try:
            value = int(item["value"])
            made = Modifier(value, str(item.get("rule", rule)), str(item.get("reason", "referee")))
        except (KeyError, TypeError, ValueError, OverflowError):
            raise IllegalActionError(f"{where}: a modifier needs a whole-number value and a reason") from None
        if abs(value) > MAX_MODIFIER:
            raise IllegalActionError(
                f"{where}: a modifier is from -{MAX_MODIFIER:,} to {MAX_MODIFIER:,}, not {_short(item['value'])}"
            )
        return made
    raise IllegalActionError(f"{where}: a modifier is {{value, reason}}, not {item!r}")


def _too_large(value: Any) -> bool:
    """An int, or a list of them, beyond :data:`MAX_NUMBER` either way."""
    if isinstance(value, list | tuple):
        return any(_too_large(v) for v in value)
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_NUMBER


def _items(data: dict[str, Any], key: str, where: str) -> list[Any]:
    value = data.get(key) or []
    if not isinstance(value, list | tuple):
        raise IllegalActionError(f"{where}: {key} must be a list, not {_short(value)}")
    return list(value)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


_FIELD_TYPES: dict[str, dict[str, Any]] = {}


def _field_types(cls: type[Action]) -> dict[str, Any]:
    if cls.kind not in _FIELD_TYPES:
        try:
            _FIELD_TYPES[cls.kind] = get_type_hints(cls)
        except Exception:  # an annotation that cannot be resolved: its values are checked where used
            _FIELD_TYPES[cls.kind] = {}
    return _FIELD_TYPES[cls.kind]


def _fits(value: Any, hint: Any) -> bool:
    """Whether a value from JSON fits a field's plain type (str, int, bool, tuples of them, optional).
    Other types (Situation, AttackForm...) are converted and checked by their own code."""
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        return any(_fits(value, h) for h in get_args(hint))
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is str:
        return isinstance(value, str)
    if origin is tuple:
        args = get_args(hint)
        if not isinstance(value, list | tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_fits(v, args[0]) for v in value)
        return len(value) == len(args) and all(_fits(v, a) for v, a in zip(value, args, strict=True))
    return True


def situation_from_dict(data: Any, where: str = "situation") -> Situation:
    if data is None:
        return Situation()
    if isinstance(data, Situation):
        return data
    if not isinstance(data, dict):
        raise IllegalActionError(f"{where}: expected a mapping")
    known = {"distance", "cover", "concealment", "modifiers", "ac_modifiers", "flags", "rulings"}
    unknown = set(data) - known
    if unknown:
        raise IllegalActionError(
            f"{where}: unknown field {sorted(unknown)[0]!r}; known: {', '.join(sorted(known))}"
        )
    try:
        cover = degree(data.get("cover"), COVER_DEGREES, "cover")
        concealment = degree(data.get("concealment"), CONCEALMENT_DEGREES, "concealment")
    except ValueError as exc:
        raise IllegalActionError(f"{where}: {exc}") from None
    distance = data.get("distance")
    if distance is not None and (
        not isinstance(distance, int) or isinstance(distance, bool) or not 0 <= distance <= MAX_NUMBER
    ):
        raise IllegalActionError(
            f"{where}: distance must be a whole number of feet from 0 to {MAX_NUMBER:,}, not {_short(distance)}"
        )
    return Situation(
        distance=distance,
        cover=cover,
        concealment=concealment,
        modifiers=tuple(_modifier(m, "ODD-SIT-1", where) for m in _items(data, "modifiers", where)),
        ac_modifiers=tuple(_modifier(m, "ODD-AC-SIT", where) for m in _items(data, "ac_modifiers", where)),
        flags=frozenset(str(f) for f in _items(data, "flags", where)),
        rulings=tuple(_ruling_name(r, where) for r in _items(data, "rulings", where)),
    )


def _ruling_name(item: Any, where: str) -> str:
    if not isinstance(item, str) or not item:
        raise IllegalActionError(f"{where}: a ruling is named by a string, not {_short(item)}")
    return item


def action_from_dict(data: Any) -> Action:
    """Rebuild an action from its dict (as sent by the web form or the JSON API)."""
    if not isinstance(data, dict):
        raise IllegalActionError("an action is a mapping with a `kind`")
    from referee.engine.registry import ACTION_TYPES  # every kind; the registry imports this module

    kind = str(data.get("kind", "attack"))
    cls = ACTION_TYPES.get(kind)
    if cls is None:
        raise IllegalActionError(f"unknown action kind {kind!r}; kinds: {', '.join(sorted(ACTION_TYPES))}")
    allowed = {f.name for f in fields(cls)}
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key == "kind":
            continue
        if key not in allowed:
            raise IllegalActionError(
                f"action {kind!r} has no field {key!r}; fields: {', '.join(sorted(allowed))}"
            )
        values[key] = value
    if "actor" not in values or not isinstance(values["actor"], str):
        raise IllegalActionError(f"action {kind!r} needs an `actor`")
    hints = _field_types(cls)
    for key, value in values.items():
        # JSON from the tracker's API: a wrong type is refused here, not deep inside a rule
        if key in hints and not _fits(value, hints[key]):
            expected = hints[key].__name__ if isinstance(hints[key], type) else str(hints[key])
            raise IllegalActionError(f"action {kind!r}: {key} must be {expected}, not {_short(value)}")
        if _too_large(value):
            raise IllegalActionError(
                f"action {kind!r}: {key} must be from -{MAX_NUMBER:,} to {MAX_NUMBER:,}, not {_short(value)}"
            )
    if "situation" in values:
        values["situation"] = situation_from_dict(values["situation"])
    if values.get("form") is not None:
        try:
            values["form"] = AttackForm(values["form"])
        except ValueError:
            raise IllegalActionError(
                f"unknown attack form {values['form']!r}; forms: {', '.join(f.value for f in AttackForm)}"
            ) from None
    for key, value in list(values.items()):
        if isinstance(value, list):
            values[key] = tuple(value)
    try:
        return cls(**values)
    except TypeError as exc:
        raise IllegalActionError(f"action {kind!r}: {exc}") from None
