"""The fighting withdrawal and attacks of opportunity of the house-rules post (HR-WITHDRAW-1..3, GAP-AOO).

How far a combatant may move is :mod:`referee.rules.movement`'s, who may not move :func:`referee.rules.house.can_move`;
this module resolves the :class:`Withdraw` action and the free attacks it provokes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from referee.dice import DiceSource
from referee.engine.actions import Action
from referee.engine.events import Event, EventType, event
from referee.engine.fumbles import free_attack_events, scratch_state
from referee.engine.house import condition_event
from referee.engine.state import CombatantState, FightState
from referee.errors import IllegalActionError
from referee.rules import movement
from referee.rules.criticals import in_melee
from referee.rules.house import can_move


@dataclass(frozen=True)
class Withdraw(Action):
    """Leave melee, moving `feet` (to `position` on a grid). `turns_back`: the mover shows its back."""

    kind: ClassVar[str] = "withdraw"
    feet: int = 0
    position: tuple[int, int] | None = None
    turns_back: bool = False


def resolve_withdraw(state: FightState, action: Withdraw, dice: DiceSource) -> list[Event]:
    """HR-WITHDRAW-1: up to half the rate, a fighting withdrawal, no attacks of opportunity.
    HR-WITHDRAW-2 (GAP-AOO): more than half: each opponent in melee gets one free melee attack, at most one
    per opponent per round, without using its action (rear modifiers if the mover turns its back).
    HR-WITHDRAW-3: no attack that round, before or after."""
    me = state[action.actor]
    if not isinstance(action.feet, int) or isinstance(action.feet, bool):
        raise IllegalActionError(f"withdraw: feet must be a whole number, not {action.feet!r}")
    if not can_move(me):
        raise IllegalActionError(f"{me.name} cannot move (HR-NET-2, HR-GARROTE-5, ODD-MOVE-7)")
    rate, most = movement.allowance(me), movement.allowance(me, "run")
    if action.feet < 0 or action.feet > most:
        raise IllegalActionError(f"{me.name} can move 0 to {most} ft (ODD-MOVE-2), not {action.feet}")
    if any(me.name in c.attackers_this_round for c in state.combatants.values()):
        raise IllegalActionError(f"{me.name} attacked this round and cannot also withdraw (HR-WITHDRAW-3)")
    fighting = action.feet <= movement.half_move(rate)
    rule = "HR-WITHDRAW-1" if fighting else "HR-WITHDRAW-2"
    r = state.round
    data: dict[str, Any] = {"kind": "withdraw", "moved": action.feet, "fighting_withdrawal": fighting}
    if action.position is not None:
        data["position"] = list(action.position)
    out = [event(EventType.ACTION, r, actor=me.name, rule=rule, data=data,
                 text=f"{me.name} {'makes a fighting withdrawal' if fighting else 'leaves melee'} ({action.feet} ft)"),
           condition_event(r, me.name, "withdrawing", added=True, rule="HR-WITHDRAW-3", until=r,
                           text=f"{me.name} makes no attack this round")]  # fmt: skip
    if fighting or not state.setup.ruleset.fighting_withdrawal:
        return out
    return out + opportunity_attacks(state, me, action, dice)


def opportunity_attacks(
    state: FightState, mover: CombatantState, action: Withdraw, dice: DiceSource
) -> list[Event]:
    """GAP-AOO: the free attacks of the opponents in melee with a mover leaving at more than half its rate."""
    out: list[Event] = []
    foes = [
        f for f in state.living_enemies(mover.name) if in_melee(state, f, mover) and not f.has("aoo_used")
    ]
    scratch = state
    flags = frozenset({"rear"}) if action.turns_back else frozenset()
    for foe in foes:
        if not scratch[mover.name].is_active():
            break  # the mover fell to an earlier attack
        used = condition_event(state.round, foe.name, "aoo_used", added=True, rule="GAP-AOO", until=state.round,
                               text=f"{foe.name} has used its attack of opportunity")  # fmt: skip
        attack = free_attack_events(
            scratch, foe.name, mover.name, dice, rule="HR-WITHDRAW-2",
            reason=f"gets an attack of opportunity on {mover.name} (HR-WITHDRAW-2, GAP-AOO)", distance=5, flags=flags,
        )  # fmt: skip
        out += [*attack, used]
        scratch = scratch_state(state, out)
    return out
