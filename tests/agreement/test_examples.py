"""Every example in examples/ on every path that accepts it (ODD-ROUND-1..4: whole fights, default tactics).

Per example: the exact odds against the fast simulator and, where few fights suffice, the event
engine's random fights on the whole fight; and the first round, where the exact walk of the event engine is small, against the exact odds (equal to 1e-9)
and the fast simulator (4.5 standard errors, with fights for a 2-point difference). A path that refuses
records its reason in the test report (`user_properties`: `refusals`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.agreement.paths import (
    Outcomes,
    Record,
    assert_exact_paths_agree,
    assert_sample_agrees,
    compare_simulator,
    engine_fights,
    exact_odds,
    exact_walk,
    shorter,
    vectorised,
    with_fixed_hit_points,
)
from tests.agreement.power import fights_for
from tests.conftest import EXAMPLES

from referee.files import load_encounter
from referee.setup import Setup

ENCOUNTERS = sorted(p for p in EXAMPLES.glob("*.yaml") if "sides:" in p.read_text(encoding="utf-8"))
WALK_WORK = 10_000  # dice sequences the exact walk of one example's first round may run (~5 s)
ENGINE_FIGHTS = 2_000  # random engine fights an example may use where only the engine path is left


def first_round_agrees(first: Setup, record: Record) -> bool:
    """The exact walk of the engine against the exact odds and the simulator; False if it is refused."""
    walked = exact_walk(first, record, WALK_WORK)
    if walked is None:
        return False
    chain = exact_odds(first, record)
    if chain is not None:
        assert_exact_paths_agree(walked, chain, f"{first.name!r}: exact engine walk vs exact odds")
        record.compared.append("exact engine walk vs exact odds")
    if vectorised(first, record):
        compare_simulator(first, walked, record, "exact engine walk")
        return True
    # the simulator falls back to the engine: check the engine's random fights against its walk
    compare_engine_fights(first, walked, record, "exact engine walk")
    return True


def compare_engine_fights(setup: Setup, exact: Outcomes, record: Record, against: str) -> None:
    """The event engine's own random fights, where the power calculation asks for few enough."""
    n = fights_for(exact)
    if n <= ENGINE_FIGHTS:
        assert_sample_agrees(engine_fights(setup, n), exact, n, f"{setup.name!r}: engine fights vs {against}")
        record.compared.append(f"engine fights ({n:,}) vs {against}")
    else:
        record.refused("engine fights", f"{n:,} fights would be needed (over {ENGINE_FIGHTS:,})")


@pytest.mark.parametrize("path", ENCOUNTERS, ids=lambda p: p.stem)
def test_example_agrees_on_every_path_that_accepts_it(
    path: Path, record_property: pytest.RecordProperty
) -> None:
    setup = load_encounter(path)
    whole = Record(f"{path.stem} (whole fight)")
    chain = exact_odds(setup, whole)
    fast = vectorised(setup, whole)
    if chain is not None and fast:
        compare_simulator(setup, chain, whole, "exact odds")
    if chain is not None:
        compare_engine_fights(setup, chain, whole, "exact odds")

    first = shorter(setup, 1)
    opening = Record(f"{path.stem} (round 1)")
    rolled = any(c.hp is None for c in first.combatants)
    if not first_round_agrees(first, opening) and rolled:
        # a walk too big for the budget, maybe for the hit-point dice: the same with hit points fixed
        fixed = Record(f"{path.stem} (round 1, fixed hit points)")
        if first_round_agrees(with_fixed_hit_points(first), fixed):
            opening.compared += fixed.compared
            opening.refusals.update({f"{k} (fixed hit points)": v for k, v in fixed.refusals.items()})
    record_property("refusals", f"{whole.summary()} | {opening.summary()}")
    assert whole.compared or opening.compared or whole.refusals, "no path ran this example"
