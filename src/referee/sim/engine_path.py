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
import signal
import threading
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from multiprocessing.sharedctypes import Synchronized

import numpy as np
import numpy.random  # numpy imports it on first use: in the timed run, not before it

from referee.dice import RandomDice
from referee.engine import lane as lane  # the plain steps' lane, loaded before the first fight (not timed)
from referee.engine import registry as registry  # every resolver and hook, loaded before the first fight
from referee.engine.fight import run_fight
from referee.files import Setup
from referee.rules import hit_points
from referee.sim.result import Tally

PROCESSES_SWITCH = "REFEREE_ENGINE_PROCESSES"  # `1`: every fight in this process
SPLIT_AT = 64  # fights in a batch from which a helper process plays some: below, the hand-over costs more
PART = 50  # a batch is played in parts of 1/PART of it, taken in turn by whichever process is free


def event_batch(setup: Setup, n: int, rng: np.random.Generator, processes: int | None = None) -> Tally:
    """Play `n` fights with the event engine (each seeded from `rng`) and count the results.

    `processes`: how many processes play them (None: :func:`batch_processes`); the tally is the same."""
    seeds = [int(seed) for seed in rng.integers(0, 2**63 - 1, size=n)]
    count = batch_processes(n, setup) if processes is None else max(1, min(processes, n))
    if count == 1:
        return play(setup, seeds)
    return _helpers(setup, count - 1).share(seeds)


def play(setup: Setup, seeds: list[int]) -> Tally:
    """The tally of one fight for each seed, in this process."""
    return _Count(setup).add(seeds).tally()


class _Count:
    """The counts of a tally kept in plain integers while fights are played (a numpy element costs more
    to add to than an int), made a :class:`Tally` at the end."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self.names = [c.name for c in setup.combatants]
        self.fights = self.draws = self.round_limit = 0
        self.wins = [0] * len(setup.sides)
        self.rounds = [0] * (setup.max_rounds + 1)
        self.alive, self.standing, self.hp_left = ([0] * len(self.names) for _ in range(3))

    def add(self, seeds: list[int]) -> _Count:
        setup = self.setup
        for seed in seeds:
            state = run_fight(setup, RandomDice(seed)).state
            self.fights += 1
            self.rounds[min(state.round, setup.max_rounds)] += 1
            if state.winner is not None:
                self.wins[setup.sides.index(state.winner)] += 1
            elif state.sides_standing():
                self.round_limit += 1
            else:
                self.draws += 1
            for i, name in enumerate(self.names):
                cs = state.combatants[name]
                self.alive[i] += cs.status != hit_points.DEAD
                self.standing[i] += cs.is_active()
                self.hp_left[i] += max(cs.hp, 0)
        return self

    def tally(self) -> Tally:
        def ints(values: list[int]) -> np.ndarray:
            return np.array(values, dtype=np.int64)

        return Tally(self.fights, ints(self.wins), self.draws, self.round_limit, ints(self.rounds),
                     ints(self.alive), ints(self.standing), ints(self.hp_left))  # fmt: skip


def batch_processes(n: int, setup: Setup | None = None) -> int:
    """Two processes for a batch of at least :data:`SPLIT_AT` fights on a machine with two cores or more,
    when this process may fork (its main thread, no other thread, not itself a pool's worker, fork
    available) or already has a helper forked with `setup`; else one. ``REFEREE_ENGINE_PROCESSES=1``
    keeps every fight here."""
    wanted = os.environ.get(PROCESSES_SWITCH, "").strip()
    if wanted == "1" or n < SPLIT_AT or (os.cpu_count() or 1) < 2:
        return 1
    if _HELPERS is not None and _HELPERS.setup is setup:
        return len(_HELPERS.pipes) + 1  # the helper forked for an earlier batch
    if threading.active_count() > 1 or threading.current_thread() is not threading.main_thread():
        return 1  # forking a process with threads may copy a lock held by another thread
    if multiprocessing.current_process().daemon or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return 2


# --- the helper processes: forked once per setup, kept for the following batches ---------------------
# Each batch's seeds are sent to every helper; then this process and the helpers take its parts in turn
# from a counter they share, so that a process that gets less of a core (a loaded machine, a helper still
# filling its caches) plays fewer, and nobody waits for more than the part another is finishing. Each
# helper sends back the tally of the parts it took. The pipes are written and read by this process's
# main thread itself (a pool's feeder thread would wait for the GIL while this thread plays).


class _Helpers:
    """Helper processes forked with `setup`, and the counter of parts taken that they share with this one."""

    def __init__(self, setup: Setup, count: int) -> None:
        context = multiprocessing.get_context("fork")
        self.setup = setup
        self.taken = context.Value("q", 0)  # the next part of the batch being played
        self.pipes: list[Connection] = []
        self.processes: list[BaseProcess] = []
        for _ in range(count):
            mine, theirs = context.Pipe()
            process = context.Process(target=_serve, args=(setup, theirs, self.taken), daemon=True)
            process.start()
            theirs.close()
            self.pipes.append(mine)
            self.processes.append(process)

    def share(self, seeds: list[int]) -> Tally:
        """The tally of `seeds`, played part by part here and in the helpers; all here if a helper has gone
        (the same tally). After anything but a tally from each, the helpers are ended (their pipes may hold
        a tally not read) and the next batch forks new ones."""
        with self.taken.get_lock():
            self.taken.value = 0
        try:
            for pipe in self.pipes:
                pipe.send(seeds)
            tally = _take_parts(_Count(self.setup), seeds, self.taken).tally()
            found = [pipe.recv() for pipe in self.pipes]
        except (EOFError, OSError):  # a helper gone, with the parts it took: all of them here
            close_helpers()
            return play(self.setup, seeds)
        except BaseException:
            close_helpers()
            raise
        for part in found:
            if isinstance(part, BaseException):
                close_helpers()
                raise part
            tally.add(part)
        return tally

    def close(self) -> None:
        for pipe, process in zip(self.pipes, self.processes, strict=True):
            with contextlib.suppress(OSError):  # gone already
                pipe.send(None)
            process.join(timeout=1)
            if process.is_alive():
                process.terminate()
                process.join()
            pipe.close()


def _take_parts(count: _Count, seeds: list[int], taken: Synchronized[int]) -> _Count:
    """Play the parts of `seeds` not yet taken by another process, one at a time, until none is left."""
    size = max(1, -(-len(seeds) // PART))
    lock = taken.get_lock()
    while True:
        with lock:
            start = taken.value * size
            taken.value += 1
        if start >= len(seeds):
            return count
        count.add(seeds[start : start + size])


def _serve(setup: Setup, pipe: Connection, taken: Synchronized[int]) -> None:
    """A helper's loop: a batch's seeds in, the tally of the parts it took (or the error raised) out; None
    ends it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # ^C is this process's to answer (it ends the helpers)
    while True:
        try:
            seeds = pipe.recv()
        except EOFError:
            return
        if seeds is None:
            return
        try:
            found: Tally | BaseException = _take_parts(_Count(setup), seeds, taken).tally()
        except Exception as exc:  # handed to the caller, which raises it
            found = exc
        pipe.send(found)


_HELPERS: _Helpers | None = None


def _helpers(setup: Setup, count: int) -> _Helpers:
    """`count` helper processes forked with `setup` (a Setup holds mapping proxies, which do not pickle)."""
    global _HELPERS
    if _HELPERS is not None and _HELPERS.setup is setup and len(_HELPERS.pipes) == count:
        return _HELPERS
    close_helpers()
    _HELPERS = _Helpers(setup, count)
    return _HELPERS


def close_helpers() -> None:
    """End the helper processes (at exit, or before forking new ones for another setup)."""
    global _HELPERS
    if _HELPERS is not None:
        _HELPERS.close()
    _HELPERS = None


atexit.register(close_helpers)
