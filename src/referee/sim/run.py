"""Running many fights: the path (the kernels, or the event engine and why), batches seeded from a
SeedSequence by their index, and workers (forked) that do not change the result."""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from referee.budget import check_engine_dice, check_fight_turns
from referee.errors import IllegalActionError
from referee.files import Setup
from referee.sim.compile import Compiled, compile_setup
from referee.sim.engine_path import Played, event_batch
from referee.sim.kernel_numba import NUMBA, NUMPY, compiled_batch, numba_play
from referee.sim.kernel_numpy import simulate_batch
from referee.sim.result import EVENT_ENGINE, VECTORISED, SimResult, Tally
from referee.sim.tables import Unsupported


@dataclass(frozen=True)
class Job:
    setup: Setup
    compiled: Compiled | None
    n: int
    batch: int
    seed: int
    kernel: str = NUMPY

    @property
    def batches(self) -> int:
        return -(-self.n // self.batch)

    def size(self, index: int) -> int:
        return min(self.batch, self.n - index * self.batch)

    def run(self, index: int, seeds: np.random.SeedSequence, played: Played | None = None) -> Tally:
        """Batch `index`'s tally; `played(k)`: the event engine tells its progress within the batch."""
        rng = np.random.default_rng(seeds)
        if self.compiled is None:
            return event_batch(self.setup, self.size(index), rng, played=played)
        if self.kernel == NUMBA:
            tally = compiled_batch(self.compiled, self.size(index), rng)
            if tally is not None:
                return tally
        return simulate_batch(self.compiled, self.size(index), rng)


_WORKER_JOB: Job | None = None


def _worker(task: tuple[int, np.random.SeedSequence]) -> Tally:
    assert _WORKER_JOB is not None
    return _WORKER_JOB.run(*task)


def batch_size(compiled: Compiled | None, kernel: str = NUMPY, combatants: int = 2) -> int:
    """Fights per batch: for the numpy kernel, memory stays near 64 MB of working arrays per batch,
    whatever the encounter; the numba kernel needs no memory per fight, and its batches are smaller
    (a few tens of milliseconds each) so that the workers finish together. The event engine (`compiled`
    None) keeps nothing per fight either: its batches are :func:`event_batch_size` fights."""
    if compiled is None:
        return event_batch_size(combatants)
    slots = (1 << 18) if kernel == NUMBA else (1 << 22)  # combatant-slots per batch
    return int(max(1024, min(1 << 17, slots // max(1, compiled.count))))


EVENT_SLOTS = 8_000  # combatant-fights per batch of the event engine
EVENT_BATCH_LIMITS = (100, 2_000)  # its fewest and most fights per batch


def event_batch_size(combatants: int) -> int:
    """Fights per batch of the event engine: about :data:`EVENT_SLOTS` combatant-fights (a duel's 2,000,
    a 3-against-4 melee's 1,142, at least 100). Each batch ends with the helper process's counts
    gathered; fewer, longer batches spend less on that (a batch's first and last parts are the ones where a
    process may wait), and the progress is told part by part within a batch (a slow encounter's may take
    several seconds)."""
    low, high = EVENT_BATCH_LIMITS
    return max(low, min(high, EVENT_SLOTS // max(1, combatants)))


def plan_run(setup: Setup, force_engine: bool = False) -> tuple[Compiled | None, str]:
    """The compiled tables, or None and the reason the event engine must play this encounter."""
    if force_engine:
        return None, "the event engine was asked for"
    try:
        return compile_setup(setup), ""
    except Unsupported as exc:
        return None, str(exc)


def simulate(
    setup: Setup,
    n: int,
    seed: int = 0,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    force_engine: bool = False,
    batch: int | None = None,
    kernel: str | None = None,
    on_path: Callable[[str, str], None] | None = None,
    tables: Compiled | None = None,
) -> SimResult:
    """Play `n` fights of `setup`. Same seed and worker count → identical result (each batch is seeded
    from a SeedSequence spawned by batch index, so the result does not depend on the workers at all).

    `kernel`: NUMBA (compiled, the default when numba is installed) or NUMPY (the array reference).
    `on_path(path, reason)` hears which path will play the fights (and why not the fast one) before
    any fight is played; `progress(done, total)` after each batch (on the event engine also after each part
    of one). `tables`: `setup`'s tables as :func:`plan_run` compiled them already (not compiled again)."""
    if n < 1:
        raise IllegalActionError(f"the number of fights must be at least 1, not {n}")
    if workers < 1:
        raise IllegalActionError(f"the number of workers must be at least 1, not {workers}")
    started = time.perf_counter()
    check_fight_turns(len(setup.combatants), setup.max_rounds, setup.name)  # each fight, before any
    compiled, reason = (
        (tables, "") if tables is not None and not force_engine else plan_run(setup, force_engine)
    )
    if compiled is None:  # the event engine rolls every hit die of every fight
        check_engine_dice(setup.combatants, setup.max_rounds, n, setup.name)
    if on_path is not None:
        on_path(VECTORISED if compiled is not None else EVENT_ENGINE, reason)
    # the event engine asked for no kernel: numba is not imported for it (that takes half a second)
    kernel = kernel or ("" if compiled is None else default_kernel())
    if kernel not in {NUMBA, NUMPY, ""}:
        raise IllegalActionError(f"unknown kernel {kernel!r}; kernels: {NUMBA}, {NUMPY}")
    if kernel == NUMBA and (numba_play() is None or compiled is None):
        kernel = NUMPY if compiled is not None else ""
    if kernel == NUMBA and compiled is not None:
        compiled_batch(compiled, 1, np.random.default_rng(0))  # compile (or load) before any fork
    size = batch or batch_size(compiled, kernel, len(setup.combatants))
    job = Job(setup, compiled, n, size, seed, kernel or NUMPY)
    seeds = np.random.SeedSequence(seed).spawn(job.batches)
    tally = Tally.empty(len(setup.sides), len(setup.combatants), setup.max_rounds)
    within: Played | None = None
    if progress is not None and compiled is None:  # the event engine's batches are told part by part too
        told = progress

        def within(k: int) -> None:
            told(tally.fights + k, n)

    for part in _run_batches(job, seeds, workers, within):
        tally.add(part)
        if progress is not None:
            progress(tally.fights, n)
    return SimResult(
        setup, tally, VECTORISED if compiled else EVENT_ENGINE, reason, seed, workers,
        time.perf_counter() - started, compiled.exact if compiled else True, kernel,
    )  # fmt: skip


def default_kernel() -> str:
    """NUMBA when numba is installed, unless REFEREE_SIM_KERNEL=numpy asks for the array kernel."""
    if os.environ.get("REFEREE_SIM_KERNEL", "").lower() == NUMPY:
        return NUMPY
    return NUMBA if numba_play() is not None else NUMPY


def _run_batches(
    job: Job, seeds: list[np.random.SeedSequence], workers: int, played: Played | None = None
) -> Iterator[Tally]:
    """Each batch's tally in order: played here (`played` told within each, where the path tells), or
    spread over `workers` forked processes (told batch by batch)."""
    tasks = list(enumerate(seeds))
    if workers == 1 or len(tasks) == 1:
        for index, s in tasks:
            yield job.run(index, s, played)
        return
    global _WORKER_JOB
    _WORKER_JOB = job  # handed to the forked workers (a Setup holds mapping proxies, which do not pickle)
    try:
        with multiprocessing.get_context("fork").Pool(min(workers, len(tasks))) as pool:
            yield from pool.imap(_worker, tasks)
    finally:
        _WORKER_JOB = None
