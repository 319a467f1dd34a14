"""What a rule sees when it is asked about one attack, and the registries rules add themselves to.

A rule module contributes small pure functions:

- ``@to_hit_rule``: modifiers to the attacker's roll (MOD-GEN-1: kept apart from AC);
- ``@ac_rule``: protection bonuses to the defender's AC for this attack (positive = harder to hit,
  in either AC convention);
- ``@damage_rule``: modifiers to the damage of a hit;
- ``@defence_loss_rule``: reasons the defender loses its Dex and/or shield to AC for this attack.

The attack planner (:mod:`referee.rules.attack`) asks every registered function, so a rule is written
once and serves the live roll, the exact odds and the simulator alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from referee.checks import Modifier
from referee.errors import IllegalActionError
from referee.model import Weapon, WeaponKind
from referee.rules.ruleset import Ruleset

if TYPE_CHECKING:
    from referee.engine.state import CombatantState, FightState


class AttackForm(StrEnum):
    """How the blow is delivered (ODD-UNARMED-2 for the special unarmed forms)."""

    MELEE = "melee"
    RANGED = "ranged"
    GRAPPLE = "grapple"
    PUMMEL = "pummel"
    OVERBEAR = "overbear"
    TOUCH = "touch"

    @property
    def is_unarmed_special(self) -> bool:
        return self in {AttackForm.GRAPPLE, AttackForm.PUMMEL, AttackForm.OVERBEAR, AttackForm.TOUCH}


COVER_DEGREES = ("none", "quarter", "half", "three_quarters", "ninety", "full")
CONCEALMENT_DEGREES = ("none", "quarter", "half", "three_quarters", "full")


def degree(value: str | int | None, allowed: tuple[str, ...], what: str) -> str:
    """Accept `half`, `1/2`, `50`, `50%` … and return the canonical degree name."""
    if value is None:
        return "none"
    text = str(value).strip().lower().rstrip("%").replace("-", "_").replace(" ", "_")
    names = {
        "0": "none", "none": "none", "no": "none",
        "25": "quarter", "1/4": "quarter", "quarter": "quarter", "one_quarter": "quarter",
        "50": "half", "1/2": "half", "half": "half",
        "75": "three_quarters", "3/4": "three_quarters", "three_quarters": "three_quarters",
        "90": "ninety", "ninety": "ninety",
        "100": "full", "full": "full", "complete": "full", "total": "full",
    }  # fmt: skip
    name = names.get(text)
    if name is None or name not in allowed:
        raise ValueError(f"{what} {value!r} is not one of: {', '.join(allowed)}")
    return name


@dataclass(frozen=True)
class Situation:
    """The referee's description of one attack's circumstances (all optional).

    `modifiers` are free to-hit modifiers with a reason (ODD-SIT-1, ODD-SIT-2); `ac_modifiers` are
    referee adjustments to the defender's AC (ODD-MANEUVER-1, ODD-AC-SIT), positive = harder to hit.
    `flags` name further circumstances a rule module understands (e.g. "rear", "flank", "higher").
    `rulings` name the encounter's stored rulings (ODD-SIT-1) that the attack context adds in
    (:meth:`with_rulings`).
    """

    distance: int | None = None  # feet; None = the encounter's default distance or grid distance
    cover: str = "none"
    concealment: str = "none"
    modifiers: tuple[Modifier, ...] = ()
    ac_modifiers: tuple[Modifier, ...] = ()
    flags: frozenset[str] = field(default_factory=frozenset)
    rulings: tuple[str, ...] = ()

    def has(self, flag: str) -> bool:
        return flag in self.flags

    def with_rulings(self, known: Mapping[str, Situation]) -> Situation:
        """ODD-SIT-1: this situation with the named stored rulings merged in, in the order named.

        Their modifiers and flags are added; cover and concealment come from the first ruling that gives
        them when this situation gives none. An unknown name is refused with the known names."""
        merged = self
        for name in self.rulings:
            ruling = known.get(name)
            if ruling is None:
                names = ", ".join(sorted(known)) or "none in this encounter"
                raise IllegalActionError(f"unknown ruling {name!r}; rulings: {names}")
            merged = Situation(
                distance=merged.distance,
                cover=merged.cover if merged.cover != "none" else ruling.cover,
                concealment=merged.concealment if merged.concealment != "none" else ruling.concealment,
                modifiers=merged.modifiers + ruling.modifiers,
                ac_modifiers=merged.ac_modifiers + ruling.ac_modifiers,
                flags=merged.flags | ruling.flags,
            )
        return merged


@dataclass(frozen=True)
class AttackContext:
    """Everything a rule may look at for one attack. Rules must not change anything here."""

    state: FightState
    attacker: CombatantState
    defender: CombatantState
    weapon: Weapon
    form: AttackForm
    situation: Situation
    charge: bool = False
    distance: int = 5
    free_attack: bool = False  # a free attack (fumble, attack of opportunity): uses no action

    @property
    def ruleset(self) -> Ruleset:
        return self.state.setup.ruleset

    @property
    def round(self) -> int:
        return self.state.round

    @property
    def is_ranged(self) -> bool:
        return self.form is AttackForm.RANGED

    @property
    def is_melee(self) -> bool:
        return not self.is_ranged

    @property
    def is_thrown(self) -> bool:
        return self.is_ranged and self.weapon.kind is not WeaponKind.PROPELLED

    @property
    def descending(self) -> bool:
        return self.ruleset["armour_class"] == "descending"

    def option(self, name: str) -> str:
        return self.ruleset[name]


@dataclass(frozen=True)
class DefenceLoss:
    """The defender loses `what` ("dex", "shield" or "both") to AC for this attack."""

    what: str
    rule: str
    reason: str

    @property
    def dex(self) -> bool:
        return self.what in {"dex", "both"}

    @property
    def shield(self) -> bool:
        return self.what in {"shield", "both"}


ModifierRule = Callable[[AttackContext], Iterable[Modifier]]
LossRule = Callable[[AttackContext], Iterable[DefenceLoss]]

TO_HIT_RULES: list[ModifierRule] = []
AC_RULES: list[ModifierRule] = []
DAMAGE_RULES: list[ModifierRule] = []
DEFENCE_LOSS_RULES: list[LossRule] = []


def to_hit_rule(fn: ModifierRule) -> ModifierRule:
    TO_HIT_RULES.append(fn)
    return fn


def ac_rule(fn: ModifierRule) -> ModifierRule:
    AC_RULES.append(fn)
    return fn


def damage_rule(fn: ModifierRule) -> ModifierRule:
    DAMAGE_RULES.append(fn)
    return fn


def defence_loss_rule(fn: LossRule) -> LossRule:
    DEFENCE_LOSS_RULES.append(fn)
    return fn
