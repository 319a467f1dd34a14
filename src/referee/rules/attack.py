"""Attack planning: one function builds the :class:`AttackPlan` that the live roll, the exact odds and
the simulator all use (to-hit check, armour class, damage, criticals and fumbles).

The ODD core contributors live here: basic to-hit bonus (ODD-BTH-1, ODD-BTH-2), Str to melee
(ODD-MELEE-1, ODD-MELEE-2), Dex to ranged (ODD-RANGED-1), Str to thrown damage only (ODD-RANGED-2),
range bands (ODD-RANGED-3) and the Dex losses of ODD-AC-DEX-2. :mod:`referee.rules.registry` lists
these and every other rule module's functions, in the order their modifiers appear.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from referee.checks import Check, Keep, Modifier, Natural
from referee.dice import DiceExpr, parse_dice
from referee.rules import abilities
from referee.rules.armour_class import ArmourClass, armour_class
from referee.rules.context import AttackContext, AttackForm, DefenceLoss
from referee.rules.options import CriticalHits, DoubleDamage, FlankAndRear, Fumbles, NaturalRolls


@dataclass(frozen=True)
class Effect:
    """A condition an attack puts on someone: on a hit (`on_hit`) or just by being tried."""

    condition: str
    who: str  # "attacker" or "defender"
    rounds: int | None = 0  # 0 = until the end of this round; None = until removed
    rule: str = ""


@dataclass(frozen=True)
class DamagePlan:
    """How a hit's damage is found: dice (times `dice_multiplier`) + modifiers, at least `minimum`."""

    dice: DiceExpr
    modifiers: tuple[Modifier, ...] = ()
    minimum: int = 1  # GAP-MIN-DAMAGE, MOD-WATER-4
    subdual: bool = False  # ODD-PUMMEL-2, ODD-OVERB-3 (GAP-SUBDUAL)
    dice_multiplier: int = 1  # backstab (MOD-BSTAB-2); "double damage" read as double dice (`double_damage`)
    total_multiplier: int = 1  # "double damage" read as the whole damage ×2 (option `double_damage = total`)
    doubled_by: tuple[str, ...] = ()  # the rules that doubled the damage (HR-CHARGE-4, MF-AIR-4)
    maximise: bool = False  # helpless target, proficient attacker (HR-HELPLESS-2)
    knockout: bool = False  # MF-KO-1: 0 HP leaves the target unconscious
    none: bool = False  # touch attacks and nets do no damage themselves (HR-TOUCH-2)


# HR-CRIT-1: a natural 20 asks for a confirmation roll; MF-CRIT-2: the damage is the maximum plus half level.
CONFIRMED_CRITICALS = frozenset({CriticalHits.CONFIRM_16_20, CriticalHits.CONFIRM_16_20_MAX_PLUS_HALF_LEVEL})
MAXIMUM_CRITICALS = frozenset(
    {CriticalHits.MAX_PLUS_HALF_LEVEL, CriticalHits.CONFIRM_16_20_MAX_PLUS_HALF_LEVEL}
)


@dataclass(frozen=True)
class CriticalPlan:
    """Option `critical_hits` and `fumbles` for this attack."""

    critical: CriticalHits = CriticalHits.NONE
    fumble: Fumbles = Fumbles.NONE
    level: int = 0  # MF-CRIT-2 (GAP-MONSTER-LEVEL)

    @property
    def confirms_critical(self) -> bool:
        return self.critical in CONFIRMED_CRITICALS

    @property
    def confirms_fumble(self) -> bool:
        return self.fumble == Fumbles.CONFIRM_1_5

    def may_be_critical(self, natural: int, sides: int, hit: bool) -> bool:
        """A natural top face that hits is a critical (MF-CRIT-1) or asks for confirmation (HR-CRIT-1)."""
        return natural == sides and hit and self.critical != CriticalHits.NONE

    def may_be_fumble(self, natural: int, hit: bool) -> bool:
        """A natural 1 that misses is a fumble (MF-FUMBLE-1) or asks for confirmation (HR-FUMBLE-1)."""
        return natural == 1 and not hit and self.fumble != Fumbles.NONE

    @staticmethod
    def critical_confirmed(face: int) -> bool:
        """HR-CRIT-1: the confirmation d20 shows 16-20."""
        return face >= 16

    @staticmethod
    def fumble_confirmed(face: int) -> bool:
        """HR-FUMBLE-1: the confirmation d20 shows 1-5."""
        return face <= 5


@dataclass(frozen=True)
class AttackPlan:
    attacker: str
    defender: str
    weapon: str
    form: AttackForm
    check: Check
    armour_class: ArmourClass
    damage: DamagePlan
    critical: CriticalPlan
    miss_chance: int = 0  # percent (MF-VIS-1, MF-VIS-2)
    miss_chance_rule: str = ""
    miss_dice: str = "d100"  # option `miss_chance_dice`
    on_hit: tuple[Effect, ...] = ()
    on_attempt: tuple[Effect, ...] = ()
    deflection_used: int = 0
    notes: tuple[str, ...] = field(default=())


# --- the planner ----------------------------------------------------------------------------------


def plan_attack(ctx: AttackContext) -> AttackPlan:
    """Build the whole attack from the rules of rules/registry.py; IllegalActionError if it cannot be made."""
    from referee.rules import hooks

    hooks.check_allowed(ctx)
    ac = armour_class(ctx)
    from referee.rules import registry  # it lists this module's rules too: read when planning

    to_hit = tuple(m for rule in registry.TO_HIT_RULES for m in rule(ctx))
    keep = hooks.advantage(ctx)
    rs = ctx.ruleset
    natural = _natural_rule(rs.natural_rolls, rs.critical_hits, rs.fumbles)
    check = Check(
        label=f"{ctx.attacker.name} → {ctx.defender.name}",
        modifiers=to_hit,
        target=ac.to_hit_target,
        target_label="AC",
        target_modifiers=ac.components,
        natural=natural,
        keep=keep,
        automatic=hooks.automatic_hit(ctx),
        shown_target=ac.value if ac.convention == "descending" else None,
        words=("hit", "miss"),
    )
    return AttackPlan(
        attacker=ctx.attacker.name,
        defender=ctx.defender.name,
        weapon=ctx.weapon.name,
        form=ctx.form,
        check=check,
        armour_class=ac,
        damage=plan_damage(ctx),
        critical=CriticalPlan(rs.critical_hits, rs.fumbles, ctx.attacker.spec.crit_level),
        miss_chance=hooks.miss_chance(ctx),
        miss_chance_rule=hooks.miss_chance_rule(ctx),
        miss_dice=rs.miss_chance_dice,
        on_hit=hooks.effects_on_hit(ctx),
        on_attempt=hooks.effects_on_attempt(ctx),
        deflection_used=hooks.deflection_spent(ctx, ac),
    )


def _natural_rule(natural_rolls: NaturalRolls, critical: CriticalHits, fumbles: Fumbles) -> Natural:
    """HR-NAT-1 makes 20 hit and 1 miss; MF-CRIT-1 / MF-FUMBLE-1 each make one end automatic."""
    if natural_rolls is NaturalRolls.AUTO_HIT_MISS:
        return Natural.AUTO_HIT_MISS
    top = critical in MAXIMUM_CRITICALS
    bottom = fumbles is Fumbles.FREE_ATTACK_OR_ALLY_REROLL
    if top and bottom:
        return Natural.AUTO_HIT_MISS
    if top:
        return Natural.AUTO_HIT
    if bottom:
        return Natural.AUTO_MISS
    return Natural.NONE


def plan_damage(ctx: AttackContext) -> DamagePlan:
    from referee.rules import hooks

    base = hooks.damage_dice(ctx)
    from referee.rules import registry  # it lists this module's rules too: read when planning

    mods = tuple(m for rule in registry.DAMAGE_RULES for m in rule(ctx))
    return hooks.adjust_damage(ctx, DamagePlan(dice=parse_dice(base), modifiers=mods))


def double_damage(ctx: AttackContext, plan: DamagePlan, rule: str) -> DamagePlan:
    """Double damage (HR-CHARGE-4, MF-AIR-4) as option `double_damage` reads it: the whole damage counts
    twice (`total`, the texts' words, the default) or the damage dice are doubled, modifiers once (`dice`)."""
    doubled_by = (*plan.doubled_by, rule)
    if ctx.ruleset.double_damage is DoubleDamage.DICE:
        return replace(plan, dice_multiplier=plan.dice_multiplier * 2, doubled_by=doubled_by)
    return replace(plan, total_multiplier=plan.total_multiplier * 2, doubled_by=doubled_by)


def critical_bonus(level: int) -> Modifier:
    """MF-CRIT-2: + half the attacker's level, rounded up."""
    return Modifier(math.ceil(level / 2), "MF-CRIT-2", "critical: half level, rounded up")


# --- ODD core contributors ------------------------------------------------------------------------


def basic_to_hit(ctx: AttackContext) -> Iterator[Modifier]:
    """ODD-BTH-1 / ODD-BTH-2: class basic to-hit bonus, or hit dice for monsters.

    Grapple, pummel and overbear add it only if the referee allows (ODD-GRAP-1, ODD-PUMMEL-1,
    ODD-OVERB-1: option `grapple_adds_bth`); a touch attack is a normal attack roll.
    """
    bonus = ctx.attacker.spec.attack_bonus
    if not bonus:
        return
    if (
        ctx.form in {AttackForm.GRAPPLE, AttackForm.PUMMEL, AttackForm.OVERBEAR}
        and not ctx.ruleset.grapple_adds_bth
    ):
        return
    rule = "ODD-BTH-2" if ctx.attacker.spec.is_monster else "ODD-BTH-1"
    yield Modifier(bonus, rule, "hit dice" if ctx.attacker.spec.is_monster else "basic to-hit")


def attribute_to_hit(ctx: AttackContext) -> Iterator[Modifier]:
    """ODD-MELEE-1: + Str in melee (and every unarmed form); ODD-RANGED-1: + Dex at range."""
    a, rs = ctx.attacker, ctx.ruleset
    if ctx.is_ranged:  # the scores are 2 lower while fatigued or exhausted (MOD-COND-FATIGUED/-EXHAUSTED)
        mod = abilities.modifier(abilities.score(a, "dexterity", rs), rs)
        note = abilities.score_note(a, "dexterity", rs)  # shown even when it leaves +0
        if mod or note:
            yield Modifier(mod, "ODD-RANGED-1", "Dex" + note)
        return
    mod = abilities.modifier(abilities.score(a, "strength", rs), rs)
    note = abilities.score_note(a, "strength", rs)
    if mod or note:
        rule = {
            AttackForm.GRAPPLE: "ODD-GRAP-1",
            AttackForm.PUMMEL: "ODD-PUMMEL-1",
            AttackForm.OVERBEAR: "ODD-OVERB-1",
        }.get(ctx.form, "ODD-MELEE-1")
        yield Modifier(mod, rule, "Str" + note)


def weapon_to_hit(ctx: AttackContext) -> Iterator[Modifier]:
    """ODD-MELEE-3: a magic weapon's bonus."""
    if ctx.weapon.to_hit and not ctx.form.is_unarmed_special:
        yield Modifier(ctx.weapon.to_hit, "ODD-MELEE-3", f"{ctx.weapon.name} bonus")


def range_band(increment: int, distance: int) -> int | None:
    """ODD-RANGED-3: close ±0 up to R, medium −2 up to 2R, long −6 up to 3R, None beyond."""
    if distance <= increment:
        return 0
    if distance <= 2 * increment:
        return -2
    if distance <= 3 * increment:
        return -6
    return None


def range_penalty(ctx: AttackContext) -> Iterator[Modifier]:
    """ODD-RANGED-3: range bands of the weapon's increment."""
    if not ctx.is_ranged or not ctx.weapon.range:
        return
    band = range_band(ctx.weapon.range, ctx.distance)
    if band:
        name = "medium" if band == -2 else "long"
        yield Modifier(band, "ODD-RANGED-3", f"{name} range ({ctx.distance} ft)")


def referee_modifiers(ctx: AttackContext) -> Iterator[Modifier]:
    """ODD-SIT-1 / ODD-SIT-2: the referee's own modifiers, with their reasons."""
    yield from ctx.situation.modifiers


def strength_to_damage(ctx: AttackContext) -> Iterator[Modifier]:
    """ODD-MELEE-2: Str to melee damage; ODD-RANGED-2: to thrown weapons, never to propelled ones."""
    if ctx.form in {AttackForm.GRAPPLE, AttackForm.OVERBEAR, AttackForm.TOUCH}:
        return
    a, rs = ctx.attacker, ctx.ruleset
    # the score is 2 lower while fatigued or exhausted (MOD-COND-FATIGUED, MOD-COND-EXHAUSTED)
    mod = abilities.modifier(abilities.score(a, "strength", rs), rs)
    note = abilities.score_note(a, "strength", rs)
    if not mod and not note:
        return
    if ctx.is_ranged:
        if ctx.is_thrown:
            yield Modifier(mod, "ODD-RANGED-2", "Str (thrown)" + note)
        return
    rule = "ODD-PUMMEL-2" if ctx.form is AttackForm.PUMMEL else "ODD-MELEE-2"
    yield Modifier(mod, rule, "Str" + note)


def weapon_damage_bonus(ctx: AttackContext) -> Iterator[Modifier]:
    """ODD-ATK-2: the weapon's own damage modifier (a magic weapon)."""
    if ctx.weapon.damage_bonus and not ctx.form.is_unarmed_special:
        yield Modifier(ctx.weapon.damage_bonus, "ODD-ATK-2", f"{ctx.weapon.name} bonus")


def odd_dex_losses(ctx: AttackContext) -> Iterator[DefenceLoss]:
    """ODD-AC-DEX-2: Dex is lost when surprised, unaware, restrained or immobile, or attacked from the rear."""
    d = ctx.defender
    if d.surprised:
        yield DefenceLoss("dex", "ODD-AC-DEX-2", "surprised")
    if ctx.situation.has("unaware"):
        yield DefenceLoss("dex", "ODD-AC-DEX-2", "unaware of the attacker")
    for name in ("held", "restrained", "bound", "paralyzed", "entangled", "unconscious", "sleeping"):
        if d.has(name):
            yield DefenceLoss("dex", "ODD-AC-DEX-2", name)
            break
    if ctx.situation.has("rear") and ctx.ruleset.flank_and_rear is FlankAndRear.ODD_DEX_ONLY:
        yield DefenceLoss("dex", "ODD-AC-DEX-2", "attacked from the rear")


__all__ = [
    "AttackPlan",
    "CriticalPlan",
    "DamagePlan",
    "Effect",
    "Keep",
    "critical_bonus",
    "plan_attack",
    "range_band",
]
