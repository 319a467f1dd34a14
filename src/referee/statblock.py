"""Stat lines as modules print them, read into encounter-file fields (issue 15, item 2).

Three forms are read, the Old-School Essentials one::

    AC 5 [14], HD 5 (25hp), Att 2 × claw (1d4), 1 × bite (1d8), THAC0 15 [+4], MV 120' (40'),
    SV D10 W11 P12 B13 S14 (3), ML 9, AL Neutral

the Swords & Wizardry one::

    HD 4; AC 4[15]; Atk 2 claws (1d3), 1 bite (1d6); Move 14; Save 13; AL C; CL/XP 6/400

and the classic modules' one, the attacks counted and their damage apart (B/X modules, AD&D 1e)::

    AC 6, HD 1-1, hp 3, #AT 1, D 1-6, MV 60' (20'), Save NM, ML 7
    AC 5; MV 12"; HD 5; hp 30; #AT 3; D 1-6/1-6/2-12; SA hug; SZ L

:func:`parse_stat_block` gives a :class:`StatBlock`; :meth:`StatBlock.fields` the combatant fields it
stands for (a file's own fields override them). Pure: no files, no catalog. Every part that cannot be
read is a :class:`StatBlockError` naming that part.

Assumptions (GAP-STAT-LINE): an attack routine is ODD-ATK-3's; an AC given in one notation only gets the
other as the books print them (ascending = 19 - descending); a movement rate is scaled so that a
human's (120' in OSE, 12 in S&W) is the engine's 30 ft a round (ODD-MOVE-1); THAC0 T is the attack
bonus 19 - T; without THAC0 or [+N] the ruleset's own rule gives the bonus (ODD-BTH-2: hit dice); a
damage range is the dice that roll it (1-6 is 1d6, 2-8 2d4, 2-7 1d6+1); saving as a class and level
(`Save F1`, `NM`) is read and left out, as saves are (no rule uses them); AD&D's inches (MV 9") are S&W's
numbers (a human's 12).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from referee.errors import EncounterFileError

HUMAN_RATE_FEET = 30  # the engine's human movement rate a round (ODD-MOVE-1)
OSE_HUMAN_RATE = 120  # OSE's exploration rate for an unarmoured human, feet a turn
SW_HUMAN_RATE = 12  # Swords & Wizardry's human movement rate

SAVE_NAMES = {"D": "death", "W": "wands", "P": "paralysis", "B": "breath", "S": "spells"}

# label (lower case, first word(s) of a part) → the field it gives; None: read and ignored
LABELS: dict[str, str | None] = {
    "ac": "ac",
    "armor class": "ac",
    "armour class": "ac",
    "hd": "hd",
    "hit dice": "hd",
    "hp": "hp",
    "hit points": "hp",
    "#at": "count",
    "# at": "count",
    "#att": "count",
    "no. of attacks": "count",
    "number of attacks": "count",
    "d": "damage",
    "dmg": "damage",
    "damage": "damage",
    "sz": "size",
    "size": "size",
    "att": "attacks",
    "atk": "attacks",
    "attacks": "attacks",
    "attack": "attacks",
    "thac0": "thac0",
    "mv": "move",
    "move": "move",
    "movement": "move",
    "sv": "saves",
    "save": "saves",
    "save as": "saves",
    "saves": "saves",
    "ml": "morale",
    "morale": "morale",
    "al": None,
    "alignment": None,
    "xp": None,
    "cl/xp": None,
    "na": None,
    "no. appearing": None,
    "tt": None,
    "treasure": None,
    "special": None,
    "sa": None,
    "sd": None,
    "mr": None,
    "int": None,
    "intelligence": None,
    "special attacks": None,
    "special defenses": None,
    "special defences": None,
    "magic resistance": None,
    "% in lair": None,
    "in lair": None,
    "frequency": None,
    "treasure type": None,
    "xp value": None,
}
CONTINUED = ("attacks", "count", "damage", "hp", None)  # labels whose value may go on past a comma
_LABEL = re.compile(
    r"^\s*(" + "|".join(re.escape(k) for k in sorted(LABELS, key=len, reverse=True)) + r")\b\.?:?\s*(.*)$",
    re.IGNORECASE | re.DOTALL,
)
_NUMBER = r"[+\-]?\d+"
_AC = re.compile(rf"^({_NUMBER})?\s*(?:\[\s*({_NUMBER})\s*\])?$")
_HD = re.compile(r"^(\d+|½|1/2)\s*([+-]\s*\d+)?\s*\**\s*(?:\(\s*(\d+)\s*hp\s*\))?$", re.IGNORECASE)
_HP_ONLY = re.compile(r"^(\d*d\d+)\s*hp$", re.IGNORECASE)
_ATTACK = re.compile(r"^(?:(\d+)\s*[×x*]?\s+)?([a-z][a-z' -]*?)\s*\(([^()]*)\)$", re.IGNORECASE)
_DAMAGE = re.compile(
    r"^(\d*d\d+(?:\s*[+-]\s*\d+)?|\d+)(?:\s+(?:or|plus|\+)\b.*|\s*\+\s*[a-z].*)?$", re.IGNORECASE
)
_THAC0 = re.compile(rf"^(\d+)\s*(?:\[\s*({_NUMBER})\s*\])?$")
_RATE = re.compile(r"^(\d+)\s*'?\s*(?:\(\s*(\d+)\s*'?\s*\))?\s*(?:\(?\s*(fly(?:ing)?|swim(?:ming)?)\s*\)?)?$")
_RATE_WORD_FIRST = re.compile(r"^(fly(?:ing)?|swim(?:ming)?)\s+(\d+)\s*'?\s*(?:\(\s*\d+\s*'?\s*\))?$")
_SAVES_AS = re.compile(
    r"^(?:as\s+)?(?:nm|normal (?:man|human)|(?:[a-z]{1,2}|[a-z][a-z-]+:?)\s*(?:level\s*)?\d+)(?:\s*\(.*\))?$",
    re.IGNORECASE,
)
_OSE_SAVES = re.compile(r"^((?:[DWPBS]\s*\d+\s*)+)(?:\(\s*[^()]*\s*\))?$", re.IGNORECASE)


class StatBlockError(EncounterFileError):
    """A part of a stat line that cannot be read; the message names the part."""


@dataclass(frozen=True)
class Attack:
    """One attack of the routine: its weapon's name, its damage and how many of it (ODD-ATK-3)."""

    weapon: str
    damage: str
    count: int = 1


@dataclass(frozen=True)
class StatBlock:
    """What a stat line says, each value None when the line does not give it."""

    hit_dice: str | None = None
    hp: int | None = None
    ac_descending: int | None = None
    ac_ascending: int | None = None
    attacks: tuple[Attack, ...] = ()
    attack_bonus: int | None = None
    move: int | None = None
    fly: int | None = None
    swim: int | None = None
    saves: dict[str, int] = field(default_factory=dict)
    morale: int | None = None
    size: str | None = None

    def ac(self, descending: bool) -> int | None:
        """The AC in the ruleset's convention: "6 [13]" is 6 under descending rules, 13 under ascending.
        One notation alone gives the other as the books print them (GAP-STAT-LINE: AAC = 19 - DAC)."""
        dac, aac = self.ac_descending, self.ac_ascending
        if descending:
            return dac if dac is not None else (None if aac is None else 19 - aac)
        return aac if aac is not None else (None if dac is None else 19 - dac)

    def fields(self, descending: bool = False) -> dict[str, Any]:
        """The combatant fields of the encounter file this line stands for (no name, no count)."""
        out: dict[str, Any] = {"kind": "monster"}
        if self.hit_dice is not None:
            out["hit_dice"] = self.hit_dice
        if self.hp is not None:
            out["hp"] = self.hp
        ac = self.ac(descending)
        if ac is not None:
            out["ac"] = ac
        if self.attacks:
            out["weapons"] = [_weapon_fields(a) for a in self.attacks]
            out["attacks"] = [a.weapon for a in self.attacks for _ in range(a.count)]
        for name in ("attack_bonus", "move", "fly", "swim", "morale", "size"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        if self.saves:
            out["saves"] = dict(self.saves)
        return out


# the words of natural attacks: never pummelling (ODD-UNARMED-2), whatever the weapon is called
NATURAL_WORDS = frozenset(
    {"claw", "bite", "gore", "horn", "sting", "tail", "tentacle", "hoof", "butt", "talon", "beak", "touch",
     "slam", "hug", "constrict", "tusk", "kick", "crush", "pincer", "antler", "trample"}
)  # fmt: skip


def _weapon_fields(attack: Attack) -> dict[str, Any]:
    fields: dict[str, Any] = {"name": attack.weapon, "damage": attack.damage}
    if NATURAL_WORDS & set(attack.weapon.split()):
        fields["natural"] = True
    return fields


def split_parts(text: str) -> list[tuple[str, str]]:
    """The line's parts as (label, value): split at `;` and `,` outside brackets, a piece that starts with
    no label belonging to the part before it (the attacks of `Att 2 × claw (1d4), 1 × bite (1d8)`)."""
    pieces: list[str] = []
    depth, start = 0, 0
    for i, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth = max(0, depth - 1)
        elif char in ";," and depth == 0:
            pieces.append(text[start:i])
            start = i + 1
    pieces.append(text[start:])
    parts: list[tuple[str, str]] = []
    for piece in (p.strip() for p in pieces):
        if not piece:
            continue
        match = _LABEL.match(piece)
        if match is not None:
            parts.append((match.group(1), match.group(2).strip()))
        elif parts and LABELS[parts[-1][0].lower()] in CONTINUED:
            label, value = parts[-1]
            parts[-1] = (label, f"{value}, {piece}")
        else:
            raise StatBlockError(f"stat block part {piece!r} starts with no known label (AC, HD, Att, MV …)")
    return parts


def parse_stat_block(text: str) -> StatBlock:
    """Read a stat line in the OSE, the Swords & Wizardry or the classic modules' form (module docstring)."""
    text = _unwrapped(" ".join(text.replace("−", "-").replace("–", "-").split()))
    if not text:
        raise StatBlockError("the stat block is empty")
    values: dict[str, Any] = {}
    seen: set[str] = set()
    for label, value in split_parts(text):
        target = LABELS[label.lower()]
        if target is None:
            continue
        if target in seen:
            raise StatBlockError(f"stat block gives {label!r} twice")
        seen.add(target)
        read = _READERS[target](value, label)
        if "hp" in read and values.get("hp") is not None and read["hp"] is not None:
            raise StatBlockError(f"stat block gives hit points twice ({label!r} and in its hit dice)")
        values.update({k: v for k, v in read.items() if v is not None or k not in values})
    return StatBlock(**_counted_attacks(values))


def _unwrapped(text: str) -> str:
    """A module's "(AC 6, HD 1-1, … ML 7)" without the brackets around the whole line."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and i < len(text) - 1:
            return text  # the first bracket closes before the end: not one pair around it all
    return text[1:-1].strip()


def _counted_attacks(values: dict[str, Any]) -> dict[str, Any]:
    """`#AT 2 claws/1 bite, D 1-4/2-8` (the classic form) → the attacks, as OSE's `Att` gives them."""
    counted, damages = values.pop("_count", None), values.pop("_damage", None)
    if counted is None and damages is None:
        return values
    if "attacks" in values:
        raise StatBlockError("stat block gives its attacks twice (`Att … (1d6)` and `#AT`/`D`)")
    part, kinds = counted or ("", [(1, None)])
    if damages is None:
        raise StatBlockError(
            f"stat block part {part!r} counts attacks but the line gives no damage (e.g. 'D 1-6'; or write"
            " each attack with its dice: '2 × claw (1d4)')"
        )
    total = sum(count for count, _ in kinds)
    names = [name or "attack" for count, name in kinds for _ in range(count)]
    if len(damages) == total:
        attacks = [Attack(name, damage) for name, damage in zip(names, damages, strict=True)]
    elif len(damages) == len(kinds):
        attacks = [
            Attack(name or "attack", damage, count)
            for (count, name), damage in zip(kinds, damages, strict=True)
        ]
    elif len(damages) == 1:
        attacks = [Attack(name or "attack", damages[0], count) for count, name in kinds]
    else:
        raise StatBlockError(
            f"stat block gives {total} attacks but {len(damages)} damages ({'/'.join(damages)})"
        )
    return {**values, "attacks": _distinct(attacks)}


def _part(label: str, value: str) -> str:
    return f"{label} {value}".strip()


def _read_ac(value: str, label: str) -> dict[str, Any]:
    match = _AC.match(value)
    if not value or match is None:
        raise StatBlockError(
            f"stat block part {_part(label, value)!r}: AC is not like '5 [14]', '4[15]' or '6'"
        )
    dac, aac = match.groups()
    return {"ac_descending": _int(dac), "ac_ascending": _int(aac)}


def _read_hd(value: str, label: str) -> dict[str, Any]:
    only_hp = _HP_ONLY.match(value)
    if only_hp:  # "HD 1d4hp": the hit points' dice themselves
        return {"hit_dice": only_hp.group(1).lower()}
    match = _HD.match(value)
    if match is None:
        raise StatBlockError(
            f"stat block part {_part(label, value)!r}: hit dice are not like '5', '4+1', '½' or '5 (25hp)'"
        )
    count, plus, hp = match.groups()
    hit_dice = "1d4" if count in ("½", "1/2") else f"{count}{(plus or '').replace(' ', '')}"
    return {"hit_dice": hit_dice, "hp": _int(hp)}


def _read_attacks(value: str, label: str) -> dict[str, Any]:
    if "(" not in value and not re.search(r"\d*d\d+", value):  # Moldvay's "Attacks: 2 claws/1 bite"
        return _read_count(value, label)
    if "/" in value.split("(")[0] or re.search(r"\d*d\d+\s*/\s*\d*d\d+", value):
        raise StatBlockError(
            f"stat block part {_part(label, value)!r}: write each attack as '1 × claw (1d3)', not damage"
            " split by '/'"
        )
    attacks: list[Attack] = []
    for piece in re.split(r",|\band\b|\+(?=\s*\d+\s*[×x*]?\s+[a-z])", value, flags=re.IGNORECASE):
        piece = piece.strip()
        if not piece:
            continue
        match = _ATTACK.match(piece)
        damage = _dice_of_notation(match.group(3).strip()) if match else None
        if match is None or damage is None:
            raise StatBlockError(
                f"stat block part {_part(label, value)!r}: attack {piece!r} is not like '2 × claw (1d4)'"
            )
        count = int(match.group(1) or 1)
        if count < 1 or count > 12:
            raise StatBlockError(f"stat block part {_part(label, value)!r}: {count} attacks of one kind")
        attacks.append(Attack(_weapon_name(match.group(2), count), damage, count))
    if not attacks:
        raise StatBlockError(f"stat block part {_part(label, value)!r}: no attacks")
    return {"attacks": _distinct(attacks)}


def _weapon_name(name: str, count: int) -> str:
    """ "claws" of "2 claws" is the weapon claw; the weapon is named once however often it strikes."""
    name = " ".join(name.lower().split())
    if count > 1 and name.endswith("s") and not name.endswith("ss"):
        name = name[:-1]
    return name


def _distinct(attacks: list[Attack]) -> tuple[Attack, ...]:
    """One weapon per name: two attacks of one name with different damage become "bite" and "bite 2"."""
    kept: list[Attack] = []
    for attack in attacks:
        same = [a for a in kept if a.weapon == attack.weapon or a.weapon.startswith(attack.weapon + " ")]
        if same and all(a.damage != attack.damage for a in same):
            attack = Attack(f"{attack.weapon} {len(same) + 1}", attack.damage, attack.count)
        elif same:
            first = next(a for a in same if a.damage == attack.damage)
            kept[kept.index(first)] = Attack(first.weapon, first.damage, first.count + attack.count)
            continue
        kept.append(attack)
    return tuple(kept)


_COUNTED = re.compile(
    r"^(\d+)?\s*[×x*]?\s*([a-z][a-z' -]*?)?\s*(?:\(\s*([a-z][a-z' -]*?)\s*\))?$", re.IGNORECASE
)  # "2 claws", "1 (weapon)", "3"
_RANGE = re.compile(  # "1-6", "1-4+1", "2-8 (weapon)", "1-8+special", "1-6 or by weapon"
    r"^(\d+)\s*-\s*(\d+)(?:\s*\+\s*(\d+)(?!\d))?(?:\s*(?:\(|\+?\s*[a-z]).*)?$", re.IGNORECASE
)
DIE_SIDES = (2, 3, 4, 6, 8, 10, 12, 20, 100)


def _read_count(value: str, label: str) -> dict[str, Any]:
    """`#AT 1`, `#AT 3`, `#AT 2 claws/1 bite`, `Attacks: 1 weapon`: how many attacks of which kind."""
    kinds: list[tuple[int, str | None]] = []
    for piece in re.split(r"/|,|\band\b|\+", value, flags=re.IGNORECASE):
        match = _COUNTED.match(piece.strip())
        if match is None or not piece.strip():
            raise StatBlockError(
                f"stat block part {_part(label, value)!r}: attacks are not like '1', '3' or '2 claws/1 bite'"
            )
        count = int(match.group(1) or 1)
        if not 1 <= count <= 12:
            raise StatBlockError(f"stat block part {_part(label, value)!r}: {count} attacks of one kind")
        name = match.group(2) or match.group(3)
        kinds.append((count, _weapon_name(name, count) if name else None))
    return {"_count": (_part(label, value), kinds)}


def _read_damage(value: str, label: str) -> dict[str, Any]:
    """`D 1-6`, `D 1d8`, `D 1-4/1-4/2-8`, `Damage: 1-6 or by weapon`: each attack's dice in order."""
    damages: list[str] = []
    for piece in value.split("/"):
        dice = _dice_of_range(piece.strip()) or _dice_of_notation(piece.strip())
        if dice is None:
            raise StatBlockError(
                f"stat block part {_part(label, value)!r}: damage {piece.strip()!r} gives no dice"
                " (like '1-6', '2-8' or '1d6'; a monster that fights 'by weapon' is given its weapons)"
            )
        damages.append(dice)
    return {"_damage": damages}


def _dice_of_notation(text: str) -> str | None:
    """ "1d6", "2d4+1", "1d6 or by weapon", "1d4 + poison": the dice (words after them left out)."""
    match = _DAMAGE.match(text)
    return None if match is None else match.group(1).replace(" ", "")


def dice_of_range(low: int, high: int) -> str | None:
    """GAP-STAT-LINE: the dice a range of damage is rolled with — as many dice as the least (2-8: 2d4),
    else one die and a bonus (2-7: 1d6+1), else the fewest dice with a bonus; None if no dice roll it."""
    for dice in (low, *range(1, low)):
        bonus = low - dice
        spread = high - bonus
        if dice >= 1 and spread % dice == 0 and spread // dice in DIE_SIDES:
            return f"{dice}d{spread // dice}" + (f"+{bonus}" if bonus else "")
    return None


def _dice_of_range(text: str) -> str | None:
    match = _RANGE.match(text)
    if match is None:
        return None
    bonus = int(match.group(3) or 0)  # "1-4+1": the range, then one more
    low, high = int(match.group(1)) + bonus, int(match.group(2)) + bonus
    return dice_of_range(low, high) if 1 <= low < high <= 10_000 else None


def _read_hp(value: str, label: str) -> dict[str, Any]:
    """`hp 5`, `hp 3 each`: the hit points (a module's list, `hp 3, 4, 2`, is one total per block)."""
    match = re.fullmatch(r"(\d+)(?:\s*(?:hp|each))?", value, re.IGNORECASE)
    if match is None:
        raise StatBlockError(
            f"stat block part {_part(label, value)!r}: one hit-point total per block (give each monster its"
            " own block, or leave the hit points out to roll them from the hit dice)"
        )
    return {"hp": int(match.group(1))}


SIZE_LETTERS = {"t": "tiny", "s": "small", "m": "medium", "l": "large", "h": "huge", "g": "gargantuan"}


def _read_size(value: str, label: str) -> dict[str, Any]:
    """`SZ M`, `Size: L (12' tall)`, `Size large`: the size ladder (GAP-SIZE)."""
    word = value.split("(")[0].strip().lower()
    size = SIZE_LETTERS.get(word, word)
    if size not in SIZE_LETTERS.values():
        raise StatBlockError(
            f"stat block part {_part(label, value)!r}: size is S, M, L or a word like 'large'"
        )
    return {"size": size}


def _read_thac0(value: str, label: str) -> dict[str, Any]:
    match = _THAC0.match(value)
    if match is None:
        raise StatBlockError(f"stat block part {_part(label, value)!r}: THAC0 is not like '15 [+4]' or '17'")
    thac0, bonus = match.groups()
    return {"attack_bonus": _int(bonus) if bonus is not None else 19 - int(thac0)}


def _read_move(value: str, label: str) -> dict[str, Any]:
    """ "120' (40')", "90' (30') / 180' (60') flying", "12", "6/18 (flying)": walking, then fly or swim."""
    rates: dict[str, int] = {}
    value = value.replace('"', "")  # AD&D's inches: 12" is a human's, as S&W's 12
    in_feet = "'" in value
    for piece in value.split("/"):
        piece = piece.strip().lower().rstrip(".")
        match = _RATE.match(piece)
        word_first = _RATE_WORD_FIRST.match(piece)
        if match is not None:
            number, mode = match.group(1), match.group(3)
        elif word_first is not None:
            number, mode = word_first.group(2), word_first.group(1)
        else:
            raise StatBlockError(
                f"stat block part {_part(label, value)!r}: movement {piece!r} is not like \"120' (40')\" or '12'"
            )
        key = "move" if not mode else ("fly" if mode.startswith("fly") else "swim")
        if key in rates:
            raise StatBlockError(f"stat block part {_part(label, value)!r}: say which rate is fly or swim")
        rates[key] = _scaled_rate(int(number), feet=in_feet or int(number) > 50)
    return rates


def _scaled_rate(rate: int, feet: bool) -> int:
    """GAP-STAT-LINE: a human's rate (OSE 120', S&W 12) is the engine's 30 ft a round (ODD-MOVE-1)."""
    human = OSE_HUMAN_RATE if feet else SW_HUMAN_RATE
    return rate * HUMAN_RATE_FEET // human


def _read_saves(value: str, label: str) -> dict[str, Any]:
    if re.fullmatch(r"\d+", value):  # S&W: one saving throw
        return {"saves": {"save": int(value)}}
    match = _OSE_SAVES.match(value)
    if match is None and _SAVES_AS.match(value):  # B/X's "Save F1", "NM": saves as a class; left out
        return {}
    if match is None:
        raise StatBlockError(
            f"stat block part {_part(label, value)!r}: saves are not like 'D10 W11 P12 B13 S14 (3)' or '13'"
        )
    saves = {SAVE_NAMES[k.upper()]: int(n) for k, n in re.findall(r"([DWPBS])\s*(\d+)", match.group(1), re.I)}
    return {"saves": saves}


def _read_morale(value: str, label: str) -> dict[str, Any]:
    if not re.fullmatch(r"\d+", value) or not 2 <= int(value) <= 12:
        raise StatBlockError(f"stat block part {_part(label, value)!r}: morale is a number from 2 to 12")
    return {"morale": int(value)}


def _int(text: str | None) -> int | None:
    return None if text is None else int(text.replace("−", "-").replace("+", ""))


_READERS = {
    "ac": _read_ac,
    "hd": _read_hd,
    "attacks": _read_attacks,
    "thac0": _read_thac0,
    "move": _read_move,
    "saves": _read_saves,
    "morale": _read_morale,
    "count": _read_count,
    "damage": _read_damage,
    "hp": _read_hp,
    "size": _read_size,
}


def ac_in_convention(text: str, descending: bool) -> int:
    """An AC written "6 [13]" (descending [ascending]), "6" or "[13]", in the ruleset's convention
    (issue 15, item 1; GAP-STAT-LINE for the notation not given)."""
    match = _AC.match(" ".join(str(text).replace("−", "-").split()))
    if match is None or match.group(0) == "":
        raise StatBlockError(f"AC {text!r} is not like '6 [13]' (descending [ascending]), '6' or '[13]'")
    dac, aac = _int(match.group(1)), _int(match.group(2))
    found = StatBlock(ac_descending=dac, ac_ascending=aac).ac(descending)
    assert found is not None  # the match holds one number at least
    return found


def split_blocks(text: str) -> list[tuple[str, str]]:
    """Pasted text → (name, stat line) per paragraph: the name on the paragraph's first line."""
    blocks: list[tuple[str, str]] = []
    for paragraph in re.split(r"\n\s*\n", text.replace("\r\n", "\n")):
        lines = [line.strip() for line in paragraph.strip().splitlines() if line.strip()]
        if not lines:
            continue
        if len(lines) == 1:
            raise StatBlockError(
                f"paragraph {lines[0][:60]!r}: give the name on its own first line, then the stat line"
            )
        blocks.append((lines[0].rstrip(":"), _joined(lines[1:])))
    return blocks


def _joined(lines: list[str]) -> str:
    """A block's lines as one stat line: a line that starts with a label starts a part (Moldvay's entries
    put each on its own line: `Armor Class: 6` / `Hit Dice: 1` / …); any other goes on the line before."""
    text = lines[0]
    for line in lines[1:]:
        text += f"; {line}" if _LABEL.match(line) and not text.rstrip().endswith((",", ";")) else f" {line}"
    return text
