"""The event-engine path of the simulator: the same tally however many processes play a batch."""

from __future__ import annotations

import gc
import threading
from pathlib import Path

import numpy as np
import pytest

from referee.files import Setup, load_encounter
from referee.sim import engine_path
from referee.sim.result import Tally

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _tally(name: str, n: int, processes: int | None) -> tuple[object, ...]:
    setup = load_encounter(EXAMPLES / name)
    t = engine_path.event_batch(setup, n, np.random.default_rng(7), processes=processes)
    return (t.fights, t.wins.tolist(), t.draws, t.round_limit, t.rounds.tolist(), t.alive.tolist(),
            t.standing.tolist(), t.hp_left.tolist())  # fmt: skip


@pytest.mark.parametrize("name", ["duel.yaml", "skirmish.yaml"])
def test_helper_processes_do_not_change_the_tally(name: str) -> None:
    # rule: ODD-ROUND-4 (each fight's end counted once, whoever plays it)
    one = _tally(name, 90, processes=1)
    assert _tally(name, 90, processes=2) == one
    assert _tally(name, 90, processes=3) == one
    assert one[0] == 90


def test_small_batches_and_the_switch_stay_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    assert engine_path.batch_processes(engine_path.SPLIT_AT - 1) == 1
    monkeypatch.setenv(engine_path.PROCESSES_SWITCH, "1")
    assert engine_path.batch_processes(10_000) == 1


def test_the_helper_plays_every_batch_and_no_thread_is_started() -> None:
    # rule: ODD-ROUND-4 (the same tally); a pool's threads once made every batch after the first stay here
    if engine_path.batch_processes(engine_path.SPLIT_AT) == 1:
        pytest.skip("this process may not fork a helper (one core, threads, or no fork)")
    setup = load_encounter(EXAMPLES / "duel.yaml")
    rng = np.random.default_rng(3)
    try:
        first = engine_path.event_batch(setup, engine_path.SPLIT_AT, rng)
        assert threading.active_count() == 1
        assert engine_path.batch_processes(engine_path.SPLIT_AT, setup) == 2
        second = engine_path.event_batch(setup, engine_path.SPLIT_AT, rng)
    finally:
        engine_path.close_helpers()
    again = np.random.default_rng(3)
    assert first.wins.tolist() == engine_path.event_batch(setup, engine_path.SPLIT_AT, again, 1).wins.tolist()
    assert (
        second.hp_left.tolist()
        == engine_path.event_batch(setup, engine_path.SPLIT_AT, again, 1).hp_left.tolist()
    )


def test_an_error_in_a_fight_reaches_the_caller_and_the_next_batch_forks_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # rule: ODD-ROUND-4 (a batch counts every fight or none)
    setup = load_encounter(EXAMPLES / "duel.yaml")
    seeds = [int(s) for s in np.random.default_rng(5).integers(0, 2**63 - 1, size=80)]
    real = engine_path.run_fight

    def broken(setup: object, dice: object) -> object:
        if dice.seed == seeds[-1]:  # type: ignore[attr-defined]
            raise ValueError("a broken fight")
        return real(setup, dice)  # type: ignore[arg-type]

    engine_path.close_helpers()
    monkeypatch.setattr(engine_path, "run_fight", broken)
    with pytest.raises(ValueError, match="a broken fight"):
        engine_path.event_batch(setup, 80, np.random.default_rng(5), processes=2)
    assert engine_path._HELPERS is None
    monkeypatch.setattr(engine_path, "run_fight", real)
    try:
        two = engine_path.event_batch(setup, 80, np.random.default_rng(5), processes=2)
    finally:
        engine_path.close_helpers()
    one = engine_path.event_batch(setup, 80, np.random.default_rng(5), processes=1)
    assert (two.fights, two.wins.tolist(), two.hp_left.tolist()) == (
        80,
        one.wins.tolist(),
        one.hp_left.tolist(),
    )


def test_parts_a_helper_does_not_send_back_are_played_here(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: ODD-ROUND-4 (every fight of a batch counted once, whoever plays it): a helper that gets no core
    import os
    import time

    setup = load_encounter(EXAMPLES / "duel.yaml")
    here = os.getpid()
    real = engine_path.run_fight

    def stuck_in_the_helper(setup: object, dice: object) -> object:
        if os.getpid() != here:
            time.sleep(600)  # never sends its part back (ended by close_helpers)
        return real(setup, dice)  # type: ignore[arg-type]

    engine_path.close_helpers()
    monkeypatch.setattr(engine_path, "run_fight", stuck_in_the_helper)
    try:
        two = engine_path.event_batch(setup, 90, np.random.default_rng(9), processes=2)
        again = engine_path.event_batch(setup, 90, np.random.default_rng(9), processes=2)
    finally:
        engine_path.close_helpers()
    one = engine_path.event_batch(setup, 90, np.random.default_rng(9), processes=1)
    for t in (two, again):
        assert (t.fights, t.wins.tolist(), t.rounds.tolist(), t.hp_left.tolist()) == (
            90, one.wins.tolist(), one.rounds.tolist(), one.hp_left.tolist()
        )  # fmt: skip


@pytest.mark.parametrize("processes", [1, 2])
def test_the_collector_is_given_back_as_it_was(processes: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: ODD-ROUND-4 (the same tally); what was made before a batch is set aside from the collector's
    # passes while it is played, and given back after, its thresholds too
    if threading.active_count() > 1:
        pytest.skip("a process with threads keeps its collector's settings as they are")
    thresholds, frozen = gc.get_threshold(), gc.get_freeze_count()
    seen: list[tuple[int, int]] = []
    played = engine_path.play

    def watched(setup: Setup, seeds: list[int]) -> Tally:
        seen.append((gc.get_threshold()[0], gc.get_freeze_count()))
        return played(setup, seeds)

    monkeypatch.setattr(engine_path, "play", watched)
    try:
        found = _tally("duel.yaml", engine_path.SPLIT_AT, processes=processes)
    finally:
        engine_path.close_helpers()
    assert found == _tally("duel.yaml", engine_path.SPLIT_AT, processes=1)
    assert (gc.get_threshold(), gc.get_freeze_count()) == (thresholds, frozen)
    if processes == 1 and not frozen and gc.isenabled():
        assert seen[0][0] >= engine_path._YOUNG and seen[0][1] > 0


def test_a_melee_played_from_cold_leaves_no_garbage_for_the_collector() -> None:
    # rule: ODD-ROUND-4: the fights' states and the plans' recording stand-ins are let go of as soon as
    # they are done with (engine_path._Count, plan_reads.Recorder.release), so the collector's passes
    # while a batch is played find nothing to collect (and may wait longer: engine_path._Passes)
    melee = load_encounter(Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "melee_3v4.yaml")
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        engine_path.play(melee, list(range(40)))  # a setup of its own: every plan recorded afresh
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()


def test_the_youngest_generation_waits_longer_while_passes_find_no_garbage() -> None:
    before = gc.get_threshold()
    passes = engine_path._Passes((700, 10, 10))
    try:
        passes("start", {"generation": 0, "collected": 0})
        assert passes.made == 0
        passes("stop", {"generation": 0, "collected": 0})
        assert gc.get_threshold()[0] == 4 * engine_path._YOUNG and not passes.garbage
        for _ in range(10):
            passes("stop", {"generation": 0, "collected": 0})
        assert gc.get_threshold() == (engine_path._YOUNG_MOST, 10, 10)
        passes("stop", {"generation": 1, "collected": 3})  # garbage: back to the first wait, and stays
        assert gc.get_threshold()[0] == engine_path._YOUNG and passes.garbage
        passes("stop", {"generation": 0, "collected": 0})
        assert gc.get_threshold()[0] == engine_path._YOUNG and passes.made == 13
    finally:
        gc.set_threshold(*before)


def test_a_batch_that_made_no_garbage_leaves_the_young_generation_empty() -> None:
    # what the batch kept is set aside with the rest at its end, not walked by a pass just after it
    if threading.active_count() > 1 or gc.get_freeze_count() or not gc.isenabled():
        pytest.skip("a process with threads or frozen objects keeps its collector's settings as they are")
    thresholds = gc.get_threshold()
    with engine_path._collector_for_batch() as frozen:
        assert frozen
        kept = [[i] for i in range(3 * engine_path._YOUNG)]  # survivors: passes find no garbage
    assert gc.get_count()[0] < 100 and gc.get_threshold() == thresholds and not gc.get_freeze_count()
    assert not any(isinstance(c, engine_path._Passes) for c in gc.callbacks)
    assert len(kept) == 3 * engine_path._YOUNG
