"""The default tactics' choice of target, for combatants nobody steers (whole fights, the exact odds,
the simulator): the living enemy with the fewest hit points left (hp - subdual damage, GAP-SUBDUAL),
ties going to the first in the encounter file. Written once, so every path picks the same target.
"""

from __future__ import annotations

from collections.abc import Sequence


def target_priority(hp: int, subdual: int, file_index: int) -> tuple[int, int]:
    """The sort key of a candidate target: lowest first (fewest hit points, then first in the file)."""
    return (hp - subdual, file_index)


def choose_target(candidates: Sequence[tuple[str, int, int, int]]) -> str | None:
    """The default target among (name, hp, subdual, file index) of the living enemies; None if none."""
    if not candidates:
        return None
    return min(candidates, key=lambda c: target_priority(c[1], c[2], c[3]))[0]
