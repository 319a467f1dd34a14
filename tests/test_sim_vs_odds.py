"""The vectorised simulator agrees with the exact fight odds (within 4 standard errors) wherever both
apply: every example encounter under every preset that the exact Markov chain can handle."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest
from tests.conftest import EXAMPLES

from referee import odds, sim
from referee.errors import RefereeError
from referee.files import load_encounter
from referee.rules.ruleset import PRESETS, Ruleset

ENCOUNTERS = sorted(p for p in EXAMPLES.glob("*.yaml") if "sides:" in p.read_text(encoding="utf-8"))
FIGHTS = 20_000


def exact_or_skip(setup):  # type: ignore[no-untyped-def]
    try:
        return odds.fight_odds(setup)
    except RefereeError as exc:  # beyond the exact model: surprise, conditions, too many states...
        pytest.skip(f"no exact odds: {exc}")


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("path", ENCOUNTERS, ids=lambda p: p.stem)
def test_simulation_agrees_with_exact_odds(path: Path, preset: str) -> None:
    base = load_encounter(path)
    setup = replace(base, ruleset=Ruleset.preset(preset).with_options(**base.ruleset.overrides()))
    if len(setup.combatants) > 4:
        pytest.skip("more combatants than the exact model takes")
    compiled, reason = sim.plan_run(setup)
    if compiled is None:
        pytest.skip(f"the simulator falls back to the event engine: {reason}")
    exact = exact_or_skip(setup)
    result = sim.simulate(setup, FIGHTS, seed=3)
    for side, p in exact.wins.items():
        p = float(p)
        se = math.sqrt(max(p * (1 - p), 1e-9) / FIGHTS)
        assert abs(result.win_rate(side) - p) <= 4 * se + 1e-9, (side, result.win_rate(side), p, result.path)
