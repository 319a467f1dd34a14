"""Layered descending armour class (the fifth seed, DAC-*): a first version.

Total AC = A − D − G − E (DAC-AC-TOTAL); flatfooted drops positive D and G (DAC-AC-FLATFOOTED).
"""

from __future__ import annotations

from referee.checks import Modifier
from referee.rules import abilities
from referee.rules.context import AttackContext, AttackForm, DefenceLoss


def components_for_attack(ctx: AttackContext, lost: list[DefenceLoss]) -> tuple[list[Modifier], str]:
    """Descending AC components for this attack (values in DAC sign: lower is better)."""
    d = ctx.defender
    spec = d.spec
    flatfooted = any(loss.dex for loss in lost)
    touch = ctx.form is AttackForm.TOUCH
    parts: list[Modifier] = []
    if touch:
        parts.append(Modifier(10, "DAC-AC-TOUCH", "touch: base"))
    elif spec.armour is not None and not d.armour_destroyed:
        parts.append(Modifier(spec.armour.ac or 10, "DAC-EQ-1", spec.armour.name))
    elif spec.natural_armour is not None:
        parts.append(Modifier(spec.natural_armour, "DAC-NAT-1", "natural armour"))
    else:
        parts.append(Modifier(10, "DAC-BASE-1", "base"))
    dodge = abilities.modifier(spec.abilities.dexterity, ctx.ruleset)
    if dodge and not (flatfooted and dodge > 0):
        parts.append(Modifier(-dodge, "DAC-DODGE-1", "dodge"))
    if spec.shield is not None and not flatfooted and not any(loss.shield for loss in lost):
        parts.append(Modifier(-(spec.shield.deflection or 1), "DAC-DEFL-1", spec.shield.name))
    return parts, "flatfooted" if flatfooted else ("touch" if touch else "normal")
