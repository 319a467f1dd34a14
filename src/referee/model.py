"""The things a fight is made of, validated on load (frozen msgspec structs, :mod:`referee.structs`).

`*Spec` classes are what an encounter file says (field names are the file's contract). :class:`Combatant`
is a spec resolved against the catalog: weapons, armour and shield filled in, derived numbers known.
The changing state of a fight (hit points, conditions) lives in :mod:`referee.engine.state`.

Each class checks what its fields' types and bounds cannot say in ``BEFORE`` (a raw value made readable),
``CHECKS`` (a read field checked and normalised) and ``check_across`` (across fields).
"""

import re
from enum import IntEnum, StrEnum
from typing import Annotated, Any, ClassVar, Literal

from msgspec import Meta, field

from referee.classes import class_named
from referee.dice import parse_dice
from referee.errors import DiceError
from referee.structs import FieldFunction, Spec, each, leniently
from referee.vocabulary import (
    CONCEALMENT_DEGREES,
    CONDITIONS,
    COVER_DEGREES,
    PAIRED,
    degree,
    parse_defence_tag,
    parse_environment,
    ruling_band,
)


class Size(IntEnum):
    """Size ladder (GAP-SIZE): halfling Small, human Medium, troll and stone giant Large."""

    TINY = 0
    SMALL = 1
    MEDIUM = 2
    LARGE = 3
    HUGE = 4
    GARGANTUAN = 5

    @classmethod
    def parse(cls, value: Any) -> "Size":
        if isinstance(value, Size):
            return value
        if isinstance(value, int):
            return cls(value)
        try:
            return cls[str(value).strip().upper()]
        except KeyError:
            raise ValueError(
                f"unknown size {value!r}; sizes: {', '.join(s.name.lower() for s in cls)}"
            ) from None


class WeaponKind(StrEnum):
    MELEE = "melee"
    THROWN = "thrown"  # ODD-RANGED-2: Str adds to damage
    PROPELLED = "propelled"  # ODD-RANGED-2: no Str to damage


class DamageType(StrEnum):
    THRUSTING = "thrusting"
    SLASHING = "slashing"
    CRUSHING = "crushing"


def _check_dice(value: Any) -> str:
    text = str(value).strip()
    try:
        parse_dice(text)
    except DiceError as exc:
        raise ValueError(str(exc)) from None
    return text


class WeaponSpec(Spec, frozen=True):
    """A weapon; any field not given is taken from the catalog entry of the same name."""

    name: Annotated[str, Meta(min_length=1, max_length=80)]
    damage: str | None = None
    kind: WeaponKind | None = None
    range: Annotated[int, Meta(ge=0, le=10000)] | None = None  # range increment in feet
    reach: Annotated[int, Meta(ge=0, le=100)] | None = None  # feet
    type: list[DamageType] | None = None
    two_handed: bool | None = None
    set_vs_charge: bool | None = None
    throwable: bool | None = None  # a melee weapon that may also be thrown (dagger, spear)
    natural: bool | None = None  # claws, bites, a monk's strikes: never pummelling (ODD-UNARMED-2)
    to_hit: Annotated[int, Meta(ge=-20, le=20)] = 0  # magic weapon bonus (ODD-MELEE-3)
    damage_bonus: Annotated[int, Meta(ge=-20, le=20)] = 0
    bolt: bool | None = None  # crossbow bolts fly on to long range (ODD-RANGED-5)
    assumed: bool = False  # catalog value not given by the seeds

    CHECKS: ClassVar[dict[str, FieldFunction]] = {"damage": lambda value: _damage_is_dice(value)}


def _damage_is_dice(value: str | None) -> str | None:
    if value is not None and re.fullmatch(r"\s*\d*d\d+(\s*/\s*\d*d\d+)+\s*", str(value)):
        # "1d3/1d3/1d6" is a stat line's claw/claw/bite, not one division (issue 15)
        raise ValueError(
            f"damage {value!r} lists several attacks; give each its weapon and name them in"
            " `attacks:` (e.g. attacks: [claw, claw, bite]), or paste the line as `stat_block:`"
        )
    return None if value is None else _check_dice(value)


class ArmourSpec(Spec, frozen=True):
    """Worn armour: its ascending AC bonus and its descending AC value (AAC = 20 - DAC, RULES.md 1.3)."""

    name: Annotated[str, Meta(min_length=1, max_length=80)]
    ac_bonus: Annotated[int, Meta(ge=-10, le=30)] | None = None  # ascending: +5 for chain (ODD-AC-ARMOR)
    ac: Annotated[int, Meta(ge=-30, le=10)] | None = None  # descending value: chain 5 (DAC-EQ-1)
    enhancement: Annotated[int, Meta(ge=0, le=10)] = 0
    magical: bool = False
    assumed: bool = False


class ShieldSpec(Spec, frozen=True):
    name: Annotated[str, Meta(min_length=1, max_length=80)]
    attackers: Annotated[int, Meta(ge=0, le=10)] | None = None  # ODD-AC-SHIELD: small 1, medium 2, large 3
    bonus: Annotated[int, Meta(ge=0, le=10)] | None = None  # +1 AC (ODD-AC-SHIELD)
    deflection: Annotated[int, Meta(ge=0, le=10)] | None = None  # DAC-DEFL-1
    uses: Annotated[int, Meta(ge=0, le=10)] | None = None  # DAC-DEFL-3 (GAP-SHIELD-USES)
    enhancement: Annotated[int, Meta(ge=0, le=10)] = 0
    magical: bool = False
    assumed: bool = False


class ProtectionSpec(Spec, frozen=True):
    """A ring, cloak or spell that improves AC (ODD-AC-MAGIC-1; DAC enhancement)."""

    name: Annotated[str, Meta(min_length=1, max_length=80)]
    enhancement: Annotated[int, Meta(ge=-10, le=10)] = 1


class DefenceSpec(Spec, frozen=True):
    """A Defence tag, "Defence IV [Giants]": `value` points of AC against attackers of a type (DAC-CIRC-2)."""

    value: Annotated[int, Meta(ge=1, le=20)]
    against: Annotated[str, Meta(min_length=1, max_length=40)]

    @classmethod
    def before(cls, data: Any) -> Any:
        """A tag's text, `Defence IV [Giants]`, read as its fields (ValueError if it is no tag)."""
        return parse_defence_tag(data) if isinstance(data, str) else super().before(data)


_ABILITY = Annotated[int, Meta(ge=1, le=25)]


class Abilities(
    Spec,
    frozen=True,
    rename={
        "strength": "str",
        "dexterity": "dex",
        "constitution": "con",
        "intelligence": "int",
        "wisdom": "wis",
        "charisma": "cha",
    },
):
    """The six ability scores, written `str`, `dex` … (or by their names)."""

    strength: _ABILITY = 10
    dexterity: _ABILITY = 10
    constitution: _ABILITY = 10
    intelligence: _ABILITY = 10
    wisdom: _ABILITY = 10
    charisma: _ABILITY = 10


class ModifierSpec(Spec, frozen=True):
    """A referee's modifier with its reason (ODD-SIT-1); `band` labels its size (ODD-SIT-2)."""

    value: Annotated[int, Meta(ge=-50, le=50)]
    reason: Annotated[str, Meta(min_length=1, max_length=120)]
    rule: Annotated[str, Meta(max_length=40)] | None = None
    band: Literal["easy", "difficult", "heroic"] | None = None

    def check_across(self) -> None:
        if self.band is not None and ruling_band(self.value) != self.band:
            raise ValueError(
                f"a {self.value:+d} modifier is {ruling_band(self.value)}, not {self.band} (ODD-SIT-2)"
            )


class RulingSpec(Spec, frozen=True):
    """A referee's named ruling (ODD-SIT-1), stored in the file's `rulings:` for reuse: the fields of a
    situation (to-hit and AC modifiers with reasons, flags, cover, concealment)."""

    cover: str | int | None = None
    concealment: str | int | None = None
    flags: list[Annotated[str, Meta(min_length=1, max_length=40)]] = []
    modifiers: list[ModifierSpec] = []
    ac_modifiers: list[ModifierSpec] = []

    CHECKS: ClassVar[dict[str, FieldFunction]] = {
        "cover": lambda value: None if value is None else degree(value, COVER_DEGREES, "cover"),
        "concealment": lambda value: (
            None if value is None else degree(value, CONCEALMENT_DEGREES, "concealment")
        ),
    }


RulingName = Annotated[str, Meta(min_length=1, max_length=60)]


class SituationSpec(RulingSpec, frozen=True):
    """Standing circumstances of a combatant's attacks, as an action's `situation` (cover, flags...);
    `rulings` names rulings of the file's `rulings:` to add (ODD-SIT-1)."""

    rulings: Annotated[list[RulingName], Meta(max_length=20)] = []


class TacticSpec(Spec, frozen=True):
    """How `referee fight` steers a combatant nobody steers: its maneuver (docs/encounter-file.md)."""

    maneuver: Literal["attack", "charge", "grapple", "pummel", "overbear", "touch", "hold"] = "attack"
    target: Annotated[str, Meta(min_length=1, max_length=60)] | None = None
    weapon: Annotated[str, Meta(min_length=1, max_length=80)] | None = None
    rounds: list[Annotated[int, Meta(ge=1, le=1000)]] | None = None  # rounds to use it in; None = every round
    distance: Annotated[int, Meta(ge=0, le=10000)] | None = None  # feet to the target without grid positions
    situation: SituationSpec = field(default_factory=lambda: SituationSpec())


class InitialCondition(Spec, frozen=True):
    """A condition a combatant starts with: `prone`, or `{name: stunned, rounds: 2}` (to the end of round 2)."""

    name: Annotated[str, Meta(min_length=1, max_length=40)]
    rounds: Annotated[int, Meta(ge=1, le=1000)] | None = None

    CHECKS: ClassVar[dict[str, FieldFunction]] = {"name": lambda value: _known_condition(value)}


def _known_condition(value: str) -> str:
    if value not in CONDITIONS:
        raise ValueError(f"unknown condition {value!r}; conditions: {', '.join(sorted(CONDITIONS))}")
    if value in PAIRED:
        raise ValueError(
            f"condition {value!r} needs a partner in the fight; it arises from an attack, not at set-up"
        )
    return value


_HD = re.compile(r"^\s*(\d+)\s*(?:d\s*(\d+))?\s*([+-]\s*\d+)?\s*$")


class CombatantSpec(Spec, frozen=True, rename={"character_class": "class"}):
    """One combatant (or `count` identical ones) as the encounter file gives it."""

    name: Annotated[str, Meta(min_length=1, max_length=60)]
    count: Annotated[int, Meta(ge=1, le=100)] = 1
    kind: Literal["character", "monster"] | None = None
    level: Annotated[int, Meta(ge=0, le=40)] | None = None
    attack_bonus: Annotated[int, Meta(ge=-10, le=40)] | None = None
    hit_dice: str | int | None = None  # monsters: "5d8", "3+1", 5 (d8s), "1d6"
    hit_die: str | None = None  # characters: the class die, e.g. "d10"; hp = level such dice
    # fighter | cleric | magic-user | thief: with `level`, the to-hit bonus and hit die (referee.classes)
    character_class: Annotated[str, Meta(min_length=1, max_length=30)] | None = None
    hp: Annotated[int, Meta(ge=1, le=10000)] | None = None
    abilities: Abilities = field(default_factory=lambda: Abilities())
    size: Size = Size.MEDIUM
    move: Annotated[int, Meta(ge=0, le=1000)] = 30
    swim: Annotated[int, Meta(ge=0, le=1000)] | None = None
    fly: Annotated[int, Meta(ge=0, le=1000)] | None = None
    aquatic: bool = False
    armour: str | ArmourSpec | None = None
    shield: str | ShieldSpec | None = None
    ac: Annotated[int, Meta(ge=-30, le=60)] | None = None  # explicit AC in the ruleset's convention
    natural_armour: Annotated[int, Meta(ge=-30, le=10)] | None = None  # DAC-NAT-1
    armour_layers: list[str | ArmourSpec] = []  # suits worn with `armour`; only the best counts (DAC-EQ-4)
    off_hand_shield: str | ShieldSpec | None = None  # a second shield (DAC-DEFL-5)
    defences: list[DefenceSpec | str] = []  # {value: 4, against: giant} or "Defence IV [Giants]" (DAC-CIRC-2)
    creature_type: str | list[str] | None = None  # e.g. giant, or [undead, giant] (for Defence tags)
    protection: list[ProtectionSpec] = []
    proficiencies: list[str] = []
    weapons: list[str | WeaponSpec] = []
    # ODD-ATK-3: the attack routine one attack action makes (claw, claw, bite), weapon names; default: one
    # attack with the first weapon (engine/routines.py)
    attacks: Annotated[list[Annotated[str, Meta(min_length=1, max_length=80)]], Meta(max_length=12)] = []
    position: tuple[int, int] | None = None  # squares on a 5-foot grid (ODD-MOVE-4)
    conditions: list[str | InitialCondition] = []
    proficient: bool = True
    hidden: bool = False  # not shown on the players' view
    tactic: TacticSpec | None = None  # how `referee fight` steers it (docs/encounter-file.md)
    sacrifice_shield: bool = False  # HR-ARMDMG-4: a critical's armour damage destroys the shield instead
    # issue 15: a bestiary monster or a pasted stat line fills the other fields (referee.bestiary), which
    # override it; saves and morale are recorded from them (no rule uses them yet)
    monster: Annotated[str, Meta(min_length=1, max_length=80)] | None = None
    stat_block: Annotated[str, Meta(min_length=1, max_length=2000)] | None = None
    saves: dict[Annotated[str, Meta(max_length=20)], Annotated[int, Meta(ge=1, le=30)]] = {}
    morale: Annotated[int, Meta(ge=2, le=12)] | None = None
    # issue 15: AC in one notation, read into `ac` in the ruleset's convention before validation
    # (referee.bestiary); `ac` itself may be written "6 [13]" (descending [ascending]) there
    ac_descending: Annotated[int, Meta(ge=-30, le=30)] | None = None
    ac_ascending: Annotated[int, Meta(ge=-30, le=60)] | None = None

    BEFORE: ClassVar[dict[str, FieldFunction]] = {
        "size": Size.parse,
        "abilities": leniently(Abilities.before),
    }
    CHECKS: ClassVar[dict[str, FieldFunction]] = {
        "conditions": lambda value: _known_conditions(value),
        "defences": lambda value: [
            DefenceSpec.model_validate(item) if isinstance(item, str) else item for item in value
        ],
        "hit_dice": lambda value: _hit_dice(value),
        "character_class": lambda value: None if value is None else class_named(value).name,
        "hit_die": lambda value: _hit_die(value),
    }

    def check_across(self) -> None:
        self._attacks_name_weapons()
        self._needs_hit_points()

    def _attacks_name_weapons(self) -> None:
        """ODD-ATK-3: every attack of the routine is one of the combatant's weapons (or bare hands)."""
        carried = {(w if isinstance(w, str) else w.name).lower() for w in self.weapons}
        for name in self.attacks:
            if name.lower() not in carried | {"unarmed", "fist", "hands"}:
                names = ", ".join(w if isinstance(w, str) else w.name for w in self.weapons) or "none"
                raise ValueError(f"{self.name}: attack {name!r} is not one of its weapons ({names})")

    def _needs_hit_points(self) -> None:
        die = self.hit_die or self.character_class
        if self.hp is None and self.hit_dice is None and (die is None or self.level is None):
            raise ValueError(f"{self.name}: give hp, hit_dice, or level with hit_die or class")

    @property
    def is_monster(self) -> bool:
        if self.kind is not None:
            return self.kind == "monster"
        return self.hit_dice is not None and self.level is None


def _known_conditions(value: list[str | InitialCondition]) -> list[str | InitialCondition]:
    for item in value:
        if isinstance(item, str):
            InitialCondition(name=item)  # the same one-line error for an unknown name
    return value


def _hit_dice(value: str | int | None) -> str | None:
    if value is None:
        return None
    if isinstance(value, int):
        if value < 0 or value > 100:
            raise ValueError("hit_dice must be between 0 and 100")
        return f"{value}d8" if value else "1d4"
    if len(value) > 40 or not _HD.match(value):  # a 5,000-digit count is no number Python reads
        raise ValueError(f"hit_dice {value[:40]!r} is not like '5d8', '3+1' or 5")
    _check_dice(hit_dice_expression(value))  # within the dice limits (9999999999999999+1 is not)
    return value.replace(" ", "")


def _hit_die(value: str | None) -> str | None:
    if value is None:
        return None
    text = value.strip().lower()
    if not re.fullmatch(r"1?d\d+", text):
        raise ValueError(f"hit_die {value!r} is not one die like 'd10'")
    return text.removeprefix("1")


class SideSpec(Spec, frozen=True):
    name: Annotated[str, Meta(min_length=1, max_length=60)]
    combatants: Annotated[list[CombatantSpec], Meta(min_length=1)]

    BEFORE: ClassVar[dict[str, FieldFunction]] = {"combatants": each(CombatantSpec.before)}


class SurpriseSpec(Spec, frozen=True):
    """The referee's surprise ruling (ODD-SURP-1..3; MF-VIS-7 for a stealthy attacker sneaking up on an
    unaware enemy): who may be surprised and how they check."""

    possible: bool = True
    sides: list[str] = []  # sides that could be surprised
    check: Literal["per_side", "per_combatant"] = "per_side"
    modifiers: dict[str, int] = {}  # side name -> modifier to its Wisdom checks (ODD-SURP-3)


class EncounterSpec(Spec, frozen=True, kw_only=True):
    name: Annotated[str, Meta(min_length=1, max_length=120)] = "Encounter"
    ruleset: str = "odd"
    options: dict[str, Any] = {}
    sides: Annotated[list[SideSpec], Meta(min_length=2, max_length=20)]
    surprise: SurpriseSpec | None = None
    max_rounds: Annotated[int, Meta(ge=1, le=1000)] = 100
    distance: Annotated[int, Meta(ge=0, le=10000)] = 5  # feet between the sides when nobody has a position
    environment: dict[str, Any] = {}
    rulings: Annotated[dict[RulingName, RulingSpec], Meta(max_length=100)] = {}  # ODD-SIT-1, for reuse
    # the players' sides: the tracker's players' view shows their numbers only (default: the first side)
    players: Annotated[list[str], Meta(max_length=20)] = []
    # a referee's own catalog (issue 15, referee.catalog.own): a file's name, or the catalog itself
    catalog: Annotated[str, Meta(min_length=1, max_length=400)] | dict[str, Any] | None = None

    BEFORE: ClassVar[dict[str, FieldFunction]] = {"sides": each(SideSpec.before)}
    CHECKS: ClassVar[dict[str, FieldFunction]] = {"environment": lambda value: _environment(value)}

    def check_across(self) -> None:
        seen: set[str] = set()
        for side in self.sides:
            if side.name in seen:
                raise ValueError(f"two sides are called {side.name!r}")
            seen.add(side.name)
        names: set[str] = set()
        for side in self.sides:
            for c in side.combatants:
                for name in expand_names(c):
                    if name in names:
                        raise ValueError(f"two combatants are called {name!r}")
                    names.add(name)
        if self.surprise is not None:
            for name in [*self.surprise.sides, *self.surprise.modifiers]:
                if name not in seen:
                    raise ValueError(f"surprise names side {name!r}, which is not in the encounter")
        for name in self.players:
            if name not in seen:
                raise ValueError(f"players names side {name!r}, which is not in the encounter")
        for side in self.sides:
            for c in side.combatants:
                for ruling in c.tactic.situation.rulings if c.tactic else []:
                    if ruling not in self.rulings:
                        known = ", ".join(self.rulings) or "none"
                        raise ValueError(
                            f"{c.name}'s tactic names unknown ruling {ruling!r}; rulings: {known}"
                        )


def _environment(value: dict[str, Any]) -> dict[str, Any]:
    parse_environment(value)  # a bad depth, fog or flag is refused on load
    return value


def expand_names(spec: CombatantSpec) -> list[str]:
    """`count: 3` of Goblin → Goblin 1, Goblin 2, Goblin 3."""
    if spec.count == 1:
        return [spec.name]
    return [f"{spec.name} {i}" for i in range(1, spec.count + 1)]


def hit_dice_count(hit_dice: str) -> int:
    """Number of hit dice: "5d8" → 5, "3+1" → 3, "1d6" → 1 (ODD-BTH-2, GAP-FRACTIONAL-HD)."""
    match = _HD.match(hit_dice)
    return int(match.group(1)) if match else 0


def hit_dice_expression(hit_dice: str) -> str:
    """ "3+1" → "3d8+1"; "5d8" unchanged (ODD-HD-2)."""
    match = _HD.match(hit_dice)
    if match is None:
        return hit_dice
    count, sides, plus = match.groups()
    return f"{count}d{sides or 8}{(plus or '').replace(' ', '')}"


class Weapon(Spec, frozen=True):
    """A weapon with every field filled in (catalog merged with the encounter file's overrides)."""

    name: str
    damage: str
    kind: WeaponKind
    range: int | None = None
    reach: int = 5
    type: tuple[DamageType, ...] = ()
    two_handed: bool = False
    set_vs_charge: bool = False
    throwable: bool = False
    natural: bool = False
    to_hit: int = 0
    damage_bonus: int = 0
    bolt: bool = False
    assumed: bool = False

    @property
    def is_ranged(self) -> bool:
        return self.kind is not WeaponKind.MELEE

    def can_throw(self) -> bool:
        return self.kind is WeaponKind.THROWN or self.throwable


class Combatant(Spec, frozen=True):
    """A combatant as the engine sees it: one named creature with its gear resolved."""

    name: str
    side: str
    is_monster: bool
    level: int = 0
    attack_bonus: int = 0  # basic to-hit bonus (ODD-BTH-1, ODD-BTH-2)
    hit_dice: int = 0
    hp: int | None = None  # fixed hit points, or None to roll `hp_dice`
    hp_dice: str | None = None
    abilities: Abilities = field(default_factory=lambda: Abilities())
    size: Size = Size.MEDIUM
    move: int = 30
    swim: int | None = None
    fly: int | None = None
    aquatic: bool = False
    armour: ArmourSpec | None = None
    shield: ShieldSpec | None = None
    ac: int | None = None
    natural_armour: int | None = None
    armour_layers: tuple[ArmourSpec, ...] = ()
    off_hand_shield: ShieldSpec | None = None
    defences: tuple[DefenceSpec, ...] = ()
    creature_types: tuple[str, ...] = ()
    protection: tuple[ProtectionSpec, ...] = ()
    proficiencies: tuple[str, ...] = ()
    weapons: tuple[Weapon, ...] = ()
    attacks: tuple[str, ...] = ()  # ODD-ATK-3: the attack routine (weapon names); () = the first weapon
    position: tuple[int, int] | None = None
    conditions: tuple[str, ...] = ()
    condition_rounds: tuple[tuple[str, int], ...] = ()  # initial conditions that end after N rounds
    proficient: bool = True
    hidden: bool = False
    tactic: TacticSpec | None = None
    sacrifice_shield: bool = False

    @property
    def crit_level(self) -> int:
        """Level for MF-CRIT-2: character level, or hit dice for monsters (GAP-MONSTER-LEVEL)."""
        return self.hit_dice if self.is_monster else self.level

    def weapon(self, name: str | None) -> Weapon:
        """The named weapon, the first one carried, or bare hands."""
        from referee.errors import IllegalActionError

        if name is None and self.attacks:
            name = self.attacks[0]  # ODD-ATK-3: the routine's first attack is the default one
        if name is None:
            return self.weapons[0] if self.weapons else UNARMED
        for w in self.weapons:
            if w.name.lower() == name.lower():
                return w
        if name.lower() in {"unarmed", "fist", "hands"}:
            return UNARMED
        raise IllegalActionError(
            f"{self.name} has no weapon {name!r}; carried: {', '.join(w.name for w in self.weapons) or 'none'}"
        )


UNARMED = Weapon(name="unarmed", damage="1d2", kind=WeaponKind.MELEE, type=(DamageType.CRUSHING,))
