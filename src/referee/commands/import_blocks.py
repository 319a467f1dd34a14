"""`referee import FILE|-`: pasted stat blocks (one a paragraph, the name on its first line) → an encounter
file on stdout (issue 15, item 2; :mod:`referee.statblock`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from referee.cli import app, fail


@app.command(name="import")
def import_blocks(
    source: Annotated[str, typer.Argument(metavar="FILE|-", help="Text with stat blocks; - reads stdin.")],
    side: Annotated[str, typer.Option(help="Name of the monsters' side.")] = "Monsters",
    ruleset: Annotated[str, typer.Option(help="Preset the encounter names.")] = "odd",
    fields: Annotated[
        bool, typer.Option("--fields", help="Write each block's fields instead of its stat line.")
    ] = False,
) -> None:
    """Turn pasted stat blocks (one per paragraph, name on the first line) into an encounter file."""
    from referee.errors import RefereeError
    from referee.files import setup_from_data
    from referee.pasted_blocks import encounter_from_text, encounter_yaml

    text = _read_text(source)
    try:
        data = encounter_from_text(text, side, ruleset, fields)
        setup_from_data(data, "imported encounter")  # what is written loads as it is
    except RefereeError as exc:
        fail("\n".join(f"{source}: {line}" for line in str(exc).splitlines()))
    sys.stdout.write(encounter_yaml(data))


def _read_text(source: str) -> str:
    from referee.files import MAX_FILE_BYTES
    from referee.yaml_safe import read_regular_file

    try:
        raw = (
            sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
            if source == "-"
            else read_regular_file(Path(source), MAX_FILE_BYTES)
        )
    except OSError as exc:
        fail(f"{source}: cannot read: {exc.strerror or exc}")
    if len(raw) > MAX_FILE_BYTES:
        fail(f"{source}: more than {MAX_FILE_BYTES} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        fail(f"{source}: not UTF-8 text (byte {exc.start})")
