"""The bestiary and the shorthands of an encounter's combatants: `monster:` and `stat_block:` (issue 15).

The built-in monsters are src/referee/catalog/monsters.yaml, each a stat line read by
:mod:`referee.statblock`. :func:`expand_shorthands` turns a combatant's `monster: ogre` (the bestiary's
fields) and `stat_block: "AC 5 [14], HD 5 …"` (the line's fields) into ordinary fields before the file is
validated; the combatant's own fields override both, and `stat_block` overrides `monster`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from referee.catalog import data_text, safe_data
from referee.errors import EncounterFileError

if TYPE_CHECKING:  # the stat-line reader is imported when a stat line is read: most files give none
    from referee.statblock import StatBlock

# names a referee types for a bestiary entry (lower case)
ALIASES = {
    "lizardman": "lizard man",
    "lizard men": "lizard man",
    "black bear": "bear",
    "rat": "giant rat",
    "spider": "giant spider",
    "centipede": "giant centipede",
    "scorpion": "giant scorpion",
    "ant": "giant ant",
    "boar": "wild boar",
    "snake": "giant snake",
    "gryphon": "griffon",
    "specter": "spectre",
}


@dataclass(frozen=True)
class Monster:
    """A bestiary entry: its stat line read, its size and creature type, and what it leaves out."""

    name: str
    stat: str
    block: StatBlock
    size: str = "medium"
    creature_type: str | None = None
    assumed: bool = True
    note: str | None = None

    def fields(self, descending: bool = False) -> dict[str, Any]:
        """The combatant fields `monster: NAME` stands for, AC in the ruleset's convention."""
        out = {"name": self.name.title(), **self.block.fields(descending), "size": self.size}
        if self.creature_type:
            out["creature_type"] = self.creature_type
        return out

    def summary(self) -> dict[str, Any]:
        """What `referee bestiary --json` prints for it."""
        b = self.block
        out: dict[str, Any] = {
            "name": self.name,
            "hit_dice": b.hit_dice,
            "ac": {"descending": b.ac(descending=True), "ascending": b.ac(descending=False)},
            "attacks": [{"weapon": a.weapon, "damage": a.damage, "count": a.count} for a in b.attacks],
            "move": b.move,
            "fly": b.fly,
            "swim": b.swim,
            "morale": b.morale,
            "saves": b.saves,
            "size": self.size,
            "creature_type": self.creature_type,
            "stat": self.stat,
            "assumed": self.assumed,
            "note": self.note,
        }
        return {k: v for k, v in out.items() if v is not None}


def _key(name: str) -> str:
    key = " ".join(name.lower().split())
    return ALIASES.get(key, key)


Bestiary = Mapping[str, Monster]
MONSTER_KEYS = frozenset({"name", "stat", "size", "creature_type", "assumed", "note"})


@cache
def monsters() -> dict[str, Monster]:
    """The built-in bestiary by lower-case name (a broken file is a packaging bug)."""
    return read_monsters(safe_data(data_text("monsters.yaml")), "bestiary monsters.yaml")


def read_monsters(entries: Any, where: str, at: str = "monsters") -> dict[str, Monster]:
    """Bestiary entries ({name, stat, size, creature_type, note}) by lower-case name; `at` is the
    list's place in the file, for the problems (`mine.yaml: monsters.0.stat: ...`)."""
    if not isinstance(entries, list):
        raise EncounterFileError(f"{where}: {at}: expected a list of {{name, stat, ...}}")
    from referee.statblock import StatBlockError, parse_stat_block

    out: dict[str, Monster] = {}
    problems: list[str] = []  # every bad entry at once (issue 15)
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or not {"name", "stat"} <= set(entry) or set(entry) - MONSTER_KEYS:
            problems.append(
                f"{where}: {at}.{i}: a monster has name and stat (and size, creature_type, assumed, note)"
            )
            continue
        try:
            block = parse_stat_block(str(entry["stat"]))
            out[_key(str(entry["name"]))] = Monster(block=block, **{**entry, "name": str(entry["name"])})
        except StatBlockError as exc:
            problems.append(f"{where}: {at}.{i}.stat: {exc}")
    if problems:
        raise EncounterFileError("\n".join(problems))
    return out


def with_own(own: Bestiary | None) -> dict[str, Monster]:
    """The built-in bestiary with a referee's own monsters added, the own ones winning."""
    return {**monsters(), **(own or {})}


def monster(name: str, own: Bestiary | None = None) -> Monster:
    """The named monster (a referee's own first), or an error with the near names."""
    book = with_own(own)
    found = book.get(_key(name))
    if found is None:
        import difflib

        near = difflib.get_close_matches(_key(name), list(book) + list(ALIASES), n=3, cutoff=0.6)
        hint = f"; did you mean {' or '.join(repr(n) for n in near)}?" if near else ""
        raise EncounterFileError(f"unknown monster {name!r}{hint} (`referee bestiary` lists them)")
    return found


def expand_shorthands(
    data: Any,
    where: str,
    descending: bool,
    own: Bestiary | None = None,
    failed: dict[str, str] | None = None,
) -> Any:
    """Encounter data with every combatant's `monster:` and `stat_block:` spelled out as fields.

    Anything not shaped like an encounter is returned unchanged, for validation to refuse. With `failed`,
    a combatant whose shorthand cannot be read is kept as written and its problem noted there by its
    place, so that the rest of the file is checked too (issue 15, every problem at once)."""
    if not isinstance(data, dict) or not isinstance(data.get("sides"), list):
        return data
    sides = []
    for s, side in enumerate(data["sides"]):
        if isinstance(side, dict) and isinstance(side.get("combatants"), list):
            side = dict(side)
            combatants = []
            for i, c in enumerate(side["combatants"]):
                place = f"{where}: sides.{s}.combatants.{i}"
                try:
                    combatants.append(expand_combatant(c, place, descending, own))
                except EncounterFileError as exc:
                    if failed is None:
                        raise
                    failed[place] = str(exc)
                    combatants.append(c)
            side["combatants"] = combatants
        sides.append(side)
    return {**data, "sides": sides}


AC_NOTATIONS = ("ac", "ac_descending", "ac_ascending")


def _uses_shorthand(c: Any) -> bool:
    return isinstance(c, dict) and (
        "monster" in c or "stat_block" in c or "ac_descending" in c or "ac_ascending" in c
        or isinstance(c.get("ac"), str)
    )  # fmt: skip


def expand_combatant(data: Any, where: str, descending: bool, own: Bestiary | None = None) -> Any:
    """One combatant's fields: the bestiary's, then the stat line's, then its own (issue 15), with its
    AC in the ruleset's convention (`ac: "6 [13]"`, `ac_descending: 6`, `ac_ascending: 13`)."""
    if not _uses_shorthand(data):
        return data
    from referee.statblock import StatBlockError, parse_stat_block

    merged: dict[str, Any] = {}
    name = data.get("monster")
    if name is not None:
        try:
            merged.update(monster(str(name), own).fields(descending))
        except EncounterFileError as exc:
            raise EncounterFileError(f"{where}.monster: {exc}") from None
    block = data.get("stat_block")
    if block is not None:
        try:
            merged.update(parse_stat_block(str(block)).fields(descending))
        except StatBlockError as exc:
            raise EncounterFileError(f"{where}.stat_block: {exc}") from None
    merged.update(data)
    merged.update(_ac_fields(data, where, descending))
    if "weapons" in data and "attacks" not in data:
        merged.pop("attacks", None)  # the file's own weapons replace the routine that named the old ones
    merged.setdefault("name", "Monster")
    return merged


def _ac_fields(data: dict[str, Any], where: str, descending: bool) -> dict[str, Any]:
    """`ac` from whichever AC notation the combatant gives (one only), in the ruleset's convention."""
    given = [key for key in AC_NOTATIONS if key in data]
    if len(given) > 1:
        raise EncounterFileError(f"{where}: give one of {', '.join(given)}, not both")
    if not given or (given == ["ac"] and not isinstance(data["ac"], str)):
        return {}
    from referee.statblock import StatBlockError, ac_in_convention

    key = given[0]
    value = data[key]
    if key != "ac":
        if not isinstance(value, int) or isinstance(value, bool):
            raise EncounterFileError(f"{where}.{key}: expected a whole number, got {value!r}")
        value = f"{value}" if key == "ac_descending" else f"[{value}]"
    try:
        return {"ac": ac_in_convention(value, descending)}
    except StatBlockError as exc:
        raise EncounterFileError(f"{where}.{key}: {exc}") from None


def has_shorthands(data: Any) -> bool:
    """Whether any combatant of encounter data gives `monster:` or `stat_block:`."""
    sides = data.get("sides") if isinstance(data, dict) else None
    return isinstance(sides, list) and any(
        _uses_shorthand(c)
        for side in sides
        if isinstance(side, dict) and isinstance(side.get("combatants"), list)
        for c in side["combatants"]
    )


def ac_warnings(data: Any, where: str, descending: bool) -> list[str]:
    """A bare `ac` under 10 under ascending rules is most likely a module's descending AC (issue 15)."""
    if descending or not isinstance(data, dict) or not isinstance(data.get("sides"), list):
        return []
    found: list[str] = []
    for s, side in enumerate(data["sides"]):
        combatants = side.get("combatants") if isinstance(side, dict) else None
        for i, c in enumerate(combatants if isinstance(combatants, list) else []):
            ac = c.get("ac") if isinstance(c, dict) else None
            if isinstance(ac, int) and not isinstance(ac, bool) and ac < 10:
                found.append(
                    f"{where}: sides.{s}.combatants.{i} ({c.get('name', c.get('monster', '?'))}): ac {ac} is"
                    f" ascending under these rules (worse than no armour); did you mean descending AC"
                    f' {ac} [{19 - ac}]? Write ac: "{ac} [{19 - ac}]" or ac_descending: {ac}'
                )
    return found
