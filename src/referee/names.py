"""Forgiving names (issue 15): synonyms for field names, "did you mean" for near misses, enhancement
suffixes such as `long sword +1`.

The synonyms are the ones docs/encounter-file.md lists ("Forgiving names"); catalog item synonyms
(sword, axe, bow) live with the catalog (:data:`referee.catalog.ALIASES`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

# A combatant's field as a referee may write it → the field's name in the file format.
FIELD_SYNONYMS = {
    "armor": "armour",
    "armor_layers": "armour_layers",
    "natural_armor": "natural_armour",
    "off_hand_armor": "off_hand_shield",
    "hd": "hit_dice",
    "hitdice": "hit_dice",
    "hit_points": "hp",
    "hitpoints": "hp",
    "armour_class": "ac",
    "armor_class": "ac",
    "defenses": "defences",
    "weapon": "weapons",
    "attack": "attacks",
    "ml": "morale",
    "mv": "move",
    "movement": "move",
}

# `long sword +1`, `chain mail -1`: a magic item's enhancement after its name (ODD-MELEE-3)
_ENHANCEMENT = re.compile(r"^(?P<stem>.*\S)\s*(?P<bonus>[+-]\d{1,2})$")


def split_enhancement(name: str) -> tuple[str, int] | None:
    """`long sword +1` → ("long sword", 1); a name without a suffix → None."""
    match = _ENHANCEMENT.match(name.strip())
    if match is None:
        return None
    return match.group("stem"), int(match.group("bonus"))


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """`; did you mean 'long sword'?` for the nearest choice, or "" when none is near."""
    import difflib  # only a name that is not found asks for the nearest

    options = sorted(set(choices))
    lowered = {option.lower(): option for option in options}
    close = difflib.get_close_matches(name.lower().strip(), list(lowered), n=1, cutoff=0.6)
    return f"; did you mean {lowered[close[0]]!r}?" if close else ""


def with_field_synonyms(data: Any) -> Any:
    """The encounter data with each combatant's synonym fields renamed (`armor` → `armour`, `hd` →
    `hit_dice`). A synonym beside its field is left alone, so validation names the clash."""
    if not isinstance(data, dict) or not isinstance(data.get("sides"), list):
        return data
    sides = []
    for side in data["sides"]:
        if isinstance(side, dict) and isinstance(side.get("combatants"), list):
            side = {**side, "combatants": [rename_fields(c) for c in side["combatants"]]}
        sides.append(side)
    return {**data, "sides": sides}


def rename_fields(combatant: Any) -> Any:
    """One combatant's synonym fields under their names in the file format."""
    if not isinstance(combatant, dict):
        return combatant
    renamed: dict[Any, Any] = {}
    for key, value in combatant.items():
        target = FIELD_SYNONYMS.get(key.lower(), key) if isinstance(key, str) else key
        if target != key and target in combatant:
            target = key  # both given: keep the synonym, which validation refuses by name
        if target == "weapons" and isinstance(value, str):
            value = [value]  # `weapon: sword` names the one weapon
        if target == "attacks" and isinstance(value, str):
            value = [value]
        renamed[target] = value
    return renamed
