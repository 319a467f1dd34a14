"""A file's problems, one line each with its place (issue 15, "every problem at once"), in the names the
file uses, with a "did you mean" for an unknown field.

msgspec stops at a model's first problem; only when it has refused the data (never on the way to a
good answer) :func:`problems_of` walks the data along the model's fields and reads each part on its own,
so that every part that is wrong is named: a field's type or bound, an unknown or missing field, a
field's own check (``CHECKS``, ``BEFORE``) and, for a part whose fields are all right, the checks across
them. msgspec's sentences are said in the file's terms (`Expected `int` >= 1` is "Input should be greater
than or equal to 1").
"""

from __future__ import annotations

import re
import types
from collections.abc import Iterator
from enum import Enum
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import msgspec

from referee.structs import Spec, SpecError, renamed_data

Place = tuple[object, ...]


def problems_of(data: Any, model: type[Spec]) -> list[str]:
    """Every problem of data the model refused, `place: sentence` each, in the order of the data."""
    found: list[tuple[Place, str]] = []
    _walk(data, model, (), found)
    if not found:  # refused as a whole, for a reason no part shows
        found.append(((), "does not fit the file format"))
    return [f"{_place(place) + ': ' if place else ''}{message}" for place, message in dict.fromkeys(found)]


def _place(place: Place) -> str:
    # a key from the file may hold a line break or a control character: quote it to keep one line
    return ".".join(str(p) if str(p).isprintable() else repr(p) for p in place)


def _walk(value: Any, kind: Any, place: Place, found: list[tuple[Place, str]]) -> bool:
    """Note the problems of one value read as `kind`; whether there were any."""
    base = _without_bounds(kind)
    if isinstance(base, type) and issubclass(base, Spec):
        return _walk_struct(value, base, place, found)
    origin = get_origin(base)
    if origin in (Union, types.UnionType):
        member = _member_for(value, get_args(base))
        if member is not None:
            return _walk(value, member, place, found)
    elif origin in (list, tuple) and isinstance(value, list | tuple) and get_args(base)[1:] in ((), (...,)):
        item = get_args(base)[0]
        if any([_walk(one, item, (*place, i), found) for i, one in enumerate(value)]):
            return True
    elif origin is dict and isinstance(value, dict):
        key_kind, item = get_args(base)
        wrong = [_leaf(key, key_kind, (*place, key), found) for key in value]
        if any(wrong + [_walk(one, item, (*place, key), found) for key, one in value.items()]):
            return True
    return _leaf(value, kind, place, found)


def _member_for(value: Any, members: tuple[Any, ...]) -> Any:
    """The member of a union the value means: a mapping's model or mapping, a list's list type."""
    for member in members:
        base = _without_bounds(member)
        origin = get_origin(base)
        if isinstance(value, dict) and (base is dict or origin is dict or _is_model(base)):
            return member
        if isinstance(value, list) and origin in (list, tuple):
            return member
    return None


def _walk_struct(value: Any, model: type[Spec], place: Place, found: list[tuple[Place, str]]) -> bool:
    if not isinstance(value, dict):
        try:
            value = model.before(value)  # a Defence tag's text
        except ValueError as exc:
            found.append((place, _sentence(exc)))
            return True
        if not isinstance(value, dict):
            return _leaf(value, model, place, found)
    value = renamed_data(model, value)
    fields = {f.encode_name: f for f in msgspec.structs.fields(model)}
    before = len(found)
    for key, item in value.items():
        field = fields.get(key) if isinstance(key, str) else None
        if field is None:
            found.append(((*place, key), f"unknown field {str(key)!r}{_field_hint(str(key))}"))
            continue
        _walk_field(model, field, item, (*place, key), found)
    for key, field in fields.items():
        if key not in value and field.required:
            found.append(((*place, key), "Field required"))
    if len(found) > before:
        return True
    try:
        prepared = model.before(value)
    except ValueError as exc:  # not expected once every field has read: said where it is
        found.append((place, _sentence(exc)))
        return True
    return _leaf(prepared, model, place, found)  # the checks across the fields


def _walk_field(
    model: type[Spec],
    field: msgspec.structs.FieldInfo,
    item: Any,
    place: Place,
    found: list[tuple[Place, str]],
) -> None:
    """One field's problems: its raw value made readable, read, then checked."""
    before = model.BEFORE.get(field.name)
    try:
        item = before(item) if before is not None else item
    except ValueError as exc:
        found.append((place, _sentence(exc)))
        return
    if _walk(item, field.type, place, found):
        return
    check = model.CHECKS.get(field.name)
    if check is not None:
        try:
            check(msgspec.convert(item, field.type, strict=False))
        except (msgspec.ValidationError, ValueError, TypeError) as exc:
            found.append((place, _sentence(exc)))


def _leaf(value: Any, kind: Any, place: Place, found: list[tuple[Place, str]]) -> bool:
    """Read a value msgspec reads in one piece; its problem noted in the file's terms."""
    try:
        msgspec.convert(value, kind, strict=False)
    except msgspec.ValidationError as exc:
        where, message = _split(str(exc))
        found.append(((*place, *where), _said(message, _part(value, where), _part_kind(kind, where))))
        return True
    except (ValueError, TypeError) as exc:  # a part's own check, outside msgspec's reading
        found.append((place, _sentence(exc)))
        return True
    return False


def _sentence(exc: Exception) -> str:
    """An exception's message on one line, without msgspec's place (the walk knows the place)."""
    text = exc.problems if isinstance(exc, SpecError) else [_split(str(exc))[1]]
    return "; ".join(" ".join(line.split()) for line in text)


_AT = re.compile(r"^(?P<message>.*?)(?: - at `(?P<place>\$[^`]*)`| - at `key` in `(?P<key>\$[^`]*)`)?$", re.S)
_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]|\[\.\.\.\]")


def _split(text: str) -> tuple[Place, str]:
    """msgspec's `message - at `$.sides[0].hp`` as the place's parts and the message."""
    match = _AT.match(text)
    assert match is not None  # the pattern matches any text
    message = match["message"]
    if match["key"] is not None:
        return _steps(match["key"]), f"a key: {message}"
    return _steps(match["place"] or "$"), message


def _steps(path: str) -> Place:
    steps: list[object] = []
    for name, index in _STEP.findall(path[1:]):
        steps.append(name if name else int(index) if index else "...")
    return tuple(steps)


def _part(value: Any, where: Place) -> Any:
    """The part of the value at a place msgspec named (None where it cannot be followed)."""
    for step in where:
        try:
            value = value[step]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def _part_kind(kind: Any, where: Place) -> Any:
    """The type at a place, for the choices of an enum; None once the place goes into a model."""
    return kind if not where else None


_KINDS = {
    "int": "a whole number",
    "float": "a number",
    "str": "text",
    "bool": "true or false",
    "object": "a mapping",
    "array": "a list",
    "null": "nothing (null)",
    "bytes": "bytes",
}
_BOUNDS = {
    ">=": "greater than or equal to",
    "<=": "less than or equal to",
    ">": "greater than",
    "<": "less than",
}
_NUMBER = re.compile(r"Expected `(?:int|float)` (>=|<=|>|<) (-?[\d.]+)$")
_LENGTH = re.compile(r"Expected `(str|array|object)` of length (>=|<=) (\d+)$")
_EXACT = re.compile(r"Expected `array` of length (\d+), got (\d+)$")
_TYPE = re.compile(r"Expected `([^`]+)`, got `([^`]+)`$")


def _said(message: str, value: Any, kind: Any) -> str:
    """msgspec's sentence in the file's terms."""
    if match := _NUMBER.match(message):
        return f"Input should be {_BOUNDS[match[1]]} {match[2]}"
    if match := _LENGTH.match(message):
        what, least = {"str": "String", "array": "List", "object": "Mapping"}[match[1]], match[2] == ">="
        unit = "character" if match[1] == "str" else "item"
        count = len(value) if isinstance(value, list | dict | str) else None
        return (
            f"{what} should have {'at least' if least else 'at most'} {match[3]} {unit}"
            f"{'' if match[3] == '1' else 's'}{'' if count is None else f', not {count}'}"
        )
    if match := _EXACT.match(message):
        return f"List should have {match[1]} items, not {match[2]}"
    if match := _TYPE.match(message):
        expected = [kind for kind in match[1].split(" | ") if kind != "null"] or ["null"]  # an optional field
        if match[2] == "bool" and ("int" in expected or "float" in expected):
            return f"expected a number, not the boolean {str(value).lower()}"
        return f"Input should be {_either([_KINDS.get(k, k) for k in expected])}, not {_KINDS.get(match[2], match[2])}"
    if message.startswith("Invalid enum value"):
        choices = _choices(kind)
        return f"Input should be {_either(choices)}, not {value!r}" if choices else message
    if message.startswith("Object contains unknown field `"):
        key = message.removeprefix("Object contains unknown field `").removesuffix("`")
        return f"unknown field {key!r}{_field_hint(key)}"
    if message.startswith("Object missing required field `"):  # the walk names the field's place
        return "Field required"
    return " ".join(message.split())


def _either(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def _choices(kind: Any) -> list[str]:
    """The values an enum or literal type (or an optional one) allows, quoted."""
    base = _without_bounds(kind)
    if isinstance(base, type) and issubclass(base, Enum):
        return [repr(member.value) for member in base]
    if get_origin(base) is Literal:
        return [repr(choice) for choice in get_args(base)]
    if get_origin(base) in (Union, types.UnionType):
        return [choice for member in get_args(base) for choice in _choices(member)]
    return []


def _without_bounds(kind: Any) -> Any:
    return get_args(kind)[0] if get_origin(kind) is Annotated else kind


def _is_model(kind: Any) -> bool:
    return isinstance(kind, type) and issubclass(kind, Spec)


def _field_hint(key: str) -> str:
    """A synonym's or a near miss's "did you mean" for a field no part of the file format has."""
    from referee.names import FIELD_SYNONYMS, did_you_mean

    if key.lower() in FIELD_SYNONYMS:
        return f"; did you mean {FIELD_SYNONYMS[key.lower()]!r}?"
    fields = {f.encode_name for model in _models() for f in msgspec.structs.fields(model)}
    if key in fields:  # a field of another part of the file, not of this one
        return " here (that field belongs to another part of the file; see docs/encounter-file.md)"
    return did_you_mean(key, fields)


def _models() -> Iterator[type[Spec]]:
    import referee.model  # noqa: F401  (every model of the file format is made there)

    pending: list[type[Spec]] = [Spec]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        yield cls
