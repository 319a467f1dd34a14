"""How fast the event engine plays whole fights, round 1 against now in the same run.

    .venv/bin/python benchmarks/bench_engine.py                  # 5 runs of each, print, append to README.md
    .venv/bin/python benchmarks/bench_engine.py -r 3 --no-record
    .venv/bin/python benchmarks/bench_engine.py --in-process      # also fights per CPU-second in process
    .venv/bin/python benchmarks/bench_engine.py --against ../main/src   # and another version (both modes)

Issue 12, target 1: the event engine at least 20x round 1 (commit 6ea1143, exported by :mod:`baseline`)
on the duel (examples/duel.yaml, 2,000 fights) and on a 3-against-4 melee (benchmarks/data/melee_3v4.yaml,
300 and 1,000 fights), as `referee sim FILE -n N --engine --json` reports it (`fights_per_second`). Each run is a new process
(the console script's code on this virtualenv's Python), interleaved (round 1, now, now, round 1, ...)
so that the load of a shared machine falls on both alike, after one warm-up run of each. Reported: the
median fights/s the command reports, the median whole-process fights/s (N / the process's wall time,
start-up included), the median fights per CPU-second of the process (user + system, which waiting for a
busy machine does not inflate), and the ratios now / round 1. Now in one process and in two must agree on
the winners' counts for the same seed, and so must round 1 where it plays the same fights: a run of at
most 200 fights, one batch in both (round 1 drew each batch's fight seeds from a batch of 200; now a
batch holds about 8,000 combatant-fights, so a longer run plays other fights for the same seed).

"now" plays a batch of fights in two processes where the machine has two cores (the event-engine path
splits each batch's seeds with a helper process, src/referee/sim/engine_path.py); "now, one process"
(``REFEREE_ENGINE_PROCESSES=1``) is the same code in one process, so the table shows which part of the
gain is the helper's and which is each fight's own speed (as `--in-process` does, in CPU time).
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
from pathlib import Path

from baseline import NOW_SRC, ROUND1, python_env, referee_command, round1_src

HERE = Path(__file__).resolve().parent
README = HERE / "README.md"
MARK = "<!-- bench_engine.py appends its rows above this line -->"
HEADER = (
    "| recorded | cores, load before–after | encounter | fights | runs | round 1: reported / whole process / CPU "
    "| now: reported / whole process / CPU | now / round 1 (reported; CPU) | now, one process: reported "
    "(/ round 1) | same wins |\n"
    "|---|---|---|---|---|---|---|---|---|---|"
)
ONE = "now, one process"
AGAINST = "against"
AGAINST_ONE = "against, one process"
ROUND1_BATCH = 200  # round 1's event-engine batch: up to it, both versions play the same fights
# (the row's name, the encounter, the fights): the duel and the melee where round 1 takes about two
# seconds a run, and the melee again at 1,000 fights, a third of the most the event engine's dice budget
# lets it play (3,561): at 300 a run of the new code is a tenth of a second, of which the caches' first
# fills and the helper's fork are about a quarter, so the longer run reads the rate of a fight
CASES = {
    "duel.yaml": (HERE.parent / "examples" / "duel.yaml", 2000),
    "melee_3v4.yaml": (HERE / "data" / "melee_3v4.yaml", 300),
    "melee_3v4.yaml, 1,000": (HERE / "data" / "melee_3v4.yaml", 1000),
}


def run_once(path: Path, fights: int, env: dict[str, str]) -> tuple[float, float, float, str]:
    """(reported fights/s, whole-process fights/s, fights per CPU-second, the wins) of one `referee sim`."""
    args = ["sim", str(path), "-n", str(fights), "--engine", "--json", "--seed", "1"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(referee_command(*args), env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"referee {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    found = json.loads(done.stdout)
    wins = json.dumps([(s["side"], s["wins"]) for s in found["sides"]])
    return float(found["fights_per_second"]), fights / wall, fights / cpu, wins


def measure(runs: int, scale: float, against: Path | None = None) -> list[dict[str, object]]:
    one_process = {**python_env(NOW_SRC), "REFEREE_ENGINE_PROCESSES": "1"}
    versions = {"round 1": python_env(round1_src()), "now": python_env(NOW_SRC), ONE: one_process}
    if against is not None:  # another version's src (main's, a commit's export), interleaved with the rest
        versions[AGAINST] = python_env(against)
        versions[AGAINST_ONE] = {**python_env(against), "REFEREE_ENGINE_PROCESSES": "1"}
    samples: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    wins: dict[tuple[str, str], str] = {}
    for case, (path, fights) in CASES.items():
        n = max(1, int(fights * scale))
        for version, env in versions.items():
            wins[case, version] = run_once(path, n, env)[3]  # warm-up: bytecode compiled
        for i in range(runs):
            for version in list(versions) if i % 2 == 0 else list(reversed(versions)):
                samples.setdefault((case, version), []).append(run_once(path, n, versions[version])[:3])
    rows: list[dict[str, object]] = []
    for case, (_, fights) in CASES.items():
        medians = {
            v: tuple(statistics.median(s[k] for s in samples[case, v]) for k in range(3)) for v in versions
        }
        rows.append(
            {
                "case": case,
                "fights": max(1, int(fights * scale)),
                "round1": medians["round 1"],
                "now": medians["now"],
                "one": medians[ONE],
                "against": medians.get(AGAINST),
                "against one": medians.get(AGAINST_ONE),
                "same": wins[case, "now"] == wins[case, ONE]
                and (
                    max(1, int(fights * scale)) > ROUND1_BATCH or wins[case, "round 1"] == wins[case, "now"]
                ),
            }
        )
    return rows


IN_PROCESS = """
import sys, time
from referee.dice import RandomDice
from referee.engine.fight import run_fight
from referee.files import load_encounter
setup, n = load_encounter(sys.argv[1]), int(sys.argv[2])
for seed in range(20):
    run_fight(setup, RandomDice(seed))
start = time.process_time()
for seed in range(n):
    run_fight(setup, RandomDice(1000 + seed))
print(n / (time.process_time() - start))
"""


def in_process(fights: int = 400, repeats: int = 2, against: Path | None = None) -> list[str]:
    """Fights per CPU-second inside one process (start-up excluded), round 1, now and now with the engine's
    caches off (``REFEREE_ENGINE_CACHES=off``) alternated (and `against`'s src when given)."""
    off = {**python_env(NOW_SRC), "REFEREE_ENGINE_CACHES": "off"}
    versions = {"round 1": python_env(round1_src()), "now": python_env(NOW_SRC), "caches off": off}
    if against is not None:
        versions[AGAINST] = python_env(against)
    lines = []
    timed: set[Path] = set()
    for case, (path, _) in CASES.items():
        if path in timed:  # the same encounter at another count: in process, the same fights
            continue
        timed.add(path)
        found: dict[str, list[float]] = {v: [] for v in versions}
        for _ in range(repeats):
            for version, env in versions.items():
                done = subprocess.run(
                    [sys.executable, "-c", IN_PROCESS, str(path), str(fights)],
                    env=env, capture_output=True, text=True, check=True,
                )  # fmt: skip
                found[version].append(float(done.stdout))
        r1, now = statistics.median(found["round 1"]), statistics.median(found["now"])
        off_now = statistics.median(found["caches off"])
        lines.append(
            f"  {case}: round 1 {r1:.0f}, now {now:.0f} (caches off {off_now:.0f}) fights per CPU-second: "
            f"{now / r1:.1f}x"
        )
        if against is not None:
            other = statistics.median(found[AGAINST])
            lines.append(
                f"    against {against}: {other:.0f} fights per CPU-second; now / it {now / other:.2f}x"
            )
    return lines


def table_row(stamp: str, load: str, row: dict[str, object], runs: int) -> str:
    r1, now, one = row["round1"], row["now"], row["one"]
    assert isinstance(r1, tuple) and isinstance(now, tuple) and isinstance(one, tuple)

    def cell(m: tuple[float, ...]) -> str:
        return f"{m[0]:.0f} / {m[1]:.0f} / {m[2]:.0f} fights/s"

    return (
        f"| {stamp} | {load} | `{row['case']}` | {row['fights']} | {runs} | {cell(r1)} | {cell(now)} "
        f"| **{now[0] / r1[0]:.1f}×** (CPU {now[2] / r1[2]:.1f}×) | {one[0]:.0f} fights/s ({one[0] / r1[0]:.1f}×) "
        f"| {'yes' if row['same'] else 'NO'} |"
    )


def record(lines: list[str]) -> None:
    text = README.read_text()
    if MARK not in text:
        section = (
            "\n## Event engine (`bench_engine.py`)\n\n"
            "`bench_engine.py` runs `referee sim FILE -n N --engine --json --seed 1` as whole processes for round 1\n"
            "(commit 6ea1143) and now, interleaved, on the duel and on a 3-against-4 melee (issue 12, target 1:\n"
            "at least 20×). Per version: the fights/s the command reports (fight time only), the whole-process\n"
            "fights/s (start-up included) and the fights per CPU-second; the ratio is of the reported fights/s.\n\n"
            "```\n.venv/bin/python benchmarks/bench_engine.py\n```\n\n"
            f"{HEADER}\n{MARK}\n"
        )
        text = text.rstrip("\n") + "\n" + section
    README.write_text(text.replace(MARK, "\n".join(lines) + "\n" + MARK))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    quick = bool(os.environ.get("REFEREE_BENCH_QUICK"))
    parser.add_argument("-r", "--runs", type=int, default=1 if quick else 5, help="runs of each version")
    parser.add_argument("--scale", type=float, default=0.1 if quick else 1.0, help="times the fights")
    parser.add_argument(
        "--no-record", action="store_true", help=f"only print; do not append to {README.name}"
    )
    parser.add_argument(
        "--in-process", action="store_true", help="also time run_fight inside one process (CPU, no start-up)"
    )
    parser.add_argument(
        "--against", type=Path, default=None, help="also measure this src folder (e.g. main's), interleaved"
    )
    options = parser.parse_args()
    load_before = os.getloadavg()[0]
    rows = measure(options.runs, options.scale, options.against)
    load = f"{os.cpu_count()}, {load_before:.1f}–{os.getloadavg()[0]:.1f}"
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [table_row(stamp, load, row, options.runs) for row in rows]
    print(f"round 1 = {ROUND1}")
    print(HEADER)
    print("\n".join(lines))
    for row in rows:
        for mine, theirs, said in (("now", "against", ""), ("one", "against one", ", one process")):
            other, now = row[theirs], row[mine]
            if isinstance(other, tuple) and isinstance(now, tuple):
                print(
                    f"against {options.against}{said}, `{row['case']}`: {other[0]:.0f} reported / "
                    f"{other[2]:.0f} per CPU-s; now / it {now[0] / other[0]:.2f}x (CPU {now[2] / other[2]:.2f}x)"
                )
    if options.in_process:
        print("inside one process (400 fights after 20 warm-up ones, median of 2):")
        print("\n".join(in_process(against=options.against)))
    if not options.no_record:
        record(lines)
    return 0 if all(row["same"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
