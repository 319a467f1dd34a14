"""The event engine, fight by fight: the path for encounters the tables cannot express (and the
reference the fast path is checked against).

Every fight of a batch has its own seed, drawn from the batch's generator before any fight is played,
so which process plays a fight does not change it: a large batch is split between this process and a
helper process (:func:`batch_processes`), each plays its share of the seeds, and the counts add up to
the same tally as one process would make (tests/sim/test_engine_path.py checks that).
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import threading
from multiprocessing.connection import Connection

import numpy as np

from referee.dice import RandomDice
from referee.engine import lane as lane  # the plain steps' lane, loaded before the first fight (not timed)
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
    count = batch_processes(n, setup) if processes is None else max(1, min(processes, n))
    if count == 1:
        return play(setup, seeds)
    helpers = _helpers(setup, count - 1)
    share = -(-n // count)
    parts = [seeds[i : i + share] for i in range(0, n, share)]
    sent = [(helper, part) for helper, part in zip(helpers, parts[1:], strict=False) if helper.give(part)]
    tally = play(setup, parts[0])
    for helper, part in sent:
        tally.add(helper.result(setup, part))
    for part in parts[1 + len(sent) :]:  # more parts than helpers that took one: played here
        tally.add(play(setup, part))
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


def batch_processes(n: int, setup: Setup | None = None) -> int:
    """Two processes for a batch of at least :data:`SPLIT_AT` fights on a machine with two cores or more,
    when this process may fork (its main thread, no other thread, not itself a pool's worker, fork
    available) or already has a helper forked with `setup`; else one. ``REFEREE_ENGINE_PROCESSES=1``
    keeps every fight here."""
    wanted = os.environ.get(PROCESSES_SWITCH, "").strip()
    if wanted == "1" or n < SPLIT_AT or (os.cpu_count() or 1) < 2:
        return 1
    if _HELPERS is not None and _HELPERS[0] is setup:
        return len(_HELPERS[1]) + 1  # the helper forked for an earlier batch
    if threading.active_count() > 1 or threading.current_thread() is not threading.main_thread():
        return 1  # forking a process with threads may copy a lock held by another thread
    if multiprocessing.current_process().daemon or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return 2


# --- the helper processes: forked once per setup, kept for the following batches ---------------------
# A helper is a forked process reading lists of seeds from a pipe and writing back their tally. The pipe
# is written and read by this process's main thread itself: a pool's feeder and result threads would
# wait for the GIL while this thread plays its own share, so the helper would start its share only
# when this process had finished its own.


class _Helper:
    """One forked process that plays the seeds it is sent with the setup it was forked with."""

    def __init__(self, setup: Setup) -> None:
        context = multiprocessing.get_context("fork")
        self.pipe, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(setup, theirs), daemon=True)
        self.process.start()
        theirs.close()

    def give(self, seeds: list[int]) -> bool:
        """Send seeds to play; False when the helper has gone (its share is then played here)."""
        try:
            self.pipe.send(seeds)
        except OSError:
            return False
        return True

    def result(self, setup: Setup, seeds: list[int]) -> Tally:
        """The tally of the seeds given; played here if the helper died on the way (the same tally)."""
        try:
            found = self.pipe.recv()
        except (EOFError, OSError):
            return play(setup, seeds)
        if isinstance(found, BaseException):
            raise found
        assert isinstance(found, Tally)
        return found

    def close(self) -> None:
        with contextlib.suppress(OSError):  # gone already
            self.pipe.send(None)
        self.process.join(timeout=1)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join()
        self.pipe.close()


def _serve(setup: Setup, pipe: Connection) -> None:
    """The helper's loop: a list of seeds in, their tally (or the error raised) out; None ends it."""
    while True:
        try:
            seeds = pipe.recv()
        except EOFError:
            return
        if seeds is None:
            return
        try:
            found: Tally | BaseException = play(setup, seeds)
        except Exception as exc:  # handed to the caller, which raises it
            found = exc
        pipe.send(found)


_HELPERS: tuple[Setup, list[_Helper]] | None = None  # the setup the helpers were forked with, and they


def _helpers(setup: Setup, count: int) -> list[_Helper]:
    """`count` helper processes forked with `setup` (a Setup holds mapping proxies, which do not pickle)."""
    global _HELPERS
    if _HELPERS is not None and _HELPERS[0] is setup and len(_HELPERS[1]) == count:
        return _HELPERS[1]
    close_helpers()
    _HELPERS = (setup, [_Helper(setup) for _ in range(count)])
    return _HELPERS[1]


def close_helpers() -> None:
    """End the helper processes (at exit, or before forking new ones for another setup)."""
    global _HELPERS
    if _HELPERS is not None:
        for helper in _HELPERS[1]:
            helper.close()
    _HELPERS = None


atexit.register(close_helpers)
