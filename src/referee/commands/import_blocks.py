"""`referee import FILE|-`: pasted stat blocks (one a paragraph, the name on its first line) → an encounter
file on stdout (issue 15, item 2; :mod:`referee.statblock`)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from referee.cli import app, fail

# the side the imported monsters face, to be replaced by the party (an encounter has two sides)
PLACEHOLDER_PARTY: dict[str, Any] = {
    "name": "Fighter",
    "level": 1,
    "hit_die": "d8",
    "armour": "chain mail",
    "shield": "medium shield",
    "weapons": ["long sword"],
}
_COUNT = re.compile(r"^(.*?)\s*(?:\((\d+)\)|[×x]\s*(\d+))$")


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

    text = _read_text(source)
    try:
        data = encounter_from_text(text, side, ruleset, fields)
        setup_from_data(data, "imported encounter")  # what is written loads as it is
    except RefereeError as exc:
        fail("\n".join(f"{source}: {line}" for line in str(exc).splitlines()))
    sys.stdout.write(encounter_yaml(data))


def encounter_from_text(text: str, side: str, ruleset: str, fields: bool) -> dict[str, Any]:
    """The encounter data: one combatant a block, a stat line kept as `stat_block:` (or as its fields)."""
    from referee.errors import EncounterFileError
    from referee.files import is_preset_name
    from referee.rules.ruleset import Ruleset
    from referee.statblock import StatBlockError, parse_stat_block, split_blocks

    if not is_preset_name(ruleset):
        raise EncounterFileError(f"--ruleset {ruleset!r} is not a preset (`referee rules` lists them)")
    descending = Ruleset.preset(ruleset).armour_class.value == "descending"
    combatants: list[dict[str, Any]] = []
    problems: list[str] = []  # every block's problem at once (issue 15)
    for number, (title, line) in enumerate(split_blocks(text), start=1):
        name, count = _name_and_count(title)
        try:
            block = parse_stat_block(line)
        except StatBlockError as exc:
            problems.append(f"block {number} ({name}): {exc}")
            continue
        entry: dict[str, Any] = {"name": name}
        if count > 1:
            entry["count"] = count
        entry.update(block.fields(descending) if fields else {"stat_block": line})
        combatants.append(entry)
    if problems:
        raise EncounterFileError("\n".join(problems))
    if not combatants:
        raise EncounterFileError("no stat blocks found (one per paragraph, the name on its first line)")
    return {
        "name": "Imported encounter",
        "ruleset": ruleset,
        "sides": [
            {"name": "Party", "combatants": [dict(PLACEHOLDER_PARTY)]},
            {"name": side, "combatants": combatants},
        ],
    }


def encounter_yaml(data: dict[str, Any]) -> str:
    import yaml

    header = "# Written by `referee import`; replace the Party side with the player characters.\n"
    return header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000)


def _name_and_count(title: str) -> tuple[str, int]:
    """ "Goblins (4)" or "Goblin ×4" → ("Goblins", 4); a bare name is one combatant."""
    match = _COUNT.match(title.strip())
    if match is None:
        return title.strip()[:60], 1
    return match.group(1)[:60], int(match.group(2) or match.group(3))


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
