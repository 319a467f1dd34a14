"""Speed of the exact odds (referee.odds).

    .venv/bin/python benchmarks/bench_odds.py            # measure, print, append to benchmarks/README.md
    .venv/bin/python benchmarks/bench_odds.py --no-record

Measures: one declared attack's odds on a live fight state (`action_odds`, what the web tracker asks
before each action; target under 5 ms), the exact odds of a 1-vs-1 fight at 60 hit points a side
(target under 100 ms), and the exact odds of the example encounter (Angthar against three goblins
with rolled hit points). Each is timed several times; the median and the worst are reported.
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee import odds
from referee.engine.actions import Attack
from referee.files import load_encounter, setup_from_data

ROOT = Path(__file__).resolve().parent
README = ROOT / "README.md"
EXAMPLE = ROOT.parent / "examples" / "angthar_and_the_goblins.yaml"
HEADER = "# Benchmarks\n\nRecorded results of the scripts in this folder (newest last).\n"


def fighter(name: str, weapon: str) -> dict[str, Any]:
    return {
        "name": name,
        "level": 3,
        "attack_bonus": 2,
        "hp": 60,
        "abilities": {"str": 13, "dex": 11},
        "armour": "chain",
        "weapons": [weapon],
    }


DUEL: dict[str, Any] = {
    "name": "60 HP duel",
    "ruleset": "odd",
    "sides": [
        {"name": "A", "combatants": [fighter("Ann", "long sword")]},
        {"name": "B", "combatants": [fighter("Bob", "battle axe")]},
    ],
}


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float, float]:
    """(median wall, worst wall, median CPU) time in milliseconds, after one warm-up call.

    CPU time is reported too because the development machine is shared: wall time then includes waiting.
    """
    fn()
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    return statistics.median(walls), max(walls), statistics.median(cpus)


def measure() -> list[tuple[str, float, float, float, str]]:
    duel = setup_from_data(DUEL, "duel")
    state = odds.opening_state(duel)
    attack = Attack("Ann", target="Bob")
    example = load_encounter(EXAMPLE)
    duel_result = odds.fight_odds(duel)
    example_result = odds.fight_odds(example)
    rows = [
        (
            "action_odds, one attack (long sword vs chain)",
            *timed(lambda: odds.action_odds(state, attack), 200),
            "",
        ),
        (
            "fight_odds, 1 vs 1, 60 HP each",
            *timed(lambda: odds.fight_odds(duel), 10),
            f"{duel_result.states} states; A wins {float(duel_result.wins['A']):.4f}",
        ),
        (
            "fight_odds, Angthar vs 3 goblins (1d6 HP)",
            *timed(lambda: odds.fight_odds(example), 3),
            f"{example_result.states} states; Village wins {float(example_result.wins['Village']):.4f}",
        ),
    ]
    return rows


SECTION = "## Exact odds (`bench_odds.py`)"
INTRO = f"""{SECTION}

`bench_odds.py` times the exact odds (docs/odds.md): one declared attack on a live fight state
(`action_odds`, asked by the tracker before each action; target under 5 ms), the whole-fight Markov chain
for 1 vs 1 at 60 hit points a side (3,721 states; target under 100 ms), and the example encounter
(Angthar against three goblins with 1d6 hit points, 10,633 states). Times are wall-clock medians (and
the worst run, and the median CPU time) in milliseconds; each run appends a row (`--no-record` only prints).

```
.venv/bin/python benchmarks/bench_odds.py
```

| recorded | cores, load average | action_odds | 1 vs 1, 60 HP | Angthar vs 3 goblins |
|---|---|---|---|---|
"""


def record(rows: list[tuple[str, float, float, float, str]]) -> None:
    """Add a row to this benchmark's table in README.md (adding the section the first time)."""
    text = README.read_text() if README.exists() else HEADER
    if SECTION not in text:
        text = text.rstrip("\n") + "\n\n" + INTRO
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    cells = " | ".join(
        f"{median:.1f} ms (worst {worst:.1f}; CPU {cpu:.1f})" for _, median, worst, cpu, _ in rows
    )
    row = f"| {when} | {os.cpu_count()}, {load:.1f} | {cells} |"
    lines = text.split("\n")
    at = lines.index(SECTION)
    header = next(i for i in range(at, len(lines)) if lines[i].startswith("|---"))
    end = header + 1
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    lines.insert(end, row)
    README.write_text("\n".join(lines).rstrip("\n") + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-record", action="store_true", help="print only; do not append to README.md")
    args = parser.parse_args()
    rows = measure()
    for name, median, worst, cpu, notes in rows:
        print(f"{name:46s} median {median:8.2f} ms  worst {worst:8.2f} ms  CPU {cpu:8.2f} ms  {notes}")
    if not args.no_record:
        record(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
