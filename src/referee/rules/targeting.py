"""The default tactics' choice of target, for combatants nobody steers (whole fights, the exact odds,
the simulator): the living enemy with the fewest hit points left (hp - subdual damage, GAP-SUBDUAL),
ties going to the first in the encounter file. Written once, so every path picks the same target.

Option `finish_fallen` (HR-HELPLESS-1, MOD-HELPLESS-MELEE, GAP-COUP) widens the pool to enemies who are
down but not dead: once no enemy stands (`when_no_standing_enemy`), or at once (`always`; with fewest hit
points first, the fallen go first). Off (the default), only standing enemies are targets.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from referee.rules.options import FinishFallen

T = TypeVar("T")


def target_priority(hp: int, subdual: int, file_index: int) -> tuple[int, int]:
    """The sort key of a candidate target: lowest first (fewest hit points, then first in the file)."""
    return (hp - subdual, file_index)


def choose_target(candidates: Sequence[tuple[str, int, int, int]]) -> str | None:
    """The default target among (name, hp, subdual, file index) of the living enemies; None if none."""
    if len(candidates) < 2:  # none, or the one enemy left (a duel): no priorities to compare
        return candidates[0][0] if candidates else None
    best, lowest = candidates[0][0], target_priority(*candidates[0][1:])
    for name, hp, subdual, index in candidates[1:]:
        key = target_priority(hp, subdual, index)
        if key < lowest:  # the first of equal priorities stays (the first in the file)
            best, lowest = name, key
    return best


def target_pool(standing: Sequence[T], fallen: Sequence[T], finish: FinishFallen) -> list[T]:
    """The enemies the default tactics may strike: the standing ones, and with `finish_fallen` the fallen
    (down, not dead) ones too — only when none stands, or always (HR-HELPLESS-1, MOD-HELPLESS-MELEE)."""
    if finish is FinishFallen.ALWAYS or (finish is FinishFallen.WHEN_NO_STANDING_ENEMY and not standing):
        return [*standing, *fallen]
    return list(standing)
