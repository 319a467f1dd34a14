"""The base of the encounter file's models: frozen msgspec structs with the methods callers know.

msgspec builds the classes in C; with what it imports it costs a one-attack `referee odds` a small part
of the 135 ms pydantic and the models did (issue 12, the command line at once). pydantic stays where
FastAPI needs it (the tracker's request bodies). A model reads data with :meth:`Spec.model_validate` and writes
it with :meth:`Spec.model_dump`; a problem is a :class:`SpecError` naming every problem of the data, one
line each with its place (:mod:`referee.validation`).

What a model checks beyond its fields' types and bounds is said in three places, each run by
:meth:`Spec.model_validate`, by the class itself and by :mod:`referee.validation` when it names the
problems one field at a time:

* ``BEFORE``: a field's raw value made into what its type reads (a size's name into :class:`Size`);
* ``CHECKS``: a read field's value checked and normalised (a dice expression, a condition's name);
* :meth:`Spec.check_across`: the checks across fields, once every field is read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import Enum
from functools import cache
from typing import Any, ClassVar, Self

import msgspec

from referee.errors import RefereeError

FieldFunction = Callable[[Any], Any]


class SpecError(RefereeError, ValueError):
    """Data that does not fit a model: every problem, one line each (`sides.0.combatants.0.hp: ...`)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = tuple(problems)

    def placed(self, where: str) -> list[str]:
        """The problems as a file's lines: `fight.yaml: sides.1.combatants.0.hp: ...`."""
        return [f"{where}: {problem}" for problem in self.problems]


class Spec(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """A frozen record of the file format; an unknown field is refused."""

    BEFORE: ClassVar[Mapping[str, FieldFunction]] = {}  # raw value → what the field's type reads
    CHECKS: ClassVar[Mapping[str, FieldFunction]] = {}  # read value → checked value (ValueError if bad)

    def __post_init__(self) -> None:
        for name, check in self.CHECKS.items():
            value = getattr(self, name)
            checked = check(value)
            if checked is not value:
                msgspec.structs.force_setattr(self, name, checked)
        self.check_across()

    def check_across(self) -> None:
        """The checks across fields (ValueError with the sentence), once every field is read."""

    @classmethod
    def before(cls, data: Any) -> Any:
        """The raw data as the struct reads it: fields given by their names where the file's name
        differs (`strength` for `str`, as pydantic's populate_by_name read them), ``BEFORE`` applied."""
        if not isinstance(data, dict):
            return data
        out = renamed_data(cls, data)
        for name, before in cls.BEFORE.items():
            key = _encode_name(cls, name)
            if key in out:
                value = before(out[key])
                if value is not out[key]:
                    out = dict(out) if out is data else out
                    out[key] = value
        return out

    @classmethod
    def model_validate(cls, data: Any) -> Self:
        """The model read from builtin data (a YAML file's mapping), or :class:`SpecError`."""
        try:
            return msgspec.convert(cls.before(data), cls, strict=False)
        except (msgspec.ValidationError, ValueError, TypeError):
            from referee.validation import problems_of

            raise SpecError(problems_of(data, cls)) from None

    def model_dump(
        self,
        *,
        mode: str = "python",
        by_alias: bool = False,
        exclude: set[str] | None = None,
        exclude_none: bool = False,
        exclude_defaults: bool = False,
    ) -> dict[str, Any]:
        """The fields as a mapping, nested models as mappings; `mode="json"` gives only JSON's types
        (enums as their values, tuples as lists); `by_alias` the file's names (`str`, `class`)."""
        how = _Dump(mode == "json", by_alias, exclude_none, exclude_defaults)
        return how.struct(self, exclude or set())

    def model_dump_json(self) -> str:
        """The model as compact JSON, under the file's names."""
        return msgspec.json.encode(self).decode()

    def model_copy(self, *, update: Mapping[str, Any] | None = None) -> Self:
        """A copy with some fields replaced: the class's own checks run again (``CHECKS``, the checks
        across fields); the fields' types and bounds are not read again (pydantic's copy checked nothing)."""
        return msgspec.structs.replace(self, **(update or {}))

    @classmethod
    def model_json_schema(cls) -> dict[str, Any]:
        """The JSON Schema of the model, under the file's names, with the model's own at the top."""
        schema = msgspec.json.schema(cls)
        definitions = dict(schema.get("$defs", {}))
        top = definitions.pop(cls.__name__, None)
        if top is None:
            return schema
        return {"$schema": "https://json-schema.org/draft/2020-12/schema", **top, "$defs": definitions}


def leniently(prepare: FieldFunction) -> FieldFunction:
    """A nested part's preparation that leaves what it cannot read as it is, for the struct to refuse
    (and :mod:`referee.validation` to name at its own place)."""

    def prepared(value: Any) -> Any:
        try:
            return prepare(value)
        except ValueError:
            return value

    return prepared


def each(prepare: FieldFunction) -> FieldFunction:
    """A list's items prepared, each leniently."""
    one = leniently(prepare)
    return lambda value: [one(item) for item in value] if isinstance(value, list) else value


@cache
def _renamed(cls: type[Spec]) -> dict[str, str]:
    """Field name → the file's name, where they differ (from the class's own tuples: msgspec's
    `structs.fields` evaluates every annotation again)."""
    pairs = zip(cls.__struct_fields__, cls.__struct_encode_fields__, strict=True)
    return {name: alias for name, alias in pairs if name != alias}


def renamed_data(cls: type[Spec], data: dict[Any, Any]) -> dict[Any, Any]:
    """A mapping with the fields given by their names under the file's names (`strength` as `str`); a
    field given by both keeps both, and the struct refuses the name as an unknown field."""
    renamed = _renamed(cls)
    if not renamed or not any(key in renamed for key in data):
        return data
    return {renamed[k] if k in renamed and renamed[k] not in data else k: v for k, v in data.items()}


def _encode_name(cls: type[Spec], name: str) -> str:
    return _renamed(cls).get(name, name)


@cache
def _defaults(cls: type[Spec]) -> dict[str, Any]:
    """Each field's default, for `exclude_defaults` (a field without one has none here)."""
    out = {}
    for f in msgspec.structs.fields(cls):
        if f.default is not msgspec.NODEFAULT:
            out[f.name] = f.default
        elif f.default_factory is not msgspec.NODEFAULT:
            out[f.name] = f.default_factory()
    return out


class _Dump:
    """One way of dumping models to builtin data (pydantic's `model_dump` options)."""

    def __init__(self, json: bool, by_alias: bool, exclude_none: bool, exclude_defaults: bool) -> None:
        self.json = json
        self.by_alias = by_alias
        self.exclude_none = exclude_none
        self.exclude_defaults = exclude_defaults

    def struct(self, model: Spec, exclude: set[str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        kind = type(model)
        defaults = _defaults(kind) if self.exclude_defaults else {}
        for name, alias in zip(kind.__struct_fields__, kind.__struct_encode_fields__, strict=True):
            value = getattr(model, name)
            if name in exclude or (self.exclude_none and value is None):
                continue
            if name in defaults and value == defaults[name]:
                continue
            out[alias if self.by_alias else name] = self.value(value)
        return out

    def value(self, value: Any) -> Any:
        if isinstance(value, Spec):
            return self.struct(value, set())
        if isinstance(value, list | tuple):
            items = [self.value(item) for item in value]
            return items if self.json or isinstance(value, list) else tuple(items)
        if isinstance(value, dict):
            return {self.value(k): self.value(v) for k, v in value.items()}
        if self.json and isinstance(value, Enum):
            return value.value
        return value
