"""sim/run.py: how a run is cut into batches."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from referee import sim
from referee.files import load_encounter
from referee.sim import engine_path
from referee.sim.run import EVENT_BATCH_LIMITS, EVENT_SLOTS, event_batch_size


def test_event_batches_hold_about_the_same_combatant_fights_whatever_the_encounter() -> None:
    """A duel plays 2,000 fights a batch, a 3-against-4 melee 1,142; a mass battle at least 100."""
    assert event_batch_size(2) == 2_000
    assert event_batch_size(7) == EVENT_SLOTS // 7 == 1_142
    assert event_batch_size(500) == EVENT_BATCH_LIMITS[0] == 100
    assert event_batch_size(0) == EVENT_BATCH_LIMITS[1]
    assert sim.batch_size(None, combatants=7) == 1_142


def test_an_event_engine_run_is_told_its_progress_within_each_batch() -> None:
    """2,500 duels: two batches (2,000 and 500); the progress is told part by part within each (a slow
    encounter's batch may take seconds), never going back, reaching each batch's end and the whole."""
    setup = load_encounter("examples/duel.yaml")
    for processes in ("1", "2"):
        told: list[tuple[int, int]] = []
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv(engine_path.PROCESSES_SWITCH, processes)
            result = sim.simulate(setup, 2_500, seed=4, force_engine=True, progress=_noting(told))
        done = [d for d, _ in told]
        assert {n for _, n in told} == {2_500}
        assert done == sorted(done) and done[-1] == 2_500 and 2_000 in done
        assert len(set(d for d in done if d < 2_000)) >= 4  # within the first batch, not only at its end
        assert result.tally.fights == 2_500 and result.path == "event engine"
    engine_path.close_helpers()


def _noting(told: list[tuple[int, int]]) -> Callable[[int, int], None]:
    return lambda done, total: told.append((done, total))


def test_the_progress_told_does_not_change_the_tally() -> None:
    """The same seed gives the same tally with and without a progress callback, in one process or two."""
    setup = load_encounter("benchmarks/data/melee_3v4.yaml")
    plain = sim.simulate(setup, 300, seed=8, force_engine=True)
    told = sim.simulate(setup, 300, seed=8, force_engine=True, progress=lambda d, n: None)
    one = engine_path.event_batch(setup, 300, np.random.default_rng(3), processes=1)
    one_told = engine_path.event_batch(
        setup, 300, np.random.default_rng(3), processes=1, played=lambda k: None
    )
    two_told = engine_path.event_batch(
        setup, 300, np.random.default_rng(3), processes=2, played=lambda k: None
    )
    engine_path.close_helpers()
    assert plain.tally.wins.tolist() == told.tally.wins.tolist()
    assert plain.tally.hp_left.tolist() == told.tally.hp_left.tolist()
    for other in (one_told, two_told):
        assert other.wins.tolist() == one.wins.tolist() and other.hp_left.tolist() == one.hp_left.tolist()
