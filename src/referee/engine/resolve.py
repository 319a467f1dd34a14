"""Resolving actions into events. Rule numbers come from the planners in :mod:`referee.rules`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from referee.checks import Modifier
from referee.dice import DiceSource, DiceTape, parse_dice, roll
from referee.engine.actions import Action, Attack, Wait
from referee.engine.events import Event, EventType, event
from referee.engine.state import CombatantState, FightState
from referee.errors import IllegalActionError
from referee.model import Weapon
from referee.rules import hit_points, hooks
from referee.rules.attack import AttackPlan, Effect, critical_bonus, plan_attack
from referee.rules.context import AttackContext, AttackForm
from referee.rules.ruleset import Ruleset

Resolver = Callable[[FightState, Any, DiceSource], list[Event]]
RESOLVERS: dict[type[Action], Resolver] = {}


def resolver(cls: type[Action]) -> Callable[[Resolver], Resolver]:
    def wrap(fn: Resolver) -> Resolver:
        RESOLVERS[cls] = fn
        return fn

    return wrap


# Hooks that add events after any action (a charged touch spell lost to another action, HR-TOUCH-3...).
AFTER_ACTION: list[Callable[[FightState, Action, list[Event]], list[Event]]] = []


def resolve(state: FightState, action: Action, dice: DiceSource) -> list[Event]:
    """The events an action produces. Does not change `state` (the caller applies the events)."""
    fn = RESOLVERS.get(type(action))
    if fn is None:
        raise IllegalActionError(f"no rules resolve a {action.kind!r} action")
    events = fn(state, action, dice)
    for hook in AFTER_ACTION:
        events += hook(state, action, events)
    return events


# --- distance -------------------------------------------------------------------------------------


def grid_distance(a: CombatantState, b: CombatantState) -> int | None:
    """ODD-MOVE-4: squares of 5 ft; diagonal steps count as one square (an assumption)."""
    if a.position is None or b.position is None:
        return None
    dx = abs(a.position[0] - b.position[0])
    dy = abs(a.position[1] - b.position[1])
    return 5 * max(dx, dy)


def attack_distance(
    state: FightState, attacker: CombatantState, defender: CombatantState, given: int | None
) -> int:
    """The referee's stated distance, else the grid distance, else the encounter's default distance."""
    if given is not None:
        return given
    grid = grid_distance(attacker, defender)
    return grid if grid is not None else state.setup.distance


# Rules that refine the form of an attack declared without one (a character's bare-handed blow is a
# pummel, ODD-UNARMED-2); each gets the attacker, the weapon and the form chosen so far.
FORM_RULES: list[Callable[[CombatantState, Weapon, AttackForm], AttackForm]] = []


def attack_context(state: FightState, action: Attack, free: bool = False) -> AttackContext:
    """Build what the rules see for one declared attack."""
    if not action.target:
        raise IllegalActionError(f"{action.actor}'s attack needs a target")
    attacker = state[action.actor]
    defender = state[action.target]
    situation = action.situation.with_rulings(state.setup.rulings)  # stored rulings (ODD-SIT-1)
    if attacker.side == defender.side and "friendly" not in situation.flags:
        raise IllegalActionError(f"{action.actor} and {action.target} are on the same side")
    if not defender.is_active() and defender.status == hit_points.DEAD:
        raise IllegalActionError(f"{action.target} is already dead")
    weapon = attacker.spec.weapon(action.weapon)
    distance = attack_distance(state, attacker, defender, action.distance or action.situation.distance)
    form = action.form
    if form is None:
        form = (
            AttackForm.RANGED
            if weapon.is_ranged or (weapon.can_throw() and distance > weapon.reach)
            else AttackForm.MELEE
        )
        for pick in FORM_RULES:
            form = pick(attacker, weapon, form)
    if form is AttackForm.RANGED and not (weapon.is_ranged or weapon.can_throw()):
        raise IllegalActionError(f"{weapon.name} is not a missile weapon and cannot be thrown")
    if form is AttackForm.MELEE and weapon.kind.value == "propelled":
        raise IllegalActionError(f"{weapon.name} is a missile weapon; use it at range (ODD-RANGED-1)")
    return AttackContext(
        state=state,
        attacker=attacker,
        defender=defender,
        weapon=weapon,
        form=form,
        situation=situation,
        charge=action.charge,
        distance=distance,
        free_attack=free,
    )


# --- rolling a plan -------------------------------------------------------------------------------


@dataclass(frozen=True)
class AttackOutcome:
    natural: int
    hit: bool
    critical: bool
    fumble: bool
    missed_by_chance: bool


def roll_attack(plan: AttackPlan, tape: DiceTape) -> tuple[AttackOutcome, tuple[int, ...]]:
    """The attack d20 (two under advantage), then any confirmation die, then any miss-chance die."""
    check = plan.check
    faces = tuple(tape.roll(check.sides, "attack") for _ in range(check.dice_count))
    natural = check.natural_of(faces) if faces else 0
    hit = check.succeeds(natural)
    critical = fumble = False
    crit = plan.critical
    if faces and crit.may_be_critical(natural, check.sides, hit):
        critical = (
            crit.critical_confirmed(tape.roll(20, "critical confirmation"))
            if crit.confirms_critical
            else True
        )
    if faces and crit.may_be_fumble(natural, hit):
        fumble = crit.fumble_confirmed(tape.roll(20, "fumble confirmation")) if crit.confirms_fumble else True
    missed_by_chance = False
    if hit and plan.miss_chance:
        missed_by_chance = miss_chance_roll(plan.miss_chance, plan.miss_dice, tape)
        hit = not missed_by_chance
        critical = critical and hit
    return AttackOutcome(natural, hit, critical, fumble, missed_by_chance), faces


def miss_chance_roll(percent: int, miss_dice: str, tape: DiceTape) -> bool:
    """MF-VIS-5: roll d100, a result at or under the miss chance turns the hit into a miss.
    Option `miss_chance_dice = d6` (X-11): 33% → 1-2, 66% → 1-4 on a d6."""
    sides, threshold = miss_chance_die(percent, miss_dice)
    return tape.roll(sides, "miss chance") <= threshold


def miss_chance_die(percent: int, miss_dice: str) -> tuple[int, int]:
    """The miss-chance die and the highest face that turns a hit into a miss (shared with the odds)."""
    if miss_dice == "d6":
        return 6, round(percent * 6 / 100)
    return 100, percent


def damage_expression(plan: AttackPlan, critical: bool) -> tuple[str, int]:
    """The dice to roll for a hit and how many times the dice count (backstab, doubled criticals)."""
    factor = plan.damage.dice_multiplier
    if critical and plan.critical.critical == "confirm_16_20":
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


def roll_damage(
    plan: AttackPlan, outcome: AttackOutcome, tape: DiceTape
) -> tuple[int, tuple[Modifier, ...], str]:
    """Damage of a hit: dice (or their maximum) + modifiers, at least the plan's minimum."""
    expr, maximise, mods = damage_recipe(plan, outcome.critical)
    if maximise:
        base = parse_dice(expr).maximum
        how = f"maximum of {expr}"
    else:
        base = roll(expr, tape, "damage").total
        how = expr
    return damage_amount(plan, base, mods), mods, how


def damage_recipe(plan: AttackPlan, critical: bool) -> tuple[str, bool, tuple[Modifier, ...]]:
    """What a hit's damage is made of: the dice to roll, whether they count at their maximum, and the
    modifiers. Pure, so the live roll and the exact odds (:mod:`referee.odds`) share it."""
    mods = list(plan.damage.modifiers)
    text, factor = damage_expression(plan, critical)
    maximise = plan.damage.maximise or (
        critical and plan.critical.critical in {"max_plus_half_level", "confirm_16_20_max_plus_half_level"}
    )
    if maximise and critical and plan.critical.critical != "confirm_16_20":
        mods.append(critical_bonus(plan.critical.level))
    return scaled_dice(text, factor), maximise, tuple(mods)


def damage_amount(plan: AttackPlan, base: int, modifiers: tuple[Modifier, ...]) -> int:
    """The dice total plus the modifiers, at least the plan's minimum (GAP-MIN-DAMAGE)."""
    return max(plan.damage.minimum, base + sum(m.value for m in modifiers))


def defeat_status(
    target: CombatantState, damage: int, subdual: bool, knockout: bool, ruleset: Ruleset
) -> str | None:
    """The status damage leaves the target in when that is a defeat; None when it stays as it was.
    Shared with :mod:`referee.odds` (the chance an attack drops its target)."""
    hp_after = target.hp - (0 if subdual else damage)
    sub_after = target.subdual + (damage if subdual else 0)
    status = hit_points.status_after_damage(hp_after, sub_after, target.spec.is_monster, ruleset, knockout)
    return None if status in {target.status, hit_points.ACTIVE} else status


def defeat_events(
    state: FightState,
    target: CombatantState,
    damage: int,
    subdual: bool,
    knockout: bool,
    round_no: int,
    by: str | None,
) -> list[Event]:
    status = defeat_status(target, damage, subdual, knockout, state.setup.ruleset)
    if status is None:
        return []
    hp_after = target.hp - (0 if subdual else damage)
    rule = "MF-KO-1" if knockout and hp_after <= 0 else ("ODD-PUMMEL-2" if subdual else "ODD-HP-1")
    return [
        event(
            EventType.DEFEAT, round_no, actor=by, target=target.name, rule=rule,
            text=f"{target.name} is {status}", data={"status": status, "hp": hp_after},
        )
    ]  # fmt: skip


def damage_dealt(hp: int, amount: int, subdual: bool, knockout: bool) -> int:
    """The damage a target at `hp` takes: a knock-out blow leaves it at 0 (MF-KO-1, interpretation)."""
    if knockout and not subdual and hp - amount < 0:
        return max(0, hp)
    return amount


def damage_events(
    state: FightState,
    target: CombatantState,
    amount: int,
    *,
    round_no: int,
    by: str | None,
    subdual: bool = False,
    knockout: bool = False,
    dice: tuple[Any, ...] = (),
    modifiers: tuple[Modifier, ...] = (),
    rule: str = "ODD-ATK-2",
    text: str = "",
    extra: dict[str, Any] | None = None,
) -> list[Event]:
    """A DAMAGE event and, if it takes the target out, a DEFEAT event."""
    amount = damage_dealt(target.hp, amount, subdual, knockout)
    out = [
        event(
            EventType.DAMAGE, round_no, actor=by, target=target.name, dice=dice, modifiers=modifiers,
            damage=amount, rule=rule, text=text,
            data={"subdual": subdual, "hp_after": target.hp - (0 if subdual else amount), **(extra or {})},
        )
    ]  # fmt: skip
    out += defeat_events(state, target, amount, subdual, knockout, round_no, by)
    return out


def effect_events(
    state: FightState, plan: AttackPlan, effects: tuple[Effect, ...], round_no: int
) -> list[Event]:
    out = []
    for e in effects:
        who = plan.attacker if e.who == "attacker" else plan.defender
        until = None if e.rounds is None else round_no + e.rounds
        out.append(
            event(
                EventType.CONDITION, round_no, actor=plan.attacker, target=who, rule=e.rule,
                text=f"{who} is {e.condition}", data={"condition": e.condition, "added": True, "until_round": until},
            )
        )  # fmt: skip
    return out


def roll_reasons(ctx: AttackContext, plan: AttackPlan) -> str:
    """Why the roll was automatic or used two dice (HR-HELPLESS-1, GAP-ADV...), for the account."""
    reasons = []
    if plan.check.automatic is not None:
        found = hooks.automatic_verdict(ctx)
        if found is not None:
            reasons.append(f"{found[2]} [{found[1]}]")
    elif plan.check.keep.value != "all":
        reasons += [
            f"{'advantage' if sign > 0 else 'disadvantage'}: {reason} [{rule}]"
            for sign, rule, reason in hooks.leans(ctx)
        ]
    return f" ({'; '.join(reasons)})" if reasons else ""


def damage_rule_id(plan: AttackPlan, outcome: AttackOutcome) -> str:
    """The rule behind a hit's damage: MF-CRIT-2 (maximum + half level), GAP-CRIT-002 (doubled dice of a
    confirmed 002 critical, HR-CRIT-1), HR-HELPLESS-2 (maximum against the helpless) or ODD-ATK-2."""
    if outcome.critical and "max" in plan.critical.critical:
        return "MF-CRIT-2"
    if outcome.critical:
        return "HR-CRIT-1"
    if plan.damage.maximise:
        return "HR-HELPLESS-2"
    return "ODD-ATK-2"


# Hooks that add events after an attack (armour damage, fumble effects, stray missiles...).
AFTER_ATTACK: list[
    Callable[[FightState, AttackContext, AttackPlan, AttackOutcome, DiceSource], list[Event]]
] = []


def attack_events(
    state: FightState,
    ctx: AttackContext,
    plan: AttackPlan,
    dice: DiceSource,
    action_data: dict[str, Any] | None,
) -> list[Event]:
    """Roll a planned attack and return its events (action, conditions, attack, damage, defeat)."""
    r = state.round
    tape = DiceTape(dice)
    out: list[Event] = []
    if action_data is not None:
        out.append(event(EventType.ACTION, r, actor=plan.attacker, target=plan.defender, data=action_data))
    out += effect_events(state, plan, plan.on_attempt, r)
    outcome, faces = roll_attack(plan, tape)
    attack_dice = tape.take()
    ac = plan.armour_class
    verdict = "hit" if outcome.hit else "miss"
    if outcome.critical:
        verdict = "critical hit"
    elif outcome.fumble:
        verdict = "fumble"
    elif outcome.missed_by_chance:
        verdict = f"miss ({plan.miss_chance}% miss chance, {plan.miss_chance_rule})"
    out.append(
        event(
            EventType.ATTACK, r, actor=plan.attacker, target=plan.defender, dice=attack_dice,
            modifiers=plan.check.modifiers,
            total=(outcome.natural + plan.check.bonus) if faces else None,
            target_number=plan.check.target, hit=outcome.hit,
            text=plan.check.breakdown(faces) + ("" if verdict in {"hit", "miss"} else f" ({verdict})")
            + roll_reasons(ctx, plan),
            data={
                "weapon": plan.weapon, "form": plan.form.value, "natural": outcome.natural,
                "critical": outcome.critical, "fumble": outcome.fumble,
                "missed_by_chance": outcome.missed_by_chance,
                "ac": ac.value, "ac_convention": ac.convention, "ac_kind": ac.kind,
                "ac_breakdown": ac.breakdown(), "ac_components": [m.to_dict() for m in ac.components],
                "automatic": plan.check.automatic, "keep": plan.check.keep.value,
                "deflection_used": plan.deflection_used if faces or plan.check.automatic is not None else 0,
                "charge": ctx.charge, "distance": ctx.distance,
            },
        )
    )  # fmt: skip
    if outcome.hit and not plan.damage.none:
        amount, mods, how = roll_damage(plan, outcome, tape)
        defender = state[plan.defender]
        out += damage_events(
            state, defender, amount, round_no=r, by=plan.attacker, subdual=plan.damage.subdual,
            knockout=plan.damage.knockout, dice=tape.take(), modifiers=mods,
            rule=damage_rule_id(plan, outcome),
            text=f"{how}{' ' if mods else ''}{' '.join(str(m) for m in mods)} = {amount}"
            f"{' subdual' if plan.damage.subdual else ''} damage",
            extra={"critical": outcome.critical},
        )  # fmt: skip
    if outcome.hit:
        out += effect_events(state, plan, plan.on_hit, r)
    for hook in AFTER_ATTACK:
        out += hook(state, ctx, plan, outcome, dice)
    return out


def plan_declared_attack(state: FightState, action: Attack) -> tuple[AttackContext, AttackPlan]:
    """The context and plan of a declared attack (shared by the live roll and :mod:`referee.odds`)."""
    ctx = attack_context(state, action)
    if action.knockout:
        ctx = replace(ctx, situation=replace(ctx.situation, flags=ctx.situation.flags | {"knockout"}))
    return ctx, plan_attack(ctx)


# Rules that may send a declared attack at another target (an outsider striking into a grapple,
# MOD-COND-GRAPPLED-2); each returns the new target and the events that record why, or None.
RETARGET_RULES: list[Callable[[FightState, Attack, DiceSource], tuple[str, list[Event]] | None]] = []


@resolver(Attack)
def resolve_attack(state: FightState, action: Attack, dice: DiceSource) -> list[Event]:
    before: list[Event] = []
    for retarget in RETARGET_RULES:
        found = retarget(state, action, dice)
        if found is not None:
            flags = action.situation.flags | {"friendly"}  # the blow may land on a friend
            action = replace(action, target=found[0], situation=replace(action.situation, flags=flags))
            before += found[1]
    ctx, plan = plan_declared_attack(state, action)
    data = {"kind": "attack", "weapon": plan.weapon, "form": plan.form.value, "charge": action.charge}
    return before + attack_events(state, ctx, plan, dice, data)


@resolver(Wait)
def resolve_wait(state: FightState, action: Wait, dice: DiceSource) -> list[Event]:
    state[action.actor]
    return [event(EventType.ACTION, state.round, actor=action.actor, rule="ODD-ACT-FREE-1",
                  text=f"{action.actor} {action.reason}", data={"kind": "wait"})]  # fmt: skip
