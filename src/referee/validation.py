"""Pydantic's validation errors as a file's problems: one line each with its place (issue 15, "every
problem at once"), in the names the file uses (no union member tags), with a "did you mean" for an
unknown field."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError


def describe_validation_error(exc: ValidationError, where: str) -> str:
    """Every problem, one line each with its place (issue 15, "every problem at once"):
    `file: sides.1.combatants.0.hp: Input should be greater than or equal to 1`."""
    return "\n".join(f"{where}: {line}" for line in validation_problems(exc))


def validation_problems(exc: ValidationError) -> list[str]:
    """`place: problem` per problem the user made. A union field reports one error per member; of
    those at one place the deepest is the one the user meant, and a member's mere type mismatch is
    dropped when another member's error lies beneath the same place."""
    best: dict[str, tuple[int, str]] = {}
    order: list[str] = []
    errors = exc.errors()
    for err in errors:
        if _other_member_meant(err["loc"], err["type"], [e["loc"] for e in errors]):
            continue
        kept = _user_location(err["loc"])
        # a key from the file may hold a line break or a control character: quote it to keep one line
        loc = ".".join(str(p) if str(p).isprintable() else repr(p) for p in kept)
        msg = " ".join(err["msg"].removeprefix("Value error, ").split())
        if err["type"] == "extra_forbidden" and kept:
            msg = f"unknown field {str(kept[-1])!r}{_field_hint(str(kept[-1]))}"
        depth = len(err["loc"])
        if loc not in best:
            order.append(loc)
        if loc not in best or depth > best[loc][0]:
            best[loc] = (depth, msg)
    # `armour: {name: x, bad: 1}` fails as a string at `armour` and as a mapping at `armour.bad`
    shown = [loc for loc in order if not any(o != loc and o.startswith(loc + ".") for o in order)] or order
    return [f"{loc + ': ' if loc else ''}{best[loc][1]}" for loc in shown]


def _other_member_meant(loc: tuple[Any, ...], kind: str, locs: list[tuple[Any, ...]]) -> bool:
    """A union member's type mismatch (`armour.str: Input should be a valid string`) beside another
    member's error under the same field (`armour.ArmourSpec.name`): the user meant the other member."""
    if not loc or not kind.endswith("_type") or not isinstance(loc[-1], str):
        return False
    if not _is_type_tag(loc[-1], None):
        return False
    field = loc[:-1]
    return any(len(o) > len(field) + 1 and o[: len(field)] == field for o in locs)  # deeper than a tag


def _field_hint(key: str) -> str:
    """A synonym's or a near miss's "did you mean" for a field no part of the file format has."""
    from referee import model
    from referee.names import FIELD_SYNONYMS, did_you_mean

    if key.lower() in FIELD_SYNONYMS:
        return f"; did you mean {FIELD_SYNONYMS[key.lower()]!r}?"
    fields: set[str] = set()
    pending: list[type[BaseModel]] = [model.Spec]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        for name, info in cls.model_fields.items():
            fields.add(info.alias or name)
    if key in fields:  # a field of another part of the file, not of this one
        return " here (that field belongs to another part of the file; see docs/encounter-file.md)"
    return did_you_mean(key, fields)


_TYPE_TAGS = ("str", "int", "bool", "float")


def _is_type_tag(part: object, after: object) -> bool:
    """Pydantic puts the union member's type in an error's location; users never wrote that. A bare
    type name is a tag only after a list index or another tag (`weapons.0.str`), not as a field name
    (`abilities.str`)."""
    text = str(part)
    if not isinstance(part, str):
        return False
    if (text[:1].isupper() and "Spec" in text) or text.startswith(
        ("function-", "list[", "dict[", "tuple[", "literal[")
    ):
        return True
    return text in _TYPE_TAGS and (isinstance(after, int) or after is None)


def _user_location(loc: tuple[object, ...]) -> list[object]:
    kept: list[object] = []
    previous: object = None
    for part in loc:
        if _is_type_tag(part, previous):
            previous = None  # a tag may follow a tag (union inside a union)
            continue
        kept.append(part)
        previous = part
    return kept
