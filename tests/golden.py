"""Golden event logs: every example fought with fixed seeds, kept as test data.

`python -m tests.golden` (from the project root) rewrites them; do that only when a change is meant to
alter fights, and say which in the change's description. tests/test_golden.py compares against them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
GOLDEN = Path(__file__).resolve().parent / "data" / "golden"
SEEDS = (0, 1, 7)


def fight_log(example: Path, seed: int) -> dict[str, Any]:
    from referee.dice import RandomDice
    from referee.engine.fight import run_fight
    from referee.files import load_encounter

    fight = run_fight(load_encounter(example), RandomDice(seed))
    return fight.result().to_dict()


def golden_path(example: Path, seed: int) -> Path:
    return GOLDEN / f"{example.stem}.seed{seed}.json"


def examples() -> list[Path]:
    """Every encounter file in examples/ (a house-rules file is a ruleset, not an encounter)."""
    return sorted(p for p in EXAMPLES.glob("*.yaml") if not p.read_text(encoding="utf-8").count("\npreset:"))


def write_all() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for example in examples():
        for seed in SEEDS:
            text = json.dumps(fight_log(example, seed), indent=1, sort_keys=True)
            golden_path(example, seed).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    write_all()
    sys.exit(0)
