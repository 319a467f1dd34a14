"""Environment rules: cover and concealment by percentage (001's cover), 003's cover (003's cover), fog
(MOD-FOG-1), higher ground (001's heights, MF-OTHER-1), water and underwater (001's water, 001's underwater,
003's underwater), visibility miss chances (003's visibility), invisible attackers, drowning (003's drowning) and aerial
combat (003's aerial combat).

The encounter file's `environment:` mapping is read by :func:`parse_environment` (a clear error on a
bad value), e.g. `{underwater: true}` or `{water_depth: waist, depths: {Kraken: deep}, fog: typical}`.
Per-attack circumstances come from the :class:`~referee.rules.context.Situation`: `cover`,
`concealment`, and flags `higher`, `lower`, `slope`, `located`, `detected`, `hard_to_see`, `unseen`,
`area`, `bypass_cover`.

Assumptions (also in docs/conditions.md): GAP-001-COVER values, GAP-INCH (1" = 10 ft, or 30 ft
with `fog_scale: outdoors`), GAP-DROWN (the Luck (Con) save repeats each round), GAP-SAVES (Luck (Con)
= d20 <= Con), GAP-WATER-SWIM-DEX (swimmers lose Dex in water like everyone else), GAP-SKIRMISH.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import replace
from fractions import Fraction
from typing import TYPE_CHECKING

from referee.checks import Modifier
from referee.errors import IllegalActionError
from referee.model import Combatant, DamageType, WeaponKind
from referee.rules import memo
from referee.rules.context import AttackContext, DefenceLoss
from referee.rules.options import (
    Concealment,
    Cover,
    HigherGround,
    Invisibility,
    InvisibleAttacker,
    Underwater,
)
from referee.rules.ruleset import Ruleset
from referee.rules.view import CombatantView, FightView
from referee.vocabulary import DEPTHS as DEPTHS
from referee.vocabulary import FOG_SCALES as FOG_SCALES
from referee.vocabulary import FOGS as FOGS
from referee.vocabulary import KEYS as KEYS
from referee.vocabulary import Environment as Environment
from referee.vocabulary import parse_environment as parse_environment

if TYPE_CHECKING:
    from referee.rules import hooks
    from referee.rules.attack import DamagePlan


def env(state: FightView) -> Environment:
    return memo.environment(state.setup.environment)  # parsed once per setup, not per check


# --- cover and concealment (001's cover, 003's cover) ---------------------------------------------------

MOD_COVER = {"quarter": (2, "MOD-COVER-25"), "half": (4, "MOD-COVER-50"),
             "three_quarters": (7, "MOD-COVER-75"), "ninety": (10, "MOD-COVER-90")}  # fmt: skip
MOD_CONCEALMENT = {"quarter": (1, "MOD-COVER-25"), "half": (2, "MOD-COVER-50"),
                   "three_quarters": (3, "MOD-COVER-75")}  # fmt: skip
MF_COVER = {"half": (2, "MF-COVER-1"), "three_quarters": (4, "MF-COVER-2"), "ninety": (4, "MF-COVER-2")}


def fog_concealment(distance: int, inch_feet: int = 10) -> int:
    """MOD-FOG-1: typical fog conceals 25% within 1", 50% out to 2", 100% (invisible) beyond."""
    if distance <= inch_feet:
        return 25
    if distance <= 2 * inch_feet:
        return 50
    return 100


PERCENT_DEGREE = {0: "none", 25: "quarter", 50: "half", 100: "full"}


def concealment_of(ctx: AttackContext) -> str:
    """The stronger of the situation's concealment and the environment's fog at this distance."""
    order = ("none", "quarter", "half", "three_quarters", "full")
    found = ctx.situation.concealment
    e = env(ctx.state)
    if e.fog == "typical":
        fog = PERCENT_DEGREE[fog_concealment(ctx.distance, e.inch_feet)]
        found = max(found, fog, key=order.index)
    return found


def cover_and_concealment_ac(ctx: AttackContext) -> Iterator[Modifier]:
    """GAP-001-COVER values for MOD-COVER-25 to MOD-COVER-90 (cover; concealment to AC only, MOD-COVER-1);
    MF-COVER-1 / MF-COVER-2: half +2, three-quarters +4."""
    cover = ctx.situation.cover
    variant = ctx.ruleset.cover
    if variant is Cover.MOD_PERCENT and cover in MOD_COVER:
        value, rule = MOD_COVER[cover]
        yield Modifier(value, rule, f"{cover} cover (GAP-001-COVER)")
    elif variant is Cover.MF_HALF_THREE_QUARTERS and cover in MF_COVER:
        value, rule = MF_COVER[cover]
        yield Modifier(value, rule, f"{cover} cover")
    if ctx.ruleset.concealment is Concealment.MOD_PERCENT_AC:
        conceal = concealment_of(ctx)
        if conceal in MOD_CONCEALMENT:
            value, rule = MOD_CONCEALMENT[conceal]
            rule = "MOD-FOG-1" if conceal != ctx.situation.concealment else rule
            yield Modifier(value, rule, f"{conceal} concealment (GAP-001-COVER)")


def full_concealment_is_invisible(ctx: AttackContext) -> bool:
    """MOD-FOG-1: 100% concealment is invisibility (then MOD-COND-INVIS-1 / -2 apply)."""
    return ctx.ruleset.concealment is Concealment.MOD_PERCENT_AC and concealment_of(ctx) == "full"


def unseen_in_fog(ctx: AttackContext) -> Iterator[Modifier]:
    """MOD-FOG-1 with MOD-COND-INVIS-2: a target hidden by 100% concealment is attacked at -4."""
    if full_concealment_is_invisible(ctx) and not ctx.defender.has("invisible"):
        yield Modifier(-4, "MOD-COND-INVIS-2", "100% concealment: unseen (MOD-FOG-1)")


def cover_allowed(ctx: AttackContext) -> None:
    """MF-COVER-3: full cover cannot be attacked directly unless bypassed (flag `bypass_cover`);
    MOD-FOG-1 / MOD-COND-INVIS-1: a target invisible in fog only once detected."""
    full = ctx.situation.cover == "full" and not ctx.situation.has("bypass_cover")
    if full and ctx.ruleset.cover in {Cover.MF_HALF_THREE_QUARTERS, Cover.MOD_PERCENT}:
        rule = "MF-COVER-3" if ctx.ruleset.cover is Cover.MF_HALF_THREE_QUARTERS else "MOD-COVER-1"
        raise IllegalActionError(
            f"{ctx.defender.name} is fully covered and cannot be attacked directly ({rule})"
        )
    if full_concealment_is_invisible(ctx) and not revealed(ctx):
        raise IllegalActionError(
            f"{ctx.defender.name} cannot be seen (100% concealment, MOD-FOG-1): attack it once detected (MOD-COND-INVIS-1)"
        )


def revealed(ctx: AttackContext) -> bool:
    """MOD-COND-INVIS-1: a target unseen in fog is revealed once detected, or while it attacks (flag
    `attacking`, or it attacked this attacker this round). Asked only when it is unseen: the fight's
    state is read only when it matters (the engine reuses a plan wherever its reads agree)."""
    s = ctx.situation
    return s.has("detected") or s.has("attacking") or ctx.defender.name in ctx.attacker.attackers_this_round


# --- visibility miss chance (003's visibility) and invisible attackers ----------------------------------------


def located(ctx: AttackContext) -> bool:
    """MF-VIS-2: the attacker has narrowed down where it is (flag), or it attacked this attacker this round."""
    s = ctx.situation
    return s.has("located") or s.has("detected") or ctx.defender.name in ctx.attacker.attackers_this_round


def unseen_kind(ctx: AttackContext) -> int:
    """0, 33 (very hard to see, MF-VIS-1) or 66 (not seen at all, MF-VIS-2) under the mf options."""
    s = ctx.situation
    chance = 0
    if ctx.ruleset.concealment is Concealment.MF_MISS_CHANCE:
        conceal = concealment_of(ctx)
        if conceal == "full" or s.has("unseen"):
            chance = 66
        elif conceal in {"half", "three_quarters"} or s.has("hard_to_see"):
            chance = 33
    if ctx.ruleset.invisibility is Invisibility.MF_MISS_CHANCE and ctx.defender.has("invisible"):
        chance = 66
    return chance


def visibility_miss_chance(ctx: AttackContext) -> tuple[int, str] | None:
    """MF-VIS-1: 33%; MF-VIS-2: 66%; MF-VIS-4: area effects exempt (flag `area`); MF-VIS-5 rolls it."""
    if ctx.situation.has("area"):
        return None
    chance = unseen_kind(ctx)
    if not chance:
        return None
    return (chance, "MF-VIS-1" if chance == 33 else "MF-VIS-2")


def visibility_allowed(ctx: AttackContext) -> None:
    """MF-VIS-3: no effective direct attack on an unseen target whose location is not narrowed down."""
    if unseen_kind(ctx) == 66 and not located(ctx) and not ctx.situation.has("area"):
        raise IllegalActionError(
            f"{ctx.attacker.name} has not located {ctx.defender.name} and cannot attack it (MF-VIS-3)"
        )


def invisible_attacker_advantage(ctx: AttackContext) -> Iterator[hooks.Lean]:
    """MF-VIS-6: an invisible attacker rolls with advantage (`invisible_attacker = mf_advantage`)."""
    if ctx.ruleset.invisible_attacker is InvisibleAttacker.MF_ADVANTAGE and ctx.attacker.has("invisible"):
        yield (1, "MF-VIS-6", "invisible attacker")


def invisible_attacker_dex(ctx: AttackContext) -> Iterator[DefenceLoss]:
    """ODD-AC-DEX-2 (`invisible_attacker = odd_dex_lost`): unaware of an invisible attacker, no Dex."""
    unseen = ctx.attacker.has("invisible") and not ctx.situation.has("sees")
    if ctx.ruleset.invisible_attacker is InvisibleAttacker.ODD_DEX_LOST and unseen:
        yield DefenceLoss("dex", "ODD-AC-DEX-2", "cannot see the invisible attacker")


# --- higher ground (MOD-HIGH-1 / -2, MF-OTHER-1) --------------------------------------------------------


def higher_ground(ctx: AttackContext) -> Iterator[Modifier]:
    """MOD-HIGH-1: cliff, higher +2 / lower -2; MOD-HIGH-2: severe slope +1 / -1; MF-OTHER-1: +1 / -1.
    Flags: `higher` (the attacker is above) or `lower` (below); `slope` for a slope instead of a cliff."""
    s = ctx.situation
    sign = 1 if s.has("higher") else (-1 if s.has("lower") else 0)
    if not sign:
        return
    variant = ctx.ruleset.higher_ground
    if variant is HigherGround.MOD_CLIFF_2_SLOPE_1:
        if s.has("slope"):
            yield Modifier(sign, "MOD-HIGH-2", "higher on a slope" if sign > 0 else "lower on a slope")
        else:
            yield Modifier(2 * sign, "MOD-HIGH-1", "higher on a cliff" if sign > 0 else "lower on a cliff")
    elif variant is HigherGround.MF_NEBULOUS_1:
        yield Modifier(sign, "MF-OTHER-1", "high ground" if sign > 0 else "low ground")


# --- water (001's water) ---------------------------------------------------------------------------------

WATER_PENALTY = {"none": 0, "knee": 1, "waist": 1, "chest": 2, "deep": 4}
SWIMMER_PENALTY = {"none": 0, "knee": 0, "waist": 0, "chest": 1, "deep": 2}
WATER_RULE = {"knee": "MOD-WATER-1", "waist": "MOD-WATER-1", "chest": "MOD-WATER-2", "deep": "MOD-WATER-3"}


def water_penalty(c: Combatant, depth: str) -> tuple[int, str]:
    """(penalty, rule) for a creature standing in water of `depth` (not underwater)."""
    if depth == "none" or c.aquatic:
        return 0, "MOD-WATER-6"
    if c.swim:
        return SWIMMER_PENALTY[depth], "MOD-WATER-7"
    return WATER_PENALTY[depth], WATER_RULE[depth]


def in_water(ctx: AttackContext, who: CombatantView) -> tuple[int, str]:
    e = env(ctx.state)
    if e.underwater:
        return 0, ""
    return water_penalty(who.spec, e.depth_of(who.name))


def water_to_hit(ctx: AttackContext) -> Iterator[Modifier]:
    """MOD-WATER-1 to MOD-WATER-3 (MOD-WATER-7 for swimmers): the attacker's own depth penalty; MOD-WATER-5: anyone
    attacking an immersed creature also takes that creature's penalty."""
    own, rule = in_water(ctx, ctx.attacker)
    if own:
        yield Modifier(-own, rule, "fighting in water")
    theirs, _ = in_water(ctx, ctx.defender)
    if theirs:
        yield Modifier(-theirs, "MOD-WATER-5", f"{ctx.defender.name} is immersed")


def water_damage(ctx: AttackContext) -> Iterator[Modifier]:
    """MOD-WATER-1 to MOD-WATER-3, MOD-WATER-7: the same penalty to damage (MOD-WATER-4: at least 1 point)."""
    own, rule = in_water(ctx, ctx.attacker)
    if own:
        yield Modifier(-own, rule, "fighting in water")


def water_dex(ctx: AttackContext) -> Iterator[DefenceLoss]:
    """MOD-WATER-1: no Dex to AC in water at least knee deep (MOD-WATER-6: not for aquatic creatures;
    GAP-WATER-SWIM-DEX: swimmers lose it too); MOD-UW-5: non-native swimmers underwater."""
    e = env(ctx.state)
    d = ctx.defender.spec
    if e.underwater:
        if ctx.ruleset.underwater is Underwater.MOD_PENALTIES and swimmer_kind(d) == "non-native":
            yield DefenceLoss("dex", "MOD-UW-5", "underwater, not a swimmer")
        return
    if e.depth_of(d.name) != "none" and not d.aquatic:
        yield DefenceLoss("dex", "MOD-WATER-1", f"standing in water ({e.depth_of(d.name)})")


def minimum_one(ctx: AttackContext, plan: DamagePlan) -> DamagePlan:
    """MOD-WATER-4 / MOD-UW-4 / MOD-UW-6: a hit in or under water deals at least 1 point."""
    e = env(ctx.state)
    if plan.none or not (e.underwater or e.depth_of(ctx.attacker.name) != "none"):
        return plan
    return replace(plan, minimum=max(plan.minimum, 1))


# --- underwater (001's underwater, 003's underwater) ------------------------------------------------------------------------


def swimmer_kind(c: Combatant) -> str:
    """MOD-UW-7 aquatic, MOD-UW-6 native swimmer (a swim rate), else non-native."""
    if c.aquatic:
        return "aquatic"
    return "native" if c.swim else "non-native"


UW_PENALTY = {"aquatic": (0, "MOD-UW-7"), "native": (2, "MOD-UW-6"), "non-native": (4, "MOD-UW-4")}


def underwater_mod(ctx: AttackContext) -> bool:
    return env(ctx.state).underwater and ctx.ruleset.underwater is Underwater.MOD_PENALTIES


def underwater_mf(ctx: AttackContext) -> bool:
    return env(ctx.state).underwater and ctx.ruleset.underwater is Underwater.MF_WEAPON_TYPES


def underwater_to_hit(ctx: AttackContext) -> Iterator[Modifier]:
    """MOD-UW-4: non-native -4; MOD-UW-6: native swimmers -2; MOD-UW-7: aquatic none."""
    if underwater_mod(ctx):
        value, rule = UW_PENALTY[swimmer_kind(ctx.attacker.spec)]
        if value:
            yield Modifier(-value, rule, "underwater")


def underwater_damage(ctx: AttackContext) -> Iterator[Modifier]:
    """MOD-UW-4 / MOD-UW-6: the same penalty to damage (minimum 1)."""
    if underwater_mod(ctx):
        value, rule = UW_PENALTY[swimmer_kind(ctx.attacker.spec)]
        if value:
            yield Modifier(-value, rule, "underwater")


def weapon_kind_underwater(ctx: AttackContext) -> str:
    """thrusting / slashing / crushing / natural: the best use of the weapon under water."""
    w = ctx.weapon
    if w.natural:
        return "natural"
    types = set(w.type)
    for kind in (DamageType.THRUSTING, DamageType.SLASHING, DamageType.CRUSHING):
        if kind in types:
            return kind.value
    return "natural" if w.name == "unarmed" else "thrusting"


def underwater_allowed(ctx: AttackContext) -> None:
    """MOD-UW-1: only thrusting or natural weapons (not for aquatic creatures, MOD-UW-7);
    MF-UW-1: bludgeoning weapons cannot be used in underwater melee."""
    if underwater_mod(ctx) and swimmer_kind(ctx.attacker.spec) != "aquatic":
        kind = weapon_kind_underwater(ctx)
        if ctx.weapon.name == "unarmed":
            return  # fists and grappling are natural weapons
        if kind not in {"thrusting", "natural"}:
            raise IllegalActionError(
                f"{ctx.weapon.name} is a {kind} weapon: only thrusting or natural weapons work underwater (MOD-UW-1)"
            )
    if underwater_mf(ctx) and ctx.is_melee and weapon_kind_underwater(ctx) == "crushing":
        raise IllegalActionError(
            f"{ctx.weapon.name} is a bludgeoning weapon: useless in underwater melee (MF-UW-1)"
        )


def underwater_disadvantage(ctx: AttackContext) -> Iterator[hooks.Lean]:
    """MF-UW-1: slashing weapons attack with disadvantage in underwater melee (piercing normally)."""
    if underwater_mf(ctx) and ctx.is_melee and weapon_kind_underwater(ctx) == "slashing":
        yield (-1, "MF-UW-1", f"{ctx.weapon.name} slashes underwater")


ARROW_DEPTH_FEET = 10


def arrows_spent(ctx: AttackContext, plan: DamagePlan) -> DamagePlan:
    """MF-UW-2: arrows (propelled missiles) through water do no damage beyond about 10 ft."""
    arrow = ctx.is_ranged and ctx.weapon.kind is WeaponKind.PROPELLED
    if underwater_mf(ctx) and arrow and ctx.distance > ARROW_DEPTH_FEET:
        return replace(plan, none=True, minimum=0)
    return plan


def underwater_move(c: Combatant, ruleset: Ruleset, underwater: bool) -> int:
    """MOD-UW-2: non-native swimmers move at 1/3 of their rate underwater (fractions dropped)."""
    if underwater and ruleset.underwater is Underwater.MOD_PENALTIES and swimmer_kind(c) == "non-native":
        return c.move // 3
    return c.move


def underwater_delay(state: FightView, c: CombatantView) -> list[tuple[str, str, str]]:
    """MOD-UW-3: non-native swimmers underwater act each round only after 1d6 segments."""
    e = env(state)
    mod = state.setup.ruleset.underwater is Underwater.MOD_PENALTIES
    if e.underwater and mod and swimmer_kind(c.spec) == "non-native":
        return [("1d6", "MOD-UW-3", "underwater")]
    return []


# --- drowning (003's drowning) ------------------------------------------------------------------------------


def breath_rounds(con: int, fighting: bool, extra_d4: int) -> int:
    """MF-DROWN-1: Con rounds + 1d4; MF-DROWN-2: while fighting ceil(Con / 3) (+1d4 if the option)."""
    base = math.ceil(con / 3) if fighting else con
    return base + extra_d4


def holds_breath(state: FightView, c: CombatantView) -> bool:
    return drowning_possible(state) and not c.spec.aquatic and c.is_active()


def drowning_possible(state: FightView) -> bool:
    """Whether anyone can drown in this fight (MF-DROWN-2): underwater, with drowning on."""
    e = env(state)
    return e.underwater and e.drowning


# --- aerial combat (003's aerial combat) ------------------------------------------------------------------------------


def aerial_attack(ctx: AttackContext) -> Iterator[Modifier]:
    """MF-AIR-1: a flying combatant +1 to hit a target on the ground."""
    if ctx.attacker.has("flying") and not ctx.defender.has("flying"):
        yield Modifier(1, "MF-AIR-1", "flying, target on the ground")


def aerial_charge(ctx: AttackContext, plan: DamagePlan) -> DamagePlan:
    """MF-AIR-4 (`aerial_surprise_charge`): a flyer's charge deals double damage to a surprised target, read
    as option `double_damage` says (the whole damage ×2 by default, or the dice ×2)."""
    flyer = ctx.charge and ctx.attacker.has("flying") and ctx.defender.surprised
    if ctx.ruleset.aerial_surprise_charge and flyer:
        from referee.rules.attack import double_damage  # attack.py imports this module's neighbours

        return double_damage(ctx, plan, "MF-AIR-4")
    return plan


def may_attack_mid_move(c: CombatantView, ruleset: Ruleset, one_direction: bool) -> bool:
    """MF-AIR-2 (`aerial_mid_move`): a flyer may attack part way through a move in a single direction."""
    return ruleset.aerial_mid_move and c.has("flying") and one_direction


def skirmishes(c: CombatantView) -> bool:
    """MF-AIR-3 with GAP-SKIRMISH: a flyer may split its move around its attack without provoking
    attacks of opportunity."""
    return c.has("flying")


def underwater_rate(c: CombatantView) -> tuple[Fraction, str, str] | None:
    """MOD-UW-2: a non-native swimmer moves at a third of its rate underwater (fractions dropped)."""
    if c.fight is None or not env(c.fight).underwater:
        return None
    if (
        c.fight.setup.ruleset.underwater is not Underwater.MOD_PENALTIES
        or swimmer_kind(c.spec) != "non-native"
    ):
        return None
    return Fraction(1, 3), "MOD-UW-2", "underwater, not a native swimmer"
