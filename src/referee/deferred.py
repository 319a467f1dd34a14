"""Fields of a frozen dataclass worked out when first read.

A simulator plays thousands of fights whose accounts nobody reads. A round's INITIATIVE event tells which
rule decided the order and why (ties broken by Dex, equal rolls acting together): with seven combatants
that explanation was a third of the round's initiative, every round of every fight. A record made with
:func:`defer` leaves such fields out of its ``__dict__`` and keeps how to work them out; the class's
descriptors for those fields (:func:`deferrable`; Python asks one only for a name not in ``__dict__``)
work them out on their first read, keep them and forget the recipe. Every reader (``==``, ``repr``,
``to_dict``, :func:`dataclasses.replace`, a copy) sees the values the record would have been made with;
pickling or copying one works them out first.

The recipe must be pure (the same answer whenever it is asked) and is taken when the record is made, so
that a procedure replaced later (a house rule) does not change an account already told.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import MISSING, fields
from typing import Any

PENDING = "_deferred"  # the key of (the deferred fields' names, their recipe) in a record's __dict__

Recipe = Callable[[], Sequence[Any]]


def defer(record: object, names: tuple[str, ...], recipe: Recipe) -> None:
    """Leave the fields `names` of `record` (made with its class passed to :func:`deferrable`) to be worked
    out by `recipe` (their values, in that order) when one of them is first read."""
    values = record.__dict__
    for name in names:
        values.pop(name, None)
    values[PENDING] = (names, recipe)


class _Deferred:
    """A deferrable field's class attribute: a descriptor Python asks only when the record's ``__dict__``
    has no value for the field (it has no ``__set__``, so the record's own value comes first), which is
    when the field is deferred; on the class itself, the field's default as before (none for a field
    without one)."""

    def __init__(self, name: str, default: Any) -> None:
        self.name = name
        self.default = default

    def __get__(self, record: object | None, owner: type | None = None) -> Any:
        if record is None:
            if self.default is MISSING:  # a field without a default: no class attribute, as before
                raise AttributeError(
                    f"type object {owner.__name__ if owner else '?'!r} has no attribute {self.name!r}"
                )
            return self.default
        return _work_out(record, self.name)


def recipe_of(record: object, names: tuple[str, ...]) -> Recipe:
    """What reading the fields `names` of `record` gives, as a recipe that does not hold `record` (for
    another record's recipe, where holding it could make a reference cycle): its own recipe while those
    fields are deferred together, else their values."""
    pending = record.__dict__.get(PENDING)
    if pending is not None and pending[0] == names:
        recipe: Recipe = pending[1]
        return recipe
    values = tuple(getattr(record, name) for name in names)
    return lambda: values


def _work_out(record: object, name: str) -> Any:
    """A deferred field's value, worked out now (with the others deferred with it) and kept."""
    values = record.__dict__
    pending = values.get(PENDING)
    if pending is not None and name in pending[0]:
        names, recipe = pending
        worked = tuple(recipe())
        for field_name, value in zip(names, worked, strict=True):
            values[field_name] = value
        values.pop(PENDING, None)  # after the values: another thread that finds no recipe finds them
    if name in values:
        return values[name]
    raise AttributeError(f"{type(record).__name__!r} object has no attribute {name!r}")


def deferrable(cls: type, names: tuple[str, ...]) -> None:
    """Let records of the dataclass `cls` defer its fields `names`: each class attribute (the field's
    default) becomes a descriptor that works a deferred field out when it is read. Only those names'
    reads go through it; the class keeps Python's own attribute lookup (a ``__getattr__`` would slow
    every read of every field)."""
    defaults = {f.name: f.default for f in fields(cls)}
    for name in names:
        setattr(cls, name, _Deferred(name, defaults[name]))
    cls.__getstate__ = _worked_out_state  # type: ignore[assignment]


def _worked_out_state(record: object) -> dict[str, Any]:
    """A deferrable record's state for pickle and deepcopy: its fields worked out first (a recipe holds
    what it needs, which need not pickle), so that a copy holds values."""
    values = record.__dict__
    pending = values.get(PENDING)
    if pending is not None:
        _work_out(record, pending[0][0])
    return dict(values)
