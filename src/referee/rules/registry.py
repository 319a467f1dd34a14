"""The one list of the rules: which functions the attack planner asks, by kind, in order.

Nothing registers itself by being imported. A rule is a plain function in its module; it counts once
it is listed here. The order of each list is the order of the modifiers in every breakdown (to-hit,
AC, damage) and the order in which legality checks, advantages and damage-plan changes are asked, so
a new rule goes where its modifier should appear. The engine's actions and hooks are listed the same
way in :mod:`referee.engine.registry`.

Modules by concern: :mod:`~referee.rules.attack` (ODD core: BTH, Str/Dex, range bands, Dex loss),
:mod:`~referee.rules.criticals` (MF crits, fumbles, knock-outs, positions), :mod:`~referee.rules.situational`
(ODD situational modifiers, cover, rulings), :mod:`~referee.rules.maneuvers` (ODD grapple, pummel,
overbear), :mod:`~referee.rules.movement` (ODD movement, reach, charge), :mod:`~referee.rules.house`
(HR house rules), :mod:`~referee.rules.dac` (DAC layered descending AC), :mod:`~referee.rules.conditions`
(MOD conditions, attack position), :mod:`~referee.rules.environment` (cover, fog, water, visibility, aerial).
"""

from __future__ import annotations

from referee.rules import (
    attack,
    conditions,
    criticals,
    dac,
    environment,
    house,
    maneuvers,
    movement,
    situational,
)
from referee.rules.conditions import DelaySource
from referee.rules.context import LossRule, ModifierRule
from referee.rules.hooks import (
    AllowRule,
    AutomaticRule,
    DamagePlanRule,
    DeflectionRule,
    EffectRule,
    LeanRule,
    MissChanceRule,
)
from referee.rules.movement import RateRule

# --- modifiers: the order of each list is the order in the breakdown --------------------------------------

TO_HIT_RULES: tuple[ModifierRule, ...] = (
    attack.basic_to_hit,
    attack.attribute_to_hit,
    attack.weapon_to_hit,
    attack.range_penalty,
    attack.referee_modifiers,
    criticals.knockout_penalty,
    criticals.flanking,
    criticals.prone_positions,
    criticals.referee_stacking,
    situational.prone_blind_or_defenceless,
    situational.lower_elevation,
    situational.stunned_or_cowering,
    situational.invisible_or_blind_attacker,
    situational.mount_or_unstable_platform,
    situational.concealment,
    house.charge_to_hit,
    conditions.position_to_hit,
    conditions.condition_to_hit,
    environment.unseen_in_fog,
    environment.higher_ground,
    environment.water_to_hit,
    environment.underwater_to_hit,
    environment.aerial_attack,
)

AC_RULES: tuple[ModifierRule, ...] = (  # protection bonuses for this attack (positive = harder to hit)
    situational.odd_cover,
    situational.referee_ac_adjustments,
    situational.defensive_maneuver,
    maneuvers.overbearer_exposed,
    movement.charger_exposed,
    dac.defence_tags,
    dac.visibility,
    conditions.condition_ac,
    environment.cover_and_concealment_ac,
)

DAMAGE_RULES: tuple[ModifierRule, ...] = (
    attack.strength_to_damage,
    attack.weapon_damage_bonus,
    movement.charge_damage,
    conditions.condition_damage,
    environment.water_damage,
    environment.underwater_damage,
)

DEFENCE_LOSS_RULES: tuple[LossRule, ...] = (  # the defender loses Dex and/or shield to AC
    attack.odd_dex_losses,
    maneuvers.held_loses_dex,
    house.charger_loses_dex,
    house.garrotte_rear_ac,
    house.shooter_loses_dex,
    dac.flatfooted_losses,
    conditions.position_losses,
    conditions.condition_losses,
    environment.invisible_attacker_dex,
    environment.water_dex,
)

# --- the rest of an attack's plan ----------------------------------------------------------------------

ALLOW_RULES: tuple[AllowRule, ...] = (  # each raises IllegalActionError naming its rule; the first wins
    criticals.knockout_allowed,
    criticals.referee_scale,
    situational.must_know_defender,
    situational.cover_bars_attack,
    maneuvers.held_creature_only_breaks_free,
    maneuvers.overbear_size_limit,
    maneuvers.natural_weapons_never_pummel,
    movement.charge_allowed,
    movement.melee_needs_reach,
    movement.missile_in_range,
    house.half_move_attack,
    house.charge_allowed,
    house.garrotte_allowed,
    house.net_allowed,
    house.missile_allowed,
    house.touch_allowed,
    house.withdraw_allowed,
    conditions.conditions_allow,
    conditions.position_allowed,
    conditions.invisible_allowed,
    conditions.overloaded_cannot_charge,
    environment.cover_allowed,
    environment.visibility_allowed,
    environment.underwater_allowed,
)

ADVANTAGE_RULES: tuple[LeanRule, ...] = (  # GAP-ADV: advantage and disadvantage
    criticals.ambusher_advantage,
    environment.invisible_attacker_advantage,
    environment.underwater_disadvantage,
)

AUTOMATIC_RULES: tuple[AutomaticRule, ...] = (  # automatic hits; the first verdict wins
    house.helpless_auto_hit,
    conditions.coup_de_grace,
)

MISS_CHANCE_RULES: tuple[MissChanceRule, ...] = (environment.visibility_miss_chance,)  # the largest counts

EFFECT_RULES: tuple[EffectRule, ...] = (  # conditions an attack puts on, on a hit or by being tried
    maneuvers.maneuver_effects,
    movement.charge_effects,
    house.net_effects,
    house.firing_effects,
)

DAMAGE_PLAN_RULES: tuple[DamagePlanRule, ...] = (
    criticals.knockout_damage,
    house.set_weapon_double,
    conditions.coup_damage,
    conditions.backstab_damage,
    conditions.called_shot_damage,
    environment.minimum_one,
    environment.arrows_spent,
    environment.aerial_charge,
)

# After every DAMAGE_PLAN_RULES entry: HR-HELPLESS-4 drops the multipliers those gave.
FINAL_DAMAGE_PLAN_RULES: tuple[DamagePlanRule, ...] = (house.helpless_damage,)

DEFLECTION_RULES: tuple[DeflectionRule, ...] = (dac.deflection_uses,)  # shield uses an attack spends

# --- outside an attack ------------------------------------------------------------------------------------

RATE_RULES: tuple[RateRule, ...] = (  # movement rate factors (ODD-MOVE-1, MOD-COND-SLOWED, MOD-UW-2)
    conditions.condition_rate,
    environment.underwater_rate,
)

DELAY_SOURCES: tuple[DelaySource, ...] = (  # segment delays (GAP-SEGMENTS, MOD-COND-ENC-1/3, MOD-UW-3)
    conditions.condition_delays,
    environment.underwater_delay,
)
