"""The event engine, fight by fight: the path for encounters the tables cannot express (and the
reference the fast path is checked against)."""

from __future__ import annotations

import numpy as np

from referee.dice import RandomDice
from referee.engine.fight import run_fight
from referee.files import Setup
from referee.rules import hit_points
from referee.sim.result import Tally


def event_batch(setup: Setup, n: int, rng: np.random.Generator) -> Tally:
    """Play `n` fights with the event engine (each seeded from `rng`) and count the results."""
    names = [c.name for c in setup.combatants]
    tally = Tally.empty(len(setup.sides), len(names), setup.max_rounds)
    tally.fights = n
    for seed in rng.integers(0, 2**63 - 1, size=n):
        state = run_fight(setup, RandomDice(int(seed))).state
        tally.rounds[min(state.round, setup.max_rounds)] += 1
        left = state.sides_standing()
        if state.winner is not None:
            tally.wins[setup.sides.index(state.winner)] += 1
        elif left:
            tally.round_limit += 1
        else:
            tally.draws += 1
        for i, name in enumerate(names):
            cs = state.combatants[name]
            tally.alive[i] += cs.status != hit_points.DEAD
            tally.standing[i] += cs.is_active()
            tally.hp_left[i] += max(cs.hp, 0)
    return tally
