"""Human renderings of events and results. Rule code never prints; this module does.

Every account is built from the same parts of each event (:func:`event_parts`: its text, the rule
behind it, its dice), so the plain text, the Markdown and the rich (terminal) accounts of a step say
the same thing with the same rule IDs.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from referee.engine.events import Event, EventType
from referee.engine.fight import FightResult
from referee.rules import decisive
from referee.rules.turns import winner_text
from referee.setup import Setup

STYLES = {
    EventType.ROUND_START: "bold cyan",
    EventType.INITIATIVE: "cyan",
    EventType.DEFEAT: "bold red",
    EventType.FIGHT_END: "bold green",
    EventType.SURPRISE: "magenta",
    EventType.CONDITION: "yellow",
}

# The events whose data may list the modifiers that decided them (referee.rules.decisive).
DECIDED = {EventType.ATTACK, EventType.DAMAGE}

# Attack and damage texts already spell out their dice ("1d20 12 +4 ..."); these kinds list theirs.
DICE_SHOWN = {EventType.SETUP, EventType.INITIATIVE}


@dataclass(frozen=True)
class EventParts:
    """What one line of an account says: the text, the rule not already cited in it, the dice."""

    type: EventType
    text: str
    rule: str | None
    dice: str  # "d10=8, d10=3", or "" when the text already shows them
    decided: str = ""  # "+1 Str [ODD-MELEE-1] decided it": what decided an attack or a defeat (issue 13)

    @property
    def style(self) -> str | None:
        return STYLES.get(self.type)


def event_parts(e: Event) -> EventParts | None:
    """The parts of an event's line, or None for events with nothing to say."""
    if e.type is EventType.ROUND_END:
        return None
    if e.type is EventType.ACTION and not e.text:
        return None
    text = e.text or e.type.value
    if e.type is EventType.ATTACK:
        form = e.data.get("form")
        how = form if form not in {None, "melee", "ranged"} else e.data.get("weapon")
        verb = "charges" if e.data.get("charge") else "attacks"
        text = f"{e.actor} {verb} {e.target} ({how}): {e.text}"
    elif e.type is EventType.DAMAGE:
        text = f"{e.target} takes {e.text} → {e.data.get('hp_after')} hp"
    elif e.type is EventType.ROUND_START:
        text = f"— {e.text} —"
    rule = e.rule if e.rule and e.rule not in text else None
    dice = ", ".join(f"d{d.sides}={d.value}" for d in e.dice) if e.type in DICE_SHOWN else ""
    decided = decisive.describe(e.data.get("decisive") or ()) if e.type in DECIDED else ""
    return EventParts(e.type, text, rule, dice, decided)


def dice_text(e: Event) -> str:
    if not e.dice:
        return ""
    return " [dim](" + ", ".join(f"d{d.sides}={d.value}" for d in e.dice) + ")[/dim]"


def event_line(e: Event) -> str | None:
    """One line of the account for an event in rich markup, or None for events with nothing to say."""
    parts = event_parts(e)
    if parts is None:
        return None
    rule = f" [dim]\\[{parts.rule}][/dim]" if parts.rule else ""
    line = _escape(parts.text)
    if parts.style:
        line = f"[{parts.style}]{line}[/{parts.style}]"
    decided = f"; {_escape(parts.decided)}" if parts.decided else ""
    return f"{line}{rule}" + (dice_text(e) if e.type in DICE_SHOWN else "") + decided


def plain_line(e: Event) -> str | None:
    """One line of the plain-text account, e.g. ``Goblin is dead [ODD-HP-1]``."""
    parts = event_parts(e)
    if parts is None:
        return None
    rule = f" [{parts.rule}]" if parts.rule else ""
    dice = f" ({parts.dice})" if parts.dice else ""
    decided = f"; {parts.decided}" if parts.decided else ""
    return f"{parts.text}{rule}{dice}{decided}"


def markdown_line(e: Event) -> str | None:
    """One Markdown list item: the text escaped, the rule as code, the dice in italics."""
    parts = event_parts(e)
    if parts is None:
        return None
    text = _markdown_escape(parts.text)
    if e.type in {EventType.ROUND_START, EventType.DEFEAT, EventType.FIGHT_END}:
        text = f"**{text}**"
    rule = f" `{parts.rule}`" if parts.rule else ""
    dice = f" *({parts.dice})*" if parts.dice else ""
    decided = f"; {_markdown_escape(parts.decided)}" if parts.decided else ""
    return f"- {text}{rule}{dice}{decided}"


def plain_account(events: Iterable[Event]) -> str:
    """The account of some events as plain text, one line per event that says something."""
    return "\n".join(line for e in events if (line := plain_line(e)) is not None)


def markdown_account(events: Iterable[Event]) -> str:
    """The same account as a Markdown list."""
    return "\n".join(line for e in events if (line := markdown_line(e)) is not None)


def rich_account(events: Iterable[Event]) -> Text:
    """The same account as a rich renderable (the lines the `referee fight` command prints)."""
    return Text.from_markup("\n".join(line for e in events if (line := event_line(e)) is not None))


def _escape(text: str) -> str:
    return text.replace("[", "\\[")


def _markdown_escape(text: str) -> str:
    for char in "\\`*_[]":  # what could start emphasis, code or a link inside a line
        text = text.replace(char, "\\" + char)
    return text


def ruleset_heading(setup: Setup) -> str:
    """ "ruleset odd, ascending AC": the convention every AC in the account is in (DAC-AC-1, issue 15)."""
    return f"ruleset {setup.ruleset.name}, {setup.ruleset.armour_class.value} AC"


def print_fight(console: Console, setup: Setup, result: FightResult) -> None:
    console.print(f"[bold]{_escape(setup.name)}[/bold] — {ruleset_heading(setup)}")
    for e in result.events:
        line = event_line(e)
        if line is not None:
            console.print(line)
    table = Table(title="after the fight")
    for column in ("combatant", "side", "hp", "status"):
        table.add_column(column)
    for c in result.combatants:
        hp = f"{c['hp']}/{c['max_hp']}" + (f" ({c['subdual']} subdual)" if c["subdual"] else "")
        table.add_row(_escape(c["name"]), _escape(c["side"]), hp, c["status"])
    console.print(table)
    members = [c["name"] for c in result.combatants if c["side"] == result.winner]
    verdict = winner_text(result.winner, members) if result.winner else "no winner"
    rounds = "1 round" if result.rounds == 1 else f"{result.rounds} rounds"
    console.print(f"[bold]{_escape(verdict)}[/bold] after {rounds}.")


def print_catalog(console: Console, data: dict[str, list[dict[str, Any]]]) -> None:
    """One table per kind. Names and numbers are never cut (issue 15): the columns of short values stay
    whole and the flags (two-handed, assumed, ...) and damage types go to a `notes` column that wraps."""
    for title, rows in data.items():
        if not rows:
            continue
        table = Table(title=title)
        keys = [k for k in _catalog_columns(rows) if k != "notes"]
        for k in keys:
            table.add_column(k, no_wrap=True, min_width=max(len(k), *(len(_cell(r.get(k))) for r in rows)))
        table.add_column("notes")
        for row in rows:
            notes = [k.replace("_", "-") for k, v in sorted(row.items()) if v is True]
            notes += [_cell(v) for k, v in sorted(row.items()) if isinstance(v, list) and v]
            table.add_row(*(_escape(_cell(row.get(k))) for k in keys), _escape(", ".join(notes)))
        console.print(table)


def _catalog_columns(rows: list[dict[str, Any]]) -> list[str]:
    """The keys with values other than flags and lists, name first; a key that is 0 in every row (a
    magic bonus no catalog item has) is left out."""
    keys = {k for row in rows for k, v in row.items() if not isinstance(v, bool | list)}
    shown = [k for k in keys if any(row.get(k) not in (None, 0, "") for row in rows)]
    return sorted(shown, key=lambda k: (k != "name", k))


def _cell(value: Any) -> str:
    if value is None:
        return ""
    return "/".join(str(v) for v in value) if isinstance(value, list) else str(value)
