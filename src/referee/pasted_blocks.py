"""Pasted stat blocks (one a paragraph, the name on its first line) → an encounter's data (issue 15, item 2;
:mod:`referee.statblock` reads each line): what `referee import` writes and the tracker's "Paste stat
blocks" creates. The monsters face a placeholder fighter, to be replaced by the party."""

from __future__ import annotations

import re
from typing import Any

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


def encounter_from_text(text: str, side: str, ruleset: str, fields: bool) -> dict[str, Any]:
    """The encounter data: one combatant a block, a stat line kept as `stat_block:` (or as its fields)."""
    from referee.errors import EncounterFileError
    from referee.files import is_preset_name
    from referee.rules.ruleset import Ruleset
    from referee.statblock import StatBlockError, parse_stat_block, split_blocks

    if not is_preset_name(ruleset):
        from referee.rules.presets import PRESETS

        raise EncounterFileError(f"ruleset {ruleset!r} is not a preset; presets: {', '.join(PRESETS)}")
    descending = Ruleset.preset(ruleset).armour_class.value == "descending"
    combatants: list[dict[str, Any]] = []
    problems: list[str] = []  # every block's problem at once (issue 15)
    for number, (title, line) in enumerate(split_blocks(text), start=1):
        name, count = name_and_count(title)
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


def name_and_count(title: str) -> tuple[str, int]:
    """ "Goblins (4)" or "Goblin ×4" → ("Goblins", 4); a bare name is one combatant."""
    match = _COUNT.match(title.strip())
    if match is None:
        return title.strip()[:60], 1
    return match.group(1)[:60], int(match.group(2) or match.group(3))
