"""Surprise (ODD-SURP-1..5): the referee's ruling, Wisdom checks, the free round."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from referee.checks import Check, Compare, Modifier
from referee.dice import DiceSource
from referee.model import Combatant, SurpriseSpec


@dataclass(frozen=True)
class SurpriseCheck:
    """One Wisdom check (GAP-ATTR-CHECK: d20 roll-under the score, plus the referee's modifier)."""

    who: str
    side: str
    check: Check
    applies_to: tuple[str, ...]


def wisdom_check(c: Combatant, modifier: int, applies_to: tuple[str, ...]) -> SurpriseCheck:
    """ODD-SURP-2: pass (d20 <= Wis + modifier) = not surprised. ODD-SURP-3: referee modifier."""
    target_parts = [Modifier(c.abilities.wisdom, "ODD-SURP-2", "Wisdom")]
    if modifier:
        target_parts.append(Modifier(modifier, "ODD-SURP-3", "referee's surprise modifier"))
    check = Check(
        label=f"{c.name} Wisdom check against surprise",
        target=c.abilities.wisdom + modifier,
        target_label="Wis" if not modifier else f"Wis {c.abilities.wisdom}{modifier:+d} =",
        target_modifiers=tuple(target_parts),
        compare=Compare.AT_MOST,
        words=("not surprised", "surprised"),
    )
    return SurpriseCheck(c.name, c.side, check, applies_to)


def checks_for_side(members: list[Combatant], per: str, modifier: int) -> list[SurpriseCheck]:
    """ODD-SURP-2: one check by the member with the best chance for the group, or one per member."""
    if not members:
        return []
    if per == "per_combatant":
        return [wisdom_check(c, modifier, (c.name,)) for c in members]
    best = max(members, key=lambda c: c.abilities.wisdom)  # first of the best in file order
    return [wisdom_check(best, modifier, tuple(c.name for c in members))]


@dataclass(frozen=True)
class CheckResult:
    """One surprise check as rolled: the check, the d20 face and whether it passed (not surprised)."""

    check: SurpriseCheck
    face: int
    passed: bool


@dataclass(frozen=True)
class SurpriseResult:
    """The surprise procedure's result: each check rolled (in order), who is surprised, who acts in
    the free round (file order), and the rule that settles the free round."""

    possible: bool
    checks: tuple[CheckResult, ...]
    surprised: tuple[str, ...]
    acting: tuple[str, ...]

    @property
    def free_round(self) -> bool:
        """ODD-SURP-4: anyone surprised means a free round (with no actions if all are, ODD-SURP-5)."""
        return bool(self.surprised)

    @property
    def rule(self) -> str:
        return "ODD-SURP-5" if self.surprised and not self.acting else "ODD-SURP-4"


def roll_check(check: SurpriseCheck, dice: DiceSource) -> CheckResult:
    """ODD-SURP-2: the d20 of one Wisdom check; pass = not surprised."""
    face = dice.roll(20, f"surprise {check.who}")
    return CheckResult(check, face, check.check.succeeds(face))


def roll_surprise(spec: SurpriseSpec, combatants: Sequence[Combatant], dice: DiceSource) -> SurpriseResult:
    """The whole surprise procedure (ODD-SURP-1..5): nothing if the referee rules it impossible
    (ODD-SURP-1); else each side that could be surprised checks, in the ruling's side order (ODD-SURP-2,
    with the referee's modifier, ODD-SURP-3); who fails is surprised; the others get a free round
    (ODD-SURP-4), which passes in silence if everyone is surprised (ODD-SURP-5)."""
    everyone = tuple(c.name for c in combatants)
    if not spec.possible:
        return SurpriseResult(False, (), (), everyone)
    results: list[CheckResult] = []
    surprised: list[str] = []
    for side in spec.sides:
        members = [c for c in combatants if c.side == side]
        for sc in checks_for_side(members, spec.check, spec.modifiers.get(side, 0)):
            result = roll_check(sc, dice)
            if not result.passed:
                surprised.extend(sc.applies_to)
            results.append(result)
    acting = tuple(n for n in everyone if n not in surprised)
    return SurpriseResult(True, tuple(results), tuple(surprised), acting)
