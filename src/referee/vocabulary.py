"""The words an encounter file may use, and how they are read: data, not rules.

The model validates an encounter against these names on load (a bad condition, cover degree, Defence tag,
ruling band or environment value is refused with a one-line message). What a name *means* under the
ruleset's options is decided by the rule modules, which import their spellings from here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.errors import EncounterFileError

# --- conditions -------------------------------------------------------------------------------------------

CONDITIONS: dict[str, str] = {
    # ODD (000) and shared
    "prone": "lying on the ground (ODD-SIT-PRONE, MOD-COND-PRONE, MF-POS-2)",
    "defenceless": "unable to defend itself; with prone: +10 to be hit (ODD-SIT-DEFENCELESS)",
    "stunned": "stunned (ODD-SIT-STUN, MOD-COND-STUN-1)",
    "cowering": "cowering (ODD-SIT-STUN)",
    "blind": "cannot see (ODD-SIT-PRONE, ODD-SIT-INVIS, MOD-COND-BLIND-1)",
    "invisible": "cannot be seen (ODD-SIT-INVIS, MOD-COND-INVIS-1, MF-VIS-2)",
    "grappled": "held in a grapple by another (ODD-GRAP-3, MOD-COND-GRAPPLED-1)",
    "grappling": "holding another in a grapple (MOD-COND-GRAPPLED-1)",
    "charging": "charged this round: AC 4 worse (ODD-CHARGE-4) or no Dex (HR-CHARGE-5)",
    "overbearing": "tried to overbear this round: AC 2 worse (ODD-OVERB-5)",
    "surprised": "surprised (ODD-SURP-4, ODD-AC-DEX-2)",
    "mounted": "on a mount or unstable platform (ODD-SIT-MOUNT-M, ODD-SIT-MOUNT-R)",
    "casting": "casting a spell this round (ODD-ACT-CAST-1, MOD-COND-CASTING)",
    "maneuvering": "a defensive maneuver changes its AC this round (ODD-MANEUVER-1)",
    # MOD (001)
    "bound": "bound or manacled (MOD-COND-BOUND)",
    "climbing": "climbing (MOD-COND-CLIMB-1)",
    "deafened": "deafened (MOD-COND-DEAF)",
    "moderately_encumbered": "moderately encumbered (MOD-COND-ENC-2)",
    "encumbered": "encumbered (MOD-COND-ENC-1)",
    "overloaded": "overloaded (MOD-COND-ENC-3)",
    "entangled": "entangled: webs, plants, nets (MOD-COND-ENTANGLED, HR-NET-2)",
    "exhausted": "exhausted (MOD-COND-EXHAUSTED)",
    "fatigued": "fatigued (MOD-COND-FATIGUED)",
    "held": "magically held (MOD-COND-HELD)",
    "intoxicated_slight": "slightly intoxicated (MOD-COND-INTOX)",
    "intoxicated_moderate": "moderately intoxicated (MOD-COND-INTOX)",
    "intoxicated_great": "greatly intoxicated (MOD-COND-INTOX)",
    "nauseated": "nauseated (MOD-COND-NAUSEA)",
    "off_balance": "off balance (MOD-COND-OFFBAL)",
    "paralyzed": "paralysed by poison (MOD-COND-PARA-2)",
    "paralyzed_fear": "paralysed by fear (MOD-COND-PARA-1)",
    "sleeping": "magically asleep (MOD-COND-SLEEP-M)",
    "sleeping_natural": "naturally asleep (MOD-COND-SLEEP-N-1)",
    "slowed": "magically slowed (MOD-COND-SLOWED)",
    "unconscious": "unconscious (MOD-COND-UNCON, MF-KO-1)",
    # HR (002) and MF (003)
    "garrotted": "in a garrotte (HR-GARROTE-2)",
    "garrotting": "holding a garrotte on a victim (HR-GARROTE-5)",
    "netted": "caught in a net (HR-NET-2)",
    "charged_touch": "holding a touch spell that missed, still charged (HR-TOUCH-3)",
    "firing_missile": "fired a missile this round: no Dex bonus to AC (HR-MISSILE-3)",
    "withdrawing": "made a fighting withdrawal or left melee this round: no attack (HR-WITHDRAW-3)",
    "aoo_used": "has made its attack of opportunity this round (GAP-AOO)",
    "flying": "flying (MF-AIR-1)",
    "holding_breath": "holding breath (MF-DROWN-1)",
    "kneeling": "kneeling (MF-POS-3)",
}

HELPLESS = frozenset(
    {"held", "paralyzed", "paralyzed_fear", "sleeping", "sleeping_natural", "unconscious", "bound"}
)

# Conditions that tie two combatants together (holder and held): they arise from an attack and cannot
# be given at set-up, where there is no partner to name.
PAIRED = frozenset({"grappled", "grappling", "garrotted", "garrotting"})


# --- cover and concealment degrees (ODD-COVER-25..100, MOD-COVER-25..90, MF-COVER-1..3) ---------------------

COVER_DEGREES = ("none", "quarter", "half", "three_quarters", "ninety", "full")
CONCEALMENT_DEGREES = ("none", "quarter", "half", "three_quarters", "full")

_DEGREE_NAMES = {
    "0": "none", "none": "none", "no": "none",
    "25": "quarter", "1/4": "quarter", "quarter": "quarter", "one_quarter": "quarter",
    "50": "half", "1/2": "half", "half": "half",
    "75": "three_quarters", "3/4": "three_quarters", "three_quarters": "three_quarters",
    "90": "ninety", "ninety": "ninety",
    "100": "full", "full": "full", "complete": "full", "total": "full",
}  # fmt: skip


def degree(value: str | int | None, allowed: tuple[str, ...], what: str) -> str:
    """Accept `half`, `1/2`, `50`, `50%` … and return the canonical degree name."""
    if value is None:
        return "none"
    text = str(value).strip().lower().rstrip("%").replace("-", "_").replace(" ", "_")
    name = _DEGREE_NAMES.get(text)
    if name is None or name not in allowed:
        raise ValueError(f"{what} {value!r} is not one of: {', '.join(allowed)}")
    return name


# --- referee rulings (ODD-SIT-2) ---------------------------------------------------------------------------

# ODD-SIT-2: the referee's magnitude guide.
BANDS = ("easy", "difficult", "heroic")


def ruling_band(value: int) -> str:
    """ODD-SIT-2: easy up to ±5, difficult ±6..±10, heroic ±11 or more (TV-000-11: -10 is difficult)."""
    size = abs(value)
    if size <= 5:
        return "easy"
    if size <= 10:
        return "difficult"
    return "heroic"


# --- Defence tags (DAC-CIRC-2) -----------------------------------------------------------------------------

_ROMAN = {"I": 1, "V": 5, "X": 10}
_TAG = re.compile(r"^\s*defen[cs]e\s+([IVX]+|\d+)\s*\[\s*([^\]]+?)\s*\]\s*$", re.IGNORECASE)


def roman(text: str) -> int:
    """I..XX → 1..20 (subtractive pairs like IV, IX)."""
    values = [_ROMAN[c] for c in text.upper()]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def parse_defence_tag(text: str) -> dict[str, Any]:
    """`Defence IV [Giants]` → {value: 4, against: Giants} (DAC-CIRC-2)."""
    match = _TAG.match(text)
    if match is None:
        raise ValueError(f"{text!r} is not a Defence tag like 'Defence IV [Giants]'")
    number, against = match.groups()
    return {"value": int(number) if number.isdigit() else roman(number), "against": against}


# --- the encounter's environment (001's water and underwater, MOD-FOG-1, 003's drowning) ---------------------

DEPTHS = ("none", "knee", "waist", "chest", "deep")  # knee..waist, up to the chest, above the chest
FOGS = ("none", "typical")
FOG_SCALES = {"indoors": 10, "outdoors": 30}  # GAP-INCH: 1" = 10 ft indoors, 10 yards outdoors
KEYS = ("underwater", "water_depth", "depths", "fog", "fog_scale", "drowning")


@dataclass(frozen=True)
class Environment:
    underwater: bool = False
    water_depth: str = "none"
    depths: tuple[tuple[str, str], ...] = ()  # per-combatant depth overriding `water_depth`
    fog: str = "none"
    inch_feet: int = 10
    drowning: bool = True  # 003's drowning: non-aquatic creatures underwater hold their breath

    def depth_of(self, name: str) -> str:
        return dict(self.depths).get(name, self.water_depth)


def _choice(data: Mapping[str, Any], key: str, allowed: tuple[str, ...], default: str) -> str:
    value = data.get(key, default)
    text = str(value).strip().lower()
    if text not in allowed:
        raise EncounterFileError(f"environment.{key}: {value!r} is not one of: {', '.join(allowed)}")
    return text


def _flag(data: Mapping[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise EncounterFileError(f"environment.{key}: expected true or false, not {value!r}")
    return value


def parse_environment(data: Mapping[str, Any]) -> Environment:
    """Validate the encounter's `environment:` mapping (EncounterFileError with a one-line message)."""
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise EncounterFileError(f"environment: unknown key {unknown[0]!r}; known: {', '.join(KEYS)}")
    depths = data.get("depths", {}) or {}
    if not isinstance(depths, Mapping):
        raise EncounterFileError("environment.depths: expected a mapping of combatant name to depth")
    per = tuple((str(k), _choice(depths, str(k), DEPTHS, "none")) for k in depths)
    scale = _choice(data, "fog_scale", tuple(FOG_SCALES), "indoors")
    return Environment(
        underwater=_flag(data, "underwater", False),
        water_depth=_choice(data, "water_depth", DEPTHS, "none"),
        depths=per,
        fog=_choice(data, "fog", FOGS, "none"),
        inch_feet=FOG_SCALES[scale],
        drowning=_flag(data, "drowning", True),
    )
