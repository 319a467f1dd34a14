"""`referee ac FILE [--name NAME] [--json]`: each combatant's four armour classes, explained, in one table.

The values come from the engine's own path (:func:`referee.rules.armour_class.armour_class`), asked
about four attacks by a neutral attacker (no creature type, so no Defence tag applies: DAC-CIRC-4):
an ordinary blow (DAC-AC-TOTAL), a blow on the flatfooted defender (DAC-AC-FLATFOOTED), a touch
(DAC-AC-TOUCH) and a touch on the flatfooted defender (DAC-AC-FFTOUCH). Under descending AC this is
the layered model of :mod:`referee.rules.dac`; under ascending AC it is whatever the ruleset's
options make of those four attacks (ODD-AC-1, ODD-TOUCH-1, `touch_ac`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any

import typer
from rich.table import Table

from referee.cli import app, console, dump_json, warn
from referee.model import UNARMED, Combatant
from referee.rules.dac import KINDS, FourACs
from referee.setup import Setup

NEUTRAL = "(any attacker)"
_ATTACKS: dict[str, tuple[str, frozenset[str]]] = {  # kind → (attack form, situation flags)
    "total": ("melee", frozenset()),
    "flatfooted": ("melee", frozenset({"flatfooted"})),
    "touch": ("touch", frozenset()),
    "flatfooted_touch": ("touch", frozenset({"flatfooted"})),
}


def armour_classes_in(setup: Setup, name: str) -> FourACs:
    """The four ACs of `name` at the start of the encounter, through the attack path itself."""
    from referee.engine.state import FightState
    from referee.rules.armour_class import ArmourClass, armour_class
    from referee.rules.context import AttackContext, AttackForm, Situation

    setup.combatant(name)  # one-line error for an unknown name
    neutral = Combatant(name=NEUTRAL, side=NEUTRAL, is_monster=True, hp=1)
    state = FightState.initial(
        replace(setup, combatants=(*setup.combatants, neutral), sides=(*setup.sides, NEUTRAL))
    )
    acs: dict[str, ArmourClass] = {}
    for kind, (form, flags) in _ATTACKS.items():
        ctx = AttackContext(
            state, state[NEUTRAL], state[name], UNARMED, AttackForm(form), Situation(flags=flags),
            distance=setup.distance,
        )  # fmt: skip
        acs[kind] = armour_class(ctx)
    return FourACs(
        acs["total"].convention,
        breakdown={kind: ac.components for kind, ac in acs.items()},
        **{kind: ac.value for kind, ac in acs.items()},
    )


def ac_row(name: str, four: FourACs) -> dict[str, Any]:
    return {"name": name, **four.to_dict()}


@app.command()
def ac(
    file: Annotated[str, typer.Argument(help="Encounter file (YAML).")],
    name: Annotated[str | None, typer.Option("--name", help="Only this combatant.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the armour classes as JSON.")] = False,
    own_catalog: Annotated[
        str | None,
        typer.Option(
            "--catalog", metavar="FILE", help="Your own catalog file: weapons, armour, shields, monsters."
        ),
    ] = None,
) -> None:
    """Print each combatant's total, flatfooted, touch and flatfooted-touch armour class with breakdowns."""
    from referee.files import load_encounter

    setup = load_encounter(file, own_catalog)
    warn(setup.warnings)
    names = [name] if name is not None else [c.name for c in setup.combatants]
    rows = [ac_row(n, armour_classes_in(setup, n)) for n in names]
    if as_json:
        dump_json(rows[0] if name is not None else rows)
        return
    # one table for the whole encounter (issue 15), its title naming the convention in use
    table = Table(title=f"armour class ({rows[0]['convention'] if rows else 'none'})")
    table.add_column("combatant", no_wrap=True)
    table.add_column("AC", no_wrap=True)
    table.add_column("value", justify="right")
    table.add_column("made of")
    for row in rows:
        for i, kind in enumerate(KINDS):
            parts = row["breakdown"][kind]
            text = " ".join(_part(p, i) for i, p in enumerate(parts))
            table.add_row(
                _escape(row["name"]) if i == 0 else "",
                kind.replace("_", " "),
                str(row[kind]),
                _escape(text),
                end_section=i == len(KINDS) - 1,
            )
    console.print(table)


def _part(p: dict[str, Any], index: int) -> str:
    value = f"{p['value']}" if index == 0 else f"{p['value']:+d}"
    return f"{value} {p['reason']} [{p['rule']}]"


def _escape(text: str) -> str:
    return text.replace("[", "\\[")
