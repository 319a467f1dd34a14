"""A plain attack rolled and told from what its plan already said: the lane's attack (engine/lane.py).

A plan is frozen (rules/attack.py), so what one d20 face does under it is always the same: the roll's
outcome (:func:`referee.rules.attack_roll.roll_attack`) and its ATTACK event. So are the dice a hit's damage
rolls (:func:`referee.rules.attack_roll.damage_recipe`) and, for the same faces and the defender's hit
points, its DAMAGE and DEFEAT events. :func:`plain_attack_events` draws the dice from the source in the
order the procedures draw them (the attack d20, then each damage die), and serves what the procedures
answered the first time those faces came up under that plan: it asks them again only for faces it has
not seen, through a source that hands them the faces already drawn first (:class:`ScriptedDice`), so the
procedures stay the one place of each rule. A face that needed more dice (a critical's confirmation, a
miss chance's d100) is not kept. Everything is kept in the plan's account (engine/resolve.py), under its
budget. A plan that is not plain (two dice, an automatic result, conditions on the attempt or the hit) or
the caches off: :func:`attack_events` itself; a procedure replaced since import (a house rule, a test):
the lane is off for the fight (:func:`unreplaced`, asked by :func:`referee.engine.lane.lane_for`).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import msgspec

from referee.checks import Check, Keep
from referee.dice import DiceSource, DiceTape, ScriptedDice, parse_dice
from referee.engine import resolve
from referee.engine.caches import late
from referee.engine.events import Event, EventType, at_round, event, renamed_at
from referee.engine.resolve import attack_event, attack_events, hit_damage_events, keep_event
from referee.engine.state import CombatantState, FightState
from referee.model import Combatant
from referee.rules import attack_roll
from referee.rules.attack import AttackPlan
from referee.rules.context import AttackContext
from referee.rules.ruleset import Ruleset
from referee.setup import Setup

# the procedures as imported: one replaced since (a house rule, a test) sends attacks the ordinary way
_ROLL_ATTACK = attack_roll.roll_attack
_CONFIRM_CRITICAL = attack_roll.confirm_critical
_CONFIRM_FUMBLE = attack_roll.confirm_fumble
_MISS_CHANCE_ROLL = attack_roll.miss_chance_roll
_ROLL_DAMAGE = attack_roll.roll_damage
_DAMAGE_RECIPE = attack_roll.damage_recipe


def unreplaced() -> bool:
    """The roll procedures are the ones imported (asked by the lane once a fight, engine/lane.py)."""
    a = attack_roll
    return (
        a.roll_attack is _ROLL_ATTACK
        and a.confirm_critical is _CONFIRM_CRITICAL
        and a.confirm_fumble is _CONFIRM_FUMBLE
        and a.miss_chance_roll is _MISS_CHANCE_ROLL
        and a.roll_damage is _ROLL_DAMAGE
        and a.damage_recipe is _DAMAGE_RECIPE
    )


def is_plain(plan: AttackPlan) -> bool:
    """One attack die, no automatic result, nothing put on by the attempt or the hit."""
    check = plan.check
    return (
        check.automatic is None
        and check.keep is Keep.ALL
        and check.dice_count == 1
        and not plan.on_attempt
        and not plan.on_hit
    )


def action_data(plan: AttackPlan) -> dict[str, Any]:
    """The data of the ACTION event of a declared attack (as :func:`resolve.resolve_attack` writes it)."""
    return {"kind": "attack", "weapon": plan.weapon, "form": plan.form.value, "charge": False}


def plain_attack_events(
    state: FightState, ctx: AttackContext, plan: AttackPlan, dice: DiceSource
) -> list[Event]:
    """The events of :func:`attack_events` for the lane's attack (``quiet``: the after-attack hooks run only
    after a fumble or a critical), the same dice drawn in the same order."""
    account = resolve.kept_account(plan, state.setup.ruleset)
    if account is None:  # the procedures were checked unreplaced when the fight began (lane_for)
        return attack_events(state, ctx, plan, dice, action_data(plan), quiet=True)
    told = account.told
    plain = told.get("plain")
    if plain is None:
        plain = told["plain"] = is_plain(plan)  # a frozen plan's: asked once
    if not plain:
        return attack_events(state, ctx, plan, dice, action_data(plan), quiet=True)
    r = state.round
    act = told.get(("action", r))
    if act is None:
        act = _in_round(told, "action", r, lambda: _action_event(plan, r))
    out = [act]
    face = dice.roll(plan.check.sides, "attack")
    key = (face, ctx.charge, ctx.distance, r)
    found = told.get(key)
    if found is None:
        base = told.get(key[:3])
        if base is None:
            found = _rolled(state, ctx, plan, dice, account, face)
        else:  # told in another round: copied once for this one
            found = (base[0], at_round(base[1], r))
            keep_event(told, key, found, 1)
    outcome, attack = found
    out.append(attack)
    if outcome.hit and not plan.damage.none:
        out += _damage_events(state, plan, outcome, dice, account)
    if outcome.fumble or outcome.critical:
        for hook in late("registry").AFTER_ATTACK:  # fumbles, armour damage...
            out += hook(state, ctx, plan, outcome, dice)
    return out


def _action_event(plan: AttackPlan, r: int) -> Event:
    return event(EventType.ACTION, r, actor=plan.attacker, target=plan.defender, data=action_data(plan))


def _in_round(told: dict[Any, Any], key: Any, r: int, make: Any) -> Any:
    """What is kept under `key` as it reads in round `r`: kept per round, made from the round-free one
    (itself made by `make` once) with :func:`at_round`, so that a kept event is copied once per round."""
    base = told.get(key)
    if base is None:
        base = make()
        keep_event(told, key, base, 1)
    found = at_round(base, r)
    keep_event(told, (key, r), found, 1)
    return found


def _rolled(
    state: FightState, ctx: AttackContext, plan: AttackPlan, dice: DiceSource, account: Any, face: int
) -> tuple[attack_roll.AttackOutcome, Event]:
    """The outcome and ATTACK event of attack face `face`: from the procedures (any further die they ask
    for drawn from `dice`), kept when that face was all they needed."""
    r = state.round
    key = (face, ctx.charge, ctx.distance)
    told = account.told
    found = told.get(key)
    if found is None:  # made in this round: kept as it is served (a kept event's round is only its number)
        family = _family(plan, ctx.ruleset, told)
        shared = family.get(key) if family is not None else None
        if shared is not None:  # told for a plan that differs only in the names
            found = (shared[0], renamed_at(shared[1], plan.attacker, plan.defender, r))
        else:
            tape = DiceTape(
                ScriptedDice([face], then=dice)
            )  # the face drawn, then any more the roll asks for
            outcome = attack_roll.roll_attack(plan, tape)
            attack_dice = tape.take()
            found = (outcome, attack_event(ctx, plan, outcome, attack_dice, r))
            if len(attack_dice) > 1:
                return found
            if family is not None:
                _tell(family, key, found)
        keep_event(told, key, found, 1)
        served: tuple[attack_roll.AttackOutcome, Event] = found
    else:
        served = (found[0], at_round(found[1], r))
    keep_event(told, (*key, r), served, 1)
    return served


def _family(plan: AttackPlan, ruleset: Ruleset, told: dict[Any, Any]) -> dict[Any, Any] | None:
    """What the plans equal to `plan` but for the attacker's and defender's names were told, by face (the
    four orcs' attacks on Brenna): a plain attack's outcome and ATTACK event read no name but in the
    event's actor and target (the check's label is shown only for an automatic result, which a plain plan
    has not), so they are told once for all of them and served with the names changed; and, by
    ``("rolled", critical, faces)``, a hit's rolled damage and its account (:func:`_told_hit`). Kept in
    the plan's account; None when the plan cannot be compared without its names."""
    found = told.get("family")
    if found is None:
        try:
            key = (_without_names(plan, "attacker", "defender"), id(ruleset))
            found = _FAMILIES.get(key)
            if found is None or found[0] is not ruleset:
                if len(_FAMILIES) >= _FAMILIES_LIMIT:
                    _FAMILIES.clear()
                found = _FAMILIES[key] = (ruleset, {}, None)
        except TypeError:  # a field that cannot be hashed
            found = (ruleset, None, None)
        told["family"] = found
    return found[1]


def _hit_family(
    plan: AttackPlan, ruleset: Ruleset, defender: CombatantState, told: dict[Any, Any]
) -> dict[Any, Any] | None:
    """What the plans equal to `plan` but for the attacker's name were told of a hit on this defender, by
    its dice and the defender's hit points, subdual damage and status (the four orcs' spears on Brenna): a
    hit's DAMAGE and DEFEAT events read the attacker's name only as their actor. Keyed by the defender's
    sheet too (its name and whether it is a monster are in the DEFEAT event). Kept in the plan's account;
    None when the plan cannot be compared without the name."""
    found = told.get("hit family")
    if found is None:
        try:
            key = (_without_names(plan, "attacker"), id(ruleset), id(defender.spec))
            found = _FAMILIES.get(key)
            if found is None or found[0] is not ruleset or found[2] is not defender.spec:
                if len(_FAMILIES) >= _FAMILIES_LIMIT:
                    _FAMILIES.clear()
                found = _FAMILIES[key] = (ruleset, {}, defender.spec)
        except TypeError:  # a field that cannot be hashed
            found = (ruleset, None, defender.spec)
        told["hit family"] = found
    return found[1]


def _twin_family(
    plan: AttackPlan, setup: Setup, defender: CombatantState, told: dict[Any, Any]
) -> dict[Any, Any] | None:
    """What the plans equal to `plan` but for both names were told of a hit on any defender whose sheet is
    equal to this one's but for the name (Brenna's sword on each of the four orcs): its DAMAGE event, which
    reads the defender's name only as its target (a knock-out's note names the defender: such plans are
    not kept here), and whether a DEFEAT followed. A DEFEAT's text names the defender, so it is not kept:
    it is asked of :func:`referee.engine.resolve.defeat_events` for the defender at hand (:func:`_defeat`);
    whether there is one is the same for a twin (the same sheet, hit points, subdual damage and status).
    By the hit's dice and the defender's state, as :func:`_hit_family`. Kept in the plan's account; None
    when the defender has no such twin or the plan cannot be compared without its names."""
    found = told.get("twin family")
    if found is None:
        twin = None if plan.damage.knockout else _twin(setup, defender.spec)
        if twin is None:
            found = (setup.ruleset, None, None)
        else:
            try:
                key = (_without_names(plan, "attacker", "defender"), id(setup.ruleset), id(twin), "twins")
                found = _FAMILIES.get(key)
                if found is None or found[0] is not setup.ruleset or found[2] is not twin:
                    if len(_FAMILIES) >= _FAMILIES_LIMIT:
                        _FAMILIES.clear()
                    found = _FAMILIES[key] = (setup.ruleset, {}, twin)
            except TypeError:  # a field that cannot be hashed
                found = (setup.ruleset, None, None)
        told["twin family"] = found
    return found[1]


def _twin(setup: Setup, sheet: Combatant) -> Combatant | None:
    """The first sheet of `setup` equal to `sheet` but for the name, when there are two or more such
    sheets (four orcs), else None: worked out once per setup."""
    found = _TWINS.get(id(setup))
    if found is None or found[0] is not setup:
        if len(_TWINS) >= 64:
            _TWINS.clear()
        first: dict[int, Combatant] = {}
        sheets = list(setup.combatants)
        for i, c in enumerate(sheets):
            for d in sheets[:i]:
                if d.__class__ is c.__class__ and msgspec.structs.replace(c, name=d.name) == d:
                    first[id(c)] = first.setdefault(id(d), d)
                    break
        found = _TWINS[id(setup)] = (setup, first, tuple(sheets))
    return found[1].get(id(sheet))


# id(setup) -> (the setup, id(sheet) -> the first sheet equal to it but for the name, the sheets): the
# setup and its sheets are kept so that their ids stay theirs
_TWINS: dict[int, tuple[Setup, dict[int, Combatant], tuple[Combatant, ...]]] = {}


def _without_names(plan: AttackPlan, *names: str) -> tuple[Any, ...]:
    """The plan's fields but the `names` and its check's label (which names both), in their order: equal for
    plans equal but for those names (what dataclasses.replace would compare, without making a plan)."""
    check = plan.check
    unlabelled = tuple(getattr(check, f) for f in _CHECK_FIELDS if f != "label")
    return (names, unlabelled, *(getattr(plan, f) for f in _PLAN_FIELDS if f not in names and f != "check"))


_PLAN_FIELDS = tuple(f.name for f in fields(AttackPlan))
_CHECK_FIELDS = tuple(f.name for f in fields(Check))


# (a plan without its names, id(ruleset)) -> (the ruleset, by face: the outcome and ATTACK event, None), and
# (a plan without the attacker's name, id(ruleset), id(the defender's sheet)) -> (the ruleset, by dice and
# the defender's state: the hit's events, the sheet), and twins' (:func:`_twin_family`): what is in the key
# by id is kept so that its id stays its own; a family holds at most what its plans' accounts hold
_FAMILIES: dict[tuple[Any, ...], tuple[Ruleset, dict[Any, Any] | None, Any]] = {}
_FAMILIES_LIMIT = 1024
_TOLD_LIMIT = 20_000  # entries in all families (each an event or a hit's two): then all are forgotten
_told = 0


def _tell(family: dict[Any, Any], key: Any, value: Any) -> None:
    global _told
    if _told >= _TOLD_LIMIT:
        for _ruleset, faces, _sheet in _FAMILIES.values():
            if faces is not None:
                faces.clear()
        _told = 0
    _told += 1
    family[key] = value


def _damage_events(
    state: FightState, plan: AttackPlan, outcome: attack_roll.AttackOutcome, dice: DiceSource, account: Any
) -> list[Event]:
    """A hit's DAMAGE (and DEFEAT) events: its dice drawn as :func:`attack_roll.roll_damage` draws a plain
    sum (each group's dice in turn), the events served for those faces and the defender's hit points."""
    told = account.told
    critical = outcome.critical
    recipe = told.get(("recipe", critical))
    if recipe is None:
        expr, maximise, _mods = attack_roll.damage_recipe(plan, critical)
        plain = parse_dice(expr).plain
        recipe = () if maximise else (plain[0] if plain is not None else None)
        keep_event(told, ("recipe", critical), (recipe,), 0)
    else:
        recipe = recipe[0]
    if recipe is None:  # not a plain sum: rolled the ordinary way
        return hit_damage_events(state, plan, outcome, DiceTape(dice), account)
    draw = dice.roll
    if len(recipe) == 1 and recipe[0][0] == 1:  # one die (most weapons): no generator
        faces: tuple[int, ...] = (draw(recipe[0][1], "damage"),)
    else:
        faces = tuple(draw(sides, "damage") for count, sides in recipe for _ in range(count))
    defender = state.combatants[plan.defender]
    r = state.round
    key = ("hit", critical, faces, defender.hp, defender.subdual, defender.status)
    found = told.get((key, r))
    if found is None:
        base = told.get(key)
        if base is None:  # made in this round: kept as it is served (as the attack's, :func:`_rolled`)
            family = _hit_family(plan, state.setup.ruleset, defender, told)
            shared = family.get(key) if family is not None else None
            if shared is not None:  # told for another attacker of the same plan on this defender
                base = tuple(renamed_at(e, plan.attacker, e.target, r) for e in shared)
            else:
                twins = _twin_family(plan, state.setup, defender, told)
                alike = twins.get(key) if twins is not None else None
                if alike is not None:  # told for a defender equal to this one but for the name
                    damage = renamed_at(alike[0], plan.attacker, defender.name, r)
                    base = (damage, *_defeat(state, plan, defender, damage)) if alike[1] else (damage,)
                else:
                    base = tuple(_told_hit(state, plan, outcome, defender, faces, told))
                    if twins is not None:  # the DAMAGE, and whether a DEFEAT followed
                        _tell(twins, key, (base[0], len(base) > 1))
                if family is not None:
                    _tell(family, key, base)
            keep_event(told, key, base, len(base))
            found = base
        else:
            found = tuple(at_round(e, r) for e in base)
        keep_event(told, (key, r), found, len(found))
    return list(found)


def _defeat(state: FightState, plan: AttackPlan, defender: CombatantState, damage: Event) -> list[Event]:
    """The DEFEAT that follows `damage` (a hit's DAMAGE event, told for a twin of `defender`) on `defender`:
    from :func:`referee.engine.resolve.defeat_events`, asked as :func:`referee.engine.resolve.damage_events`
    asks it (the damage dealt, the plan's subdual and knock-out, the round, the attacker)."""
    assert damage.damage is not None
    sub, ko = plan.damage.subdual, plan.damage.knockout
    return resolve.defeat_events(state, defender, damage.damage, sub, ko, damage.round, plan.attacker)


def _told_hit(
    state: FightState,
    plan: AttackPlan,
    outcome: attack_roll.AttackOutcome,
    defender: CombatantState,
    faces: tuple[int, ...],
    told: dict[Any, Any],
) -> list[Event]:
    """A hit's events for these faces on the defender as it stands: the damage rolled from the faces
    (:func:`attack_roll.roll_damage`) and its account (:func:`referee.engine.resolve.hit_account`), the same
    for any hit points and names (they read the plan's damage and critical plans and the critical, not the
    names), so worked out once per family of plans (:func:`_family`), critical and faces; then what it
    does to this defender (:func:`referee.engine.resolve.hit_events`)."""
    key = ("rolled", outcome.critical, faces)
    rolled = told.get(key)
    if rolled is None:
        family = _family(plan, state.setup.ruleset, told)
        rolled = family.get(key) if family is not None else None
        if rolled is None:
            tape = DiceTape(ScriptedDice(faces))
            amount, mods, how = attack_roll.roll_damage(plan, outcome, tape)
            damage_dice = tape.take()
            account = resolve.hit_account(plan, outcome, damage_dice, amount, mods, how)
            rolled = (damage_dice, amount, mods, how, account)
            if family is not None:
                _tell(family, key, rolled)
        keep_event(told, key, rolled, 1)
    return resolve.hit_events(state, plan, outcome, defender, *rolled)
