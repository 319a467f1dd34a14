"""Simulator speed and memory (`make bench`). Results are recorded in benchmarks/README.md.

- the ceiling: raw numpy random numbers per second on this machine;
- the kernel: numba (compiled) when installed, else numpy (arrays); both are measured per CPU-second;
- a 1-vs-1 duel (examples/duel.yaml, ODD rules with initiative): vectorised fights/s against the event
  engine's fights/s measured in the same run (target: >= 2,000,000 fights/s and >= 20x the engine);
- a 4-vs-6 group fight (examples/skirmish.yaml): vectorised fights/s (target: >= 300,000);
- memory: peak resident size of a 10,000,000-fight run (target: under 1 GB).

`python benchmarks/bench_sim.py --quick` runs smaller sizes (a smoke test).
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
    from referee import sim
    from referee.files import load_encounter

    setup = load_encounter(EXAMPLES / example)
    sim.simulate(setup, min(n, 20_000), seed=1, workers=1, force_engine=engine)  # warm caches
    started = time.perf_counter()
    result = sim.simulate(setup, n, seed=2, workers=workers, force_engine=engine)
    return n / (time.perf_counter() - started), result.path


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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke test, not a measurement")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    args.quick = args.quick or bool(os.environ.get("REFEREE_BENCH_QUICK"))
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
