"""The catalog: weapons, armour and shields as data files, looked up by name (case-insensitive)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from referee.errors import EncounterFileError
from referee.model import ArmourSpec, ShieldSpec, WeaponSpec

T = TypeVar("T", bound=BaseModel)
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


def _key(name: str) -> str:
    key = " ".join(name.lower().split())
    return ALIASES.get(key, key)


def safe_data(text: str) -> Any:
    """What `yaml.safe_load` does, with libyaml's safe loader where PyYAML has it."""
    loader = SAFE_LOADER(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def _load(filename: str, model: type[T]) -> dict[str, T]:
    text = resources.files("referee.catalog").joinpath(filename).read_text(encoding="utf-8")
    try:
        return {_key(entry["name"]): model.model_validate(entry) for entry in safe_data(text)}
    except (ValidationError, KeyError, TypeError) as exc:  # a broken catalog is a packaging bug
        raise EncounterFileError(f"catalog {filename} is invalid: {exc}") from None


@cache
def weapons() -> dict[str, WeaponSpec]:
    return _load("weapons.yaml", WeaponSpec)


@cache
def armours() -> dict[str, ArmourSpec]:
    return _load("armour.yaml", ArmourSpec)


@cache
def shields() -> dict[str, ShieldSpec]:
    return _load("shields.yaml", ShieldSpec)


def weapon(name: str) -> WeaponSpec | None:
    return weapons().get(_key(name))


def armour(name: str) -> ArmourSpec | None:
    return armours().get(_key(name))


def shield(name: str) -> ShieldSpec | None:
    return shields().get(_key(name))
