"""What a rule sees when it is asked about one attack: the :class:`AttackContext`.

A rule module contributes small pure functions of the context; :mod:`referee.rules.registry` lists
them, in order, by kind:

- to-hit rules (``ModifierRule``): modifiers to the attacker's roll (MOD-GEN-1: kept apart from AC);
- AC rules: protection bonuses to the defender's AC for this attack (positive = harder to hit,
  in either AC convention);
- damage rules: modifiers to the damage of a hit;
- defence-loss rules (``LossRule``): reasons the defender loses its Dex and/or shield to AC.

The attack planner (:mod:`referee.rules.attack`) asks every listed function, so a rule is written
once and serves the live roll, the exact odds and the simulator alike. The context holds read-only
views of the fight (:mod:`referee.rules.view`), never the engine's state.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from referee.checks import Modifier
from referee.errors import IllegalActionError
from referee.model import Weapon, WeaponKind
from referee.rules.options import ArmourClass
from referee.rules.ruleset import Ruleset
from referee.rules.view import CombatantView, FightView
from referee.vocabulary import CONCEALMENT_DEGREES as CONCEALMENT_DEGREES
from referee.vocabulary import COVER_DEGREES as COVER_DEGREES
from referee.vocabulary import degree as degree


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

    def __hash__(self) -> int:
        """The hash of the fields, worked out once: the engine keys each step's attacks by their situation."""
        found: int | None = self.__dict__.get("_hash")
        if found is None:
            found = hash((self.distance, self.cover, self.concealment, self.modifiers, self.ac_modifiers,
                          self.flags, self.rulings))  # fmt: skip
            object.__setattr__(self, "_hash", found)
        return found

    def __getstate__(self) -> dict[str, object]:
        """Pickled without the kept hash (another process hashes strings otherwise)."""
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

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

    state: FightView
    attacker: CombatantView
    defender: CombatantView
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
        return self.ruleset.armour_class is ArmourClass.DESCENDING


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
