"""Rolling a planned attack: the attack d20(s), confirmation of criticals and fumbles, the miss chance
(ODD-ATK-1, MF-CRIT-1, HR-CRIT-1, MF-FUMBLE-1, HR-FUMBLE-1, MF-VIS-5), and the damage of a hit
(ODD-ATK-2, MF-CRIT-2, GAP-CRIT-002, HR-HELPLESS-2, GAP-MIN-DAMAGE).

Every procedure here is a function of a :class:`~referee.dice.DiceSource`, written once: the event
engine rolls it live, the exact odds enumerate it (``chance.distribution(lambda d: roll_attack(plan,
d))``), the simulator samples it. Each step calls the next through this module's globals, so a house
rule that replaces a step here (another confirmation procedure) reaches every path.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.checks import Modifier, total
from referee.dice import DiceSource, parse_dice, roll
from referee.rules import memo
from referee.rules.attack import MAXIMUM_CRITICALS, AttackPlan, CriticalPlan, critical_bonus
from referee.rules.options import CriticalHits, MissChanceDice


@dataclass(frozen=True)
class AttackOutcome:
    """What the attack roll did. `faces` (the attack dice shown) is for the account only: outcomes
    that differ in it alone are equal, so an exact distribution groups them."""

    natural: int
    hit: bool
    critical: bool
    fumble: bool
    missed_by_chance: bool
    faces: tuple[int, ...] = field(default=(), compare=False)


def confirm_critical(crit: CriticalPlan, dice: DiceSource) -> bool:
    """A natural top face that hits: a critical outright (MF-CRIT-1), or if a confirmation d20 shows
    16-20 (HR-CRIT-1, options `confirm_16_20*`)."""
    if not crit.confirms_critical:
        return True
    return crit.critical_confirmed(dice.roll(20, "critical confirmation"))


def confirm_fumble(crit: CriticalPlan, dice: DiceSource) -> bool:
    """A natural 1 that misses: a fumble outright (MF-FUMBLE-1), or if a confirmation d20 shows 1-5
    (HR-FUMBLE-1, option `confirm_1_5`)."""
    if not crit.confirms_fumble:
        return True
    return crit.fumble_confirmed(dice.roll(20, "fumble confirmation"))


def roll_attack(plan: AttackPlan, dice: DiceSource) -> AttackOutcome:
    """The attack d20 (two under advantage, GAP-ADV), then any confirmation die (HR-CRIT-1 or
    HR-FUMBLE-1), then any miss-chance die (MF-VIS-5). An automatic result rolls nothing."""
    check = plan.check
    count = check.dice_count
    if count == 1:
        faces: tuple[int, ...] = (dice.roll(check.sides, "attack"),)
    else:
        faces = tuple(dice.roll(check.sides, "attack") for _ in range(count))
    natural = check.natural_of(faces) if faces else 0
    hit = check.succeeds(natural)
    critical = fumble = False
    crit = plan.critical
    if faces and crit.may_be_critical(natural, check.sides, hit):
        critical = confirm_critical(crit, dice)
    if faces and crit.may_be_fumble(natural, hit):
        fumble = confirm_fumble(crit, dice)
    missed_by_chance = False
    if hit and plan.miss_chance:
        missed_by_chance = miss_chance_roll(plan.miss_chance, plan.miss_dice, dice)
        hit = not missed_by_chance
        critical = critical and hit
    return AttackOutcome(natural, hit, critical, fumble, missed_by_chance, faces)


def miss_chance_roll(percent: int, miss_dice: str, dice: DiceSource) -> bool:
    """MF-VIS-5: roll d100, a result at or under the miss chance turns the hit into a miss.
    Option `miss_chance_dice = d6` (X-11): 33% → 1-2, 66% → 1-4 on a d6."""
    sides, threshold = miss_chance_die(percent, miss_dice)
    return dice.roll(sides, "miss chance") <= threshold


def miss_chance_die(percent: int, miss_dice: str) -> tuple[int, int]:
    """The miss-chance die and the highest face that turns a hit into a miss (MF-VIS-5, X-11)."""
    if miss_dice == MissChanceDice.D6:
        return 6, round(percent * 6 / 100)
    return 100, percent


def damage_expression(plan: AttackPlan, critical: bool) -> tuple[str, int]:
    """The dice to roll for a hit and how many times the dice count (backstab, doubled criticals)."""
    factor = plan.damage.dice_multiplier
    if critical and plan.critical.critical == CriticalHits.CONFIRM_16_20:
        factor *= 2  # GAP-CRIT-002: a confirmed critical rolls the damage dice twice
    return plan.damage.dice.text, factor


def scaled_dice(text: str, factor: int) -> str:
    """Multiply the dice of an expression (not its constant): 1d8+1 ×2 → 2d8+1."""
    if factor == 1:
        return text
    expr = parse_dice(text)
    linear = expr.linear()
    if linear is None:
        return f"({text})*{factor}"
    groups, constant = linear
    parts = [f"{g.count * factor}d{g.sides}" for g in groups]
    if constant:
        parts.append(str(constant))
    return "+".join(parts).replace("+-", "-") or "0"


Recipe = tuple[str, bool, tuple[Modifier, ...]]


def damage_recipe(plan: AttackPlan, critical: bool) -> Recipe:
    """What a hit's damage is made of: the dice to roll, whether they count at their maximum
    (MF-CRIT-2, HR-HELPLESS-2), and the modifiers (ODD-ATK-2). Pure: worked out once per frozen plan and
    critical, with the procedures it reads (unless the engine's caches are off)."""
    if not memo.ENABLED:
        return _damage_recipe(plan, critical)
    key = (id(plan), critical, damage_expression, scaled_dice)
    found = _RECIPES.get(key)
    if found is None or found[0] is not plan:
        if len(_RECIPES) >= 4096:
            _RECIPES.clear()
        found = _RECIPES[key] = (plan, _damage_recipe(plan, critical))
    return found[1]


# (id(plan), critical, the procedures) -> (the plan, its recipe): the plan is kept so that its id stays its own
_RECIPES: dict[tuple[object, ...], tuple[AttackPlan, Recipe]] = {}


def _damage_recipe(plan: AttackPlan, critical: bool) -> Recipe:
    """The recipe worked out (ODD-ATK-2; a critical's maximum and bonus: MF-CRIT-2)."""
    mods = list(plan.damage.modifiers)
    text, factor = damage_expression(plan, critical)
    maximise = plan.damage.maximise or (critical and plan.critical.critical in MAXIMUM_CRITICALS)
    if maximise and critical and plan.critical.critical != CriticalHits.CONFIRM_16_20:
        mods.append(critical_bonus(plan.critical.level))
    return scaled_dice(text, factor), maximise, tuple(mods)


def damage_amount(plan: AttackPlan, base: int, modifiers: tuple[Modifier, ...]) -> int:
    """The dice total plus the modifiers, at least the plan's minimum (GAP-MIN-DAMAGE), times the plan's
    total multiplier ("double damage" read as the whole damage, option `double_damage = total`)."""
    return max(plan.damage.minimum, base + total(modifiers)) * plan.damage.total_multiplier


def roll_damage(
    plan: AttackPlan, outcome: AttackOutcome, dice: DiceSource
) -> tuple[int, tuple[Modifier, ...], str]:
    """Damage of a hit (ODD-ATK-2): dice (or their maximum) + modifiers, at least the plan's minimum;
    with the modifiers and how the dice were read, for the account."""
    expr, maximise, mods = damage_recipe(plan, outcome.critical)
    if maximise:
        base = parse_dice(expr).maximum
        how = f"maximum of {expr}"
    else:
        base = roll(expr, dice, "damage").total
        how = expr
    return damage_amount(plan, base, mods), mods, how


def damage_rule_id(plan: AttackPlan, outcome: AttackOutcome) -> str:
    """The rule behind a hit's damage: MF-CRIT-2 (maximum + half level), GAP-CRIT-002 (doubled dice of a
    confirmed 002 critical, HR-CRIT-1), HR-HELPLESS-2 (maximum against the helpless) or ODD-ATK-2."""
    if outcome.critical and plan.critical.critical in MAXIMUM_CRITICALS:
        return "MF-CRIT-2"
    if outcome.critical:
        return "HR-CRIT-1"
    if plan.damage.maximise:
        return "HR-HELPLESS-2"
    if plan.damage.doubled_by:  # "double damage": HR-CHARGE-4 (set weapon vs a charger), MF-AIR-4
        return plan.damage.doubled_by[0]
    return "ODD-ATK-2"
