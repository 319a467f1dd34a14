"""`referee schema`: the JSON Schema of encounter files (from the models of :mod:`referee.model`)."""

from __future__ import annotations

from referee.cli import app, dump_json


@app.command()
def schema() -> None:
    """Print the JSON Schema of encounter files."""
    from referee.model import EncounterSpec

    dump_json(EncounterSpec.model_json_schema())
