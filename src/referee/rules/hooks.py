"""The parts of an attack that are not plain modifiers, asked of every rule that gives them.

Rule modules contribute small functions (legality, advantage, automatic hits, miss chances, conditions
an attack imposes, changes to the damage plan); :mod:`referee.rules.registry` lists them in order and
:func:`referee.rules.attack.plan_attack` asks them all through the functions here. Each function
receives the :class:`AttackContext` and must not change anything.

The registry lists this module's callers' rules too, so it is read when a function runs, not at import.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from referee.checks import Keep
from referee.rules.context import AttackContext, AttackForm

if TYPE_CHECKING:
    from referee.rules.armour_class import ArmourClass
    from referee.rules.attack import DamagePlan, Effect

Verdict = tuple[bool, str, str]  # (automatic hit?, rule, reason)
Lean = tuple[int, str, str]  # (+1 advantage / -1 disadvantage, rule, reason)

AllowRule = Callable[[AttackContext], None]
LeanRule = Callable[[AttackContext], Iterable[Lean]]
AutomaticRule = Callable[[AttackContext], "Verdict | None"]
MissChanceRule = Callable[[AttackContext], "tuple[int, str] | None"]
EffectRule = Callable[[AttackContext], "Iterable[tuple[str, Effect]]"]
DamagePlanRule = Callable[[AttackContext, "DamagePlan"], "DamagePlan"]
DeflectionRule = Callable[[AttackContext, "ArmourClass"], int]


def check_allowed(ctx: AttackContext) -> None:
    """Each rule raises IllegalActionError with its rule ID when the attack cannot be made."""
    from referee.rules import registry  # lists the rules of modules that import this one

    for rule in registry.ALLOW_RULES:
        rule(ctx)


def leans(ctx: AttackContext) -> list[Lean]:
    from referee.rules import registry  # lists the rules of modules that import this one

    return [lean for rule in registry.ADVANTAGE_RULES for lean in rule(ctx)]


def advantage(ctx: AttackContext) -> Keep:
    """GAP-ADV: advantage keeps the higher of 2d20, disadvantage the lower; both at once cancel."""
    found = leans(ctx)
    up = any(sign > 0 for sign, _, _ in found)
    down = any(sign < 0 for sign, _, _ in found)
    if up and not down:
        return Keep.HIGHEST
    if down and not up:
        return Keep.LOWEST
    return Keep.ALL


def automatic_verdict(ctx: AttackContext) -> Verdict | None:
    from referee.rules import registry  # lists the rules of modules that import this one

    for rule in registry.AUTOMATIC_RULES:
        verdict = rule(ctx)
        if verdict is not None:
            return verdict
    return None


def automatic_hit(ctx: AttackContext) -> bool | None:
    verdict = automatic_verdict(ctx)
    return None if verdict is None else verdict[0]


def _miss_chance(ctx: AttackContext) -> tuple[int, str]:
    from referee.rules import registry  # lists the rules of modules that import this one

    found = [m for rule in registry.MISS_CHANCE_RULES if (m := rule(ctx)) is not None]
    return max(found, default=(0, ""))


def miss_chance(ctx: AttackContext) -> int:
    return _miss_chance(ctx)[0]


def miss_chance_rule(ctx: AttackContext) -> str:
    return _miss_chance(ctx)[1]


def effects_on_hit(ctx: AttackContext) -> tuple[Effect, ...]:
    from referee.rules import registry  # lists the rules of modules that import this one

    return tuple(e for rule in registry.EFFECT_RULES for when, e in rule(ctx) if when == "hit")


def effects_on_attempt(ctx: AttackContext) -> tuple[Effect, ...]:
    from referee.rules import registry  # lists the rules of modules that import this one

    return tuple(e for rule in registry.EFFECT_RULES for when, e in rule(ctx) if when == "attempt")


def damage_dice(ctx: AttackContext) -> str:
    """ODD-PUMMEL-2 / ODD-OVERB-3: 1d2 for pummel and overbear; touch does none (HR-TOUCH-2)."""
    if ctx.form in {AttackForm.PUMMEL, AttackForm.OVERBEAR}:
        return "1d2"
    if ctx.form in {AttackForm.GRAPPLE, AttackForm.TOUCH}:
        return "0"
    return ctx.weapon.damage


def adjust_damage(ctx: AttackContext, plan: DamagePlan) -> DamagePlan:
    from referee.rules import registry  # lists the rules of modules that import this one

    if ctx.form in {AttackForm.PUMMEL, AttackForm.OVERBEAR}:
        plan = replace(plan, subdual=ctx.ruleset.subdual)
    if ctx.form in {AttackForm.GRAPPLE, AttackForm.TOUCH} or plan.dice.maximum <= 0:
        plan = replace(plan, none=True, minimum=0)
    for rule in [*registry.DAMAGE_PLAN_RULES, *registry.FINAL_DAMAGE_PLAN_RULES]:
        plan = rule(ctx, plan)
    return plan


def deflection_spent(ctx: AttackContext, ac: ArmourClass) -> int:
    from referee.rules import registry  # lists the rules of modules that import this one

    return sum(rule(ctx, ac) for rule in registry.DEFLECTION_RULES)
