"""What many fights come to: a :class:`Tally` of counts (batches and workers add up) and the
:class:`SimResult` a run reports (which path ran, and why)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from referee.files import Setup
from referee.sim.tables import IntArray

VECTORISED = "vectorised"
EVENT_ENGINE = "event engine"


@dataclass
class Tally:
    """Counts from some fights; tallies add up (batches, workers)."""

    fights: int
    wins: IntArray  # per side
    draws: int
    round_limit: int
    rounds: IntArray  # histogram, index = rounds
    alive: IntArray  # per combatant: not dead at the end (standing or down)
    standing: IntArray  # per combatant: still active at the end
    hp_left: IntArray  # per combatant: sum of max(hp, 0) at the end

    @classmethod
    def empty(cls, sides: int, combatants: int, max_rounds: int) -> Tally:
        z = np.zeros
        return cls(0, z(sides, np.int64), 0, 0, z(max_rounds + 1, np.int64), z(combatants, np.int64),
                   z(combatants, np.int64), z(combatants, np.int64))  # fmt: skip

    def add(self, other: Tally) -> None:
        self.fights += other.fights
        self.wins += other.wins
        self.draws += other.draws
        self.round_limit += other.round_limit
        self.rounds += other.rounds
        self.alive += other.alive
        self.standing += other.standing
        self.hp_left += other.hp_left

    # Every fight ends each combatant standing, down (unconscious: ODD-HP-1, GAP-HP-ZERO, GAP-SUBDUAL)
    # or dead; the kernels count the first two groups' union (alive) and standing, the rest follows.
    @property
    def down(self) -> IntArray:
        """Per combatant: down at the end (unconscious, not dead)."""
        return self.alive - self.standing

    @property
    def dead(self) -> IntArray:
        """Per combatant: dead at the end."""
        return self.fights - self.alive


@dataclass(frozen=True)
class SimResult:
    setup: Setup
    tally: Tally
    path: str
    reason: str
    seed: int
    workers: int
    seconds: float
    exact_tables: bool = True
    kernel: str = ""  # NUMBA or NUMPY on the vectorised path, "" on the event engine

    def win_rate(self, side: str) -> float:
        return float(self.tally.wins[self.setup.sides.index(side)]) / max(1, self.tally.fights)

    def mean_rounds(self) -> float:
        r = self.tally.rounds
        return float((r * np.arange(r.size)).sum()) / max(1, self.tally.fights)

    def median_rounds(self) -> int:
        cumulative = np.cumsum(self.tally.rounds)
        return int(np.searchsorted(cumulative, (self.tally.fights + 1) / 2))

    def to_dict(self) -> dict[str, Any]:
        t = self.tally
        n = max(1, t.fights)
        return {
            "encounter": self.setup.name,
            "ruleset": self.setup.ruleset.name,
            "fights": t.fights,
            "seed": self.seed,
            "workers": self.workers,
            "path": self.path,
            "fallback_reason": self.reason or None,
            "kernel": self.kernel or None,
            "exact_tables": self.exact_tables,
            "seconds": round(self.seconds, 3),
            "fights_per_second": round(t.fights / self.seconds) if self.seconds > 0 else None,
            "sides": [
                {
                    "side": s,
                    "wins": int(t.wins[i]),
                    "win_rate": int(t.wins[i]) / n,
                    "ci95": list(wilson(int(t.wins[i]), t.fights)),
                }
                for i, s in enumerate(self.setup.sides)
            ],
            "draws": {"count": t.draws, "rate": t.draws / n},
            "round_limit": {
                "count": t.round_limit,
                "rate": t.round_limit / n,
                "max_rounds": self.setup.max_rounds,
            },
            "rounds": {
                "mean": self.mean_rounds(),
                "median": self.median_rounds(),
                "distribution": {str(r): int(c) for r, c in enumerate(t.rounds) if c},
            },
            "combatants": [
                {
                    "name": c.name,
                    "side": c.side,
                    "standing_rate": int(t.standing[i]) / n,
                    "down_rate": int(t.down[i]) / n,
                    "dead_rate": int(t.dead[i]) / n,
                    "survival_rate": int(t.alive[i]) / n,  # not dead: standing_rate + down_rate
                    "mean_hp_left": int(t.hp_left[i]) / n,
                }
                for i, c in enumerate(self.setup.combatants)
            ],
        }


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (good near 0 and 1, unlike the normal one)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))
