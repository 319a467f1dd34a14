"""`referee rules [PRESET] [--json]`: every ruleset option, its value, its variants and their rule IDs."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from referee.cli import app, console, dump_json
from referee.files import load_ruleset
from referee.rules.ruleset import OPTIONS, PRESETS


@app.command()
def rules(
    preset: Annotated[
        str, typer.Argument(help=f"A preset ({', '.join(PRESETS)}) or a house-rules file.")
    ] = "odd",
    as_json: Annotated[bool, typer.Option("--json", help="Print the options as JSON.")] = False,
) -> None:
    """List every ruleset option with its value under PRESET, its variants and the rule IDs behind each."""
    ruleset = load_ruleset(preset)
    rows: list[dict[str, Any]] = []
    for name, option in OPTIONS.items():
        rows.append(
            {
                "option": name,
                "value": ruleset[name].value,
                "help": option.help,
                "variants": [
                    {"name": v.name, "source": v.source, "rules": list(v.rules), "help": v.help}
                    for v in option.variants
                ],
            }
        )
    if as_json:
        dump_json({"preset": ruleset.name, "overrides": ruleset.overrides(), "options": rows})
        return
    changed = ruleset.overrides()
    title = f"ruleset {ruleset.name}" + (
        f" with {', '.join(f'{k}={v}' for k, v in changed.items())}" if changed else ""
    )
    console.print(options_table(title, rows))


def options_table(title: str, rows: list[dict[str, Any]]) -> Table:
    """Options and variants; at any width a name a user types (option, variant) stays whole on its line
    (issue 15): each variant's name on a line of its own, its source and rules wrapping below it."""
    option_width = max(len(row["option"]) for row in rows)
    variant_width = 2 + max(len(v["name"]) for row in rows for v in row["variants"])
    table = Table(title=title, show_lines=False)
    table.add_column("option (value)", min_width=option_width)
    table.add_column("variants (source: rules; * in use)", min_width=variant_width)
    for row in rows:
        variants = "\n".join(
            f"{'*' if v['name'] == row['value'] else ' '} {v['name']}\n"
            f"[dim]    {v['source']}: {' '.join(v['rules']) or '-'}[/dim]"
            for v in row["variants"]
        )
        table.add_row(f"{row['option']}\n= {row['value']}\n[dim]{row['help']}[/dim]", variants)
    return table
