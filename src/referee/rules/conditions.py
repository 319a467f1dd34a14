"""Conditions of 001 (001's conditions, helpless targets) as data, attack position (flank, rear and backstab),
and the segment delays conditions cause. The referee's actions that put a condition on or take it off,
the grapple's random target, waking and the rolled delays are :mod:`referee.engine.conditions`.

Every condition of 001 is one row of :data:`CONDITION_TABLE`: what attackers add against the creature,
what it adds to its own attacks and damage, its save modifier, its AC change, whether it loses Dex and
shield, what it may still do, and the segment delay it suffers each round. The listed rules read
that table; a row with an `option` applies only under that ruleset variant (RULES.md section 8), the
rest (conditions only 001 gives numbers for) apply under every ruleset. The helpless rows' attack
numbers (MOD-HELPLESS-MELEE / MOD-HELPLESS-MISSILE / MOD-COND-SLEEP-N-2) need
`helpless_targets = mod_coup_de_grace`; their action limits always apply (an unconscious creature
never acts).

Assumptions (also in docs/conditions.md): GAP-COUP (a coup de grâce hits automatically for maximum
damage), GAP-SLOWED (one attack every other round), GAP-BACKSTAB (×2/×3/×4/×5 by thief level),
GAP-SEGMENTS (a delay of k segments lowers the effective initiative by k; only rolled under
`initiative = segments_with_delays`), "defending itself" (an exhausted creature may attack only a
creature that attacked it this round, or with the situation flag `self_defence`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TYPE_CHECKING

from referee.checks import Modifier
from referee.errors import IllegalActionError
from referee.rules.context import AttackContext, DefenceLoss
from referee.rules.options import (
    Blindness,
    ConditionsFatigue,
    FlankAndRear,
    GrappleState,
    HelplessTargets,
    Invisibility,
    OptionValue,
    Prone,
    Stunned,
)
from referee.rules.ruleset import Ruleset
from referee.rules.view import CombatantView, FightView

if TYPE_CHECKING:
    from referee.rules import hooks
    from referee.rules.attack import DamagePlan


@dataclass(frozen=True)
class ConditionEffect:
    """One condition's mechanics (MOD-GEN-1: to-hit, AC and saves kept apart)."""

    rule: str
    option: OptionValue | None = None  # the variant of its option it needs; None = every ruleset
    attackers: int = 0  # to-hit of anyone attacking it
    melee_attackers: int = 0  # ... in melee only
    missile_attackers: int = 0  # ... with missiles only
    outsiders_only: bool = False  # grappled: only attackers outside the grapple (MOD-COND-GRAPPLED-1)
    own_to_hit: int = 0
    own_damage: int = 0
    saves: int = 0  # applied by referee.rules.saves
    ac_worse: int = 0  # AC this many points worse (MOD-COND-BLIND-1)
    loses: str | None = None  # "dex", "shield" or "both" to AC
    actions: str = "all"  # all | none | mental | defend | half
    immobile: bool = False
    delay: str | None = None  # segments each round before acting: "1d6" or "6"
    helpless: str | None = None  # "coup" (MOD-HELPLESS-MELEE) or "rolled" (MOD-COND-SLEEP-N-2)
    note: str = ""


_COUP = "coup"
CONDITION_TABLE: dict[str, ConditionEffect] = {
    "blind": ConditionEffect("MOD-COND-BLIND-1", Blindness.MOD, own_to_hit=-4, saves=-4, ac_worse=4),
    "bound": ConditionEffect("MOD-COND-BOUND", attackers=4, loses="both", immobile=True),
    "casting": ConditionEffect("MOD-COND-CASTING", attackers=4, loses="both"),
    "climbing": ConditionEffect("MOD-COND-CLIMB-1", own_to_hit=-2, own_damage=-2, loses="dex"),
    "deafened": ConditionEffect("MOD-COND-DEAF", note="verbal spells may fail (10% / 20%)"),
    "encumbered": ConditionEffect("MOD-COND-ENC-1", delay="1d6", note="trots only short distances"),
    "moderately_encumbered": ConditionEffect("MOD-COND-ENC-2", note="lumbering run; no delay"),
    "overloaded": ConditionEffect("MOD-COND-ENC-3", attackers=2, delay="6", note="cannot trot or charge"),
    "entangled": ConditionEffect("MOD-COND-ENTANGLED", attackers=4, loses="both", immobile=True),
    "exhausted": ConditionEffect(
        "MOD-COND-EXHAUSTED", ConditionsFatigue.MOD_FIXED,
        own_to_hit=-2, own_damage=-2, saves=-2, actions="defend", note="abilities -2",
    ),
    "fatigued": ConditionEffect(
        "MOD-COND-FATIGUED", ConditionsFatigue.MOD_FIXED,
        own_to_hit=-2, own_damage=-2, saves=-2, note="abilities -2",
    ),
    "grappled": ConditionEffect(
        "MOD-COND-GRAPPLED-1", GrappleState.MOD_GRAPPLED_PLUS_4,
        attackers=4, outsiders_only=True, loses="both",
    ),
    "grappling": ConditionEffect(
        "MOD-COND-GRAPPLED-1", GrappleState.MOD_GRAPPLED_PLUS_4,
        attackers=4, outsiders_only=True, loses="both",
    ),
    "held": ConditionEffect("MOD-COND-HELD", actions="mental", immobile=True, helpless=_COUP),
    "intoxicated_slight": ConditionEffect("MOD-COND-INTOX", own_to_hit=0),
    "intoxicated_moderate": ConditionEffect("MOD-COND-INTOX", own_to_hit=-1),
    "intoxicated_great": ConditionEffect("MOD-COND-INTOX", own_to_hit=-5),
    "invisible": ConditionEffect("MOD-COND-INVIS-2", Invisibility.MOD_MINUS_4, attackers=-4, saves=4),
    "nauseated": ConditionEffect("MOD-COND-NAUSEA", actions="none"),
    "off_balance": ConditionEffect("MOD-COND-OFFBAL", attackers=2),
    "paralyzed": ConditionEffect("MOD-COND-PARA-2", actions="mental", immobile=True, helpless=_COUP),
    "paralyzed_fear": ConditionEffect("MOD-COND-PARA-1", actions="none", immobile=True, helpless=_COUP),
    "prone": ConditionEffect(
        "MOD-COND-PRONE", Prone.MOD_MELEE_PLUS4_MISSILE_MINUS2,
        melee_attackers=4, missile_attackers=-2, loses="both",
    ),
    "sleeping": ConditionEffect("MOD-COND-SLEEP-M", actions="none", immobile=True, helpless=_COUP),
    "sleeping_natural": ConditionEffect(
        "MOD-COND-SLEEP-N-2", actions="none", immobile=True, helpless="rolled"
    ),
    "slowed": ConditionEffect("MOD-COND-SLOWED", attackers=4, actions="half", note="half move"),
    "stunned": ConditionEffect(
        "MOD-COND-STUN-1", Stunned.MOD_PLUS_4, attackers=4, loses="both", actions="none", immobile=True
    ),
    "unconscious": ConditionEffect("MOD-COND-UNCON", actions="none", immobile=True, helpless=_COUP),
}  # fmt: skip

# MOD-HELPLESS-BIND: a helpless creature can be tied up completely in this many segments.
BIND_SEGMENTS = 10
# MOD-COND-SLEEP-M: waking a magical sleeper without wounding it takes this many segments.
WAKE_SEGMENTS = 10


def effect(name: str, ruleset: Ruleset) -> ConditionEffect | None:
    """The condition's row if it applies under this ruleset, else None."""
    row = CONDITION_TABLE.get(name)
    if row is None:
        return None
    if row.option is not None and not ruleset.uses(row.option):
        return None
    return row


def effects_on(c: CombatantView, ruleset: Ruleset) -> Iterator[tuple[str, ConditionEffect]]:
    for name in sorted(c.conditions):
        row = effect(name, ruleset)
        if row is not None:
            yield name, row


def helpless_numbers(ctx: AttackContext) -> bool:
    """MOD-HELPLESS-MELEE / -MISSILE numbers apply only under `helpless_targets = mod_coup_de_grace`."""
    return ctx.ruleset.helpless_targets is HelplessTargets.MOD_COUP_DE_GRACE


def helpless_kind(c: CombatantView, ruleset: Ruleset) -> tuple[str, str] | None:
    """(condition, "coup" or "rolled") if the creature is helpless in 001's sense."""
    for name, row in effects_on(c, ruleset):
        if row.helpless == _COUP:
            return name, _COUP
    for name, row in effects_on(c, ruleset):
        if row.helpless:
            return name, row.helpless
    return None


# --- grapples (MOD-COND-GRAPPLED-1 / -2) -------------------------------------------------------------


def grapple_group(state: FightView, name: str) -> list[str]:
    """Everyone in the same grapple as `name` (linked by the sources of grappled/grappling), file order."""
    links: dict[str, set[str]] = {}
    for c in state.combatants.values():
        for cond in ("grappled", "grappling"):
            found = c.conditions.get(cond)
            if found is not None and found.source and found.source != c.name:
                links.setdefault(c.name, set()).add(found.source)
                links.setdefault(found.source, set()).add(c.name)
    group, todo = {name}, [name]
    while todo:
        for other in links.get(todo.pop(), set()):
            if other not in group:
                group.add(other)
                todo.append(other)
    if not state[name].has("grappled") and not state[name].has("grappling"):
        return [name]
    return [n for n in state.combatants if n in group and state[n].is_active()]


def is_outsider(ctx: AttackContext) -> bool:
    return ctx.attacker.name not in grapple_group(ctx.state, ctx.defender.name)


# --- attack position (flank, rear, backstab) -------------------------------------------


def position_rules(ctx: AttackContext) -> bool:
    return ctx.ruleset.flank_and_rear is FlankAndRear.MOD


def backstab_multiplier(level: int) -> int:
    """GAP-BACKSTAB (ASSUMPTION): ×2 at thief level 1-4, ×3 at 5-8, ×4 at 9-12, ×5 at 13+."""
    if level >= 13:
        return 5
    return 2 + max(0, level - 1) // 4


def position_allowed(ctx: AttackContext) -> None:
    """MOD-FLANK-2, MOD-REAR-2 and MOD-BSTAB-1: when a flank, rear or backstab attack is possible."""
    if not position_rules(ctx):
        return
    s, d = ctx.situation, ctx.defender
    if s.has("backstab") and not d.surprised:
        raise IllegalActionError(
            f"a backstab needs a surprised target; {d.name} is not surprised (MOD-BSTAB-1)"
        )
    if s.has("rear") and not (d.surprised or s.has("surrounded") or s.has("fleeing")):
        raise IllegalActionError(
            f"a rear attack on {d.name} needs surprise, or it surrounded or fleeing (MOD-REAR-2)"
        )
    others = [n for n in d.attackers_this_round if n != ctx.attacker.name]
    if s.has("flank") and d.spec.shield is not None and not (others or s.has("surrounded")):
        raise IllegalActionError(
            f"a flank attack on {d.name} needs another opponent attacking it this round (MOD-FLANK-2)"
        )


def position_to_hit(ctx: AttackContext) -> Iterator[Modifier]:
    """MOD-REAR-1: rear +2; MOD-BSTAB-1: backstab +4 instead."""
    if not position_rules(ctx):
        return
    if ctx.situation.has("backstab"):
        yield Modifier(4, "MOD-BSTAB-1", "backstab")
    elif ctx.situation.has("rear"):
        yield Modifier(2, "MOD-REAR-1", "rear attack")


def position_losses(ctx: AttackContext) -> Iterator[DefenceLoss]:
    """MOD-FLANK-1: no shield from the flank; MOD-REAR-1 / MOD-BSTAB-1: no Dex or shield."""
    if not position_rules(ctx):
        return
    if ctx.situation.has("backstab"):
        yield DefenceLoss("both", "MOD-BSTAB-1", "backstab")
    elif ctx.situation.has("rear"):
        yield DefenceLoss("both", "MOD-REAR-1", "rear attack")
    elif ctx.situation.has("flank"):
        yield DefenceLoss("shield", "MOD-FLANK-1", "flank attack")


def backstab_damage(ctx: AttackContext, plan: DamagePlan) -> DamagePlan:
    """MOD-BSTAB-2: the weapon's damage dice are multiplied by the thief's level factor (GAP-BACKSTAB)."""
    if not position_rules(ctx) or not ctx.situation.has("backstab"):
        return plan
    factor = backstab_multiplier(ctx.attacker.spec.level)
    return replace(plan, dice_multiplier=plan.dice_multiplier * factor)


# --- condition modifiers ------------------------------------------------------------------------------


def condition_to_hit(ctx: AttackContext) -> Iterator[Modifier]:
    """Attackers' modifiers against a creature's conditions, and the creature's own penalties (table)."""
    rs = ctx.ruleset
    outsider: bool | None = None
    for name, row in effects_on(ctx.defender, rs):
        if row.outsiders_only:
            outsider = is_outsider(ctx) if outsider is None else outsider
            if not outsider:
                continue
        value = row.attackers + (row.missile_attackers if ctx.is_ranged else row.melee_attackers)
        if value:
            yield Modifier(value, row.rule, f"target {name}")
    kind = helpless_kind(ctx.defender, rs)
    if kind is not None and ctx.is_ranged and helpless_numbers(ctx):
        yield Modifier(4, "MOD-HELPLESS-MISSILE", f"missile at a {kind[0]} target")
    for name, row in effects_on(ctx.attacker, rs):
        if row.own_to_hit:
            yield _own(name, row, row.own_to_hit, ctx)


def _own(name: str, row: ConditionEffect, value: int, ctx: AttackContext) -> Modifier:
    if name == "climbing" and ctx.situation.has("slope"):
        return Modifier(value // 2, "MOD-COND-CLIMB-2", "climbing on a severe slope")
    return Modifier(value, row.rule, name)


def condition_damage(ctx: AttackContext) -> Iterator[Modifier]:
    """MOD-COND-FATIGUED / -EXHAUSTED / -CLIMB-1: the attacker's own damage penalties."""
    for name, row in effects_on(ctx.attacker, ctx.ruleset):
        if row.own_damage:
            yield _own(name, row, row.own_damage, ctx)


def condition_ac(ctx: AttackContext) -> Iterator[Modifier]:
    """MOD-COND-BLIND-1: a blind creature's AC is 4 points worse."""
    for name, row in effects_on(ctx.defender, ctx.ruleset):
        if row.ac_worse:
            yield Modifier(-row.ac_worse, row.rule, name)


def condition_losses(ctx: AttackContext) -> Iterator[DefenceLoss]:
    """Dex / shield lost for a condition (table); MOD-HELPLESS-MISSILE; MOD-COND-CLIMB-3 natural climbers."""
    for name, row in effects_on(ctx.defender, ctx.ruleset):
        if row.loses is None:
            continue
        if row.outsiders_only and not is_outsider(ctx):
            continue
        if name == "climbing" and ctx.situation.has("natural_climber"):
            continue  # MOD-COND-CLIMB-3: the referee rules it a natural climber
        yield DefenceLoss(row.loses, row.rule, name)
    kind = helpless_kind(ctx.defender, ctx.ruleset)
    if kind is not None and ctx.is_ranged and helpless_numbers(ctx):
        yield DefenceLoss("both", "MOD-HELPLESS-MISSILE", kind[0])


def coup_de_grace(ctx: AttackContext) -> hooks.Verdict | None:
    """MOD-HELPLESS-MELEE (GAP-COUP): melee on a helpless creature hits automatically;
    MOD-COND-SLEEP-N-2: melee on a natural sleeper hits automatically too (rolled damage)."""
    if not ctx.is_melee or not helpless_numbers(ctx):
        return None
    kind = helpless_kind(ctx.defender, ctx.ruleset)
    if kind is None:
        return None
    if kind[1] == _COUP:
        return (True, "MOD-HELPLESS-MELEE", f"coup de grâce on a {kind[0]} target")
    return (True, "MOD-COND-SLEEP-N-2", "melee on a natural sleeper hits automatically")


def coup_damage(ctx: AttackContext, plan: DamagePlan) -> DamagePlan:
    """GAP-COUP (ASSUMPTION): a coup de grâce deals maximum damage."""
    if ctx.is_melee and helpless_numbers(ctx):
        kind = helpless_kind(ctx.defender, ctx.ruleset)
        if kind is not None and kind[1] == _COUP:
            return replace(plan, maximise=True)
    return plan


# --- what a creature may do ---------------------------------------------------------------------------


def action_limit(c: CombatantView, ruleset: Ruleset) -> tuple[str, ConditionEffect] | None:
    """The strictest action limit among its conditions (none < mental < defend < half)."""
    rank = {"none": 0, "mental": 1, "defend": 2, "half": 3}
    found = [(n, r) for n, r in effects_on(c, ruleset) if r.actions in rank]
    if not found:
        return None
    return min(found, key=lambda nr: rank[nr[1].actions])


def can_act_physically(state: FightView, c: CombatantView) -> str | None:
    """Why `c` cannot attack this round (a rule ID in the message), or None if it may."""
    limit = action_limit(c, state.setup.ruleset)
    if limit is None:
        return None
    name, row = limit
    if row.actions == "none" and name == "stunned" and "ends_segment" in c.conditions[name].data:
        return None  # MOD-COND-STUN-2: it acts after the stun ends (delayed, see segment_delays)
    if row.actions in {"none", "mental"}:
        what = "cannot act" if row.actions == "none" else "may take purely mental actions only"
        return f"{c.name} is {name} and {what} ({row.rule})"
    if row.actions == "half" and not slowed_may_attack(state, c):
        return f"{c.name} is slowed and attacks only every other round (MOD-COND-SLOWED, GAP-SLOWED)"
    return None


def slowed_may_attack(state: FightView, c: CombatantView) -> bool:
    """GAP-SLOWED: a creature with one attack attacks every other round, starting with the first."""
    since = int(c.conditions["slowed"].data.get("since", 1))
    return (state.round - since) % 2 == 0


def conditions_allow(ctx: AttackContext) -> None:
    """No attack by a creature whose condition forbids it (table `actions`; a free attack too when it may
    not act at all); MOD-COND-EXHAUSTED: only in self-defence (against a creature that attacked it this
    round, or flag `self_defence`; a free attack is always self-defence)."""
    limit = action_limit(ctx.attacker, ctx.ruleset)
    if limit is None:
        return
    if ctx.free_attack and limit[1].actions not in {"none", "mental"}:
        return
    why = can_act_physically(ctx.state, ctx.attacker)
    if why:
        raise IllegalActionError(why)
    if limit[1].actions == "defend" and not ctx.free_attack:
        defending = ctx.defender.name in ctx.attacker.attackers_this_round or ctx.situation.has(
            "self_defence"
        )
        if not defending:
            raise IllegalActionError(
                f"{ctx.attacker.name} is exhausted and may only defend itself (MOD-COND-EXHAUSTED)"
            )


def overloaded_cannot_charge(ctx: AttackContext) -> None:
    """MOD-COND-ENC-3: an overloaded creature cannot trot or charge."""
    if ctx.charge and ctx.attacker.has("overloaded"):
        raise IllegalActionError(f"{ctx.attacker.name} is overloaded and cannot charge (MOD-COND-ENC-3)")


def invisible_allowed(ctx: AttackContext) -> None:
    """MOD-COND-INVIS-1: an invisible creature can be attacked only while it attacks (it attacked this
    attacker this round, or flag `attacking`) or once detected (flag `detected`); MOD-COND-INVIS-3:
    never from flank or rear unless the attacker can see it (flag `sees`)."""
    if ctx.ruleset.invisibility is not Invisibility.MOD_MINUS_4 or not ctx.defender.has("invisible"):
        return
    s = ctx.situation
    found = s.has("detected") or s.has("attacking") or ctx.defender.name in ctx.attacker.attackers_this_round
    if not found:
        raise IllegalActionError(
            f"{ctx.defender.name} is invisible: attack it only while it attacks or once detected (MOD-COND-INVIS-1)"
        )
    if (s.has("flank") or s.has("rear") or s.has("backstab")) and not s.has("sees"):
        raise IllegalActionError(
            f"{ctx.defender.name} is invisible: no flank or rear attack unless seen (MOD-COND-INVIS-3)"
        )


def blind_spell_allowed(caster: CombatantView, spell_delivery: str, ruleset: Ruleset) -> None:
    """MOD-COND-BLIND-2: a blind caster may cast area and touch spells, not spells with a chosen target."""
    if spell_delivery not in {"area", "touch", "target"}:
        raise IllegalActionError(f"spell delivery {spell_delivery!r} is not one of: area, touch, target")
    if caster.has("blind") and ruleset.blindness is Blindness.MOD and spell_delivery == "target":
        raise IllegalActionError(
            f"{caster.name} is blind and cannot cast a targeted spell (MOD-COND-BLIND-2)"
        )


def deaf_failure_chance(casting_segments: int) -> int:
    """MOD-COND-DEAF: a deafened caster's verbal spell fails 10% of the time if cast in 3 segments or
    less, 20% if longer (percent)."""
    if casting_segments < 0:
        raise IllegalActionError(f"casting time {casting_segments} is not a number of segments")
    return 10 if casting_segments <= 3 else 20


def sleeper_surprise_modifier(c: CombatantView) -> Modifier | None:
    """MOD-COND-SLEEP-N-1 with GAP-SURPRISE-PCT: +20% to surprise a natural sleeper is -4 on its
    Wisdom surprise check (20% of a d20); the referee adds it to the side's surprise modifier."""
    return (
        Modifier(-4, "MOD-COND-SLEEP-N-1", "asleep (+20% to be surprised)")
        if c.has("sleeping_natural")
        else None
    )


def bind_segments(c: CombatantView, ruleset: Ruleset) -> int | None:
    """MOD-HELPLESS-BIND: a held, paralysed, magically sleeping or unconscious creature is tied up in
    10 segments (with suitable materials); None if it is not helpless that way."""
    kind = helpless_kind(c, ruleset)
    return BIND_SEGMENTS if kind is not None and kind[0] != "sleeping_natural" else None


# --- called shots (MOD-CALLED-1 / -2) -------------------------------------------------------------------


def called_shot(ctx: AttackContext) -> bool:
    return ctx.situation.has("called_shot")


def called_shot_damage(ctx: AttackContext, plan: DamagePlan) -> DamagePlan:
    """MOD-CALLED-2: a called shot does not deal ordinary damage; its effect is the referee's."""
    return replace(plan, none=True, minimum=0) if called_shot(ctx) else plan


# --- segment delays (MOD-COND-ENC-1, MOD-COND-ENC-3, MOD-UW-3, MOD-COND-STUN-2) -------------------------

# A rule that delays a combatant by some segments this round: (dice expression, rule, reason) each;
# listed in referee.rules.registry.DELAY_SOURCES, rolled by referee.engine.conditions.segment_delays.
DelaySource = Callable[[FightView, CombatantView], list[tuple[str, str, str]]]


def condition_delays(state: FightView, c: CombatantView) -> list[tuple[str, str, str]]:
    """GAP-SEGMENTS: the table's delays (MOD-COND-ENC-1, MOD-COND-ENC-3) and a stun ending in this
    round's segment (MOD-COND-STUN-2)."""
    out = [(row.delay, row.rule, name) for name, row in effects_on(c, state.setup.ruleset) if row.delay]
    stun = c.conditions.get("stunned")
    if stun is not None and "ends_segment" in stun.data and state.setup.ruleset.stunned is Stunned.MOD_PLUS_4:
        out.append((f"{int(stun.data['ends_segment'])}+1d6", "MOD-COND-STUN-2", "stunned into this round"))
    return out


def condition_rate(c: CombatantView) -> tuple[Fraction, str, str] | None:
    """Movement under 001's conditions: no movement when the creature may not act physically
    (MOD-COND-STUN-1 immobile, MOD-COND-HELD, MOD-COND-PARA-1/2, MOD-COND-NAUSEA); half speed when
    magically slowed (MOD-COND-SLOWED)."""
    if c.fight is None:
        return None
    limit = action_limit(c, c.fight.setup.ruleset)
    if limit is None:
        return None
    name, row = limit
    if row.actions in {"none", "mental"}:
        return Fraction(0), row.rule, f"{name}: cannot move"
    if row.actions == "half":
        return Fraction(1, 2), "MOD-COND-SLOWED", "slowed: half speed"
    return None
