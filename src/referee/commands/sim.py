"""`referee sim FILE -n N`: how an encounter usually goes, from many simulated fights."""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from referee.cli import app, console, dump_json, fail, warn

if TYPE_CHECKING:
    from rich.progress import Progress

    from referee.sim import SimResult

MAX_FIGHTS = 1_000_000_000
MAX_WORKERS = 64


def parse_count(text: str, what: str = "the number of fights", limit: int = MAX_FIGHTS) -> int:
    """A whole number written as `1000000`, `1_000_000`, `1e6`, `10k` or `2M`, from 1 to `limit`."""
    raw = text.strip().lower().replace("_", "").replace(",", "")
    scale = {"k": 1_000, "m": 1_000_000}
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(?:e(\d+))?([km]?)", raw)
    if match is None:
        raise typer.BadParameter(f"{what} must be a whole number like 1000, 1e6 or 10k, not {text!r}")
    value = float(match.group(1)) * 10 ** int(match.group(2) or 0) * scale.get(match.group(3), 1)
    if value != int(value) or not 1 <= value <= limit:
        raise typer.BadParameter(f"{what} must be a whole number from 1 to {limit:,}, not {text!r}")
    return int(value)


PROGRESS_SECONDS = 5.0  # a line on stderr this often when stderr is not a terminal
PROGRESS_ENV = "REFEREE_PROGRESS_SECONDS"  # overrides PROGRESS_SECONDS (0: a line after every batch)
PLANNING_NOTICE_SECONDS = 1.0  # choosing the path takes longer than this: a line says what is under way


def path_line(path: str, reason: str) -> str:
    """`path: vectorised`, or `path: event engine (fallback: REASON)`."""
    return f"path: {path}" + (f" (fallback: {reason})" if reason else "")


def duration(seconds: float) -> str:
    """`42 s`, `3 min 5 s`, `2 h 10 min`."""
    whole = max(0, round(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"


def per_second(rate: float) -> str:
    """A rate as a progress line says it: whole numbers from 10 up, two figures below (a slow level of
    balance goes at 0.4 levels/s, not "0")."""
    return f"{rate:,.0f}" if rate >= 10 else f"{rate:.2g}"


class RunProgress:
    """Progress on stderr, so that --json keeps stdout clean: the path first (:meth:`announce`); then
    a rich bar with the time left on a terminal (once a run has taken more than `delay` seconds), or
    else a line every `every` seconds with the rate and an estimate of the time left."""

    def __init__(self, label: str, unit: str = "fights", delay: float = 1.0, every: float | None = None,
                 terminal: bool | None = None) -> None:  # fmt: skip
        self.label = label
        self.unit = unit
        self.delay = delay
        self.every = float(os.environ.get(PROGRESS_ENV, PROGRESS_SECONDS)) if every is None else every
        self.terminal = sys.stderr.isatty() if terminal is None else terminal
        self.started = time.perf_counter()
        self.last_line = self.started
        self.bar: Progress | None = None
        self.task: Any = None
        self.notice: threading.Timer | None = None  # the line said while the path is chosen (planning)

    def planning(self, after: float = PLANNING_NOTICE_SECONDS) -> None:
        """Before the path is chosen: a line on stderr if choosing it takes more than `after` seconds
        (compiling the fast path's tables works out the exact odds of every attack first: seconds for
        some presets), so that a long wait is never silent. :meth:`announce` ends it."""
        self._stop_planning()
        timer = threading.Timer(after, self._say_planning)
        timer.daemon = True
        self.notice = timer
        timer.start()

    def _say_planning(self) -> None:
        sys.stderr.write(
            f"{self.label}: working out the fast path's tables (the exact odds of every attack)...\n"
        )
        sys.stderr.flush()

    def _stop_planning(self) -> None:
        if self.notice is not None:
            self.notice.cancel()
            self.notice.join()  # gone before any fork or worker: the run's process has one thread
            self.notice = None

    def announce(self, path: str, reason: str) -> None:
        """The path that will play the fights, and why not the fast one, before any is played."""
        self._stop_planning()
        sys.stderr.write(f"{self.label}: {path_line(path, reason)}\n")
        sys.stderr.flush()
        self.started = self.last_line = time.perf_counter()  # the rate counts from the first fight

    def left(self, done: int, total: int) -> float | None:
        """Seconds left at the rate so far (None before anything is done)."""
        spent = time.perf_counter() - self.started
        return spent * (total - done) / done if done > 0 else None

    def __call__(self, done: int, total: int, now: str = "") -> None:
        """`now`: what is under way (balance: the level and the fighters being tried), said on each line."""
        if self.terminal:
            self._bar(done, total, now)
        elif done < total and time.perf_counter() - self.last_line >= self.every:
            self.last_line = time.perf_counter()
            spent = self.last_line - self.started
            rate = f", {per_second(done / spent)} {self.unit}/s" if spent > 0 and done > 0 else ""
            left = self.left(done, total)
            estimate = f", about {duration(left)} left" if left is not None else ""
            doing = f"; {now}" if now else ""
            sys.stderr.write(f"{self.label}: {done:,} of {total:,} {self.unit} ({done / total:.0%}){rate}"
                             f"{estimate}{doing}\n")  # fmt: skip
            sys.stderr.flush()

    def _bar(self, done: int, total: int, now: str = "") -> None:
        from referee.cli import err_console

        if self.bar is None:
            if time.perf_counter() - self.started < self.delay or done >= total:
                return
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

            self.bar = Progress(
                "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                TimeRemainingColumn(), console=err_console, transient=True,
            )  # fmt: skip
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=total)
        self.bar.update(self.task, completed=done, description=f"{self.label} ({now})" if now else self.label)

    def close(self) -> None:
        self._stop_planning()
        if self.bar is not None:
            self.bar.stop()


@app.command()
def sim(
    file: Annotated[Path, typer.Argument(help="Encounter file (YAML).")],
    fights: Annotated[
        str, typer.Option("-n", "--fights", help="How many fights: 1000, 1e6, 10k, 2M.")
    ] = "10000",
    seed: Annotated[int, typer.Option(min=0, help="Seed (same seed and workers, same result).")] = 0,
    workers: Annotated[int, typer.Option(help="Processes to spread the batches over.")] = 1,
    engine: Annotated[bool, typer.Option("--engine", help="Play every fight with the event engine.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as one JSON object.")] = False,
    plot: Annotated[
        Path | None, typer.Option(help="Write a PNG of the rounds and survival rates here.")
    ] = None,
    own_catalog: Annotated[
        str | None,
        typer.Option(
            "--catalog", metavar="FILE", help="Your own catalog file: weapons, armour, shields, monsters."
        ),
    ] = None,
) -> None:
    """Simulate many fights of an encounter: win rates with 95% intervals, rounds, survival."""
    from referee.files import load_encounter
    from referee.sim import simulate

    try:
        n = parse_count(fights)
    except typer.BadParameter as exc:
        fail(str(exc))
    if not 1 <= workers <= MAX_WORKERS:
        fail(f"--workers must be from 1 to {MAX_WORKERS}, not {workers}")
    if plot is not None and plot.suffix.lower() != ".png":
        fail(f"--plot writes a PNG; give a file name ending in .png, not {plot.name!r}")
    if plot is not None and not plot.parent.is_dir():
        fail(f"--plot: no such directory {str(plot.parent)!r}")
    setup = load_encounter(file, own_catalog)
    warn(setup.warnings)  # a module's descending AC read as ascending (issue 15)
    progress = RunProgress(f"simulating {setup.name}")
    progress.planning()
    try:
        result = simulate(setup, n, seed=seed, workers=workers, progress=progress, force_engine=engine,
                          on_path=progress.announce)  # fmt: skip
    finally:
        progress.close()
    if plot is not None:
        write_plot(result, plot)
    if as_json:
        dump_json(result.to_dict())
    else:
        print_result(result, plot)


def print_result(result: SimResult, plot: Path | None = None) -> None:
    data = result.to_dict()
    path = data["path"]
    why = f" ({data['kernel']} kernel)" if data["kernel"] else ""
    console.print(f"[bold]{data['encounter']}[/bold] · ruleset {data['ruleset']} · {data['fights']:,} fights")
    console.print(path_line(path, data["fallback_reason"] or "") + why, markup=False)
    sides = Table(title="sides")
    for column in ("side", "wins", "win rate", "95% interval"):
        sides.add_column(column, justify="left" if column == "side" else "right")
    for s in data["sides"]:
        low, high = s["ci95"]
        sides.add_row(s["side"], f"{s['wins']:,}", f"{s['win_rate']:.1%}", f"{low:.1%} – {high:.1%}")
    sides.add_row("draw (no side left)", f"{data['draws']['count']:,}", f"{data['draws']['rate']:.1%}", "")
    limit = data["round_limit"]
    sides.add_row(f"round limit ({limit['max_rounds']})", f"{limit['count']:,}", f"{limit['rate']:.1%}", "")
    console.print(sides)
    rounds = data["rounds"]
    console.print(f"rounds: mean {rounds['mean']:.2f}, median {rounds['median']}")
    console.print(rounds_line(rounds["distribution"], data["fights"]), markup=False)
    people = Table(title="combatants")
    # each combatant ends standing, down (unconscious) or dead: the three add up to 100%
    for column in ("combatant", "side", "standing", "down", "dead", "mean hp left"):
        people.add_column(column, justify="left" if column in {"combatant", "side"} else "right")
    for c in data["combatants"]:
        people.add_row(c["name"], c["side"], f"{c['standing_rate']:.1%}", f"{c['down_rate']:.1%}",
                       f"{c['dead_rate']:.1%}", f"{c['mean_hp_left']:.1f}")  # fmt: skip
    console.print(people)
    speed = data["fights_per_second"]
    workers = "1 worker" if data["workers"] == 1 else f"{data['workers']} workers"
    console.print(f"{data['seconds']:.2f} s{f', {speed:,} fights/s' if speed else ''}, seed {data['seed']}, "
                  f"{workers}")  # fmt: skip
    if plot is not None:
        console.print(f"plot written to {plot}", markup=False)


def rounds_line(distribution: dict[str, int], fights: int, width: int = 12) -> str:
    """`1: 41.6%  2: 19.6%  …` for the most common rounds, in round order."""
    top = sorted(sorted(distribution.items(), key=lambda kv: -kv[1])[:width], key=lambda kv: int(kv[0]))
    return "  ".join(f"{r}: {count / max(1, fights):.1%}" for r, count in top)


def write_plot(result: SimResult, path: Path) -> None:
    """A PNG with the distribution of rounds and how each combatant ends: standing, down, dead
    (matplotlib, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = result.to_dict()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    dist = {int(k): v / data["fights"] for k, v in data["rounds"]["distribution"].items()}
    left.bar(list(dist), list(dist.values()), color="#4a6fa5")
    left.set_xlabel("rounds")
    left.set_ylabel("share of fights")
    left.set_title("how long the fight lasts")
    names = [c["name"] for c in data["combatants"]]
    left_edge = [0.0] * len(names)
    for key, colour in (("standing_rate", "#4a8f5a"), ("down_rate", "#d9a441"), ("dead_rate", "#a55a4a")):
        rates = [c[key] for c in data["combatants"]]
        right.barh(names[::-1], rates[::-1], left=left_edge[::-1], color=colour, label=key.split("_")[0])
        left_edge = [a + b for a, b in zip(left_edge, rates, strict=True)]
    right.set_xlim(0, 1)
    right.set_xlabel("share of fights")
    right.set_title("standing, down or dead at the end")
    right.legend(loc="lower right")
    fig.suptitle(f"{data['encounter']} · {data['fights']:,} fights ({data['path']})")
    fig.tight_layout()
    try:
        fig.savefig(path, format="png", dpi=100)
    except OSError as exc:
        fail(f"cannot write {path}: {exc.strerror}")
    finally:
        plt.close(fig)
