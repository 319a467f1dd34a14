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
import gc
import multiprocessing
import multiprocessing.popen_fork  # what forking a helper imports (4 ms): before the timed run, not in it
import multiprocessing.synchronize
import os
import signal
import threading
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from multiprocessing.sharedctypes import SynchronizedArray

import numpy as np
import numpy.random  # numpy imports it on first use: in the timed run, not before it

from referee.dice import RandomDice
from referee.engine import lane as lane  # the plain steps' lane, loaded before the first fight (not timed)
from referee.engine import registry as registry  # loaded before the first fight (its lists when first read)
from referee.engine.fight import run_fight
from referee.files import Setup
from referee.rules import hit_points
from referee.sim.result import Tally

PROCESSES_SWITCH = "REFEREE_ENGINE_PROCESSES"  # `1`: every fight in this process
SPLIT_AT = 64  # fights in a batch from which a helper process plays some: below, the hand-over costs more
GUIDE = 8  # a batch is played in parts, taken in turn by whichever process is free: 1/GUIDE of what is left
BEFORE_FORK = 3  # fights played here before a helper is forked: it inherits the caches they filled


Played = Callable[[int], None]  # told the fights of a batch counted so far, part by part


def event_batch(
    setup: Setup, n: int, rng: np.random.Generator, processes: int | None = None, played: Played | None = None
) -> Tally:
    """Play `n` fights with the event engine (each seeded from `rng`) and count the results.

    `processes`: how many processes play them (None: :func:`batch_processes`); the tally is the same.
    `played(k)`: told after each part of the batch that `k` of its fights are counted (progress within a
    batch: a batch of a slow encounter may take seconds)."""
    seeds = [int(seed) for seed in rng.integers(0, 2**63 - 1, size=n)]
    count = batch_processes(n, setup) if processes is None else max(1, min(processes, n))
    with _collector_for_batch() as frozen:
        if count == 1:
            return play(setup, seeds) if played is None else _play_in_parts(setup, seeds, played).tally()
        kept = _kept_helpers(setup, count - 1)
        if kept is not None:
            return kept.share(seeds, played=played)
        # The first fights fill the caches most (plans, memos): played before the fork, they are filled
        # once, and the helper inherits them, instead of both processes filling them side by side.
        first = _Count(setup).add(seeds[:BEFORE_FORK])
        if frozen:
            gc.freeze()  # what they made too: the helper's collector never walks what it inherits
        return _fork_helpers(setup, count - 1).share(seeds[BEFORE_FORK:], first, played)


@contextlib.contextmanager
def _collector_for_batch() -> Iterator[bool]:
    """The cyclic collector while a batch is played, as it was afterwards. Every object made before the
    batch (the imports, the setup, the caches: a batch drops none of them) is set aside from its passes
    (:func:`gc.freeze`), which would otherwise walk them all again at each pass over the oldest generation
    (about a twentieth of a melee's batch, in each process). The youngest generation is collected after
    :data:`_YOUNG` net allocations rather than 700 (a pass walks what is still alive, which is no more for
    the wait: most of what a fight makes is freed by its last reference first), and while its passes find
    no garbage (the fights' own cycles are broken when they are counted: :class:`_Count`), what they walk
    is only what the caches kept, so the wait grows (:class:`_Passes`) up to :data:`_YOUNG_MOST`; one that
    finds garbage brings it back to :data:`_YOUNG`. At the end, when passes were made and none found
    garbage, what the batch made since the last one is set aside with the rest rather than walked once
    more. Nothing is frozen when the process has frozen objects of its own (unfreezing afterwards would
    give them back to the collector); nothing changed with the collector off or in a process with threads
    (the settings are the process's). Yields whether it froze."""
    if not gc.isenabled() or threading.active_count() > 1:  # another thread's collector settings: as they are
        yield False
        return
    frozen = not gc.get_freeze_count()
    if frozen:
        gc.freeze()
    before = gc.get_threshold()
    passes = _Passes(before)
    if before[0] > 0:
        gc.set_threshold(max(before[0], _YOUNG), *before[1:])
        gc.callbacks.append(passes)
    try:
        yield frozen
    finally:
        if passes in gc.callbacks:
            gc.callbacks.remove(passes)
        if frozen and passes.made and not passes.garbage:
            gc.freeze()  # kept by the caches, as every pass found: not walked again
        gc.set_threshold(*before)
        if frozen:
            gc.unfreeze()


class _Passes:
    """Watches the collector's passes while a batch is played (a :data:`gc.callbacks` entry): counts them,
    notes whether any found garbage, and sets how long the youngest generation waits. A helper forked
    during the batch keeps it (and the frozen objects) for its life: it only plays fights."""

    def __init__(self, before: tuple[int, ...]) -> None:
        self.rest = before[1:]
        self.young = max(before[0], _YOUNG)
        self.made = 0
        self.garbage = False

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase != "stop":
            return
        self.made += 1
        if info["collected"]:
            self.garbage = True
            self.young = _YOUNG
        elif not self.garbage:
            self.young = min(self.young * 4, _YOUNG_MOST)
        gc.set_threshold(self.young, *self.rest)


_YOUNG = 10_000  # net allocations between passes over the youngest generation while a batch is played
_YOUNG_MOST = 160_000  # and at most, while no pass has found garbage (about 16 MB of objects)


def play(setup: Setup, seeds: list[int]) -> Tally:
    """The tally of one fight for each seed, in this process."""
    return _Count(setup).add(seeds).tally()


def _play_in_parts(setup: Setup, seeds: list[int], played: Played) -> _Count:
    """:func:`play`'s counts, `played` told after each part (the parts a helper would take)."""
    count = _Count(setup)
    for start in _part_starts(len(seeds)):
        count.add(seeds[start : start + _part_size(len(seeds), start)])
        played(count.fights)
    return count


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
        dice = RandomDice(0)  # reseeded before each fight
        for seed in seeds:
            state = run_fight(setup, dice.reseed(seed)).state  # as RandomDice(seed), one generator reused
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
            # the fight is dropped here: its combatants let go of its state, so that reference counts free
            # them at once (a cycle would be left to the collector, a twentieth of a duel's batch)
            for cs in state.combatants.values():
                cs.fight = None
        return self

    def counts(self) -> tuple[int, int, int, list[int], list[int], list[int], list[int], list[int]]:
        """The counts as plain values (what a helper sends back for a part)."""
        return (self.fights, self.draws, self.round_limit, self.wins, self.rounds, self.alive, self.standing,
                self.hp_left)  # fmt: skip

    def merge(
        self, counts: tuple[int, int, int, list[int], list[int], list[int], list[int], list[int]]
    ) -> None:
        """Add another's :meth:`counts`."""
        fights, draws, round_limit, *lists = counts
        self.fights += fights
        self.draws += draws
        self.round_limit += round_limit
        for mine, theirs in zip(
            (self.wins, self.rounds, self.alive, self.standing, self.hp_left), lists, strict=True
        ):
            for i, value in enumerate(theirs):
                mine[i] += value

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
# Before the fork this process plays the first BEFORE_FORK fights: the helper inherits what their first
# calls fill (the caches, the interpreter's specialised code), which it would otherwise fill again.
# Each batch's seeds are sent to every helper; then this process and the helpers take its parts in turn
# from a counter they share (guided: each part 1/GUIDE of the fights left), so that a process that gets
# less of a core (a loaded machine, a helper still filling its caches) plays fewer. A helper sends back
# each part's counts as soon as it has played it. When no part is left, this process does not wait: the
# parts a helper has taken and not yet sent back (at most the one it is playing) are played here, and
# what that helper sends for them later is dropped (each message names its batch and part). The pipes
# are written and read by this process's main thread itself (a pool's feeder thread would wait for the
# GIL while this thread plays).

Counts = tuple[int, int, int, list[int], list[int], list[int], list[int], list[int]]


class _Helpers:
    """Helper processes forked with `setup`, and what they share with this one: the batch being played
    and the first of its fights not yet taken, under one lock."""

    def __init__(self, setup: Setup, count: int) -> None:
        context = multiprocessing.get_context("fork")
        self.setup = setup
        self.batch = 0
        self.shared = context.Array("q", 2)  # [the batch being played, its first fight not yet taken]
        self.pipes: list[Connection] = []
        self.processes: list[BaseProcess] = []
        for _ in range(count):
            mine, theirs = context.Pipe()
            process = context.Process(target=_serve, args=(setup, theirs, self.shared), daemon=True)
            process.start()
            theirs.close()
            self.pipes.append(mine)
            self.processes.append(process)

    def share(self, seeds: list[int], first: _Count | None = None, played: Played | None = None) -> Tally:
        """The tally of `seeds` (and of the fights counted in `first`), played part by part here and in
        the helpers (the same tally however the parts fall); `played` told after each part played here
        how many are counted (here and as the helpers sent). After an error, the helpers are ended and
        the next batch forks new ones."""
        self.batch += 1
        batch, shared = self.batch, self.shared
        with shared.get_lock():
            shared[0], shared[1] = batch, 0
        count = first if first is not None else _Count(self.setup)
        sent: dict[int, Counts] = {}  # a helper's parts by their first fight
        mine: set[int] = set()  # the first fights of the parts played here
        try:
            for pipe in self.pipes:
                pipe.send((batch, seeds))
            for start, end in _parts(len(seeds), shared, batch):
                count.add(seeds[start:end])
                mine.add(start)
                if played is not None:
                    self._receive(batch, sent)
                    played(count.fights + sum(counts[0] for counts in sent.values()))
            self._receive(batch, sent)  # what the helpers sent meanwhile (a few hundred bytes a part)
        except (EOFError, OSError):  # a helper gone: the parts it has not sent back are played here
            close_helpers()
        except BaseException:
            close_helpers()
            raise
        for start in _part_starts(len(seeds)):
            if start in mine:
                continue
            if start in sent:
                count.merge(sent[start])
            else:  # taken by a helper that has not sent it back yet (or gone): played here
                count.add(seeds[start : start + _part_size(len(seeds), start)])
        return count.tally()

    def _receive(self, batch: int, sent: dict[int, Counts]) -> None:
        """Read what the helpers have sent back (without waiting): the counts of this batch's parts;
        another batch's (a part played here since) are dropped; an error raised in a helper is raised."""
        for pipe in self.pipes:
            while pipe.poll():
                found = pipe.recv()
                if found[0] != batch:
                    continue  # a part of an earlier batch, played here since
                if isinstance(found[2], BaseException):
                    raise found[2]
                sent[found[1]] = found[2]

    def close(self) -> None:
        for pipe, process in zip(self.pipes, self.processes, strict=True):
            with contextlib.suppress(OSError):  # gone already
                pipe.send(None)
            process.join(timeout=1)
            if process.is_alive():
                process.terminate()
                process.join()
            pipe.close()


def _part_size(n: int, start: int) -> int:
    """The fights in the part of a batch of `n` that begins at fight `start` (guided self-scheduling)."""
    return max(1, (n - start) // GUIDE)


def _part_starts(n: int) -> list[int]:
    """Where each part of a batch of `n` fights begins (the parts :func:`_parts` hands out)."""
    starts, start = [], 0
    while start < n:
        starts.append(start)
        start += _part_size(n, start)
    return starts


def _parts(n: int, shared: SynchronizedArray[int], batch: int) -> Iterator[tuple[int, int]]:
    """Take the parts of batch `batch` (of `n` fights) not yet taken by another process, one at a time, until
    none is left or another batch has begun: each part's first fight and end."""
    lock = shared.get_lock()
    while True:
        with lock:
            start = shared[1]
            if shared[0] != batch or start >= n:
                return
            end = shared[1] = start + _part_size(n, start)
        yield start, end


def _serve(setup: Setup, pipe: Connection, shared: SynchronizedArray[int]) -> None:
    """A helper's loop: a batch's seeds in, each part's counts (batch, first fight, counts) out as it is
    played, or the error raised; None ends it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # ^C is this process's to answer (it ends the helpers)
    while True:
        try:
            message = pipe.recv()
        except EOFError:
            return
        if message is None:
            return
        batch, seeds = message
        try:
            for start, end in _parts(len(seeds), shared, batch):
                pipe.send((batch, start, _Count(setup).add(seeds[start:end]).counts()))
        except Exception as exc:  # handed to the caller, which raises it
            pipe.send((batch, -1, exc))


_HELPERS: _Helpers | None = None


def _kept_helpers(setup: Setup, count: int) -> _Helpers | None:
    """The `count` helper processes forked with `setup` for an earlier batch, if they are still kept."""
    if _HELPERS is not None and _HELPERS.setup is setup and len(_HELPERS.pipes) == count:
        return _HELPERS
    return None


def _fork_helpers(setup: Setup, count: int) -> _Helpers:
    """`count` new helper processes forked with `setup` (a Setup holds mapping proxies, which do not
    pickle), in place of any kept."""
    global _HELPERS
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
