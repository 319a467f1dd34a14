"""Every example fights as it did when its golden log was recorded: same seed, same events.

A change that is meant to alter fights rewrites the logs (`python -m tests.golden`) and says why.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.golden import SEEDS, examples, fight_log, golden_path

GOLDEN_ODDS = Path(__file__).resolve().parent / "data" / "golden_odds"
CASES = [(example, seed) for example in examples() for seed in SEEDS]


@pytest.mark.parametrize(("example", "seed"), CASES, ids=[f"{e.stem}-{s}" for e, s in CASES])
def test_example_fights_event_for_event_as_recorded(example: Path, seed: int) -> None:
    recorded = json.loads(golden_path(example, seed).read_text(encoding="utf-8"))
    now = json.loads(json.dumps(fight_log(example, seed)))
    assert now["winner"] == recorded["winner"]
    assert len(now["events"]) == len(recorded["events"])
    for index, (got, want) in enumerate(zip(now["events"], recorded["events"], strict=True)):
        assert got == want, f"event {index} differs"
    assert now == recorded


def test_every_example_has_golden_logs() -> None:
    assert examples(), "no examples found"
    for example in examples():
        for seed in SEEDS:
            assert golden_path(example, seed).is_file(), f"no golden log for {example.name} seed {seed}"


@pytest.mark.parametrize("odds_file", sorted(GOLDEN_ODDS.glob("*.fight.json")), ids=lambda p: p.stem)
def test_exact_fight_odds_as_recorded(odds_file: Path) -> None:
    from referee.files import load_encounter
    from referee.odds import fight_odds

    example = Path(__file__).resolve().parent.parent / "examples" / (odds_file.name.split(".")[0] + ".yaml")
    recorded = json.loads(odds_file.read_text(encoding="utf-8"))
    now = json.loads(json.dumps(fight_odds(load_encounter(example)).to_dict()))
    for side, p in recorded["wins"].items():
        assert now["wins"][side] == pytest.approx(p, abs=1e-9)
    assert now["draw"] == pytest.approx(recorded["draw"], abs=1e-9)
