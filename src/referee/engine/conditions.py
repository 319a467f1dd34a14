"""The engine side of 001's conditions: the referee's actions that put a condition on or take it off,
the grappler an outsider strikes (MOD-COND-GRAPPLED-2), waking a wounded sleeper (MOD-COND-SLEEP-M),
called shots (MOD-CALLED-2), the rolled segment delays (GAP-SEGMENTS), a spell cast blind or deaf
(MOD-COND-BLIND-2, MOD-COND-DEAF) and the unsteered creature that cannot act.

The numbers are :mod:`referee.rules.conditions`'; this module rolls dice and writes the events.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from referee.dice import DiceSource, DiceTape, roll
from referee.engine.actions import Action, Attack, Wait
from referee.engine.events import Event, EventType, event
from referee.engine.resolve import AttackOutcome
from referee.engine.state import CombatantState, FightState
from referee.errors import IllegalActionError
from referee.rules import initiative, registry
from referee.rules.attack import AttackPlan
from referee.rules.conditions import (
    CONDITION_TABLE,
    blind_spell_allowed,
    called_shot,
    can_act_physically,
    deaf_failure_chance,
    grapple_group,
)
from referee.rules.context import AttackContext
from referee.rules.options import GrappleState, Initiative
from referee.rules.vocabulary import CONDITIONS, PAIRED

if TYPE_CHECKING:
    from referee.engine.odd_actions import CastSpell  # only named in a signature: casting imports it


def random_grappler(state: FightState, action: Attack, dice: DiceSource) -> tuple[str, list[Event]] | None:
    """MOD-COND-GRAPPLED-2: an outsider's attack on a grappler strikes one of the grapplers at random
    (each equally likely; the die is recorded before the attack roll)."""
    if state.setup.ruleset.grapple_state is not GrappleState.MOD_GRAPPLED_PLUS_4 or not action.target:
        return None
    if action.target not in state.combatants:
        return None
    group = grapple_group(state, action.target)
    if len(group) < 2 or action.actor in group:
        return None
    tape = DiceTape(dice)
    face = tape.roll(len(group), "which grappler is struck")
    struck = group[face - 1]
    text = f"{action.actor} strikes into the grapple: d{len(group)} = {face} → {struck}"
    check = event(
        EventType.CHECK, state.round, actor=action.actor, target=struck, dice=tape.take(), total=face,
        rule="MOD-COND-GRAPPLED-2", text=text,
        data={"check": "random grappler", "declared": action.target, "group": group},
    )  # fmt: skip
    return struck, [check]


def wake_sleepers(
    state: FightState, ctx: AttackContext, plan: AttackPlan, outcome: AttackOutcome, dice: DiceSource
) -> list[Event]:
    """MOD-COND-SLEEP-M: wounding wakes a magical sleeper (noise does not); a natural sleeper too."""
    d = ctx.defender
    if not outcome.hit or plan.damage.none or not d.is_active():
        return []
    out = []
    # a magical sleeper wakes when wounded (MOD-COND-SLEEP-M); a natural one sleeps only until noise occurs
    # (MOD-COND-SLEEP-N-1), and a wound is more than noise
    for name, rule in (("sleeping", "MOD-COND-SLEEP-M"), ("sleeping_natural", "MOD-COND-SLEEP-N-1")):
        if d.has(name):
            out.append(
                event(EventType.CONDITION, state.round, actor=ctx.attacker.name, target=d.name,
                      rule=rule, text=f"{d.name} is wounded and wakes",
                      data={"condition": name, "added": False})
            )  # fmt: skip
    return out


def called_shot_result(
    state: FightState, ctx: AttackContext, plan: AttackPlan, outcome: AttackOutcome, dice: DiceSource
) -> list[Event]:
    """MOD-CALLED-2: only a natural 20 produces the intended effect (the referee says what); otherwise
    the action is wasted. MOD-CALLED-1: the referee's own modifiers come in the situation."""
    if not called_shot(ctx):
        return []
    success = outcome.natural == 20
    text = (
        "called shot: natural 20, the intended effect happens (referee)"
        if success
        else (f"called shot: natural {outcome.natural}, not 20: the action is wasted")
    )
    return [
        event(EventType.CHECK, state.round, actor=ctx.attacker.name, target=ctx.defender.name, total=outcome.natural,
              target_number=20, hit=success, rule="MOD-CALLED-2", text=text, data={"check": "called shot"})
    ]  # fmt: skip


def unable_to_act(state: FightState, actor: str) -> Action | None:
    """Tactics: a creature whose condition forbids attacking waits (the reason names the rule)."""
    why = can_act_physically(state, state[actor])
    return Wait(actor, f"cannot attack: {why}") if why else None


def segment_delays(state: FightState, dice: DiceSource) -> list[Event]:
    """GAP-SEGMENTS: under `initiative = segments_with_delays`, roll each delay (file order) after the
    initiative dice; a delay of k segments lowers the effective initiative by k; the order is re-made."""
    if state.setup.ruleset.initiative is not Initiative.SEGMENTS_WITH_DELAYS:
        return []
    tape = DiceTape(dice)
    delays: dict[str, int] = {}
    texts: list[str] = []
    for c in state.combatants.values():
        if not c.is_active():
            continue
        for expr, rule, why in (d for source in registry.DELAY_SOURCES for d in source(state, c)):
            k = roll(
                expr, tape, f"delay {c.name} ({why})"
            ).total  # dice first: the simulator's probe sees them
            delays[c.name] = delays.get(c.name, 0) + k
            texts.append(f"{c.name} +{k} segments ({why}, {rule})")
    if not delays or not state.rolls:
        return []
    entries = [
        initiative.Roll(n, r, state[n].spec.abilities.dexterity, delays.get(n, 0))
        for n, r in state.rolls.items()
        if n in state.combatants and state[n].is_active()
    ]
    order = initiative.order_individual(entries)
    if state.round == 1 and state.setup.ruleset.first_strike_reach_size:
        order, _ = initiative.apply_first_strike(order, {n: state[n].spec for slot in order for n in slot})
    text = "; ".join(texts) + " → " + " > ".join("=".join(s) for s in order)
    return [
        event(EventType.INITIATIVE, state.round, dice=tape.take(), rule="GAP-SEGMENTS", text=text,
              data={"order": order, "rolls": dict(state.rolls), "delays": delays})
    ]  # fmt: skip


# --- the referee's actions: apply and remove a condition ----------------------------------------------


def until_round(state: FightState, rounds: int | None) -> int | None:
    """`rounds` counts the current round (between rounds: the next one): 1 = to the end of that round;
    None = until removed."""
    if rounds is None:
        return None
    if rounds < 1:
        raise IllegalActionError(f"a condition lasts at least 1 round, not {rounds}")
    return first_round(state) + rounds - 1


def first_round(state: FightState) -> int:
    """The round a condition put on now starts counting from: this one, or the next between rounds."""
    return max(1, state.round if state.order or state.free_round else state.round + 1)


@dataclass(frozen=True)
class ApplyCondition(Action):
    """The referee puts a condition on `actor` (it does not use that creature's action)."""

    kind: ClassVar[str] = "apply_condition"
    out_of_turn: ClassVar[bool] = True
    condition: str = ""
    rounds: int | None = None  # counting this round; None = until removed
    ends_segment: int | None = None  # a stun that ends in this segment of the next round (MOD-COND-STUN-2)
    by: str = ""  # who causes it (a grapple's holder links the grapplers, MOD-COND-GRAPPLED-2)
    reason: str = "referee"


@dataclass(frozen=True)
class RemoveCondition(Action):
    """The referee takes a condition off `actor`."""

    kind: ClassVar[str] = "remove_condition"
    out_of_turn: ClassVar[bool] = True
    condition: str = ""
    reason: str = "referee"


def known_condition(name: str) -> str:
    if name not in CONDITIONS:
        raise IllegalActionError(f"unknown condition {name!r}; conditions: {', '.join(sorted(CONDITIONS))}")
    return name


def resolve_apply(state: FightState, action: ApplyCondition, dice: DiceSource) -> list[Event]:
    c = state[action.actor]
    name = known_condition(action.condition)
    if name in PAIRED and not (action.by and action.by != c.name and name in {"grappled", "grappling"}):
        raise IllegalActionError(
            f"{name!r} ties two combatants together and arises from an attack"
            + (" (a grapple may be set with `by`: the other grappler)" if name.startswith("grappl") else "")
        )
    extra: dict[str, int] = {"since": first_round(state)}
    if action.ends_segment is not None:
        if not 1 <= action.ends_segment <= 10:
            raise IllegalActionError(f"ends_segment must be a segment 1-10, not {action.ends_segment}")
        extra["ends_segment"] = action.ends_segment
    until = until_round(state, action.rounds)
    by = state[action.by].name if action.by else None
    row = CONDITION_TABLE.get(name)
    rule = row.rule if row is not None else None
    lasting = "until removed" if until is None else f"until the end of round {until}"
    return [
        event(EventType.CONDITION, state.round, actor=by, target=c.name, rule=rule,
              text=f"{c.name} is {name} {lasting} ({action.reason})",
              data={"condition": name, "added": True, "until_round": until, "extra": extra, "free": True})
    ]  # fmt: skip


def resolve_remove(state: FightState, action: RemoveCondition, dice: DiceSource) -> list[Event]:
    c = state[action.actor]
    name = known_condition(action.condition)
    if not c.has(name):
        raise IllegalActionError(f"{c.name} is not {name}")
    return [
        event(EventType.CONDITION, state.round, target=c.name,
              text=f"{c.name} is no longer {name} ({action.reason})",
              data={"condition": name, "added": False, "free": True})
    ]  # fmt: skip


def spell_checks(
    state: FightState, c: CombatantState, action: CastSpell, dice: DiceSource
) -> list[Event] | None:
    """MOD-COND-BLIND-2 (a blind caster cannot cast a targeted spell) and MOD-COND-DEAF (a deafened
    caster's verbal spell fails on d100 <= 10, or <= 20 when it takes more than 3 segments)."""
    blind_spell_allowed(c, action.delivery, state.setup.ruleset)
    if not (action.verbal and c.has("deafened")):
        return None
    segments = action.segments if action.segments is not None else 10 * action.rounds
    chance = deaf_failure_chance(segments)
    tape = DiceTape(dice)
    face = tape.roll(100, f"deafened spell failure {c.name}")
    if face > chance:
        return None
    return [
        event(EventType.CHECK, state.round, actor=c.name, dice=tape.take(), total=face, target_number=chance,
              hit=False, rule="MOD-COND-DEAF",
              text=f"{c.name} is deafened: d100 {face} <= {chance}% → {action.spell} fails",
              data={"check": "deafened spell", "spell": action.spell})
    ]  # fmt: skip
