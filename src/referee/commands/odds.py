"""`referee odds FILE`: the exact odds of one attack (`--attacker`, `--target`), or of the whole fight
(`--fight`), from the same plans the engine rolls."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from referee.cli import app
from referee.rules.context import AttackForm


@app.command("odds")
def odds_command(
    file: Annotated[Path, typer.Argument(help="Encounter file (YAML).")],
    attacker: Annotated[str | None, typer.Option(help="Who attacks.")] = None,
    target: Annotated[str | None, typer.Option(help="Whom they attack.")] = None,
    weapon: Annotated[str | None, typer.Option(help="Weapon (default: the first carried).")] = None,
    form: Annotated[
        str | None, typer.Option(help=f"Attack form: {', '.join(f.value for f in AttackForm)}.")
    ] = None,
    charge: Annotated[bool, typer.Option("--charge", help="The attacker charges (ODD-CHARGE-1).")] = False,
    distance: Annotated[int | None, typer.Option(min=0, max=10_000, help="Distance in feet.")] = None,
    fight: Annotated[
        bool, typer.Option("--fight", help="Odds of the whole fight under the default tactics instead.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the odds as JSON.")] = False,
    own_catalog: Annotated[
        str | None,
        typer.Option(
            "--catalog", metavar="FILE", help="Your own catalog file: weapons, armour, shields, monsters."
        ),
    ] = None,
) -> None:
    """Exact odds of one attack at the start of the encounter, or of the whole fight (small fights)."""
    from referee.commands.odds_command_line import question
    from referee.commands.odds_text import answer_question

    asked = question(attacker, target, weapon, form, charge, distance, fight, as_json)
    answer_question(str(file), asked, own_catalog)
