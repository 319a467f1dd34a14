"""Character classes (issue 15): `class:` with `level` gives the basic to-hit bonus and the hit die, so
that a magic-user does not fight as a fighter.

The first document gives the hit dice of two classes (ODD-HD-1: a fighter rolls d10s, a wizard d4s) and
one to-hit datum (ODD-BTH-1: a 5th-level barbarian has +4); the rest is the documented assumption
GAP-CLASS-BTH / GAP-CLASS-HD in docs/rules.md: warriors level − 1 (which fits the datum), clerics and
thieves level ÷ 2, magic-users level ÷ 3 (rounded down); clerics d8 and thieves d6.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CharacterClass:
    """A class's hit die (ODD-HD-1) and its basic to-hit bonus per level (ODD-BTH-1)."""

    name: str
    hit_die: str
    levels_per_bonus: int  # the bonus is (level - 1) for warriors, else level // this
    rule: str

    def attack_bonus(self, level: int) -> int:
        """ODD-BTH-1 (GAP-CLASS-BTH): the class's basic to-hit bonus at `level`."""
        if self.levels_per_bonus == 1:
            return max(0, level - 1)
        return level // self.levels_per_bonus


CLASSES = {
    "fighter": CharacterClass("fighter", "d10", 1, "ODD-HD-1, ODD-BTH-1"),  # 5th-level fighter 5d10
    "cleric": CharacterClass("cleric", "d8", 2, "GAP-CLASS-HD, GAP-CLASS-BTH"),
    "magic-user": CharacterClass("magic-user", "d4", 3, "ODD-HD-1, GAP-CLASS-BTH"),  # wizard 1d4 a level
    "thief": CharacterClass("thief", "d6", 2, "GAP-CLASS-HD, GAP-CLASS-BTH"),
}

# the names other books give the same four classes (docs/encounter-file.md, "Forgiving names")
CLASS_SYNONYMS = {
    "fighting-man": "fighter",
    "fighting man": "fighter",
    "warrior": "fighter",
    "barbarian": "fighter",  # ODD-BTH-1's datum: a 5th-level barbarian fights at +4, as a warrior
    "magic user": "magic-user",
    "magicuser": "magic-user",
    "mage": "magic-user",
    "wizard": "magic-user",
    "priest": "cleric",
    "rogue": "thief",
}


def class_named(name: str) -> CharacterClass:
    """The class a file names (any case, or a synonym); an unknown name raises ValueError with the
    known ones and the nearest."""
    from referee.names import did_you_mean

    key = " ".join(name.lower().split())
    key = CLASS_SYNONYMS.get(key, key)
    if key not in CLASSES:
        hint = did_you_mean(key, [*CLASSES, *CLASS_SYNONYMS]) or f"; classes: {', '.join(CLASSES)}"
        raise ValueError(f"unknown class {name!r}{hint}")
    return CLASSES[key]
