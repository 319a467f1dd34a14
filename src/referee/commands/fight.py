"""`referee fight FILE`: one whole fight, round by round, each ruling with its rule ID (or as JSON)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from referee.cli import app, console, dump_json, warn

if TYPE_CHECKING:
    from referee.engine.fight import FightResult
    from referee.rules.decisive import WhyRow


@app.command()
def fight(
    file: Annotated[Path, typer.Argument(help="Encounter file (YAML).")],
    seed: Annotated[
        int | None, typer.Option(help="Seed for the random dice (same seed, same fight).")
    ] = None,
    dice: Annotated[
        str | None,
        typer.Option(
            help="Die results to use first, in the order the engine asks (e.g. 7,4,12,6; ? rolls that one"
            " with the seed's dice: 7,?,12); then the seed."
        ),
    ] = None,
    max_rounds: Annotated[
        int | None, typer.Option(min=1, max=1000, help="Stop after this many rounds.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the fight as one JSON object.")] = False,
    why: Annotated[
        bool,
        typer.Option(
            "--why",
            help="After the fight, list the rules that decided the most outcomes (with --json: a `why` key).",
        ),
    ] = False,
    own_catalog: Annotated[
        str | None,
        typer.Option(
            "--catalog", metavar="FILE", help="Your own catalog file: weapons, armour, shields, monsters."
        ),
    ] = None,
) -> None:
    """Run a whole fight from an encounter file and print its round-by-round account."""
    from referee.budget import check_fight_turns
    from referee.dice import RandomDice, ScriptedDice, parse_script
    from referee.engine.fight import run_fight
    from referee.files import load_encounter
    from referee.render import print_fight

    setup = load_encounter(file, own_catalog)
    warn(setup.warnings)
    check_fight_turns(len(setup.combatants), max_rounds or setup.max_rounds, str(file))
    source = RandomDice(seed if seed is not None else 0)
    dice_source = ScriptedDice(typed_script(dice, parse_script), then=source) if dice else source
    result = run_fight(setup, dice_source, max_rounds=max_rounds).result()
    rows = why_rows(result) if why else None
    if as_json:
        data = result.to_dict()
        if rows is not None:
            data["why"] = [row.to_dict() for row in rows]
        dump_json(data)
    else:
        print_fight(console, setup, result)
        if rows is not None:
            print_why(rows)


WHY_SHOWN = 10  # rows of the --why table; the JSON lists every rule


def why_rows(result: FightResult) -> list[WhyRow]:
    """Issue 13: the rules that decided the fight's outcomes (hits, misses and defeats), most first."""
    from referee.rules.decisive import tally

    return tally(e.data["decisive"] for e in result.events if e.data.get("decisive"))


def print_why(rows: list[WhyRow]) -> None:
    """The --why table: rule, reason, how many outcomes it decided (without it, each would have flipped)."""
    from rich.markup import escape
    from rich.table import Table

    if not rows:
        console.print("No outcome was decided by a single modifier.")
        return
    table = Table(title="what decided the outcomes")
    for column in ("rule", "reason", "outcomes decided"):
        table.add_column(column)
    for row in rows[:WHY_SHOWN]:
        table.add_row(escape(row.rule), escape(row.reason), str(row.outcomes))
    console.print(table)
    if len(rows) > WHY_SHOWN:
        console.print(f"… and {len(rows) - WHY_SHOWN} more rule(s) (--json lists every one).")


def typed_script(text: str, parse: Callable[[str], list[int]]) -> list[int | None]:
    """`7,?,12` → `[7, None, 12]`: `?` rolls that die (the tracker's dice field reads it the same way); the
    rest is checked by `parse` (the dice list's own messages and limits, item numbers included)."""
    items = [i for i in text.replace(" ", ",").split(",") if i]
    values = parse(",".join("1" if i == "?" else i for i in items))
    return [None if raw == "?" else value for raw, value in zip(items, values, strict=True)]
