"""Simulator speed and memory (`make bench`). Results are recorded in benchmarks/README.md.

- the ceiling: raw numpy random numbers per second on this machine;
- the kernel: numba (compiled) when installed, else numpy (arrays); both are measured per CPU-second;
- a 1-vs-1 duel (examples/duel.yaml, ODD rules with initiative): vectorised fights/s against the event
  engine's fights/s measured in the same run (target: >= 2,000,000 fights/s and >= 20x the engine);
- a 4-vs-6 group fight (examples/skirmish.yaml): vectorised fights/s (target: >= 300,000);
- memory: peak resident size of a 10,000,000-fight run (target: under 1 GB).

`python benchmarks/bench_sim.py --quick` runs smaller sizes (a smoke test).

`--against SRC` measures another version's code in the same run, interleaved with this one (each pass a
fresh process with that `src` folder first on PYTHONPATH; `SRC` may also be a commit, exported with
`git archive` by baseline.py): the numba kernel's fights per CPU-second on one core and the fights/s on
`--workers` workers (wall clock, and per CPU-second of the parent and its workers), best of `--passes`,
with the ratios now / before. A shared machine's load falls on both alike.

    python benchmarks/bench_sim.py --against /path/to/other/src --passes 3
    python benchmarks/bench_sim.py --against 6ea1143          # round 1
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def random_ceiling(size: int = 1 << 22, repeats: int = 5) -> float:
    """Uniform float64 numbers per second from numpy's default generator, one core (best of runs)."""
    rng = np.random.default_rng(0)
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        rng.random(size)
        best = min(best, time.perf_counter() - started)
    return size / best


def fights_per_second(example: str, n: int, workers: int, engine: bool = False) -> tuple[float, str]:
    rate, _, path = fights_per_second_and_cpu(example, n, workers, engine)
    return rate, path


def fights_per_second_and_cpu(
    example: str, n: int, workers: int, engine: bool = False
) -> tuple[float, float, str]:
    """Fights per wall-clock second of one `simulate` call (compiling the tables, forking the workers and
    all), fights per CPU-second of this process and its workers together, and the path that ran."""
    from referee import sim
    from referee.files import load_encounter

    setup = load_encounter(EXAMPLES / example)
    sim.simulate(setup, min(n, 20_000), seed=1, workers=1, force_engine=engine)  # warm caches
    before = os.times()
    started = time.perf_counter()
    result = sim.simulate(setup, n, seed=2, workers=workers, force_engine=engine)
    wall = time.perf_counter() - started
    after = os.times()
    cpu = sum(after[:4]) - sum(before[:4])  # user + system, this process and its (finished) workers
    return n / wall, n / cpu, result.path


def kernel_per_cpu_second(example: str, n: int, kernel: str) -> float:
    """Fights per CPU-second of one process playing batches (robust when other work shares the machine)."""
    from referee import sim
    from referee.files import load_encounter

    compiled = sim.compile_setup(load_encounter(EXAMPLES / example))
    rng = np.random.default_rng(3)
    size = sim.batch_size(compiled)
    play = sim.compiled_batch if kernel == sim.NUMBA else sim.simulate_batch
    play(compiled, 1000, rng)  # compile (numba) and warm caches
    started = time.process_time()
    done = 0
    while done < n:
        play(compiled, size, rng)
        done += size
    return done / (time.process_time() - started)


def peak_memory_mb(n: int, workers: int) -> float:
    """Peak resident size (MB) of a fresh process that simulates `n` duels, the largest of its processes."""
    code = (
        "import resource, sys\n"
        "from referee import sim\n"
        "from referee.files import load_encounter\n"
        f"sim.simulate(load_encounter({str(EXAMPLES / 'duel.yaml')!r}), {n}, workers={workers})\n"
        "own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "print(max(own, kids))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(out.stdout.strip()) / 1024


def kernel_pass(quick: bool, workers: int) -> dict[str, float]:
    """One pass of the A/B measurements in this process (whichever `referee` is on the path)."""
    big = 200_000 if quick else 4_000_000
    out: dict[str, float] = {}
    for name, example, n in (("duel", "duel.yaml", big), ("group_4v6", "skirmish.yaml", big // 4)):
        out[f"{name}_fights_per_cpu_s_one_core"] = kernel_per_cpu_second(example, n, "numba")
        wall, cpu, _ = fights_per_second_and_cpu(example, 2 * n, workers)
        out[f"{name}_fights_per_s_{workers}_workers"] = wall
        out[f"{name}_fights_per_cpu_s_{workers}_workers"] = cpu
    return out


def against(other: str, passes: int, quick: bool, workers: int) -> dict[str, object]:
    """`kernel_pass` for the code under `other` (a src folder or a commit) and for this tree, interleaved
    in fresh processes; the best of `passes` for each, and the ratios now / before."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from baseline import NOW_SRC, python_env, round1_src

    before_src = Path(other) if Path(other).is_dir() else round1_src(other)
    best: dict[str, dict[str, float]] = {"before": {}, "now": {}}
    command = [sys.executable, str(Path(__file__).resolve()), "--pass", "--workers", str(workers)]
    for _ in range(passes):
        for label, src in (("before", before_src), ("now", NOW_SRC)):
            run = subprocess.run(
                [*command, *(["--quick"] if quick else [])],
                env=python_env(src), capture_output=True, text=True, check=True,
            )  # fmt: skip
            for key, value in json.loads(run.stdout).items():
                best[label][key] = max(best[label].get(key, 0.0), value)
    ratios = {key: round(best["now"][key] / best["before"][key], 2) for key in best["now"]}
    return {
        "before_src": str(before_src),
        "passes": passes,
        "before": {k: round(v) for k, v in best["before"].items()},
        "now": {k: round(v) for k, v in best["now"].items()},
        "now_over_before": ratios,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke test, not a measurement")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--against", metavar="SRC", help="also measure this src folder (or commit), interleaved"
    )
    parser.add_argument("--passes", type=int, default=3, help="with --against: passes of each (best kept)")
    parser.add_argument("--pass", dest="one_pass", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.quick = args.quick or bool(os.environ.get("REFEREE_BENCH_QUICK"))
    if args.one_pass:  # a child of --against: one pass, as JSON
        print(json.dumps(kernel_pass(args.quick, args.workers)))
        return
    if args.against:
        load = os.getloadavg()[0]
        report = against(args.against, args.passes, args.quick, args.workers)
        report["load_average_1min"] = [round(load, 2), round(os.getloadavg()[0], 2)]
        print(json.dumps(report, indent=2))
        return
    big = 200_000 if args.quick else 8_000_000
    results: dict[str, object] = {}
    results["numpy_random_per_s_one_core"] = round(random_ceiling())
    duel, path = fights_per_second("duel.yaml", big, args.workers)
    engine, _ = fights_per_second("duel.yaml", 100 if args.quick else 1000, 1, engine=True)
    results["duel_fights_per_s"] = round(duel)
    results["duel_path"] = path
    results["duel_engine_fights_per_s"] = round(engine)
    results["duel_speedup"] = round(duel / engine, 1)
    group, group_path = fights_per_second("skirmish.yaml", big // 4, args.workers)
    results["group_4v6_fights_per_s"] = round(group)
    results["group_path"] = group_path
    from referee import sim

    results["kernel"] = sim.default_kernel()
    for kernel in (sim.NUMBA, sim.NUMPY):
        if kernel == sim.NUMBA and sim._numba_play() is None:
            continue
        duel_cpu = kernel_per_cpu_second("duel.yaml", big // (1 if kernel == sim.NUMBA else 4), kernel)
        group_cpu = kernel_per_cpu_second("skirmish.yaml", big // (8 if kernel == sim.NUMBA else 32), kernel)
        results[f"duel_fights_per_cpu_s_one_core_{kernel}"] = round(duel_cpu)
        results[f"group_4v6_fights_per_cpu_s_one_core_{kernel}"] = round(group_cpu)
    results["workers"] = args.workers
    if not args.quick:
        results["peak_mb_10M_duels"] = round(peak_memory_mb(10_000_000, args.workers))
    results["load_average_1min"] = round(os.getloadavg()[0], 2)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
