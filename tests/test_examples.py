"""Every example encounter fights to the end, and its events replay to the same state."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import EXAMPLES

from referee.dice import RandomDice
from referee.engine.fight import replay, run_fight
from referee.files import load_encounter

ENCOUNTERS = sorted(p for p in EXAMPLES.glob("*.yaml") if "sides:" in p.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", ENCOUNTERS, ids=lambda p: p.stem)
def test_example_fights_and_replays(path: Path) -> None:
    setup = load_encounter(path)
    fight = run_fight(setup, RandomDice(1))
    assert fight.is_over()
    assert replay(setup, fight.events).state.snapshot() == fight.state.snapshot()
    again = run_fight(setup, RandomDice(1))
    assert [e.to_dict() for e in again.events] == [e.to_dict() for e in fight.events]
