"""The event engine, fight by fight: the path for encounters the tables cannot express (and the
reference the fast path is checked against).

Every fight of a batch has its own seed, drawn from the batch's generator before any fight is played,
so which process plays a fight does not change it: a large batch is split between this process and a
helper process (:func:`batch_processes`), each plays its share of the seeds, and the counts add up to
the same tally as one process would make (tests/sim/test_engine_path.py checks that).
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import threading
from multiprocessing.pool import Pool

import numpy as np

from referee.dice import RandomDice
from referee.engine import registry as registry  # every resolver and hook, loaded before the first fight
from referee.engine.fight import run_fight
from referee.files import Setup
from referee.rules import hit_points
from referee.sim.result import Tally

PROCESSES_SWITCH = "REFEREE_ENGINE_PROCESSES"  # `1`: every fight in this process
SPLIT_AT = 64  # fights in a batch from which a helper process takes half: below, the hand-over costs more


def event_batch(setup: Setup, n: int, rng: np.random.Generator, processes: int | None = None) -> Tally:
    """Play `n` fights with the event engine (each seeded from `rng`) and count the results.

    `processes`: how many processes play them (None: :func:`batch_processes`); the tally is the same."""
    seeds = [int(seed) for seed in rng.integers(0, 2**63 - 1, size=n)]
    count = batch_processes(n) if processes is None else max(1, min(processes, n))
    if count == 1:
        return play(setup, seeds)
    pool = _helpers(setup, count - 1)
    share = -(-n // count)
    parts = [seeds[i : i + share] for i in range(0, n, share)]
    waiting = [pool.apply_async(_play_in_helper, (part,)) for part in parts[1:]]
    tally = play(setup, parts[0])
    for found in waiting:
        tally.add(found.get())
    return tally


def play(setup: Setup, seeds: list[int]) -> Tally:
    """The tally of one fight for each seed, in this process."""
    names = [c.name for c in setup.combatants]
    tally = Tally.empty(len(setup.sides), len(names), setup.max_rounds)
    tally.fights = len(seeds)
    for seed in seeds:
        state = run_fight(setup, RandomDice(seed)).state
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


def batch_processes(n: int) -> int:
    """Two processes for a batch of at least :data:`SPLIT_AT` fights on a machine with two cores or more,
    when this process may fork (its main thread, no other thread, not itself a pool's worker, fork
    available); else one. ``REFEREE_ENGINE_PROCESSES=1`` keeps every fight here."""
    wanted = os.environ.get(PROCESSES_SWITCH, "").strip()
    if wanted == "1" or n < SPLIT_AT or (os.cpu_count() or 1) < 2:
        return 1
    if threading.active_count() > 1 or threading.current_thread() is not threading.main_thread():
        return 1  # forking a process with threads may copy a lock held by another thread
    if multiprocessing.current_process().daemon or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return 2


# --- the helper processes: forked once per setup, kept for the following batches ---------------------

_HELPER_SETUP: Setup | None = None  # the setup the helpers were forked with (they read it from here)
_POOL: tuple[Setup, int, Pool] | None = None


def _play_in_helper(seeds: list[int]) -> Tally:
    assert _HELPER_SETUP is not None
    return play(_HELPER_SETUP, seeds)


def _helpers(setup: Setup, count: int) -> Pool:
    """`count` helper processes forked with `setup` (a Setup holds mapping proxies, which do not pickle)."""
    global _HELPER_SETUP, _POOL
    if _POOL is not None and _POOL[0] is setup and _POOL[1] == count:
        return _POOL[2]
    close_helpers()
    _HELPER_SETUP = setup
    pool = multiprocessing.get_context("fork").Pool(count)
    _POOL = (setup, count, pool)
    return pool


def close_helpers() -> None:
    """End the helper processes (at exit, or before forking new ones for another setup)."""
    global _HELPER_SETUP, _POOL
    if _POOL is not None:
        _POOL[2].terminate()
        _POOL[2].join()
    _POOL, _HELPER_SETUP = None, None


atexit.register(close_helpers)
