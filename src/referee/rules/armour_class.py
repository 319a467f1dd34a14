"""Armour class: ascending (ODD-AC-1 and the rest of section 2.11) and, through :mod:`referee.rules.dac`, layered descending.

An :class:`ArmourClass` lists its components in its own convention's sign, so its breakdown reads as
the referee would say it ("AC 13 = 10 base +2 leather +1 Dex"; "AC 3 = 5 chain mail -1 shield -1 dodge").
Situational protection (cover, a charger's penalty) is given by rules as a *bonus* (positive = harder
to hit) and flipped for descending AC (RULES.md 1.3).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from referee.checks import Modifier
from referee.rules import abilities
from referee.rules.context import AttackContext, AttackForm, DefenceLoss
from referee.rules.options import AcFloor, DexLoss, TouchAc
from referee.rules.ruleset import Ruleset

if TYPE_CHECKING:
    from referee.rules.view import CombatantView

ASCENDING = "ascending"
DESCENDING = "descending"


@dataclass(frozen=True)
class ArmourClass:
    """An armour class with the components it was built from."""

    value: int
    convention: str
    components: tuple[Modifier, ...]
    kind: str = "normal"  # normal, touch, grapple, overbear, flatfooted, flatfooted_touch
    floored: bool = False
    deflection_uses: int = 0  # shield uses this attack spends (DAC-DEFL-3), recorded on the attack event

    @property
    def to_hit_target(self) -> int:
        """What an attack total must reach: the AC itself, or 20 - DAC (GAP-DESC-TOHIT)."""
        return self.value if self.convention == ASCENDING else 20 - self.value

    def breakdown(self) -> str:
        base, *rest = self.components or (Modifier(self.value, "", "AC"),)
        text = f"AC {self.value} = {base.value} {base.reason} [{base.rule}]"
        extra = " ".join(str(m) for m in rest)  # zero entries say what was lost and why
        floor = " (floor 1, ODD-AC-2)" if self.floored else ""
        return text + (" " + extra if extra else "") + floor


def protection(bonus: int, rule: str, reason: str, descending: bool) -> Modifier:
    """A protection bonus (positive = harder to hit) in the convention's own sign."""
    return Modifier(-bonus if descending else bonus, rule, reason)


def defence_losses(ctx: AttackContext) -> list[DefenceLoss]:
    """Every reason, from every enabled rule, why the defender loses Dex or shield on this attack."""
    from referee.rules import registry  # it lists this module's callers' rules: read at call time

    return [loss for rule in registry.DEFENCE_LOSS_RULES for loss in rule(ctx)]


def _assemble(
    components: list[Modifier], convention: str, kind: str, ruleset: Ruleset, deflection_uses: int = 0
) -> ArmourClass:
    value = sum(m.value for m in components)
    floored = False
    if convention == ASCENDING and ruleset.ac_floor is AcFloor.MIN_1 and value < 1:
        value, floored = 1, True  # ODD-AC-2: never below 1
    return ArmourClass(value, convention, tuple(components), kind, floored, deflection_uses)


# --- ascending components (ODD-AC-1, ODD-AC-ARMOR, ODD-AC-SHIELD, ODD-AC-DEX-1) ----------------------------------------------------------------


def dex_modifier(defender: CombatantView, ruleset: Ruleset, lost: Iterable[DefenceLoss]) -> list[Modifier]:
    """ODD-AC-DEX-1: Dex counts while the defender can react; ODD-AC-DEX-2 lists when it is lost.

    Option `dex_loss`: `whole_modifier` drops a penalty too, `bonus_only` keeps a penalty.
    """
    mod = abilities.modifier(abilities.score(defender, "dexterity", ruleset), ruleset)  # MOD-COND-FATIGUED
    reasons = [loss for loss in lost if loss.dex]
    if not reasons:
        note = abilities.score_note(defender, "dexterity", ruleset)
        return [Modifier(mod, "ODD-AC-DEX-1", "Dex" + note)] if mod else []
    first = reasons[0]
    if mod < 0 and ruleset.dex_loss is DexLoss.BONUS_ONLY:
        # only a bonus is lost: 004 says so itself (DAC-DODGE-3); 001 and 002 by their wording ("no AC bonus
        # for Dexterity"), so the kept penalty names the rule that took the Dex away
        rule = "DAC-DODGE-3" if first.rule.startswith("DAC-") else first.rule
        return [Modifier(mod, rule, f"Dex penalty kept ({first.reason}: only a bonus is lost)")]
    return [Modifier(0, first.rule, f"no Dex: {first.reason}")]


def shield_usable_odd(ctx: AttackContext) -> bool:
    """ODD-AC-SHIELD: +1 only against the first N distinct attackers of the round (GAP-SHIELD-ASSIGN)."""
    shield = ctx.defender.spec.shield
    if shield is None or ctx.defender.shield_destroyed:
        return False
    return ctx.defender.shield_faces(ctx.attacker.name, shield.attackers or 1)


def ascending_components(ctx: AttackContext, lost: list[DefenceLoss]) -> list[Modifier]:
    """ODD-AC-1 base 10 + ODD-AC-ARMOR armour + ODD-AC-SHIELD shield + Dex + ODD-AC-MAGIC-1 magic."""
    d = ctx.defender
    spec = d.spec
    ruleset = ctx.ruleset
    if spec.ac is not None:
        parts = [Modifier(spec.ac, "ODD-AC-1", "listed AC")]
    else:
        parts = [Modifier(10, "ODD-AC-1", "base")]
        armour = spec.armour
        if armour is not None and not d.armour_destroyed:
            parts.append(Modifier(armour.ac_bonus or 0, "ODD-AC-ARMOR", armour.name))
            if armour.enhancement:
                parts.append(Modifier(armour.enhancement, "ODD-AC-MAGIC-1", f"{armour.name} enchantment"))
            if d.armour_loss:
                parts.append(Modifier(-d.armour_loss, "HR-ARMDMG-1", "armour damaged by critical hits"))
        parts.extend(dex_modifier(d, ruleset, lost))
    shield = spec.shield
    if shield is not None and not d.shield_destroyed:
        shield_lost = [loss for loss in lost if loss.shield]
        if shield_lost:
            parts.append(Modifier(0, shield_lost[0].rule, f"no shield: {shield_lost[0].reason}"))
        elif shield_usable_odd(ctx):
            parts.append(Modifier(shield.bonus or 1, "ODD-AC-SHIELD", shield.name))
            if shield.enhancement:
                parts.append(Modifier(shield.enhancement, "ODD-AC-MAGIC-1", f"{shield.name} enchantment"))
        else:
            parts.append(
                Modifier(0, "ODD-AC-SHIELD", f"{shield.name} already covers {shield.attackers} attacker(s)")
            )
    for item in spec.protection:
        parts.append(Modifier(item.enhancement, "ODD-AC-MAGIC-1", item.name))
    return parts


def touch_components(ctx: AttackContext, lost: list[DefenceLoss]) -> list[Modifier]:
    """Touch AC, option `touch_ac`: ODD-TOUCH-1 (10 + Dex + protective magic) or HR-TOUCH-1 (10 + Dex + cover)."""
    d = ctx.defender
    variant = ctx.ruleset.touch_ac
    rule = "HR-TOUCH-1" if variant is TouchAc.HR_DEX_COVER else "ODD-TOUCH-1"
    parts = [Modifier(10, rule, "touch: base")]
    parts.extend(dex_modifier(d, ctx.ruleset, lost))
    if variant is TouchAc.ODD_DEX_MAGIC:
        for item in d.spec.protection:
            parts.append(Modifier(item.enhancement, "ODD-AC-MAGIC-2", f"{item.name} (counts against touch)"))
    return parts


def _size_steps(ctx: AttackContext) -> int:
    return int(ctx.defender.spec.size) - int(ctx.attacker.spec.size)


def grapple_components(ctx: AttackContext) -> list[Modifier]:
    """ODD-GRAP-2: 15 + defender Str + Dex + 2 per size step larger (-2 per step smaller); no armour."""
    d = ctx.defender
    rs = ctx.ruleset
    parts = [Modifier(15, "ODD-GRAP-2", "grapple: standard AC")]
    strength = abilities.modifier(abilities.score(d, "strength", rs), rs)  # 2 lower if fatigued
    dex = abilities.modifier(abilities.score(d, "dexterity", rs), rs)
    if strength:
        parts.append(Modifier(strength, "ODD-GRAP-2", "defender Str"))
    if dex:
        parts.append(Modifier(dex, "ODD-GRAP-2", "defender Dex"))
    steps = _size_steps(ctx)
    if steps:
        parts.append(Modifier(2 * steps, "ODD-GRAP-2", f"size {steps:+d} step(s)"))
    return parts


def overbear_components(ctx: AttackContext) -> list[Modifier]:
    """ODD-OVERB-2: 15 + defender Str + 2 per size step; no Dex, no armour."""
    d = ctx.defender
    parts = [Modifier(15, "ODD-OVERB-2", "overbear: standard AC")]
    strength = abilities.modifier(abilities.score(d, "strength", ctx.ruleset), ctx.ruleset)
    if strength:
        parts.append(Modifier(strength, "ODD-OVERB-2", "defender Str"))
    steps = _size_steps(ctx)
    if steps:
        parts.append(Modifier(2 * steps, "ODD-OVERB-2", f"size {steps:+d} step(s)"))
    return parts


def to_descending(parts: list[Modifier]) -> list[Modifier]:
    """Ascending components → descending (AAC = 20 - DAC): the base flips, the rest change sign."""
    if not parts:
        return parts
    base, *rest = parts
    return [
        Modifier(20 - base.value, base.rule, base.reason),
        *(Modifier(-m.value, m.rule, m.reason) for m in rest),
    ]


def armour_class(ctx: AttackContext) -> ArmourClass:
    """The defender's armour class against this attack, with every component and its rule ID."""
    lost = defence_losses(ctx)
    convention = DESCENDING if ctx.descending else ASCENDING
    form = ctx.form
    kind = "normal"
    uses = 0
    built_ascending = True  # ODD formulas are ascending; the layered 004 model is descending
    if form is AttackForm.GRAPPLE:
        parts, kind = grapple_components(ctx), "grapple"
    elif form is AttackForm.OVERBEAR:
        parts, kind = overbear_components(ctx), "overbear"
    elif form is AttackForm.TOUCH and ctx.ruleset.touch_ac is not TouchAc.DAC_LAYERED:
        parts, kind = touch_components(ctx, lost), "touch"
    elif ctx.descending or (ctx.ruleset.touch_ac is TouchAc.DAC_LAYERED and form is AttackForm.TOUCH):
        from referee.rules import dac

        parts, kind, uses = dac.components_for_attack(ctx, lost)
        built_ascending = False
    else:
        parts = ascending_components(ctx, lost)
    if built_ascending == ctx.descending:
        parts = to_descending(parts)  # AAC = 20 - DAC; the map is its own inverse
    from referee.rules import registry  # it lists this module's callers' rules: read at call time

    for rule in registry.AC_RULES:
        for bonus in rule(ctx):
            parts.append(protection(bonus.value, bonus.rule, bonus.reason, ctx.descending))
    return _assemble(parts, convention, kind, ctx.ruleset, uses)
