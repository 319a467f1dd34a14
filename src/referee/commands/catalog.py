"""`referee catalog [--json]`: the catalog's weapons, armour and shields (:mod:`referee.catalog`)."""

from __future__ import annotations

from typing import Annotated

import typer

from referee.cli import app, console, dump_json


@app.command()
def catalog(
    as_json: Annotated[bool, typer.Option("--json", help="Print the catalog as JSON.")] = False,
) -> None:
    """List the catalog's weapons, armour and shields."""
    from referee import catalog as cat
    from referee.render import print_catalog

    data = {
        "weapons": [w.model_dump(mode="json", exclude_none=True) for w in cat.weapons().values()],
        "armour": [a.model_dump(mode="json", exclude_none=True) for a in cat.armours().values()],
        "shields": [s.model_dump(mode="json", exclude_none=True) for s in cat.shields().values()],
    }
    if as_json:
        dump_json(data)
    else:
        print_catalog(console, data)
