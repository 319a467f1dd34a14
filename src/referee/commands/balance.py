"""`referee balance MONSTER_FILE`: how many standard fighters of each level a monster is worth.

For each level the command simulates the monster (or group) against 1, 2, 3, ... standard fighters of
that level and finds the number that gives the monster side the win rate closest to 50%. The method and
the standard fighter are documented in docs/simulation.md.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from referee.cli import app, console, dump_json, fail
from referee.commands.sim import RunProgress
from referee.errors import EncounterFileError

MAX_FIGHTERS = 60  # a monster worth more is reported as "more than 60"
MAX_LEVEL = 40
FALLBACK_FIGHTS = 300  # fights per try when the event engine has to play them (it is ~1000x slower)
MONSTER_SIDE = "Monsters"
FIGHTER_SIDE = "Fighters"


def standard_fighter(level: int, count: int) -> dict[str, Any]:
    """The documented standard fighter: class die d10, BTH level - 1 (GAP-CLASS-BTH, filled in by the
    file loader), chain mail and a medium shield, a long sword, every ability 10, and the average hit
    points of its dice (5.5 a level, rounded up)."""
    return {
        "name": "Fighter",
        "count": count,
        "kind": "character",
        "level": level,
        "hit_die": "d10",
        "hp": math.ceil(5.5 * level),
        "armour": "chain mail",
        "shield": "medium shield",
        "weapons": ["long sword"],
    }


def read_monsters(path: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """A monster file: one combatant (a mapping with `name`), a list of them, or a mapping with
    `monsters:` (and optionally `ruleset:`, `options:`, `max_rounds:`)."""
    from referee.files import read_yaml

    data = read_yaml(path)
    extra: dict[str, Any] = {}
    if isinstance(data, dict) and "monsters" in data:
        extra = {k: data[k] for k in ("ruleset", "options", "max_rounds", "distance", "catalog") if k in data}
        data = data["monsters"]
    monsters = [data] if isinstance(data, dict) else data
    if not isinstance(monsters, list) or not monsters or not all(isinstance(m, dict) for m in monsters):
        raise EncounterFileError(
            f"{path}: expected a monster (a mapping with name, hit_dice, ...) or a list of them"
        )
    for m in monsters:
        if str(m.get("name", "")).startswith("Fighter"):
            raise EncounterFileError(
                f"{path}: a monster may not be called {m.get('name')!r} (the fighters are)"
            )
    return monsters, extra


def parse_levels(text: str) -> list[int]:
    """`1-12`, `5`, or `1,3,5` → levels from 1 to MAX_LEVEL."""
    levels: list[int] = []
    for part in text.replace(" ", "").split(","):
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if match is None:
            raise typer.BadParameter(f"levels are like 1-12, 5 or 1,3,5, not {text!r}")
        low, high = int(match.group(1)), int(match.group(2) or match.group(1))
        if not 1 <= low <= high <= MAX_LEVEL:
            raise typer.BadParameter(f"levels must run upwards from 1 to {MAX_LEVEL}, not {part!r}")
        levels.extend(range(low, high + 1))
    return sorted(set(levels))


@dataclass
class LevelResult:
    level: int
    fighters: int | None  # the count closest to a 50% monster win rate (None: more than MAX_FIGHTERS)
    monster_win_rate: float
    equivalent: float | None  # interpolated fighters x level: the equivalent hit dice at this level
    tried: dict[int, float]
    path: str
    # at that count, the share of fighters down (unconscious) and dead at the end (ODD-HP-1, GAP-HP-ZERO)
    fighters_down: float = 0.0
    fighters_dead: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "fighters": self.fighters,
            "monster_win_rate": self.monster_win_rate,
            "equivalent_hit_dice": self.equivalent,
            "tried": {str(k): v for k, v in sorted(self.tried.items())},
            "fighters_down_rate": self.fighters_down,
            "fighters_dead_rate": self.fighters_dead,
            "path": self.path,
        }


class Balancer:
    """Runs the simulations: one encounter per (level, number of fighters), cached."""

    def __init__(self, monsters: list[dict[str, Any]], extra: dict[str, Any], ruleset: str | None,
                 fights: int, seed: int, workers: int) -> None:  # fmt: skip
        self.monsters = monsters
        self.extra = dict(extra)
        if ruleset is not None:
            self.extra["ruleset"] = ruleset
        self.fights = fights
        self.seed = seed
        self.workers = workers
        self.paths: set[str] = set()
        self.fates: dict[tuple[int, int], tuple[float, float]] = {}  # (level, count) → fighters down, dead
        self.base_dir = Path.cwd()  # where a house-rules file named by the monster file is looked for
        self.on_try: Callable[[str], None] = lambda now: None  # after each simulation (progress)

    def setup(self, level: int, count: int) -> Any:
        from referee.files import setup_from_data

        data = {
            "name": f"{count} level-{level} fighter(s) against {self.monsters[0].get('name', 'the monster')}",
            **self.extra,
            "sides": [
                {"name": FIGHTER_SIDE, "combatants": [standard_fighter(level, count)]},
                {"name": MONSTER_SIDE, "combatants": self.monsters},
            ],
        }
        return setup_from_data(data, "balance", base_dir=self.base_dir)

    def monster_win_rate(self, level: int, count: int) -> float:
        from referee.sim import EVENT_ENGINE, plan_run, simulate

        setup = self.setup(level, count)
        compiled, _ = plan_run(setup)
        fights = self.fights if compiled is not None else min(self.fights, FALLBACK_FIGHTS)
        result = simulate(setup, fights, seed=self.seed + 1000 * level + count, workers=self.workers)
        self.paths.add(result.path if result.path != EVENT_ENGINE else f"{EVENT_ENGINE} ({result.reason})")
        self.on_try(f"level {level}: {count} fighter(s) tried")
        fighters = [i for i, c in enumerate(setup.combatants) if c.side == FIGHTER_SIDE]
        share = max(1, result.tally.fights * len(fighters))
        self.fates[(level, count)] = (
            float(result.tally.down[fighters].sum()) / share,
            float(result.tally.dead[fighters].sum()) / share,
        )
        return result.win_rate(MONSTER_SIDE)

    def level(self, level: int, start: int = 1) -> LevelResult:
        """Walk the number of fighters up (or down) to where the monster's win rate crosses 50%."""
        tried: dict[int, float] = {}
        self.paths = set()

        def rate(n: int) -> float:
            if n == 0:
                return 1.0  # nobody to fight: the monster wins
            if n not in tried:
                tried[n] = self.monster_win_rate(level, n)
            return tried[n]

        n = max(1, min(start, MAX_FIGHTERS))
        while n > 1 and rate(n - 1) <= 0.5:
            n -= 1
        while rate(n) > 0.5 and n < MAX_FIGHTERS:
            n += 1
        path = ", ".join(sorted(self.paths))
        if rate(n) > 0.5:
            return LevelResult(
                level, None, rate(n), None, tried, path, *self.fates.get((level, n), (0.0, 0.0))
            )
        above, below = rate(n - 1), rate(n)  # above > 0.5 >= below
        best = n if n == 1 or abs(below - 0.5) <= abs(above - 0.5) else n - 1
        crossing = (n - 1) + (above - 0.5) / (above - below) if above != below else float(n)
        fate = self.fates.get((level, best), (0.0, 0.0))
        return LevelResult(level, best, rate(best), crossing * level, tried, path, *fate)


def harmonic_mean(values: list[float]) -> float | None:
    positive = [v for v in values if v > 0]
    return len(positive) / sum(1 / v for v in positive) if positive else None


def check_search_budget(balancer: Balancer, fights: int, levels: list[int]) -> tuple[str, str]:
    """Before any simulation, for a monster the event engine must play: the largest try of the search
    (the most fighters, of the highest level) within the simulator's budget, as `sim` checks a run, and
    the monster's hit dice, rolled in every fight of every try (up to MAX_FIGHTERS tries a level), within
    it over the whole search. Returns the path the first try takes and the reason for any fallback."""
    from referee.budget import check_engine_dice, check_rolled_hit_dice
    from referee.sim import EVENT_ENGINE, VECTORISED, plan_run

    setup = balancer.setup(1, 1)  # a bad file fails here
    compiled, reason = plan_run(setup)
    if compiled is not None:
        return VECTORISED, ""
    per_try = min(fights, FALLBACK_FIGHTS)
    largest = balancer.setup(max(levels), MAX_FIGHTERS)
    check_engine_dice(largest.combatants, largest.max_rounds, per_try, "balance: its largest try")
    monsters = [c for c in setup.combatants if c.side == MONSTER_SIDE]
    tries = MAX_FIGHTERS * len(levels)

    def fewer(fits: int) -> str:
        levels_that_fit = fits // (per_try * MAX_FIGHTERS)
        if levels_that_fit >= 1:
            return f"ask for at most {levels_that_fit} level(s) with --levels"
        return f"ask for --fights {max(1, fits // tries)} or fewer"

    check_rolled_hit_dice(monsters, per_try * tries, "balance", fewer)
    return EVENT_ENGINE, reason


@app.command()
def balance(
    monster_file: Annotated[Path, typer.Argument(help="A monster (or a list of monsters) as YAML.")],
    levels: Annotated[str, typer.Option(help="Fighter levels: 1-12, 5 or 1,3,5.")] = "1-12",
    ruleset: Annotated[str | None, typer.Option(help="A preset or a house-rules file.")] = None,
    fights: Annotated[int, typer.Option(help="Fights simulated per try.")] = 2000,
    seed: Annotated[int, typer.Option(min=0, help="Seed (same seed, same answer).")] = 0,
    workers: Annotated[int, typer.Option(help="Processes to spread each simulation over.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the results as one JSON object.")] = False,
    own_catalog: Annotated[
        str | None,
        typer.Option(
            "--catalog", metavar="FILE", help="Your own catalog file: weapons, armour, shields, monsters."
        ),
    ] = None,
) -> None:
    """How many fighters of each level make a fair (50%) fight for a monster, and its equivalent hit dice."""
    try:
        wanted = parse_levels(levels)
    except typer.BadParameter as exc:
        fail(str(exc))
    if not 10 <= fights <= 10_000_000:
        fail(f"--fights must be from 10 to 10,000,000, not {fights}")
    if not 1 <= workers <= 64:
        fail(f"--workers must be from 1 to 64, not {workers}")
    monsters, extra = read_monsters(monster_file)
    if ruleset is not None and not Path(ruleset).is_absolute() and Path(ruleset).exists():
        ruleset = str(Path(ruleset).resolve())  # --ruleset FILE is read from here, not the monster's folder
    if own_catalog is not None:  # read from here, as --ruleset FILE is (issue 15)
        extra["catalog"] = str(Path(own_catalog).resolve())
    balancer = Balancer(monsters, extra, ruleset, fights, seed, workers)
    balancer.base_dir = monster_file.parent
    path, reason = check_search_budget(balancer, fights, wanted)
    progress = RunProgress("balance", unit="levels")
    progress.announce(path, reason)  # on stderr, before any simulation
    balancer.on_try = lambda now: progress(len(results), len(wanted), now)
    results: list[LevelResult] = []
    paths: set[str] = set()
    start = 1
    try:
        for level in wanted:
            result = balancer.level(level, start)
            results.append(result)
            paths |= balancer.paths
            start = result.fighters or MAX_FIGHTERS
            progress(len(results), len(wanted))
    finally:
        progress.close()
    overall = harmonic_mean([r.equivalent for r in results if r.equivalent is not None])
    data = {
        "monsters": [m.get("name") for m in monsters],
        "ruleset": balancer.setup(1, 1).ruleset.name,
        "fights_per_try": fights,
        "levels": [r.to_dict() for r in results],
        "equivalent_hit_dice": overall,
        "method": "harmonic mean over levels of (interpolated fighters at a 50% monster win rate) x level",
    }
    if as_json:
        dump_json(data)
        return
    table = Table(title=f"balance: {', '.join(str(m) for m in data['monsters'])} ({data['ruleset']})")
    for column in ("level", "fighters", "monster wins", "fighters down", "fighters dead", "equivalent HD"):
        table.add_column(column, justify="right")
    for r in results:
        table.add_row(str(r.level), str(r.fighters) if r.fighters else f">{MAX_FIGHTERS}",
                      f"{r.monster_win_rate:.1%}", f"{r.fighters_down:.1%}", f"{r.fighters_dead:.1%}",
                      f"{r.equivalent:.1f}" if r.equivalent else "-")  # fmt: skip
    console.print(table)
    console.print(f"equivalent hit dice: {overall:.1f}" if overall else "equivalent hit dice: -")
    console.print(f"path: {paths_line(paths)}", markup=False)


def paths_line(paths: set[str]) -> str:
    """Each path the tries took, once: a fallback's reason told for one count of fighters (it names them,
    `Fighter` or `Fighter 1`) stands for the others."""
    first: dict[str, str] = {}
    for told in sorted(paths):
        first.setdefault(told.split(" (", 1)[0], told)
    return ", ".join(first.values())
