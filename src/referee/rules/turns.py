"""Turns and the end of the fight: who may act in the current slot (ODD-INIT-3) and when the fight
ends (one side left, no side left, the round limit).

Written once for every path: the event engine, the exact odds and the simulator read the same
answers. The rules take plain values (the order, who has acted, who is ready), never the engine's state.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

ROUND_LIMIT = "round limit"
ONE_SIDE_LEFT = "one side left"
NO_SIDE_LEFT = "no side left"


def slot_index(order: Sequence[Sequence[str]], name: str) -> int:
    """The slot `name` acts in this round, or -1 when it has none."""
    for index, slot in enumerate(order):
        if name in slot:
            return index
    return -1


def next_actor(
    order: Sequence[Sequence[str]],
    acted: Collection[str],
    current_slot: int,
    acting_down: Collection[str],
    ready: Callable[[str], bool],
) -> str | None:
    """Whose turn it is: the first in the order who has not acted and is `ready` (active, and not
    surprised in a free round, ODD-SURP-4) — or who was struck down in the slot now acting and so
    still acts (ODD-INIT-3: the slot's actions are simultaneous). None: everyone has acted."""
    for index, slot in enumerate(order):
        for name in slot:
            if name in acted:
                continue
            if ready(name):
                return name
            if name in acting_down and index == current_slot:
                return name  # ODD-INIT-3: a simultaneous action still happens
    return None


def may_act(
    name: str,
    order: Sequence[Sequence[str]],
    acted: Collection[str],
    current_slot: int,
    acting_down: Collection[str],
    ready: Callable[[str], bool],
) -> bool:
    """Whether `name` may act now: it is the next actor, or it shares the next actor's slot, has not
    acted, and is ready or was struck down in that slot (ODD-INIT-3: one slot acts simultaneously, in
    any order)."""
    expected = next_actor(order, acted, current_slot, acting_down, ready)
    if expected is None or name in acted:
        return False
    if name == expected:
        return True
    in_same_slot = slot_index(order, name) == slot_index(order, expected) != -1
    return in_same_slot and (ready(name) or name in acting_down)


def simultaneous_actions_pending(acting_down: Collection[str], acted: Collection[str]) -> bool:
    """ODD-INIT-3: someone struck down in its own slot has still to act."""
    return any(name not in acted for name in acting_down)


@dataclass(frozen=True)
class FightEnd:
    """How a fight ended: the winning side (None: nobody), the reason and the rule."""

    winner: str | None
    reason: str
    rule: str

    @property
    def text(self) -> str:
        return winner_text(self.winner) if self.reason != ROUND_LIMIT else ROUND_LIMIT


def winner_text(winner: str | None, members: Sequence[str] = ()) -> str:
    """ "Orcs win", "Angthar wins", "nobody wins": the verb agrees with the side's name (issue 15).
    A side named after one of its `members` (a side "Lucas" holding Lucas) is that one creature."""
    name = winner or "nobody"
    return f"{name} {'win' if name not in members and is_plural_name(name) else 'wins'}"


def is_plural_name(name: str) -> bool:
    """A side named like a group ("Orcs", "the Fighters", "Men") reads as plural; "Angthar", "Boss",
    "Nobody" do not. English has no rule short of a dictionary: a last word ending in a plural "s"
    (not -ss, -us, -is) or "men" reads as plural."""
    words = name.split()
    last = words[-1].lower() if words else ""
    if last.endswith("men") or last in {"people", "folk", "children", "mice", "geese"}:
        return True
    return last.endswith("s") and not last.endswith(("ss", "us", "is", "'s")) and len(last) > 2


def goes_on(sides_standing: int, round_over: bool, before_limit: bool = False) -> bool:
    """What :func:`fight_end` answers before it is asked (ODD-ROUND-4): with two or more sides standing
    the fight goes on while the round is not over, whatever else holds (a pending action, the fallen to
    finish and the round limit only ever keep it going or end it at the round's end), and at the end of a
    round `before_limit` (one before the round limit: then nothing else can end it)."""
    return sides_standing > 1 and (not round_over or before_limit)


def fight_end(
    sides_standing: Sequence[str],
    round_no: int,
    max_rounds: int,
    round_over: bool,
    pending: bool = False,
    fallen_to_finish: bool = False,
) -> FightEnd | None:
    """Whether the fight is over, and how.

    One side standing wins; no side standing: nobody wins (a draw). At the end of the last round
    (`round_over` and `round_no` >= `max_rounds`) with more than one side standing, the round limit
    ends it with no winner. While an action of the slot now acting is `pending` (someone struck down
    in its own slot still acts, ODD-INIT-3) the fight does not end, except when the round is over.
    With `fallen_to_finish` (option `finish_fallen`, HR-HELPLESS-1: the one side standing still has
    enemies down but not dead to strike) the fight goes on until the round limit; the side still wins.
    """
    if pending and not round_over:
        return None
    if len(sides_standing) == 1 and fallen_to_finish and not (round_over and round_no >= max_rounds):
        return None  # the winners finish the fallen first (option finish_fallen)
    if len(sides_standing) == 1:
        return FightEnd(sides_standing[0], ONE_SIDE_LEFT, "ODD-ROUND-4")
    if not sides_standing:
        return FightEnd(None, NO_SIDE_LEFT, "ODD-ROUND-4")
    if round_over and round_no >= max_rounds:
        return FightEnd(None, ROUND_LIMIT, "ODD-ROUND-4")
    return None
