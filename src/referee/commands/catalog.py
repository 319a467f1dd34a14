"""`referee catalog [--json] [--catalog FILE]`: the catalog's weapons, armour and shields
(:mod:`referee.catalog`), with a referee's own (issue 15, :mod:`referee.catalog.own`) marked `own`."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from referee.cli import app, console, dump_json


@app.command()
def catalog(
    as_json: Annotated[bool, typer.Option("--json", help="Print the catalog as JSON.")] = False,
    own_catalog: Annotated[
        str | None,
        typer.Option(
            "--catalog", metavar="FILE", help="Your own catalog file: its weapons, armour and shields too."
        ),
    ] = None,
) -> None:
    """List the catalog's weapons, armour and shields."""
    from pathlib import Path

    from referee import catalog as cat
    from referee.files import read_own_catalog
    from referee.render import print_catalog

    book = read_own_catalog(Path(own_catalog)).catalog() if own_catalog else cat.built_in()
    data = {
        "weapons": rows(book.weapons, "weapons", book.own),
        "armour": rows(book.armours, "armour", book.own),
        "shields": rows(book.shields, "shields", book.own),
    }
    if as_json:
        dump_json(data)
        return
    print_catalog(console, data)
    if book.own:
        console.print(
            f"own: from {own_catalog} (yours, replacing a built-in item of the same name)",
            markup=False,
            soft_wrap=True,
        )


def rows(items: Any, kind: str, own: frozenset[str]) -> list[dict[str, Any]]:
    """Each item as JSON; a referee's own marked `own: true` (the built-in ones have no `own`)."""
    out = []
    for key, item in items.items():
        row = item.model_dump(mode="json", exclude_none=True)
        if f"{kind}:{key}" in own:
            row["own"] = True
        out.append(row)
    return out
