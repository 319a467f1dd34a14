"""Human renderings of events and results (rich). Rule code never prints; this module does."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from referee.engine.events import Event, EventType
from referee.engine.fight import FightResult
from referee.files import Setup

STYLES = {
    EventType.ROUND_START: "bold cyan",
    EventType.INITIATIVE: "cyan",
    EventType.DEFEAT: "bold red",
    EventType.FIGHT_END: "bold green",
    EventType.SURPRISE: "magenta",
    EventType.CONDITION: "yellow",
}


def dice_text(e: Event) -> str:
    if not e.dice:
        return ""
    return " [dim](" + ", ".join(f"d{d.sides}={d.value}" for d in e.dice) + ")[/dim]"


def event_line(e: Event) -> str | None:
    """One line of the account for an event, or None for events with nothing to say."""
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
    rule = f" [dim]\\[{e.rule}][/dim]" if e.rule and e.rule not in text else ""
    style = STYLES.get(e.type)
    line = _escape(text)
    if style:
        line = f"[{style}]{line}[/{style}]"
    return f"{line}{rule}" + (dice_text(e) if e.type in {EventType.SETUP, EventType.INITIATIVE} else "")


def _escape(text: str) -> str:
    return text.replace("[", "\\[")


def print_fight(console: Console, setup: Setup, result: FightResult) -> None:
    console.print(f"[bold]{_escape(setup.name)}[/bold] — ruleset {setup.ruleset.name}")
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
    verdict = f"{result.winner} wins" if result.winner else "no winner"
    console.print(f"[bold]{_escape(verdict)}[/bold] after {result.rounds} round(s).")


def print_catalog(console: Console, data: dict[str, list[dict[str, Any]]]) -> None:
    for title, rows in data.items():
        if not rows:
            continue
        table = Table(title=title)
        keys = sorted({k for row in rows for k in row}, key=lambda k: (k != "name", k))
        for k in keys:
            table.add_column(k)
        for row in rows:
            table.add_row(*(_escape(str(row.get(k, ""))) for k in keys))
        console.print(table)
