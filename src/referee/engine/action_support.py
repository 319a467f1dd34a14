"""What the ODD actions share: the actor a hold may keep from acting (ODD-GRAP-3), "no movement" checks,
the referee's stated damage of a spell, item or ability (ODD-ATK-4) and the ACTION event."""

from __future__ import annotations

from typing import Any

from referee.engine.events import Event, EventType, event
from referee.engine.resolve import damage_events
from referee.engine.state import CombatantState, FightState
from referee.errors import IllegalActionError
from referee.rules.options import GrappleState

# --- shared checks ----------------------------------------------------------------------------------


def actor_state(state: FightState, name: str) -> CombatantState:
    """The actor, refusing anyone a hold keeps from acting (ODD-GRAP-3)."""
    c = state[name]
    hold = c.conditions.get("grappled")
    if hold is not None and state.setup.ruleset.grapple_state is GrappleState.ODD_HELD_DEFENCELESS:
        raise IllegalActionError(
            f"{name} is held by {hold.source} and can only try to break the hold (ODD-GRAP-3, ODD-GRAP-4)"
        )
    return c


def no_movement(what: str, moved: int, rule: str) -> None:
    if moved:
        raise IllegalActionError(f"{what} allows no movement ({rule})")


def referee_effect(
    state: FightState, actor: str, target: str | None, damage: int | None, subdual: bool, what: str
) -> list[Event]:
    """ODD-ATK-4: spells, items and abilities are resolved by their own rules; the engine applies the
    damage the referee states for them."""
    if damage is None:
        return []
    if target is None:
        raise IllegalActionError(f"{what}: damage needs a target")
    if damage < 0:
        raise IllegalActionError(f"{what}: damage must be 0 or more, not {damage}")
    return damage_events(
        state, state[target], damage, round_no=state.round, by=actor, subdual=subdual, rule="ODD-ATK-4",
        text=f"{damage}{' subdual' if subdual else ''} damage from {what} (stated by the referee)",
    )  # fmt: skip


def action_event(state: FightState, actor: str, rule: str, text: str, **data: Any) -> Event:
    return event(
        EventType.ACTION, state.round, actor=actor, target=data.get("target"), rule=rule, text=text, data=data
    )
