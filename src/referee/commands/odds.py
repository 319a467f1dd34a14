"""`referee odds FILE`: the exact odds of one attack (`--attacker`, `--target`), or of the whole fight
(`--fight`), from the same plans the engine rolls."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from referee.cli import app, console, dump_json, fail
from referee.rules.context import AttackForm


@app.command("odds")
def odds_command(
    file: Annotated[Path, typer.Argument(help="Encounter file (YAML).")],
    attacker: Annotated[str | None, typer.Option(help="Who attacks.")] = None,
    target: Annotated[str | None, typer.Option(help="Whom they attack.")] = None,
    weapon: Annotated[str | None, typer.Option(help="Weapon (default: the first carried).")] = None,
    form: Annotated[
        str | None, typer.Option(help=f"Attack form: {', '.join(f.value for f in AttackForm)}.")
    ] = None,
    charge: Annotated[bool, typer.Option("--charge", help="The attacker charges (ODD-CHARGE-1).")] = False,
    distance: Annotated[int | None, typer.Option(min=0, max=10_000, help="Distance in feet.")] = None,
    fight: Annotated[
        bool, typer.Option("--fight", help="Odds of the whole fight under the default tactics instead.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the odds as JSON.")] = False,
) -> None:
    """Exact odds of one attack at the start of the encounter, or of the whole fight (small fights)."""
    from referee import odds
    from referee.engine.actions import Attack
    from referee.files import load_encounter

    setup = load_encounter(file)
    if fight:
        if attacker or target:
            fail("--fight gives the odds of the whole fight; leave out --attacker and --target")
        result = odds.fight_odds(setup)
        if as_json:
            dump_json(result.to_dict())
        else:
            print_fight_odds(result.to_dict())
        return
    if not attacker or not target:
        fail("give --attacker and --target for one attack, or --fight for the whole fight")
    attack = Attack(
        attacker, target=target, weapon=weapon, form=parse_form(form), charge=charge, distance=distance
    )
    action = odds.encounter_action_odds(setup, attack)
    if as_json:
        dump_json(action.to_dict())
    else:
        print_action_odds(action)


def parse_form(text: str | None) -> AttackForm | None:
    if text is None:
        return None
    try:
        return AttackForm(text.strip().lower())
    except ValueError:
        fail(f"unknown attack form {text!r}; forms: {', '.join(f.value for f in AttackForm)}")


def percent(p: Fraction | float) -> str:
    return f"{float(p) * 100:.2f}%"


def print_action_odds(odds: Any) -> None:
    """One attack's odds: what it needs, its chances, and the damage it deals."""
    console.print(f"[bold]{odds.attacker} → {odds.target}[/bold] ({odds.weapon}, {odds.form})")
    needed = "automatic" if odds.needed is None and odds.hit == 1 else None
    if odds.needed is not None:
        needed = f"natural {odds.needed} or more"
    console.print(f"needs: {needed or 'cannot hit'}")
    console.print(
        f"hit {percent(odds.hit)}   critical {percent(odds.critical)}   fumble {percent(odds.fumble)}"
        + (f"   missed by chance {percent(odds.missed_by_chance)}" if odds.missed_by_chance else "")
    )
    kind = " subdual" if odds.subdual else ""
    console.print(
        f"expected{kind} damage {float(odds.expected_damage):.3f}   drops the target {percent(odds.drop)}"
    )
    table = Table(title="damage")
    table.add_column("damage", justify="right")
    table.add_column("overall", justify="right")
    table.add_column("given a hit", justify="right")
    for value, p in odds.damage.items():
        on_hit = odds.damage_on_hit.get(value)
        table.add_row(str(value), percent(p), percent(on_hit) if on_hit is not None else "")
    console.print(table)


def print_fight_odds(data: dict[str, Any]) -> None:
    """The whole fight: each side's chance, a draw, the round limit, and when it ends."""
    for side, p in data["wins"].items():
        console.print(f"{side} wins {percent(p)}")
    console.print(f"nobody standing {percent(data['draw'])}   round limit {percent(data['limit'])}")
    console.print(f"(exact over {data['states']} hit-point states)")
    table = Table(title="the fight ends in")
    table.add_column("round", justify="right")
    table.add_column("chance", justify="right")
    for n, p in data["rounds"].items():
        if p >= 0.00005:
            table.add_row(n, percent(p))
    console.print(table)
