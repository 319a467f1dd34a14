"""How fast the `referee` command answers, as whole processes, round 1 against now in the same run.

    .venv/bin/python benchmarks/bench_cli.py               # 15 runs of each, print, append to README.md
    .venv/bin/python benchmarks/bench_cli.py -n 31 --no-record

Issue 12, target 4: `referee --help` and one attack's `referee odds FILE --attacker A --target T` at
least 3x faster than round 1 (commit 6ea1143, exported by :mod:`baseline`). Each command runs as a new
process (the console script's code on this virtualenv's Python) N times for each version, interleaved
(round 1, now, now, round 1, ...) so that the load of a shared machine falls on both alike; after one
warm-up run of each (bytecode compiled, caches filled). Reported: the median and worst wall-clock time,
the median CPU time of the process (user + system, which waiting for a busy machine does not inflate)
and the ratio round 1 / now of the medians, and whether both versions print the same thing ("same
words": round 1 padded a pipe's lines to the width; `--help` lists the commands added since).
"""

from __future__ import annotations

import argparse
import datetime
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from baseline import NOW_SRC, ROUND1, console_entry, python_env, referee_command, round1_src

HERE = Path(__file__).resolve().parent
README = HERE / "README.md"
MARK = "<!-- bench_cli.py appends its rows above this line -->"
HEADER = (
    "| recorded | cores, load before–after | command | bytecode | runs | round 1: median | now: median "
    "| round 1 / now | same output |\n|---|---|---|---|---|---|---|---|---|"
)
DUEL = str(HERE.parent / "examples" / "duel.yaml")
CASES: dict[str, list[str]] = {
    "referee --help": ["--help"],
    "referee odds duel.yaml --attacker Angthar --target Goblin": [
        "odds", DUEL, "--attacker", "Angthar", "--target", "Goblin",
    ],
}  # fmt: skip


# What any `referee odds` must pay before it answers (today's code, for the reading of the results):
# Python itself, the command-line libraries, msgspec and the models, and reading the encounter file.
FLOOR: dict[str, str] = {
    "python -c pass": "pass",
    "import typer, rich.console, rich.table": "import typer, typer.main, rich.console, rich.table",
    "import msgspec": "import msgspec",
    "import referee.model (msgspec and the models)": "import referee.model",
    "load_encounter(duel.yaml)": f"from referee.files import load_encounter; load_encounter({DUEL!r})",
}


def run_once(
    args: list[str], env: dict[str, str], code: str | None = None, entry: str = "referee.cli:main"
) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stdout) of one whole `referee` process, its console script calling
    `entry` (or of `python -c code`)."""
    command = referee_command(*args, entry=entry) if code is None else [sys.executable, "-c", code]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"referee {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def bytecode_env(env: dict[str, str], bytecode: bool) -> dict[str, str]:
    """With `bytecode`, modules are compiled once (in the warm-up) and their bytecode reused, as for an
    installed package, kept under the temporary directory (the working tree is left alone); without,
    every run compiles every module it imports from source (PYTHONDONTWRITEBYTECODE=1)."""
    env = dict(env)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "referee-bench-pycache")
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    return env


def measure(runs: int, bytecode: bool) -> list[dict[str, object]]:
    versions = {
        "round 1": bytecode_env(python_env(round1_src()), bytecode),
        "now": bytecode_env(python_env(NOW_SRC), bytecode),
    }
    entries = {"round 1": console_entry(ROUND1), "now": console_entry()}  # each version's console script
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    outputs: dict[tuple[str, str], str] = {}
    for case, args in CASES.items():
        for version, env in versions.items():
            outputs[case, version] = run_once(args, env, entry=entries[version])[
                2
            ]  # warm-up: bytecode, grammar
    for i in range(runs):
        order = list(versions) if i % 2 == 0 else list(reversed(versions))
        for case, args in CASES.items():
            for version in order:
                wall, cpu, _ = run_once(args, versions[version], entry=entries[version])
                times.setdefault((case, version), []).append((wall, cpu))
    rows: list[dict[str, object]] = []
    for case in CASES:
        stats = {}
        for version in versions:
            walls = [w for w, _ in times[case, version]]
            stats[version] = (
                statistics.median(walls),
                max(walls),
                statistics.median(c for _, c in times[case, version]),
            )
        rows.append(
            {
                "case": case,
                "round1": stats["round 1"],
                "now": stats["now"],
                "ratio": stats["round 1"][0] / stats["now"][0],
                "cpu_ratio": stats["round 1"][2] / stats["now"][2],
                "same_output": same_output(outputs[case, "round 1"], outputs[case, "now"]),
            }
        )
    return rows


def floor(runs: int) -> list[str]:
    """Median wall and CPU time of the FLOOR processes (today's code, bytecode reused)."""
    env = bytecode_env(python_env(NOW_SRC), True)
    lines = []
    for label, code in FLOOR.items():
        run_once([], env, code)
        times = [run_once([], env, code)[:2] for _ in range(runs)]
        wall = statistics.median(w for w, _ in times)
        cpu = statistics.median(c for _, c in times)
        lines.append(f"  {label}: {ms(wall)} ms wall, {ms(cpu)} ms CPU (median of {runs})")
    return lines


def same_output(round1: str, now: str) -> str:
    if round1 == now:
        return "yes"
    return "same words" if round1.split() == now.split() else "differs"


def ms(value: float) -> str:
    return f"{value * 1000:.0f}"


def table_row(stamp: str, load: str, row: dict[str, object], runs: int, bytecode: bool) -> str:
    r1, now = row["round1"], row["now"]
    assert isinstance(r1, tuple) and isinstance(now, tuple)
    return (
        f"| {stamp} | {load} | `{row['case']}` | {'reused' if bytecode else 'compiled each run'} | {runs} | {ms(r1[0])} ms (worst {ms(r1[1])}; CPU {ms(r1[2])}) "
        f"| {ms(now[0])} ms (worst {ms(now[1])}; CPU {ms(now[2])}) | **{row['ratio']:.1f}×** "
        f"(CPU {row['cpu_ratio']:.1f}×) | {row['same_output']} |"
    )


def record(lines: list[str]) -> None:
    text = README.read_text()
    if MARK not in text:
        print(f"{README.name} has no '{MARK}' line; not recorded", file=sys.stderr)
        return
    README.write_text(text.replace(MARK, "\n".join(lines) + "\n" + MARK))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    quick = bool(os.environ.get("REFEREE_BENCH_QUICK"))
    parser.add_argument("-n", "--runs", type=int, default=3 if quick else 15, help="runs of each command")
    parser.add_argument(
        "--no-record", action="store_true", help=f"only print; do not append to {README.name}"
    )
    parser.add_argument(
        "--bytecode", choices=["reused", "compiled", "both"], default="both",
        help="reuse compiled modules as an installed package does, compile from source every run, or both",
    )  # fmt: skip
    parser.add_argument(
        "--floor", action="store_true", help="also time Python, typer and rich, and reading the encounter"
    )
    options = parser.parse_args()
    lines: list[str] = []
    same = True
    for bytecode in {"reused": [True], "compiled": [False], "both": [True, False]}[options.bytecode]:
        load_before = os.getloadavg()[0]
        rows = measure(options.runs, bytecode)
        load = f"{os.cpu_count()}, {load_before:.1f}–{os.getloadavg()[0]:.1f}"
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
        lines += [table_row(stamp, load, row, options.runs, bytecode) for row in rows]
        same = same and all(row["same_output"] != "differs" or "help" in str(row["case"]) for row in rows)
    print(f"round 1 = {ROUND1}")
    print(HEADER)
    print("\n".join(lines))
    if options.floor:
        print("what every `referee odds` pays first (now):")
        print("\n".join(floor(options.runs)))
    if not options.no_record:
        record(lines)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
