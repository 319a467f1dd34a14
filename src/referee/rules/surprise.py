"""Surprise (ODD-SURP-1..5): the referee's ruling, Wisdom checks, the free round."""

from __future__ import annotations

from dataclasses import dataclass

from referee.checks import Check, Compare, Modifier
from referee.model import Combatant


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
