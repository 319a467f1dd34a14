"""sim/run.py: how a run is cut into batches."""

from __future__ import annotations

from referee import sim
from referee.files import load_encounter
from referee.sim.run import EVENT_BATCH_LIMITS, EVENT_SLOTS, event_batch_size


def test_event_batches_hold_about_the_same_combatant_fights_whatever_the_encounter() -> None:
    """A duel plays 2,000 fights a batch, a 3-against-4 melee 1,142; a mass battle at least 100."""
    assert event_batch_size(2) == 2_000
    assert event_batch_size(7) == EVENT_SLOTS // 7 == 1_142
    assert event_batch_size(500) == EVENT_BATCH_LIMITS[0] == 100
    assert event_batch_size(0) == EVENT_BATCH_LIMITS[1]
    assert sim.batch_size(None, combatants=7) == 1_142


def test_an_event_engine_run_is_told_its_progress_batch_by_batch() -> None:
    """2,500 duels: two batches (2,000 and 500), the progress told after each; the tally counts them all."""
    setup = load_encounter("examples/duel.yaml")
    told: list[tuple[int, int]] = []
    result = sim.simulate(setup, 2_500, seed=4, force_engine=True, progress=lambda d, n: told.append((d, n)))
    assert told == [(2_000, 2_500), (2_500, 2_500)]
    assert result.tally.fights == 2_500 and result.path == "event engine"
