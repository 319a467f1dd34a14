"""`referee bestiary [NAME] [--json]`: the built-in monsters (:mod:`referee.bestiary`, issue 15)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from referee.cli import app, console, dump_json


@app.command()
def bestiary(
    name: Annotated[str | None, typer.Argument(help="One monster, e.g. ogre.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the monsters as JSON.")] = False,
    own_catalog: Annotated[
        str | None,
        typer.Option("--catalog", metavar="FILE", help="Your own catalog file, whose monsters add to these."),
    ] = None,
) -> None:
    """List the bestiary's monsters: hit dice, AC in both notations, attacks, movement, morale, saves."""
    from pathlib import Path

    from referee import bestiary as book
    from referee.files import read_own_catalog

    own = read_own_catalog(Path(own_catalog)).monsters if own_catalog else None
    chosen = [book.monster(name, own)] if name is not None else list(book.with_own(own).values())
    rows = [m.summary() for m in chosen]
    if as_json:
        dump_json(rows[0] if name is not None else rows)
        return
    print_bestiary(rows, detail=name is not None)


def attack_text(attacks: list[dict[str, Any]]) -> str:
    """ "2 × claw (1d4), 1 × bite (1d8)", the routine as stat lines print it (ODD-ATK-3)."""
    return ", ".join(f"{a['count']} × {a['weapon']} ({a['damage']})" for a in attacks)


def move_text(row: dict[str, Any]) -> str:
    extra = [f"{mode} {row[mode]}" for mode in ("fly", "swim") if mode in row]
    return " / ".join([str(row.get("move", "-")), *extra])


def saves_text(saves: dict[str, int]) -> str:
    return (
        " ".join(f"{k[0].upper()}{v}" for k, v in saves.items())
        if len(saves) > 1
        else str(next(iter(saves.values()), "-"))
    )


def print_table(table: Any) -> None:
    """On a terminal at its width; to a pipe or a file one line a monster, no trailing spaces."""
    import io
    import sys

    from rich.console import Console

    if console.is_terminal:
        console.print(table)
        return
    buffer = io.StringIO()
    Console(file=buffer, width=200, highlight=False, color_system=None).print(table)
    sys.stdout.write("".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines()))


def print_bestiary(rows: list[dict[str, Any]], detail: bool) -> None:
    from rich import box
    from rich.table import Table

    table = Table(title=None if detail else f"Bestiary: {len(rows)} monsters", box=box.SIMPLE_HEAD)
    for column in ("monster", "HD", "AC", "attacks", "move ft", "ML", "saves", "size"):
        # the names a referee types (monster, HD, AC) are never folded
        table.add_column(column, no_wrap=column in ("monster", "HD", "AC", "ML"), overflow="fold")
    for row in rows:
        ac = row["ac"]
        table.add_row(
            row["name"],
            str(row.get("hit_dice", "-")),
            f"{ac['descending']} [{ac['ascending']}]",
            attack_text(row["attacks"]),
            move_text(row),
            str(row.get("morale", "-")),
            saves_text(row.get("saves", {})),
            row.get("size", "-"),
        )
    print_table(table)
    if detail:
        row = rows[0]
        console.print(f"stat line: {row['stat']}", markup=False, soft_wrap=True)
        if row.get("note"):
            console.print(f"note: {row['note']}", markup=False, soft_wrap=True)
    console.print(
        "AC: descending [ascending]; move: feet a round (a human 30); saves: D death, W wands, P paralysis,"
        " B breath, S spells. Every figure is assumed: common old-school values (GAP-BESTIARY).",
        markup=False,
        soft_wrap=True,
    )
