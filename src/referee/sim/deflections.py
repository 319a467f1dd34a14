"""Deflections spent this round (DAC-DEFL-3) as axes of the attack tables: the target's, and — where a
free attack back meets them (MF-FUMBLE-2) — the attacker's own, compiled as spent on its target's
attack on it."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import numpy.typing as npt

from referee.files import Setup
from referee.sim.tables import SimOutcome, Unsupported


def padded(grid: list[list[npt.NDArray[np.int32]]]) -> npt.NDArray[np.int32]:
    """Layers per (attacker's, target's) deflections spent as one array, each list padded with its last
    layer (more spent changes nothing there), the states' axes with -1 to the widest."""
    count = max(len(layers) for layers in grid)
    wide = max(layer.shape[-1] for layers in grid for layer in layers)
    out = np.full((len(grid), count, *grid[0][0].shape[:-2], wide, wide), -1, dtype=np.int32)
    for b, layers in enumerate(grid):
        for u in range(count):
            layer = layers[min(u, len(layers) - 1)]
            out[b, u, ..., : layer.shape[-2], : layer.shape[-1]] = layer
    return out


def meets_own_deflections(
    layers: list[npt.NDArray[np.int32]], dists: list[dict[SimOutcome, Fraction]]
) -> bool:
    """Whether some attacker's attack can draw a free attack back (MF-FUMBLE-2) while its own deflections
    can be spent this round (DAC-DEFL-3): then the blow back meets them as they are spent."""
    for a in range(layers[0].shape[1]):
        against = {
            o for layer in layers for pid in set(layer[:, :, a].ravel().tolist()) - {-1} for o in dists[pid]
        }
        mine = {o for layer in layers for pid in set(layer[:, a].ravel().tolist()) - {-1} for o in dists[pid]}
        if (any(o[3] for o in against) or any(o[4] for o in mine)) and any(o[2] for o in mine):
            return True
    return False


def check_who_spent(
    setup: Setup, plans: npt.NDArray[np.int32], enemy: npt.NDArray[np.bool_], names: list[str],
    own_count: int = 1,
) -> None:  # fmt: skip
    """The attacker's spent deflections are compiled as spent on its target's attack on it: refuse where
    the count changes an attack of one with several enemies (which of them spent them may matter).
    `plans`' UA axis is (the attacker's count) * own_count + J (its own attackers, sim/blow_backs.py)."""
    for a in range(len(names)):
        mine = plans[:, a]  # (P, C, K, U, UA, W, W)
        mine = mine.reshape(*mine.shape[:4], -1, own_count, *mine.shape[5:])
        if int(enemy[a].sum()) > 1 and (mine != mine[:, :, :, :, :1]).any():
            raise Unsupported(
                f"{names[a]}'s attacks can draw a free attack back (MF-FUMBLE-2) that meets deflections"
                f" {names[a]} spent this round, and {names[a]} has several enemies (which spent them)"
            )
