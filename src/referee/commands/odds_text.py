"""What `referee odds FILE` does once its command line is read: the exact odds of one attack or of the
whole fight, printed.

Without typer: :func:`referee.cli.main` calls :func:`answer_question` directly for a command line it can
read plainly (:func:`odds_command_line.read_command_line`); the typer command (:mod:`referee.commands.odds`)
calls it for every other one. Rich, the rules and the engine are imported when the answer is drawn.
"""

from __future__ import annotations

import gc
import json
import sys
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from referee.rules.context import AttackForm


def answer_question(
    file: str, asked: Mapping[str, Any], own_catalog: str | None = None, *, process_ends: bool = False
) -> None:
    """Read the encounter, answer the question (:func:`odds_command_line.question`), print it.

    The cyclic garbage collector waits while the modules are imported and the file is read: that makes
    long-lived objects only, and the collector's passes over them (a tenth of a one-attack answer's
    time) would free nothing. For a caller that lives on it resumes before a whole fight's odds, which
    make and drop many objects.

    With `process_ends` (the process exits after the answer: :func:`referee.cli.answer_odds`) it waits
    through the fight's odds too: the cyclic garbage they leave is the attacks' enumeration, a few
    thousand objects however many rounds are played, while the collector's passes over what the chain
    makes and drops cost a fight several milliseconds. At the end what was made is frozen
    (:func:`gc.freeze`) before the collector resumes: else its last pass at exit walks every object the
    imports made (15–20 ms on the 2-core machine). A caller that lives on keeps everything collectable,
    as before."""
    collecting = gc.isenabled()
    gc.disable()

    def resume_before_fight() -> None:
        if collecting and not process_ends:
            gc.enable()

    try:
        answer_paused(file, asked, own_catalog, resume_before_fight)
    finally:
        if collecting:
            if process_ends:
                gc.freeze()
            gc.enable()


def answer_paused(
    file: str, asked: Mapping[str, Any], own_catalog: str | None, resume: Callable[[], None]
) -> None:
    from referee import odds
    from referee.cli import fail, warn
    from referee.engine.actions import Attack
    from referee.files import load_encounter

    setup = load_encounter(file, own_catalog)
    warn(setup.warnings)
    if asked["fight"]:
        if asked["attacker"] or asked["target"]:
            fail("--fight gives the odds of the whole fight; leave out --attacker and --target")
        resume()
        result = odds.fight_odds(setup).to_dict()
        answer(result, lambda out: print_fight_odds(result, out), asked["json"])
    else:
        if not asked["attacker"] or not asked["target"]:
            names = ", ".join(c.name for c in setup.combatants)
            fail(
                f"give --attacker and --target for one attack (combatants: {names}), or --fight for the whole fight"
            )
        attack = Attack(
            asked["attacker"], target=asked["target"], weapon=asked["weapon"], form=parse_form(asked["form"]),
            charge=asked["charge"], distance=asked["distance"],
        )  # fmt: skip
        action = odds.encounter_action_odds(setup, attack)
        answer(action.to_dict(), lambda out: print_action_odds(action, out), asked["json"])


def answer(data: dict[str, Any], draw: Callable[[Console], None], as_json: bool) -> None:
    """Print the answer: JSON, a pipe's plain lines (what the app's console prints there), or rich on
    a terminal."""
    if as_json:
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"  # as referee.cli.dump_json
    elif not sys.stdout.isatty():
        from referee.commands.consoles import plain_text

        text = plain_text(draw)  # what the app's console prints on a pipe
    else:
        from referee.commands.consoles import make_console

        draw(make_console())
        return
    sys.stdout.write(text)


def parse_form(text: str | None) -> AttackForm | None:
    from referee.cli import fail
    from referee.rules.context import AttackForm

    if text is None:
        return None
    try:
        return AttackForm(text.strip().lower())
    except ValueError:
        fail(f"unknown attack form {text!r}; forms: {', '.join(f.value for f in AttackForm)}")


def percent(p: Fraction | float) -> str:
    return f"{float(p) * 100:.2f}%"


DAMAGE_COLUMNS = ("damage", "overall", "given a hit")  # the damage table's title is its first column's


def action_odds_lines(odds: Any) -> list[str]:
    """One attack's odds below its first line: what it needs, its chances, the damage it deals (no markup:
    rich prints them as they are)."""
    needed = "automatic" if odds.needed is None and odds.hit == 1 else None
    if odds.needed is not None:
        needed = f"natural {odds.needed} or more"
    kind = " subdual" if odds.subdual else ""
    return [
        f"needs: {needed or 'cannot hit'}",
        f"hit {percent(odds.hit)}   critical {percent(odds.critical)}   fumble {percent(odds.fumble)}"
        + (f"   missed by chance {percent(odds.missed_by_chance)}" if odds.missed_by_chance else ""),
        f"expected{kind} damage {float(odds.expected_damage):.3f}   drops the target {percent(odds.drop)}",
    ]


def damage_rows(odds: Any) -> list[tuple[str, str, str]]:
    """The damage table's rows: each amount, its chance overall and given a hit."""
    rows = []
    for value, p in odds.damage.items():
        on_hit = odds.damage_on_hit.get(value)
        rows.append((str(value), percent(p), percent(on_hit) if on_hit is not None else ""))
    return rows


def print_action_odds(odds: Any, console: Console) -> None:
    """One attack's odds: what it needs, its chances, and the damage it deals."""
    console.print(f"[bold]{odds.attacker} → {odds.target}[/bold] ({odds.weapon}, {odds.form})")
    for line in action_odds_lines(odds):
        console.print(line)
    from rich.table import Table

    table = Table(title=DAMAGE_COLUMNS[0])
    for name in DAMAGE_COLUMNS:
        table.add_column(name, justify="right")
    for row in damage_rows(odds):
        table.add_row(*row)
    console.print(table)


def print_fight_odds(data: dict[str, Any], console: Console) -> None:
    """The whole fight: each side's chance, a draw, the round limit, and when it ends."""
    for side, p in data["wins"].items():
        console.print(f"{side} wins {percent(p)}")
    console.print(f"nobody standing {percent(data['draw'])}   round limit {percent(data['limit'])}")
    if data.get("path") == "engine walk":  # referee.odds.chain.WALK: the chain refused (docs/odds.md)
        walked = (
            f"(exact: the engine walked {data['states']} states; the chain refused: {data['chain_refused']})"
        )
        console.print(walked, markup=False, emoji=False, highlight=False)
    else:
        console.print(f"(exact over {data['states']} hit-point states)")
    from rich.table import Table

    table = Table(title="the fight ends in")
    table.add_column("round", justify="right")
    table.add_column("chance", justify="right")
    for n, p in data["rounds"].items():
        if p >= 0.00005:
            table.add_row(n, percent(p))
    console.print(table)
