"""`referee fight FILE`: one whole fight, round by round, each ruling with its rule ID (or as JSON)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from referee.cli import app, console, dump_json


@app.command()
def fight(
    file: Annotated[Path, typer.Argument(help="Encounter file (YAML).")],
    seed: Annotated[
        int | None, typer.Option(help="Seed for the random dice (same seed, same fight).")
    ] = None,
    dice: Annotated[
        str | None,
        typer.Option(
            help="Die results to use first, in the order the engine asks (e.g. 7,4,12,6); then the seed."
        ),
    ] = None,
    max_rounds: Annotated[
        int | None, typer.Option(min=1, max=1000, help="Stop after this many rounds.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the fight as one JSON object.")] = False,
) -> None:
    """Run a whole fight from an encounter file and print its round-by-round account."""
    from referee.dice import RandomDice, ScriptedDice, parse_script
    from referee.engine.fight import run_fight
    from referee.files import load_encounter
    from referee.render import print_fight

    setup = load_encounter(file)
    source = RandomDice(seed if seed is not None else 0)
    dice_source = ScriptedDice(parse_script(dice), then=source) if dice else source
    result = run_fight(setup, dice_source, max_rounds=max_rounds).result()
    if as_json:
        dump_json(result.to_dict())
    else:
        print_fight(console, setup, result)
