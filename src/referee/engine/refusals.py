"""A tactic's action the rules refuse, and the legal action taken instead (docs/encounter-file.md, `tactic`).

An encounter file's `tactic` may ask for what the rules forbid: an attack on a target in full cover
(MF-COVER-3), on a defender the attacker does not know is there (ODD-SIT-4), from cover the referee
rules cannot be attacked from (ODD-COVER-NOATK). The refusal is recorded with its rule, and the
fallback is a legal action chosen by the default tactics, with the tactic's standing situation kept:
:class:`Refused` carries both, and its resolver writes a note, then the fallback's own events.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

from referee.dice import DiceSource
from referee.engine.actions import Action, Wait, action_from_dict
from referee.engine.events import Event, EventType, event
from referee.engine.resolve import resolve
from referee.engine.state import FightState
from referee.errors import IllegalActionError

# A rule ID as RULES.md writes them: ODD-SIT-4, MF-COVER-3, ODD-COVER-NOATK, MOD-UW-1, HR-MISSILE-1...
RULE_ID = re.compile(r"\b(?:ODD|MOD|HR|MF|DAC|GAP)(?:-[A-Z0-9]+)+\b")


def rule_of(reason: str) -> str:
    """The first rule ID a refusal's message names (the engine's messages end with their rule)."""
    found = RULE_ID.search(reason)
    return found.group(0) if found else "ODD-ACT-1"


def describe(action: Action) -> str:
    """A short account of an action: "attack Goblin with its short bow", "wait"."""
    if isinstance(action, Wait):
        return action.reason
    target = getattr(action, "target", None)
    weapon = getattr(action, "weapon", None)
    text = action.kind.replace("_", " ")
    if target:
        text += f" {target}"
    if weapon:
        text += f" with its {weapon}"
    return text


@dataclass(frozen=True)
class Refused(Action):
    """A tactic's action refused by the rules (`refused`, `reason`, `rule`) and the legal `action` taken
    instead (ODD-ACT-1: the round's one action is the fallback's)."""

    kind: ClassVar[str] = "refused"
    refused: str = ""
    reason: str = ""
    rule: str = ""
    action: Any = None


def refused_instead(actor: str, refused: Action, error: IllegalActionError, fallback: Action) -> Refused:
    """Record `refused` (refused with `error`) and take `fallback` instead."""
    reason = str(error)
    return Refused(actor, refused=describe(refused), reason=reason, rule=rule_of(reason), action=fallback)


def resolve_refused(state: FightState, action: Refused, dice: DiceSource) -> list[Event]:
    inner = action.action
    if isinstance(inner, dict | MappingProxyType):
        inner = action_from_dict({"actor": action.actor, **dict(inner)})
    if not isinstance(inner, Action) or isinstance(inner, Refused):
        raise IllegalActionError("a refused action names the one ordinary action taken instead")
    if inner.actor != action.actor:
        raise IllegalActionError(f"the action taken instead of {action.actor}'s must be its own")
    state[action.actor]
    instead = "waits" if isinstance(inner, Wait) else describe(inner)
    note = event(
        EventType.ACTION, state.round, actor=action.actor, rule=action.rule or rule_of(action.reason),
        text=f"{action.actor} cannot {action.refused}: {action.reason}; instead: {instead}",
        data={"kind": "refused", "free": True, "refused": action.refused, "reason": action.reason,
              "instead": inner.kind},
    )  # fmt: skip
    return [note, *resolve(state, inner, dice)]


__all__ = ["Refused", "describe", "refused_instead", "resolve_refused", "rule_of"]
