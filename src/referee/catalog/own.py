"""A referee's own catalog (issue 15): monsters, weapons, armour and shields that add to the built-in ones
and replace those of the same name.

A catalog file (or an encounter's inline `catalog:` mapping) has up to four lists, each entry with the
fields of the built-in data files (src/referee/catalog/*.yaml) and checked the same way::

    monsters: [{name: cave goblin, stat: "AC 7 [12], HD 1, Att 1 × weapon (1d6)", size: small}]
    weapons: [{name: elven blade, damage: 1d8, type: [slashing]}]
    armour: [{name: elven mail, ac_bonus: 6}]          # or ac: 4 (descending); one gives the other
    shields: [{name: buckler, bonus: 1, attackers: 1}]

An entry named as a built-in one replaces it whole (it is given in full, as a new one is). Every problem
of the file is named at once, one line each with its place (`mine.yaml: weapons.1.damage: ...`; in an
encounter's inline catalog `e.yaml: catalog.weapons.1.damage: ...`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from referee.bestiary import Monster, read_monsters
from referee.catalog import Catalog, built_in, plain_key
from referee.errors import EncounterFileError
from referee.model import ArmourSpec, ShieldSpec, WeaponSpec
from referee.structs import Spec, SpecError

_S = TypeVar("_S", bound=Spec)

# a list's name as a referee may write it → the list
LISTS = {
    "monsters": "monsters",
    "weapons": "weapons",
    "armour": "armour",
    "armor": "armour",
    "armours": "armour",
    "shields": "shields",
}
# what a shield not given in full has: the small shield's figures (ODD-AC-SHIELD, DAC-DEFL-1)
SHIELD_DEFAULTS = {"bonus": 1, "attackers": 1, "deflection": 1, "uses": 1}


@dataclass(frozen=True)
class OwnCatalog:
    """What a referee's catalog holds, by lower-case name, and its content as written (which a setup's
    source carries, so that a stored encounter never depends on the file again)."""

    monsters: Mapping[str, Monster] = field(default_factory=dict)
    weapons: Mapping[str, WeaponSpec] = field(default_factory=dict)
    armours: Mapping[str, ArmourSpec] = field(default_factory=dict)
    shields: Mapping[str, ShieldSpec] = field(default_factory=dict)
    content: Mapping[str, list[Any]] = field(default_factory=dict)

    def catalog(self) -> Catalog:
        """The built-in weapons, armour and shields with these added, these winning."""
        base = built_in()
        own = {f"weapons:{k}" for k in self.weapons} | {f"armour:{k}" for k in self.armours}
        own |= {f"shields:{k}" for k in self.shields}
        return Catalog(
            {**base.weapons, **self.weapons},
            {**base.armours, **self.armours},
            {**base.shields, **self.shields},
            frozenset(own),
        )

    def over(self, other: OwnCatalog | None) -> OwnCatalog:
        """This catalog with `other`'s entries added, `other`'s winning (a `--catalog FILE` over the
        encounter's `catalog:`)."""
        if other is None:
            return self
        content = {key: [*_not_in(self.content.get(key, []), other.content.get(key, [])),
                         *other.content.get(key, [])] for key in LISTS.values()}  # fmt: skip
        return OwnCatalog(
            {**self.monsters, **other.monsters},
            {**self.weapons, **other.weapons},
            {**self.armours, **other.armours},
            {**self.shields, **other.shields},
            {key: entries for key, entries in content.items() if entries},
        )


def _not_in(entries: list[Any], later: list[Any]) -> list[Any]:
    """The entries no later entry replaces (by name), so that the content read again has no duplicates."""
    replaced = {plain_key(str(e.get("name"))) for e in later if isinstance(e, dict)}
    return [e for e in entries if not isinstance(e, dict) or plain_key(str(e.get("name"))) not in replaced]


def read_own_catalog_data(content: Any, where: str, prefix: str = "") -> OwnCatalog:
    """A referee's catalog (as read from YAML, or an encounter's inline `catalog:`, whose places start
    with `prefix`, "catalog."), every problem named."""
    if not isinstance(content, dict) or not content:
        raise EncounterFileError(
            f"{where}: {prefix or 'catalog: '}a catalog has monsters, weapons, armour or shields (each a list)"
        )
    if "sides" in content or "preset" in content:  # an encounter or a ruleset file given as the catalog
        kind = "an encounter" if "sides" in content else "a ruleset file"
        raise EncounterFileError(
            f"{where}: this is {kind}, not a catalog (monsters, weapons, armour, shields: docs/encounter-file.md)"
        )
    problems: list[str] = []
    lists: dict[str, list[Any]] = {}
    written: dict[str, str] = {}  # each list's name as the file has it (`armor`), for the places
    for key, entries in content.items():
        name = LISTS.get(str(key).lower())
        if name is None or name in lists:
            hint = "" if name is None else f" (twice: {name} is given already)"
            problems.append(
                f"{where}: {prefix}{key}: unknown list{hint}; a catalog has monsters, weapons, armour, shields"
            )
        elif not isinstance(entries, list):
            problems.append(
                f"{where}: {prefix}{key}: expected a list of entries, got {type(entries).__name__}"
            )
        else:
            lists[name], written[name] = entries, str(key)
    monsters: dict[str, Monster] = {}
    if lists.get("monsters"):
        try:
            monsters = read_monsters(lists["monsters"], where, f"{prefix}{written['monsters']}")
        except EncounterFileError as exc:
            problems.extend(str(exc).splitlines())
    at = {name: f"{where}: {prefix}{key}" for name, key in written.items()}  # `mine.yaml: weapons`
    weapons = _entries(lists.get("weapons", []), at.get("weapons"), WeaponSpec, _weapon_fields, problems)
    armours = _entries(lists.get("armour", []), at.get("armour"), ArmourSpec, _armour_fields, problems)
    shields = _entries(lists.get("shields", []), at.get("shields"), ShieldSpec, _shield_fields, problems)
    if problems:
        raise EncounterFileError("\n".join(problems))
    return OwnCatalog(monsters, weapons, armours, shields, {k: v for k, v in lists.items() if v})


def _entries(
    entries: list[Any],
    at: str | None,
    model: type[_S],
    complete: Callable[[dict[str, Any]], dict[str, Any]],
    problems: list[str],
) -> dict[str, _S]:
    """The list's entries by lower-case name; each problem noted with its place (`at.2.damage`)."""
    out: dict[str, _S] = {}
    for i, entry in enumerate(entries):
        place = f"{at}.{i}"
        if not isinstance(entry, dict):
            problems.append(f"{place}: expected a mapping with name and the item's fields")
            continue
        try:
            spec = model.model_validate(complete(entry))
        except SpecError as exc:
            problems.extend(f"{place}.{line}" for line in exc.problems)
            continue
        except ValueError as exc:
            problems.append(f"{place}: {exc}")
            continue
        key = plain_key(str(entry["name"]))
        if key in out:
            problems.append(f"{place}.name: a second entry called {entry['name']!r}")
        out[key] = spec
    return out


def _weapon_fields(entry: dict[str, Any]) -> dict[str, Any]:
    if "name" in entry and entry.get("damage") is None:
        raise ValueError(f"weapon {entry['name']!r} gives no damage (e.g. damage: 1d8)")
    out = {"kind": "melee", **entry}
    if out["kind"] != "propelled":
        out.setdefault("reach", 5)  # as the built-in melee and thrown weapons have it (GAP-WEAPONS)
    return out


def _armour_fields(entry: dict[str, Any]) -> dict[str, Any]:
    """One of ascending `ac_bonus` and descending `ac` gives the other: AAC = 20 - DAC (RULES.md 1.3)."""
    if "name" in entry and entry.get("ac_bonus") is None and entry.get("ac") is None:
        raise ValueError(
            f"armour {entry['name']!r} gives neither ac_bonus (ascending: chain mail 5) nor ac (descending:"
            " chain mail 5)"
        )
    out = dict(entry)
    if isinstance(out.get("ac"), int) and out.get("ac_bonus") is None:
        out["ac_bonus"] = 10 - out["ac"]
    if isinstance(out.get("ac_bonus"), int) and out.get("ac") is None:
        out["ac"] = 10 - out["ac_bonus"]
    return out


def _shield_fields(entry: dict[str, Any]) -> dict[str, Any]:
    return {**SHIELD_DEFAULTS, **entry}


def own_catalog_in(source: Mapping[str, Any]) -> OwnCatalog | None:
    """The referee's catalog a setup's source carries inline (see :func:`referee.files.setup_from_data`)."""
    content = source.get("catalog")
    return read_own_catalog_data(content, "encounter", "catalog.") if isinstance(content, dict) else None


def own_monster_names(source: Mapping[str, Any]) -> list[str]:
    """The names of the monsters a setup's inline catalog holds, as written (cheap: not read again), for
    the tracker's add-combatant picker."""
    content = source.get("catalog")
    entries = content.get("monsters") if isinstance(content, dict) else None
    names = (e.get("name") for e in entries if isinstance(e, dict)) if isinstance(entries, list) else ()
    return [str(name) for name in names if isinstance(name, str)]
