"""Resolving actions into events. Rule numbers come from the planners in :mod:`referee.rules`."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace
from typing import Any

from referee.checks import Keep, Modifier
from referee.dice import DiceSource, DiceTape
from referee.engine import caches
from referee.engine.actions import Action, Attack, Wait
from referee.engine.caches import (
    late,
    plan_attack,  # the plan the tactics checked, when unchanged
)
from referee.engine.events import Event, EventType, at_round, event
from referee.engine.state import CombatantState, FightState
from referee.errors import IllegalActionError
from referee.model import Weapon
from referee.rules import attack_roll, decisive, hit_points, hooks, memo, movement
from referee.rules.attack import AttackPlan, Effect
from referee.rules.context import AttackContext, AttackForm
from referee.rules.ruleset import Ruleset

# The attack-roll procedures moved to rules/attack_roll.py; their old names here keep older callers working.
AttackOutcome = attack_roll.AttackOutcome
damage_amount = attack_roll.damage_amount
damage_expression = attack_roll.damage_expression
damage_recipe = attack_roll.damage_recipe
damage_rule_id = attack_roll.damage_rule_id
miss_chance_die = attack_roll.miss_chance_die
miss_chance_roll = attack_roll.miss_chance_roll
roll_attack = attack_roll.roll_attack
roll_damage = attack_roll.roll_damage
scaled_dice = attack_roll.scaled_dice

# The resolvers and every hook below are listed in referee.engine.registry, which imports this module:
# it is read when an action is resolved, not at import.


def resolve(state: FightState, action: Action, dice: DiceSource) -> list[Event]:
    """The events an action produces. Does not change `state` (the caller applies the events)."""
    registry = late("registry")
    fn = registry.resolver(type(action))
    if fn is None:
        raise IllegalActionError(f"no rules resolve a {action.kind!r} action")
    events: list[Event] = fn(state, action, dice)
    for hook in registry.AFTER_ACTION:
        events += hook(state, action, events)
    return events


# --- distance -------------------------------------------------------------------------------------


grid_distance = movement.grid_distance  # ODD-MOVE-4, written in rules/movement.py


def attack_distance(
    state: FightState, attacker: CombatantState, defender: CombatantState, given: int | None
) -> int:
    """The referee's stated distance, else the grid distance, else the gap left of the encounter's
    distance (:func:`off_grid_gap`)."""
    if given is not None:
        return given
    grid = grid_distance(attacker, defender)
    return grid if grid is not None else off_grid_gap(state, attacker, defender)


MELEE_CONTACT = 5  # feet: adjacent, within any melee weapon's reach (ODD-MOVE-4: one square)


def off_grid_gap(state: FightState, attacker: CombatantState, defender: CombatantState) -> int:
    """Without grid positions the sides stand the encounter's `distance` apart; what each of two foes has
    closed toward the other side (a move toward a foe, half a move and an attack, a charge) shortens the gap
    between them, down to melee contact (ODD-ACT-ATK, ODD-MOVE-2). Two of one side: the encounter distance."""
    distance = state.setup.distance
    if attacker.side == defender.side:
        return distance
    if holds(attacker, defender) or holds(defender, attacker):  # a hold is made and broken in contact
        return min(distance, MELEE_CONTACT)
    return max(min(distance, MELEE_CONTACT), distance - attacker.closed - defender.closed)


def holds(holder: CombatantState, held: CombatantState) -> bool:
    """Whether `holder` holds `held` in a grapple (ODD-GRAP-3, MOD-COND-GRAPPLED-1)."""
    hold = held.conditions.get("grappled")
    return hold is not None and hold.source == holder.name


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
    form = attack_form(attacker, weapon, action.form, distance)
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


def attack_form(
    attacker: CombatantState, weapon: Weapon, declared: AttackForm | None, distance: int
) -> AttackForm:
    """The form of an attack with `weapon` at `distance`: the declared one, else ranged for a missile
    weapon (or a thrown one beyond its reach), melee otherwise, refined by the form rules (ODD-UNARMED-2);
    refused when the weapon cannot be used so (ODD-RANGED-1). It reads only the attacker's sheet."""
    form = declared
    if form is None:
        form = (
            AttackForm.RANGED
            if weapon.is_ranged or (weapon.can_throw() and distance > weapon.reach)
            else AttackForm.MELEE
        )
        for pick in late("registry").FORM_RULES:  # the form rules (ODD-UNARMED-2)
            form = pick(attacker, weapon, form)
    if form is AttackForm.RANGED and not (weapon.is_ranged or weapon.can_throw()):
        raise IllegalActionError(f"{weapon.name} is not a missile weapon and cannot be thrown")
    if form is AttackForm.MELEE and weapon.kind.value == "propelled":
        raise IllegalActionError(f"{weapon.name} is a missile weapon; use it at range (ODD-RANGED-1)")
    return form


# --- rolling a plan: the procedures live in rules/attack_roll.py (re-exported for older callers) -------


def defeat_status(
    target: CombatantState, damage: int, subdual: bool, knockout: bool, ruleset: Ruleset
) -> str | None:
    """The status damage leaves the target in when that is a defeat; None when it stays as it was.
    Shared with :mod:`referee.odds` (the chance an attack drops its target)."""
    hp_after = target.hp - (0 if subdual else damage)
    sub_after = target.subdual + (damage if subdual else 0)
    status = hit_points.status_after_damage(hp_after, sub_after, target.spec.is_monster, ruleset, knockout)
    return None if status == target.status or status == hit_points.ACTIVE else status


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
    rolled, amount = amount, damage_dealt(target.hp, amount, subdual, knockout)
    if amount != rolled and text:  # the account agrees with the damage recorded
        text += f"; the knock-out blow leaves {target.name} at 0 hp: {amount} taken (MF-KO-1)"
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


def miss_chance_text(plan: AttackPlan, attack_dice: tuple[Any, ...]) -> str:
    """The account of a miss chance and its die, e.g. `66% miss chance [MF-VIS-2]: d100 77` (MF-VIS-5: a die
    at or under the chance turns a hit into a miss)."""
    sides, _threshold = miss_chance_die(plan.miss_chance, plan.miss_dice)
    rolled = [d for d in attack_dice if getattr(d, "purpose", "") == "miss chance"]
    face = f": d{sides} {rolled[-1].value}" if rolled else ""
    return f"{plan.miss_chance}% miss chance [{plan.miss_chance_rule}]{face}"


def damage_breakdown(plan: AttackPlan, how: str, mods: tuple[Modifier, ...]) -> str:
    """The account of a hit's damage: the dice, the modifiers, and a doubling with its rule
    ("(1d8 +1 Str [ODD-MELEE-2]) ×2 double damage [HR-CHARGE-4]"; the dice reading: "2d8 (double dice [...])")."""
    text = f"{how}{' ' if mods else ''}{' '.join(str(m) for m in mods)}"
    rules = ", ".join(plan.damage.doubled_by)
    if plan.damage.total_multiplier > 1:
        return f"({text}) ×{plan.damage.total_multiplier} double damage [{rules}]"
    if rules:
        return f"{text} (double damage: dice doubled [{rules}])"
    return text


def attack_verdict(plan: AttackPlan, outcome: AttackOutcome, attack_dice: tuple[Any, ...]) -> str:
    """The verdict the account gives: hit, miss, critical hit, fumble, or the miss chance's say."""
    if outcome.critical:
        return "critical hit"
    if outcome.fumble:
        return "fumble"
    if outcome.missed_by_chance:
        return f"miss ({miss_chance_text(plan, attack_dice)})"
    if outcome.hit and plan.miss_chance and outcome.faces:  # the d100 is shown when the hit stands too
        return f"{miss_chance_text(plan, attack_dice)}: the hit stands"
    return "hit" if outcome.hit else "miss"


def attack_text(ctx: AttackContext, plan: AttackPlan, faces: tuple[int, ...], verdict: str) -> str:
    """The account of an attack roll: the check's breakdown, the verdict when it is more than hit or miss,
    and why the roll was automatic or used two dice."""
    shown = "" if verdict in {"hit", "miss"} else f" ({verdict})"
    return plan.check.breakdown(faces) + shown + roll_reasons(ctx, plan)


def attack_data(
    plan: AttackPlan, outcome: AttackOutcome, ruleset: Ruleset, charge: bool, distance: int
) -> dict[str, Any]:
    """The data of an ATTACK event: the plan's weapon, form and armour class, and what the roll did."""
    ac = plan.armour_class
    faces = outcome.faces
    return {
        "weapon": plan.weapon, "form": plan.form.value, "natural": outcome.natural,
        "critical": outcome.critical, "fumble": outcome.fumble,
        "missed_by_chance": outcome.missed_by_chance,
        "ac": ac.value, "ac_convention": ac.convention, "ac_kind": ac.kind,
        "ac_breakdown": ac.breakdown(), "ac_components": [m.to_dict() for m in ac.components],
        "automatic": plan.check.automatic, "keep": plan.check.keep.value,
        "deflection_used": plan.deflection_used if faces or plan.check.automatic is not None else 0,
        "charge": charge, "distance": distance,
        "decisive": [d.to_dict() for d in caches.attack_decisive(plan, outcome, ruleset)],
    }  # fmt: skip


class _PlanAccount:
    """The events of one plan's rolls, each worked out once: the plan is frozen, so an ATTACK event is a
    pure function of it, the dice and what they did (the round is only its number, set on serving), and the damage of a hit (its DAMAGE and
    any DEFEAT event) also of the defender's hit points, subdual damage and status. Kept per plan in
    :data:`_ACCOUNTS`; events are frozen, so one can stand in several fights' logs."""

    __slots__ = ("attacks", "hits", "plan", "ruleset", "told")

    def __init__(self, plan: AttackPlan, ruleset: Ruleset) -> None:
        self.plan, self.ruleset = plan, ruleset
        self.attacks: dict[Hashable, Event] = {}
        self.hits: dict[Hashable, tuple[Event, ...]] = {}
        self.told: dict[Hashable, Any] = {}  # the lane's: by face (engine/plain_attack.py)


# id(plan) -> its account (which keeps the plan, so that the id stays its own while the entry exists)
_ACCOUNTS: dict[int, _PlanAccount] = {}
_BUDGET = 20_000  # events kept in all accounts (about 1.5 kB each); then all are forgotten: at most ~30 MB
_kept_events = 0


def _account(plan: AttackPlan, ruleset: Ruleset) -> _PlanAccount | None:
    """The plan's account, or None when the engine's caches are off (``REFEREE_ENGINE_CACHES=off``)."""
    if not memo.ENABLED:
        return None
    found = _ACCOUNTS.get(id(plan))
    if found is None or found.plan is not plan or found.ruleset is not ruleset:
        found = _ACCOUNTS[id(plan)] = _PlanAccount(plan, ruleset)
    return found


def kept_account(plan: AttackPlan, ruleset: Ruleset) -> _PlanAccount | None:
    """The plan's account (None with the caches off), for engine/plain_attack.py."""
    return _account(plan, ruleset)


def keep_event(table: dict[Hashable, Any], key: Hashable, value: Any, count: int) -> None:
    """Keep `value` (holding `count` events) in an account's `table`, under the accounts' budget."""
    global _kept_events
    if _kept_events >= _BUDGET:
        forget_accounts()
    _kept_events += count
    table[key] = value


_keep = keep_event


def forget_accounts() -> None:
    """Forget every kept event (tests; the budget spent)."""
    global _kept_events
    _ACCOUNTS.clear()
    _kept_events = 0


def attack_events(
    state: FightState,
    ctx: AttackContext,
    plan: AttackPlan,
    dice: DiceSource,
    action_data: dict[str, Any] | None,
    quiet: bool = False,
) -> list[Event]:
    """Roll a planned attack and return its events (action, conditions, attack, damage, defeat).

    `quiet`: the caller has checked that no after-attack hook can answer to anything but a fumble or a
    critical (engine/lane.py), so the hooks run only after one."""
    r = state.round
    tape = DiceTape(dice)
    out: list[Event] = []
    if action_data is not None:
        out.append(event(EventType.ACTION, r, actor=plan.attacker, target=plan.defender, data=action_data))
    if plan.on_attempt:
        out += effect_events(state, plan, plan.on_attempt, r)
    outcome = attack_roll.roll_attack(plan, tape)  # through the module: a house rule may replace it
    attack_dice = tape.take()
    ruleset = state.setup.ruleset
    account = _account(plan, ruleset)
    check = plan.check
    if account is None or check.automatic is not None or check.keep is not Keep.ALL:  # the reasons read ctx
        out.append(_stepped_attack_event(state, ctx, plan, outcome, attack_dice, r))
    else:
        key = (attack_dice, outcome, ctx.charge, ctx.distance)  # the round is only the event's number
        found = account.attacks.get(key)
        if found is None:
            found = attack_event(ctx, plan, outcome, attack_dice, r)
            _keep(account.attacks, key, found, 1)
        out.append(at_round(found, r))
    if outcome.hit and not plan.damage.none:
        out += hit_damage_events(state, plan, outcome, tape, account)
    if outcome.hit and plan.on_hit:
        out += effect_events(state, plan, plan.on_hit, r)
    if not quiet or outcome.fumble or outcome.critical:
        for hook in late("registry").AFTER_ATTACK:  # fumbles, garrottes, strays...
            out += hook(state, ctx, plan, outcome, dice)
    return out


def attack_event(
    ctx: AttackContext, plan: AttackPlan, outcome: AttackOutcome, attack_dice: tuple[Any, ...], round_no: int
) -> Event:
    """The ATTACK event of a rolled attack: its dice, modifiers, total against the target number, the
    account and the data."""
    check, faces = plan.check, outcome.faces
    verdict = attack_verdict(plan, outcome, attack_dice)
    return event(
        EventType.ATTACK, round_no, actor=plan.attacker, target=plan.defender, dice=attack_dice,
        modifiers=check.modifiers, total=(outcome.natural + check.bonus) if faces else None,
        target_number=check.target, hit=outcome.hit, text=attack_text(ctx, plan, faces, verdict),
        data=attack_data(plan, outcome, ctx.ruleset, ctx.charge, ctx.distance),
    )  # fmt: skip


def _stepped_attack_event(
    state: FightState,
    ctx: AttackContext,
    plan: AttackPlan,
    outcome: AttackOutcome,
    attack_dice: tuple[Any, ...],
    round_no: int,
) -> Event:
    """:func:`attack_event` of an attack whose account reads the context (two dice, an automatic result):
    worked out once per step of the fight being stepped for the same context, plan and dice
    (:func:`caches.within_step`; an exact walk resolves one attack in one state over every sequence of
    dice, engine/outcomes.py), else each time. The context and plan are kept with the event, so that
    their ids in the key stay theirs."""
    key = ("attack event", id(ctx), id(plan), attack_dice, outcome, round_no)
    found = caches.within_step(
        state, key, lambda: (ctx, plan, attack_event(ctx, plan, outcome, attack_dice, round_no))
    )
    return found[2]


def hit_damage_events(
    state: FightState, plan: AttackPlan, outcome: AttackOutcome, tape: DiceTape, account: _PlanAccount | None
) -> list[Event]:
    """The damage of a hit (ODD-ATK-2): its DAMAGE event, with what decided a defeat, and any DEFEAT."""
    amount, mods, how = attack_roll.roll_damage(plan, outcome, tape)  # a house rule may replace it
    defender = state[plan.defender]
    damage_dice = tape.take()
    if account is None:
        return hit_events(state, plan, outcome, defender, damage_dice, amount, mods, how)
    key = (damage_dice, amount, how, mods, outcome.critical, defender.hp, defender.subdual, defender.status)
    found = account.hits.get(key)
    if found is None:
        found = tuple(hit_events(state, plan, outcome, defender, damage_dice, amount, mods, how))
        _keep(account.hits, key, found, len(found))
    r = state.round
    return [at_round(e, r) for e in found]


HitAccount = tuple[int, str, str]  # a rolled hit's dice total, account text and rule: the same for any target


def hit_account(
    plan: AttackPlan,
    outcome: AttackOutcome,
    damage_dice: tuple[Any, ...],
    amount: int,
    mods: tuple[Modifier, ...],
    how: str,
) -> HitAccount:
    """What a rolled hit's DAMAGE event says whatever the defender's state: the dice part of the damage
    (:func:`decisive.damage_base`), the account ("1d8 +1 Str [ODD-MELEE-2] = 5 damage") and the rule."""
    sub = plan.damage.subdual
    base = decisive.damage_base(plan, outcome.critical, damage_dice)
    text = f"{damage_breakdown(plan, how, mods)} = {amount}{' subdual' if sub else ''} damage"
    return base, text, attack_roll.damage_rule_id(plan, outcome)


def hit_events(
    state: FightState,
    plan: AttackPlan,
    outcome: AttackOutcome,
    defender: CombatantState,
    damage_dice: tuple[Any, ...],
    amount: int,
    mods: tuple[Modifier, ...],
    how: str,
    told: HitAccount | None = None,
) -> list[Event]:
    """The DAMAGE (and DEFEAT) events of a hit whose damage was rolled (:func:`attack_roll.roll_damage`:
    `amount`, `mods`, `how`, from `damage_dice`) on `defender` as it stands (ODD-ATK-2, ODD-HP-1); `told`:
    its :func:`hit_account`, when already worked out."""
    sub, ko = plan.damage.subdual, plan.damage.knockout
    ruleset = state.setup.ruleset
    base, text, rule = told or hit_account(plan, outcome, damage_dice, amount, mods, how)

    def stands(n: int) -> bool:  # would n damage leave the defender as it was? (what decided a defeat)
        return defeat_status(defender, damage_dealt(defender.hp, n, sub, ko), sub, ko, ruleset) is None

    decided = decisive.damage_decisive(plan, base, mods, stands)
    return damage_events(
        state, defender, amount, round_no=state.round, by=plan.attacker, subdual=sub, knockout=ko,
        dice=damage_dice, modifiers=mods, rule=rule, text=text,
        extra={"critical": outcome.critical, "decisive": [d.to_dict() for d in decided]},
    )  # fmt: skip


def plan_declared_attack(state: FightState, action: Attack) -> tuple[AttackContext, AttackPlan]:
    """The context and plan of a declared attack (shared by the live roll and :mod:`referee.odds`)."""
    if not action.knockout:
        return caches.planned(state, action)  # the one the tactics checked, when the fight is unchanged
    ctx = attack_context(state, action)
    ctx = replace(ctx, situation=replace(ctx.situation, flags=ctx.situation.flags | {"knockout"}))
    return ctx, plan_attack(ctx)


def resolve_attack(state: FightState, action: Attack, dice: DiceSource) -> list[Event]:
    """ODD-ACT-ATK: a declared attack, maybe sent at another target first (MOD-COND-GRAPPLED-2).
    Several attacks in one action (a routine, ODD-ATK-3; extra attacks, ODD-ACT-MULTI): engine/routines.py."""
    routines = late("routines")  # attack routines (it imports this module)
    if routines.makes_routine(state, action):
        several: list[Event] = routines.resolve_routine(state, action, dice)
        return several

    before: list[Event] = []
    for retarget in late("registry").RETARGET_RULES:  # the retarget rules
        found = retarget(state, action, dice)
        if found is not None:
            flags = action.situation.flags | {"friendly"}  # the blow may land on a friend
            # at the distance of the grapple it struck into (the declared target's)
            given = action.distance or action.situation.distance
            distance = attack_distance(state, state[action.actor], state[action.target], given)
            action = replace(
                action, target=found[0], distance=distance, situation=replace(action.situation, flags=flags)
            )
            before += found[1]
    ctx, plan = plan_declared_attack(state, action)
    data = {"kind": "attack", "weapon": plan.weapon, "form": plan.form.value, "charge": action.charge}
    return before + attack_events(state, ctx, plan, dice, data)


def resolve_wait(state: FightState, action: Wait, dice: DiceSource) -> list[Event]:
    state[action.actor]
    return [event(EventType.ACTION, state.round, actor=action.actor, rule="ODD-ACT-FREE-1",
                  text=f"{action.actor} {action.reason}", data={"kind": "wait"})]  # fmt: skip
