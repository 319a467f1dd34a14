"""Every example in examples/ on every path that accepts it (ODD-ROUND-1..4: whole fights, default tactics).

Per example: the exact odds and the fast simulator on the whole fight (when both accept it); and the
first round, where the exact walk of the event engine is small, against the exact odds (equal to 1e-9)
and the fast simulator (4.5 standard errors, with fights for a 2-point difference). A path that refuses
records its reason in the test report (`user_properties`: `refusals`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.agreement.paths import (
    Record,
    assert_exact_paths_agree,
    assert_sample_agrees,
    compare_simulator,
    engine_fights,
    exact_odds,
    exact_walk,
    shorter,
    vectorised,
)
from tests.agreement.power import fights_for
from tests.conftest import EXAMPLES

from referee.files import load_encounter

ENCOUNTERS = sorted(p for p in EXAMPLES.glob("*.yaml") if "sides:" in p.read_text(encoding="utf-8"))
WALK_WORK = 10_000  # dice sequences the exact walk of one example's first round may run (~5 s)
ENGINE_FIGHTS = 2_000  # random engine fights an example may use where only the engine path is left


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

    first = shorter(setup, 1)
    opening = Record(f"{path.stem} (round 1)")
    walked = exact_walk(first, opening, WALK_WORK)
    if walked is not None:
        chain_1 = exact_odds(first, opening)
        if chain_1 is not None:
            assert_exact_paths_agree(
                walked, chain_1, f"{path.stem}, round 1: exact engine walk vs exact odds"
            )
            opening.compared.append("exact engine walk vs exact odds")
        if vectorised(first, opening):
            compare_simulator(first, walked, opening, "exact engine walk")
        else:
            # the simulator falls back to the engine: check the engine's random fights against its walk
            n = fights_for(walked)
            if n <= ENGINE_FIGHTS:
                assert_sample_agrees(
                    engine_fights(first, n), walked, n, f"{path.stem}: engine fights vs walk"
                )
                opening.compared.append(f"engine fights ({n:,}) vs exact engine walk")
            else:
                opening.refused("engine fights", f"{n:,} fights would be needed (over {ENGINE_FIGHTS:,})")
    record_property("refusals", f"{whole.summary()} | {opening.summary()}")
    assert whole.compared or opening.compared or whole.refusals, "no path ran this example"
