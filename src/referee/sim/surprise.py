"""The free round of surprise (ODD-SURP-1 to ODD-SURP-5) as tables the kernels sample.

Who is surprised is the outcome of :func:`surprise.roll_surprise`, the rule's own procedure, enumerated
exactly (:func:`referee.chance.distribution`) into a table of outcome codes; per code the kernels read
whether a free round is played (ODD-SURP-4: anyone surprised; ODD-SURP-5: with nobody acting if all
are), who acts in it (each alone in its slot, in file order, as the engine orders it) and who is
surprised (the attacks in the free round are compiled with their target surprised or not:
:func:`referee.sim.attacks.attack_tables`, e.g. Dex lost to AC, ODD-AC-DEX-2, or the ambusher's
advantage, MF-SURP-2).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from referee.dice import DiceSource
from referee.files import Setup
from referee.rules import surprise
from referee.sim.tables import Packed, exact, to_table

# (free round played, surprised, acting) — the parts of the procedure's result the fight reads
Verdict = tuple[bool, tuple[str, ...], tuple[str, ...]]


@dataclass(frozen=True)
class FreeRound:
    """The surprise table and, per outcome code, the free round it gives."""

    table: Packed  # one table of outcome codes
    played: npt.NDArray[np.bool_]  # (V,): a free round is played (somebody is surprised)
    acts: npt.NDArray[np.bool_]  # (V, C): acts in the free round
    surprised: npt.NDArray[np.bool_]  # (V, C): surprised (a target caught unaware)
    distribution: dict[Verdict, Fraction]

    def reachable(self) -> npt.NDArray[np.bool_]:
        """(2, C, C): whether a attacks t in some free round with t not surprised (0) / surprised (1)."""
        acting = self.acts[self.played]  # (V', C)
        caught = self.surprised[self.played]
        out = np.zeros((2, self.acts.shape[1], self.acts.shape[1]), dtype=np.bool_)
        for v in range(acting.shape[0]):
            for flag in (0, 1):
                out[flag] |= acting[v][:, None] & (caught[v] == bool(flag))[None, :]
        return out


def surprise_distribution(setup: Setup) -> dict[Verdict, Fraction]:
    """The exact distribution of what :func:`surprise.roll_surprise` decides (ODD-SURP-1..5)."""
    spec = setup.surprise
    if spec is None:
        return {(False, (), tuple(c.name for c in setup.combatants)): Fraction(1)}

    def verdict(dice: DiceSource) -> Verdict:
        found = surprise.roll_surprise(spec, setup.combatants, dice)
        return found.free_round, tuple(found.surprised), tuple(found.acting)

    return exact(verdict, what="the surprise checks")


def free_round_tables(setup: Setup) -> FreeRound | None:
    """The free round's tables, or None when no outcome of the surprise checks gives one."""
    dist = surprise_distribution(setup)
    if not any(played for played, _, _ in dist):
        return None
    names = [c.name for c in setup.combatants]
    verdicts = list(dist)
    played = np.array([v[0] for v in verdicts], dtype=np.bool_)
    acts = np.array([[v[0] and n in v[2] for n in names] for v in verdicts], dtype=np.bool_)
    caught = np.array([[v[0] and n in v[1] for n in names] for v in verdicts], dtype=np.bool_)
    table = Packed.of([to_table({code: dist[v] for code, v in enumerate(verdicts)})])
    return FreeRound(table, played, acts, caught, dist)
