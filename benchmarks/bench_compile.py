"""How long the fast path's tables take to compile, per example: the fixed cost of `referee sim` before its
first fight (every example the tables carry). Results are recorded in benchmarks/README.md.

Each measurement is a fresh process (``plan_run``: the exact distributions of every attack and round end
the tables need, worked out with the engine's own procedures), so nothing compiled earlier helps. With
``--against SRC`` another version's ``src`` folder (or a commit, exported by baseline.py) is measured in the
same run, interleaved, and both must compile the same tables (their digest is compared).

    .venv/bin/python benchmarks/bench_compile.py                      # this tree, each example once
    .venv/bin/python benchmarks/bench_compile.py --against 9485f4a -r 3
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from baseline import NOW_SRC, python_env, round1_src

HERE = Path(__file__).resolve().parent
README = HERE / "README.md"
EXAMPLES = HERE.parent / "examples"
SECTION = "## Compiling the tables (`bench_compile.py`)"
INTRO = f"""{SECTION}

The fast path's fixed cost: `plan_run` (the tables of every attack and round end, their exact distributions
worked out with the engine's own procedures) in a fresh process, per example the tables carry; with
`--against`, another version in the same run, interleaved, which must compile the same tables.

| recorded | cores, load | example | runs | against: median s | now: median s | against / now | same tables |
|---|---|---|---|---|---|---|---|
"""

# one process: compile the tables of one example, print the seconds and a digest of the tables
PROBE = """
import hashlib, json, sys, time
import numpy as np
from referee.files import load_encounter
from referee.sim.run import plan_run
setup = load_encounter(sys.argv[1])
started = time.perf_counter()
tables, reason = plan_run(setup, False)
seconds = time.perf_counter() - started
digest = hashlib.sha256()
for name, value in sorted(vars(tables).items()) if tables is not None else []:
    digest.update(name.encode())
    digest.update(value.tobytes() if isinstance(value, np.ndarray) else repr(value).encode())
print(json.dumps({"seconds": seconds, "digest": digest.hexdigest()[:16] if tables else None, "reason": reason}))
"""


def compile_once(example: Path, src: Path) -> tuple[float, str | None]:
    """(seconds, digest of the tables or None when the example takes the event engine) in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(example)],
        env=python_env(src),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(
            f"compiling {example.name} with {src} failed: {done.stderr.strip().splitlines()[-1:]}"
        )
    found = json.loads(done.stdout)
    return float(found["seconds"]), found["digest"]


def examples() -> list[Path]:
    """The example encounters (not the ruleset files)."""
    return sorted(p for p in EXAMPLES.glob("*.yaml") if "sides:" in p.read_text())


@dataclass(frozen=True)
class Row:
    """One example's median compile time now, and against the other version when one was given."""

    example: str
    runs: int
    now: float
    against: float | None = None
    same: bool | None = None  # both versions compiled the same tables


def measure(runs: int, against: Path | None) -> list[Row]:
    rows: list[Row] = []
    for example in examples():
        now: list[float] = []
        before: list[float] = []
        digests: set[str | None] = set()
        for _ in range(runs):
            if against is not None:
                seconds, digest = compile_once(example, against)
                before.append(seconds)
                digests.add(digest)
            seconds, digest = compile_once(example, NOW_SRC)
            now.append(seconds)
            digests.add(digest)
        if digest is None:
            continue  # the event engine plays it: no tables
        row = Row(example.name, runs, statistics.median(now))
        if against is not None:
            row = Row(example.name, runs, row.now, statistics.median(before), len(digests) == 1)
        rows.append(row)
        told = f"{row.now:.2f} s"
        if row.against is not None:
            told = f"{row.against:.2f} s -> {told} ({row.against / row.now:.1f}x)"
        print(f"{example.name:32s} {told}", flush=True)
    return rows


def record(rows: list[Row], against: str) -> None:
    """Add the rows to this benchmark's table in README.md (adding the section the first time)."""
    text = README.read_text()
    if SECTION not in text:
        text = text.rstrip("\n") + "\n\n" + INTRO
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    lines = text.split("\n")
    at = lines.index(SECTION)
    end = next(i for i in range(at, len(lines)) if lines[i].startswith("|---")) + 1
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    for row in rows:
        old = row.against
        cells = (
            f"`{against}`: {old:.2f}" if old is not None else "—",
            f"{row.now:.2f}",
            f"**{old / row.now:.1f}×**" if old is not None else "—",
            "—" if row.same is None else "yes" if row.same else "**no**",
        )
        lines.insert(
            end,
            f"| {when} | {os.cpu_count()}, {load:.1f} | `{row.example}` | {row.runs} | "
            + " | ".join(cells)
            + " |",
        )
        end += 1
    README.write_text("\n".join(lines).rstrip("\n") + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-r", "--runs", type=int, default=1, help="fresh processes per example and version")
    parser.add_argument("--against", help="another version's src folder, or a commit (exported once)")
    parser.add_argument("--no-record", action="store_true", help="print only; do not append to README.md")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, not {args.runs}")
    against = None
    if args.against:
        given = Path(args.against)
        try:
            against = given if (given / "referee").is_dir() else round1_src(args.against)
        except subprocess.CalledProcessError:
            parser.error(
                f"--against {args.against!r} is neither a src folder nor a commit of this repository"
            )
    rows = measure(args.runs, against)
    if not args.no_record:
        record(rows, args.against or "")
    if any(row.same is False for row in rows):
        print("error: the two versions compiled different tables", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
