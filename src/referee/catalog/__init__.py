"""The catalog: weapons, armour and shields as data files, looked up by name (case-insensitive).

A referee's own catalog file (issue 15, :mod:`referee.catalog.own`) adds to these and replaces those of
the same name; :class:`Catalog` is the set an encounter's names are looked up in.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import yaml

from referee.errors import EncounterFileError
from referee.model import ArmourSpec, ShieldSpec, WeaponSpec
from referee.structs import Spec, SpecError

T = TypeVar("T", bound=Spec)
# libyaml's safe loader when PyYAML has it: the same data, about 15x faster than the pure-Python one,
# and every command that reads an encounter reads the catalog (issue 12, the command line at once)
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

ALIASES = {
    "chain": "chain mail",
    "plate": "plate mail",
    "banded": "banded mail",
    "splint": "splint mail",
    "scale": "scale mail",
    "ring": "ring mail",
    "studded": "studded leather",
    "leather armour": "leather",
    "leather armor": "leather",
    "shield": "medium shield",
    "longsword": "long sword",
    "shortsword": "short sword",
    "two handed sword": "two-handed sword",
    "warhammer": "war hammer",
    "longbow": "long bow",
    "shortbow": "short bow",
    "crossbow": "light crossbow",
    "fist": "unarmed",
    "garrote": "garrotte",
    "morningstar": "morning star",
    "battleaxe": "battle axe",
    "handaxe": "hand axe",
    # issue 15, forgiving names (docs/encounter-file.md): the common name for the common weapon
    "sword": "long sword",
    "axe": "battle axe",
    "bow": "short bow",
    "hammer": "war hammer",
    "chainmail": "chain mail",
    "platemail": "plate mail",
    "plate armour": "plate mail",
    "plate armor": "plate mail",
    "chain armour": "chain mail",
    "chain armor": "chain mail",
}


def names(items: Mapping[str, object]) -> list[str]:
    """The names a file may use for the catalog's items: theirs and their synonyms (for "did you mean")."""
    return [*items, *(alias for alias, name in ALIASES.items() if name in items)]


def plain_key(name: str) -> str:
    """A name as the catalog files it: lower case, single spaces."""
    return " ".join(name.lower().split())


def _key(name: str) -> str:
    key = plain_key(name)
    return ALIASES.get(key, key)


def _look_up(items: Mapping[str, T], name: str) -> T | None:
    """The item of that name, else of the synonym's (a referee's own `sword` is theirs, not `long sword`)."""
    key = plain_key(name)
    return items.get(key) or items.get(ALIASES.get(key, key))


def data_text(filename: str) -> str:
    """A data file of this folder (the built-in catalog and bestiary), read by its path: the package is
    installed as files (package-data), and importing importlib.resources (tempfile, shutil, zipfile with
    it) cost every command that reads an encounter about 45 M instructions (issue 12)."""
    return (Path(__file__).parent / filename).read_text(encoding="utf-8")


def safe_data(text: str) -> Any:
    """What `yaml.safe_load` does, with libyaml's safe loader where PyYAML has it."""
    loader = SAFE_LOADER(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


class Entries(Mapping[str, T]):
    """A catalog file's items by key, each validated when it is first looked up: an encounter names a
    few of the catalog's items, and validating them all (every damage expression parsed) is work a
    one-attack `referee odds` would mostly throw away (issue 12, the command line at once)."""

    def __init__(self, filename: str, model: type[T], entries: dict[str, Any]) -> None:
        self.filename = filename
        self.model = model
        self.entries = entries
        self.made: dict[str, T] = {}

    def __getitem__(self, key: str) -> T:
        found = self.made.get(key)
        if found is None:
            entry = self.entries[key]  # KeyError: no such item
            try:
                found = self.model.model_validate(entry)
            except SpecError as exc:  # a broken catalog is a packaging bug
                raise EncounterFileError(f"catalog {self.filename} is invalid: {exc}") from None
            self.made[key] = found
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)


def _load(filename: str, model: type[T]) -> Entries[T]:
    text = data_text(filename)
    try:
        return Entries(filename, model, {_key(entry["name"]): entry for entry in safe_data(text)})
    except (KeyError, TypeError) as exc:  # a broken catalog is a packaging bug
        raise EncounterFileError(f"catalog {filename} is invalid: {exc}") from None


@cache
def weapons() -> Mapping[str, WeaponSpec]:
    return _load("weapons.yaml", WeaponSpec)


@cache
def armours() -> Mapping[str, ArmourSpec]:
    return _load("armour.yaml", ArmourSpec)


@cache
def shields() -> Mapping[str, ShieldSpec]:
    return _load("shields.yaml", ShieldSpec)


def weapon(name: str) -> WeaponSpec | None:
    return weapons().get(_key(name))


def armour(name: str) -> ArmourSpec | None:
    return armours().get(_key(name))


def shield(name: str) -> ShieldSpec | None:
    return shields().get(_key(name))


@dataclass(frozen=True)
class Catalog:
    """The weapons, armour and shields an encounter's names are looked up in: the built-in ones, or with
    a referee's own added (issue 15); `own` holds the keys ("weapons:elven blade") of the referee's own."""

    weapons: Mapping[str, WeaponSpec]
    armours: Mapping[str, ArmourSpec]
    shields: Mapping[str, ShieldSpec]
    own: frozenset[str] = field(default=frozenset())

    def weapon(self, name: str) -> WeaponSpec | None:
        return _look_up(self.weapons, name)

    def armour(self, name: str) -> ArmourSpec | None:
        return _look_up(self.armours, name)

    def shield(self, name: str) -> ShieldSpec | None:
        return _look_up(self.shields, name)


@cache
def built_in() -> Catalog:
    """The catalog as shipped (src/referee/catalog/*.yaml)."""
    return Catalog(weapons(), armours(), shields())
