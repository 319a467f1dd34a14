"""Many fights at once: kernels that play tables compiled from the rules' own procedures.

The simulator never restates a rule. For an encounter it *compiles* lookup tables
(:mod:`referee.sim.compile`):

- hit points, initiative keys (per unit and round), the default target's preference, who may act in
  its slot (ODD-INIT-3) and the end of the fight, from the procedures in ``rules/``
  (:mod:`referee.sim.procedures`), each enumerated with :func:`referee.chance.distribution`;
- every attack: for each (attacker, target, earlier attackers on that target this round) the default
  tactics pick the weapon and the engine's real resolution is enumerated over every die it can ask
  for (:func:`referee.engine.outcomes.attack_outcome_distribution`, shared with the exact odds)
  (:mod:`referee.sim.attacks`);
- defeat: :func:`hit_points.status_after_damage` over every reachable hit-point (and subdual) total;
- the free round of surprise: :func:`surprise.roll_surprise` enumerated (:mod:`referee.sim.surprise`);
- each attack per situation: the free round, round 1 where it differs, earlier attackers on the target,
  the deflections it has spent (DAC-DEFL-3) and its armour state (HR-ARMDMG-1..4).

The kernels (:mod:`referee.sim.kernel_numba`, :mod:`referee.sim.kernel_numpy`) then play whole
batches of fights by looking up, drawing from, sorting and adding these tables. Encounters the tables
cannot express raise :class:`Unsupported` and are played one by one by the event engine
(:mod:`referee.sim.engine_path`); :class:`SimResult` says which path ran and why
(:mod:`referee.sim.run`).
"""

from __future__ import annotations

from referee.sim.compile import Compiled, check_supported, compile_setup
from referee.sim.engine_path import event_batch
from referee.sim.kernel_numba import NUMBA, NUMPY, compiled_batch, numba_play
from referee.sim.kernel_numpy import simulate_batch
from referee.sim.result import EVENT_ENGINE, VECTORISED, SimResult, Tally, wilson
from referee.sim.run import Job, batch_size, default_kernel, plan_run, simulate
from referee.sim.tables import Table, Unsupported, sum_distribution

_numba_play = numba_play  # the older name (benchmarks/bench_sim.py)

__all__ = [
    "EVENT_ENGINE",
    "NUMBA",
    "NUMPY",
    "VECTORISED",
    "Compiled",
    "Job",
    "SimResult",
    "Table",
    "Tally",
    "Unsupported",
    "batch_size",
    "check_supported",
    "compile_setup",
    "compiled_batch",
    "default_kernel",
    "event_batch",
    "numba_play",
    "plan_run",
    "simulate",
    "simulate_batch",
    "sum_distribution",
    "wilson",
]
