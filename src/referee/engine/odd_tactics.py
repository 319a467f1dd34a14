"""The choices of combatants nobody steers, beyond the default tactics: a held creature tries to break
free (ODD-GRAP-3/4), a caster keeps casting (ODD-ACT-CAST-2), the encounter file's `tactic` (its maneuver,
and a scripted charge declared at the start of the round, ODD-CHARGE-1) and closing in on the grid."""

from __future__ import annotations

from dataclasses import replace

from referee.dice import DiceSource
from referee.engine import tactics
from referee.engine.actions import Action, Attack, Wait, situation_from_dict
from referee.engine.caches import late, plan_attack, planned  # the plans: reused by the resolver
from referee.engine.events import Event
from referee.engine.moves import Charge, Move, MoveAttack, charge_distance, declare_charge, moved_copy
from referee.engine.resolve import MELEE_CONTACT, attack_context, off_grid_gap
from referee.engine.state import CombatantState, FightState
from referee.errors import IllegalActionError
from referee.rules import movement, targeting
from referee.rules.context import AttackForm, Situation
from referee.rules.options import Charge as ChargeOption  # not the Charge action
from referee.rules.options import GrappleState

# --- unsteered combatants -----------------------------------------------------------------------------


def _legal(state: FightState, action: Action) -> bool:
    """Whether an action resolves without an error (the dice are not touched: nothing is rolled)."""
    return _refusal(state, action) is None


def _refusal(state: FightState, action: Action) -> IllegalActionError | None:
    """Why the rules refuse an action (its error, naming the rule), or None when it is legal."""
    try:
        if isinstance(action, Attack):
            planned(state, action)  # kept for the resolver (engine/caches.py)
        elif isinstance(action, Charge):
            c, t = state[action.actor], state[action.target]
            distance = charge_distance(state, c, t, action.distance)
            plan_attack(attack_context(state, Attack(action.actor, target=action.target, weapon=action.weapon,
                                                     form=AttackForm.MELEE, charge=True, distance=distance,
                                                     situation=action.situation)))  # fmt: skip
        elif isinstance(action, MoveAttack):
            c = state[action.actor]
            half = movement.half_move(movement.allowance(c))
            t = state[action.target]
            if c.position is None and t.position is None:  # off the grid: the gap left after the move
                moved = action.moved or 0
                if moved > half:
                    return IllegalActionError(
                        f"{c.name} may move only {half} ft and still attack (ODD-ACT-ATK)"
                    )
                gap = max(MELEE_CONTACT, off_grid_gap(state, c, t) - moved)
                plan_attack(attack_context(state, Attack(action.actor, target=action.target, weapon=action.weapon,
                                                         form=action.form, distance=gap, situation=action.situation)))  # fmt: skip
                return None
            if c.position is None or t.position is None:
                return IllegalActionError(
                    f"{action.actor} has no position on the grid to move from (ODD-ACT-ATK)"
                )
            end = movement.along_line(c.position, t.position, min(movement.squares(half), movement.squares(
                movement.feet_between(c.position, t.position)) - 1))  # fmt: skip
            ctx = attack_context(state, Attack(action.actor, target=action.target, weapon=action.weapon,
                                               form=action.form, distance=movement.feet_between(end, t.position),
                                               situation=action.situation))  # fmt: skip
            plan_attack(replace(ctx, attacker=moved_copy(state[action.actor], end)))
    except IllegalActionError as exc:
        return exc
    return None


def held_tries_to_break_free(state: FightState, actor: str) -> Action | None:
    """ODD-GRAP-3/4: an unsteered held creature spends its action trying to break the hold."""
    hold = state[actor].conditions.get("grappled")
    if (
        hold is None
        or hold.source is None
        or state.setup.ruleset.grapple_state is not GrappleState.ODD_HELD_DEFENCELESS
    ):
        return None
    if hold.source not in state.combatants or not state[hold.source].is_active():
        return None  # the holder is down: the hold ends with the round, nothing to break
    return Attack(actor, target=hold.source, weapon="unarmed", form=AttackForm.GRAPPLE)


def caster_keeps_casting(state: FightState, actor: str) -> Action | None:
    """ODD-ACT-CAST-2: a spell of several rounds goes on until it is complete."""
    going = state[actor].conditions.get("casting")
    if going is None or "spell" not in going.data:
        return None
    from referee.engine.odd_actions import CastSpell  # the spells' module, for a caster only

    return CastSpell(actor, spell=str(going.data["spell"]), rounds=2, target=going.data.get("target"))


NO_SITUATION = Situation()  # frozen: one for every attack declared without circumstances


def tactic_situation(c: CombatantState) -> Situation:
    """The situation of the encounter file's `tactic` for `c` (none without a tactic), read once per sheet."""
    spec = c.spec
    tactic = spec.tactic
    if tactic is None:
        return NO_SITUATION
    found = _TACTIC_SITUATIONS.get(id(spec))
    if found is None or found[0] is not spec or found[1] is not tactic:
        made = situation_from_dict(tactic.situation.model_dump(exclude_none=True), f"{c.name}'s tactic")
        if len(_TACTIC_SITUATIONS) >= 1024:
            _TACTIC_SITUATIONS.clear()
        found = _TACTIC_SITUATIONS[id(spec)] = (spec, tactic, made)
    return found[2]


# id(sheet) -> (the sheet, its tactic, the tactic's situation): kept with the sheet so the id stays its own
_TACTIC_SITUATIONS: dict[int, tuple[object, object, Situation]] = {}


def standing_situation(state: FightState, c: CombatantState) -> Situation:
    """The tactic's situation in the rounds its tactic applies (all rounds without `rounds`), else none."""
    tactic = c.spec.tactic
    if tactic is None or (tactic.rounds is not None and state.round not in tactic.rounds):
        return NO_SITUATION
    return tactic_situation(c)


def scripted_maneuver(state: FightState, actor: str) -> Action | None:
    """The encounter file's `tactic` (docs/encounter-file.md): its maneuver when legal, else None."""
    c = state[actor]
    tactic = c.spec.tactic
    if tactic is None or (tactic.rounds is not None and state.round not in tactic.rounds):
        return None
    target = (
        tactic.target
        if tactic.target and state[tactic.target].is_active()
        else tactics.choose_target(state, actor)
    )
    if target is None:
        return None
    situation = tactic_situation(c)
    choice: Action
    if tactic.maneuver == "hold":  # stand and fight where it is: attack what is in reach, else wait
        names: list[str | None] = (
            [tactic.weapon] if tactic.weapon else [w.name for w in c.spec.weapons] or [None]
        )
        for name in names:
            if _legal(state, attack := Attack(actor, target=target, weapon=name, situation=situation)):
                return attack
        return Wait(actor, "holds its ground")
    if tactic.maneuver == "charge":
        choice = Charge(
            actor, target=target, weapon=tactic.weapon, distance=tactic.distance, situation=situation
        )
    elif tactic.maneuver == "attack":
        choice = Attack(actor, target=target, weapon=tactic.weapon, situation=situation)
    else:
        form = AttackForm(tactic.maneuver)
        if form is AttackForm.GRAPPLE and state[target].has("grappled"):
            form = AttackForm.PUMMEL if not c.spec.weapons else AttackForm.MELEE  # hold it and hit it (+10)
        weapon: str | None = tactic.weapon
        if form in {AttackForm.PUMMEL, AttackForm.GRAPPLE, AttackForm.OVERBEAR} and weapon is None:
            weapon = "unarmed"  # bare hands (a monster's natural weapon stays its own, ODD-UNARMED-2)
        if form is AttackForm.PUMMEL and c.spec.is_monster:
            weapon = tactic.weapon
        choice = Attack(actor, target=target, weapon=weapon, form=form, situation=situation)
    error = _refusal(state, choice)
    if error is None:
        return choice
    if isinstance(choice, Attack) and c.position is not None:
        closing = MoveAttack(
            actor, target=target, weapon=choice.weapon, form=choice.form, situation=situation
        )
        if _legal(state, closing):
            return closing
    from referee.engine.refusals import refused_instead, rule_of  # only when the choice is refused

    if rule_of(str(error)) in CLOSING_FIXES:
        return None  # out of reach or range: the default tactics close in (or wait) with the same situation
    return refused_instead(actor, choice, error, fallback(state, actor, situation))


# Refusals that moving closer (or farther) can mend: the default tactics handle them by closing in.
CLOSING_FIXES = frozenset({"ODD-ACT-ATK", "ODD-RANGED-3", "ODD-CHARGE-2", "HR-CHARGE-2", "HR-MISSILE-1"})


def fallback(state: FightState, actor: str, situation: Situation) -> Action:
    """What the default tactics do instead of a refused tactic: the first legal attack with the tactic's
    standing situation (targets by fewest hit points, ties first in the file; weapons in carried order),
    else closing in on the grid, else waiting."""
    c = state[actor]
    order = {spec.name: i for i, spec in enumerate(state.setup.combatants)}
    foes = sorted(
        tactics.target_enemies(state, actor),
        key=lambda f: targeting.target_priority(f.hp, f.subdual, order[f.name]),
    )
    weapons: list[str | None] = [w.name for w in c.spec.weapons] or [None]
    for foe in foes:
        for weapon in weapons:
            attack = Attack(actor, target=foe.name, weapon=weapon, situation=situation)
            if _legal(state, attack):
                return attack
    return close_in(state, actor) or Wait(actor, "has no legal attack")


def close_in(state: FightState, actor: str) -> Action | None:
    """On the grid, an unsteered combatant with no legal attack closes in: half a move and attack when
    that reaches, else a jog toward the nearest enemy (it cannot attack after more than half a move)."""
    c = state[actor]
    target = tactics.choose_target(state, actor)
    if target is None:
        return None
    weapons = late("routines").weapon_choices(c.spec)  # the whole routine first (ODD-ATK-3)
    if c.position is None and state[target].position is None:
        return _close_in_off_grid(state, c, target, weapons)
    if c.position is None or state[target].position is None:
        return None
    for weapon in weapons:
        if _legal(state, tactics.default_attack(state, actor, target, weapon, tactic_situation(c))):
            return None  # the default choice attacks
    for weapon in weapons:
        closing = MoveAttack(actor, target=target, weapon=weapon, situation=tactic_situation(c))
        if _legal(state, closing):
            return closing
    if movement.allowance(c, "jog") and not movement.is_restrained(c):
        return Move(actor, pace="jog", toward=target)
    return None


def _close_in_off_grid(
    state: FightState, c: CombatantState, target: str, weapons: list[str | None]
) -> Action | None:
    """Without positions, the same choice as on the grid (ODD-ACT-ATK): half a move and an attack when the gap
    left to melee contact is at most half the rate, else a jog toward the enemy (off_grid_gap)."""
    situation = tactic_situation(c)
    for weapon in weapons:
        if _legal(state, tactics.default_attack(state, c.name, target, weapon, situation)):
            return None  # the default choice attacks
    room = off_grid_gap(state, c, state[target]) - MELEE_CONTACT
    if room <= 0:
        return None
    if room <= movement.half_move(movement.allowance(c)):
        for weapon in weapons:
            closing = MoveAttack(c.name, target=target, weapon=weapon, moved=room, situation=situation)
            if _legal(state, closing):
                return closing
    if movement.allowance(c, "jog") and not movement.is_restrained(c):
        return Move(c.name, pace="jog", toward=target)
    return None


def declare_scripted_charges(state: FightState, dice: DiceSource) -> list[Event]:
    """Start of round: combatants whose `tactic` is a charge announce it before anyone acts (ODD-CHARGE-1)."""
    out: list[Event] = []
    if state.setup.ruleset.charge is not ChargeOption.ODD_DAMAGE_BONUS:
        return out
    for c in state.active():
        tactic = c.spec.tactic
        if (
            tactic is None
            or tactic.maneuver != "charge"
            or (tactic.rounds is not None and state.round not in tactic.rounds)
        ):
            continue
        choice = scripted_maneuver(state, c.name)
        if isinstance(choice, Charge):
            out += declare_charge(state, c.name, choice.target, choice.distance)
    return out
