"""Speed of the exact odds (referee.odds).

    .venv/bin/python benchmarks/bench_odds.py            # measure, print, append to benchmarks/README.md
    .venv/bin/python benchmarks/bench_odds.py --no-record

Measures: one declared attack's odds on a live fight state (`action_odds`, what the web tracker asks
before each action; target under 5 ms), the exact odds of a 1-vs-1 fight at 60 hit points a side
(target under 100 ms), and the exact odds of the example encounter (Angthar against three goblins
with rolled hit points). Each is timed several times; the median and the worst are reported.

In the same run, the example encounter's `referee odds FILE --fight --json` as whole processes, round 1's
code (commit 6ea1143, exported by :mod:`baseline`) and today's interleaved (issue 12, target 3: at least
5x faster), after one warm-up each; both answers must agree to 1e-6. As in :mod:`bench_cli`, with the
modules' bytecode reused (as an installed package has it), compiled from source every run
(``PYTHONDONTWRITEBYTECODE=1`` and no bytecode yet, as a fresh source tree runs), or both
(``--bytecode``, default both). Printed too (not recorded): the
example's `fight_odds` as the first call in a fresh process, round 1 and now interleaved.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from baseline import NOW_SRC, ROUND1, console_entry, python_env, referee_command, round1_src
from bench_cli import bytecode_env

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


def whole_process(runs: int = 5, bytecode: bool = True) -> tuple[float, float, float, float]:
    """Median wall and CPU seconds of `referee odds EXAMPLE --fight --json`: round 1, then now (with
    the bytecode reused, or compiled every run: :func:`bench_cli.bytecode_env`)."""
    args = ("odds", str(EXAMPLE), "--fight", "--json")
    commands = {  # each version's own console script (its pyproject.toml's entry point)
        "round 1": referee_command(*args, entry=console_entry(ROUND1)),
        "now": referee_command(*args, entry=console_entry()),
    }
    envs = {
        "round 1": bytecode_env(python_env(round1_src()), bytecode),
        "now": bytecode_env(python_env(NOW_SRC), bytecode),
    }
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in envs}
    answers: dict[str, dict[str, Any]] = {}
    for run in range(runs + 1):
        for name in envs if run % 2 else reversed(list(envs)):  # interleaved: the load falls on both
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run(commands[name], env=envs[name], capture_output=True, text=True, check=True)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            answers[name] = json.loads(done.stdout)
            if run:  # the first run of each is the warm-up
                cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
                times[name].append((wall, cpu))
    for side, p in answers["round 1"]["wins"].items():
        assert abs(answers["now"]["wins"][side] - p) < 1e-6, (side, p, answers["now"]["wins"][side])
    old, new = times["round 1"], times["now"]
    return (
        statistics.median(w for w, _ in old), statistics.median(c for _, c in old),
        statistics.median(w for w, _ in new), statistics.median(c for _, c in new),
    )  # fmt: skip


FRESH = """
import json, time
from referee.files import load_encounter
from referee import odds
for module in ("referee.odds.chain", "referee.engine.fight"):  # imported before the clock starts
    try:
        __import__(module)
    except ImportError:
        pass
setup = load_encounter(EXAMPLE)
wall, cpu = time.perf_counter(), time.process_time()
odds.fight_odds(setup)
print(json.dumps([time.perf_counter() - wall, time.process_time() - cpu]))
"""


def fresh_in_process(runs: int = 5) -> dict[str, tuple[float, float]]:
    """Median wall and CPU milliseconds of the example's `fight_odds`, the first call in a fresh process
    (nothing cached yet, as the command line meets it): round 1, then now, interleaved."""
    envs = {"round 1": python_env(round1_src()), "now": python_env(NOW_SRC)}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in envs}
    code = FRESH.replace("EXAMPLE", repr(str(EXAMPLE)))
    for run in range(runs):
        for name in envs if run % 2 else reversed(list(envs)):
            done = subprocess.run(
                [sys.executable, "-c", code], env=envs[name], capture_output=True, text=True, check=True
            )
            wall, cpu = json.loads(done.stdout)
            times[name].append((wall * 1000, cpu * 1000))
    return {
        name: (statistics.median(w for w, _ in got), statistics.median(c for _, c in got))
        for name, got in times.items()
    }


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

| recorded | cores, load average | action_odds | 1 vs 1, 60 HP | Angthar vs 3 goblins | Angthar, whole process: round 1 → now (CPU) | ratio |
|---|---|---|---|---|---|---|
"""


def record(
    rows: list[tuple[str, float, float, float, str]], processes: dict[str, tuple[float, float, float, float]]
) -> None:
    """Add a row to this benchmark's table in README.md (adding the section the first time)."""
    text = README.read_text() if README.exists() else HEADER
    if SECTION not in text:
        text = text.rstrip("\n") + "\n\n" + INTRO
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    cells = " | ".join(
        f"{median:.1f} ms (worst {worst:.1f}; CPU {cpu:.1f})" for _, median, worst, cpu, _ in rows
    )
    whole = (
        "; ".join(
            f"{mode}: {old_wall:.2f} s ({old_cpu:.2f}) → {new_wall:.2f} s ({new_cpu:.2f})"
            for mode, (old_wall, old_cpu, new_wall, new_cpu) in processes.items()
        )
        + " | "
        + " / ".join(f"{p[0] / p[2]:.1f}×" for p in processes.values())
    )
    row = f"| {when} | {os.cpu_count()}, {load:.1f} | {cells} | {whole} |"
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
    parser.add_argument("-n", "--runs", type=int, default=5, help="whole processes of each version")
    parser.add_argument(
        "--bytecode", choices=["reused", "compiled", "both"], default="both",
        help="whole processes reuse compiled modules as an installed package does, compile every run, or both",
    )  # fmt: skip
    args = parser.parse_args()
    rows = measure()
    for name, median, worst, cpu, notes in rows:
        print(f"{name:46s} median {median:8.2f} ms  worst {worst:8.2f} ms  CPU {cpu:8.2f} ms  {notes}")
    fresh = fresh_in_process()
    (old_wall, old_cpu), (new_wall, new_cpu) = fresh["round 1"], fresh["now"]
    print(
        f"fight_odds({EXAMPLE.name}), first call in a fresh process: round 1 {old_wall:.1f} ms"
        f" (CPU {old_cpu:.1f}), now {new_wall:.1f} ms (CPU {new_cpu:.1f}): {old_cpu / new_cpu:.1f}x CPU"
    )
    modes = {"reused": ["reused"], "compiled": ["compiled"], "both": ["reused", "compiled"]}[args.bytecode]
    processes = {}
    for mode in modes:
        process = whole_process(args.runs, bytecode=mode == "reused")
        processes[f"bytecode {mode}"] = process
        old_wall, old_cpu, new_wall, new_cpu = process
        print(
            f"referee odds {EXAMPLE.name} --fight, whole process, bytecode {mode}: round 1 {old_wall:.3f} s"
            f" (CPU {old_cpu:.3f}), now {new_wall:.3f} s (CPU {new_cpu:.3f}): {old_wall / new_wall:.2f}x"
            f" (CPU {old_cpu / new_cpu:.2f}x)"
        )
    if not args.no_record:
        record(rows, processes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
