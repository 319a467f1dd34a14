"""The engine hooks of the ODD maneuvers and missiles: breaking a hold (ODD-GRAP-4, GAP-GRAPPLE-BREAK),
holds that end when the holder falls (ODD-GRAP-3), a character's bare-handed blow as a pummel
(ODD-UNARMED-2) and stray missiles (ODD-RANGED-4, ODD-RANGED-5, GAP-STRAY)."""

from __future__ import annotations

import math
from dataclasses import replace

from referee.checks import Modifier
from referee.dice import DiceSource
from referee.engine.caches import plan_attack  # the engine's planner (kept by what a plan read)
from referee.engine.events import Event, EventType, event
from referee.engine.resolve import AttackOutcome, attack_events
from referee.engine.state import CombatantState, FightState
from referee.errors import IllegalActionError
from referee.model import Weapon
from referee.rules import maneuvers, movement
from referee.rules.attack import AttackPlan
from referee.rules.context import AttackContext, AttackForm, Situation
from referee.rules.criticals import fumble_redirected
from referee.rules.options import MissilesIntoMelee

Point = tuple[int, int]


# --- grapple hooks (ODD-GRAP-3, ODD-GRAP-4) ----------------------------------------------------------


def release_events(state: FightState, held: str, holder: str, rule: str, why: str) -> list[Event]:
    out = []
    for name, who in [*((n, held) for n in maneuvers.HOLD_CONDITIONS), ("grappling", holder)]:
        if state[who].has(name):
            out.append(
                event(EventType.CONDITION, state.round, actor=held, target=who, rule=rule,
                      text=f"{who} is no longer {name} ({why})", data={"condition": name, "added": False})
            )  # fmt: skip
    return out


def break_free(
    state: FightState, ctx: AttackContext, plan: AttackPlan, outcome: AttackOutcome, dice: DiceSource
) -> list[Event]:
    """ODD-GRAP-4: a held creature that hits its holder with a grapple (against the holder's grapple AC,
    GAP-GRAPPLE-BREAK) is free; the hold's conditions end."""
    if not outcome.hit or not maneuvers.is_breaking_free(ctx):
        return []
    return release_events(state, ctx.attacker.name, ctx.defender.name, "ODD-GRAP-4", "broke the hold")


def holds_without_holder(state: FightState, dice: DiceSource) -> list[Event]:
    """A hold ends when its holder is out of the fight (an assumption: nobody is left holding)."""
    out = []
    for c in state.combatants.values():
        hold = c.conditions.get("grappled")
        if hold is None or hold.source is None or hold.source not in state.combatants:
            continue
        if not state[hold.source].is_active():
            out += release_events(
                state, c.name, hold.source, "ODD-GRAP-3", f"{hold.source} is {state[hold.source].status}"
            )
    return out


def bare_hands_pummel(attacker: CombatantState, weapon: Weapon, form: AttackForm) -> AttackForm:
    """ODD-UNARMED-2: a character (not a monster) fighting bare-handed is pummelling."""
    if form is AttackForm.MELEE:
        return maneuvers.default_form(attacker.spec.is_monster, weapon)
    return form


# --- stray missiles (ODD-RANGED-4, ODD-RANGED-5, GAP-STRAY) --------------------------------------------


def on_line_beyond(shooter: Point, missed: Point, other: Point) -> bool:
    """Whether `other` lies on the straight line from the shooter through the missed target, beyond it
    (within half a square of the line)."""
    dx, dy = missed[0] - shooter[0], missed[1] - shooter[1]
    ox, oy = other[0] - shooter[0], other[1] - shooter[1]
    length = math.hypot(dx, dy)
    if length == 0:
        return False
    along = (ox * dx + oy * dy) / length
    if along <= length:
        return False
    across = abs(ox * dy - oy * dx) / length
    return across <= 0.5


def stray_reach(weapon: Weapon) -> int:
    """ODD-RANGED-4: a stray flies on within close range; ODD-RANGED-5: a crossbow bolt to long range."""
    increment = weapon.range or 0
    return 3 * increment if weapon.bolt else increment


def stray_missiles(
    state: FightState, ctx: AttackContext, plan: AttackPlan, outcome: AttackOutcome, dice: DiceSource
) -> list[Event]:
    """A missile that misses flies on: a new roll against each creature on the line beyond the target,
    nearest first, at -1 per full 10 ft past the missed target, until one is hit (GAP-STRAY)."""
    if outcome.hit or not ctx.is_ranged or ctx.situation.has("stray"):
        return []
    if outcome.fumble and fumble_redirected(ctx):
        return []  # MF-FUMBLE-3 re-rolls this missile against an ally: it is resolved once, not also a stray
    if state.setup.ruleset.missiles_into_melee is not MissilesIntoMelee.ODD_STRAY:
        return []
    shooter, missed = ctx.attacker.position, ctx.defender.position
    if shooter is None or missed is None:
        return []
    reach = stray_reach(ctx.weapon)
    candidates = [
        c for c in state.combatants.values()
        if c.name not in {ctx.attacker.name, ctx.defender.name} and c.is_active() and c.position is not None
        and on_line_beyond(shooter, missed, c.position) and movement.feet_between(shooter, c.position) <= reach
    ]  # fmt: skip
    candidates.sort(key=lambda c: movement.feet_between(shooter, c.position or shooter))
    out: list[Event] = []
    for c in candidates:
        assert c.position is not None
        past = movement.feet_between(missed, c.position)
        penalty = -(past // 10)
        mods = (
            (Modifier(penalty, "ODD-RANGED-4", f"stray missile, {past} ft past {ctx.defender.name}"),)
            if penalty
            else ()
        )
        rule = "ODD-RANGED-5" if ctx.weapon.bolt else "ODD-RANGED-4"
        situation = Situation(modifiers=mods, flags=frozenset({"stray", "friendly"}))
        stray = replace(ctx, defender=c, distance=movement.feet_between(shooter, c.position), situation=situation,
                        free_attack=True)  # fmt: skip
        try:
            stray_plan = plan_attack(stray)
        except IllegalActionError:
            continue
        out.append(
            event(EventType.ACTION, state.round, actor=ctx.attacker.name, target=c.name, rule=rule,
                  text=f"the missile flies on past {ctx.defender.name} toward {c.name}",
                  data={"kind": "stray", "free": True})
        )  # fmt: skip
        events = attack_events(state, stray, stray_plan, dice, None)
        out += events
        if any(e.type is EventType.ATTACK and e.hit for e in events):
            break
    return out
