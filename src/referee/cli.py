"""The `referee` command. Thin: it reads files, calls the library and renders the results.

Every user-facing error is one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console

from referee.errors import RefereeError

app = typer.Typer(
    name="referee",
    help="A combat rules engine for old-school fantasy role-playing games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)

# typer ships its own click; reach its exception classes through the public BadParameter.
UsageError: type[Exception] = typer.BadParameter.__mro__[1]
ClickException: type[Exception] = typer.BadParameter.__mro__[2]


def fail(message: str) -> NoReturn:
    """Print one line naming the problem and exit with status 2."""
    err_console.print(f"error: {message}", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def dump_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


@app.command()
def fight(
    file: Annotated[Path, typer.Argument(help="Encounter file (YAML).")],
    seed: Annotated[
        int | None, typer.Option(help="Seed for the random dice (same seed, same fight).")
    ] = None,
    dice: Annotated[
        str | None,
        typer.Option(
            help="Die results to use first, in the order the engine asks (e.g. 7,4,12,6); then the seed."
        ),
    ] = None,
    max_rounds: Annotated[
        int | None, typer.Option(min=1, max=1000, help="Stop after this many rounds.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the fight as one JSON object.")] = False,
) -> None:
    """Run a whole fight from an encounter file and print its round-by-round account."""
    from referee.dice import RandomDice, ScriptedDice, parse_script
    from referee.engine.fight import run_fight
    from referee.files import load_encounter
    from referee.render import print_fight

    setup = load_encounter(file)
    source = RandomDice(seed if seed is not None else 0)
    dice_source = ScriptedDice(parse_script(dice), then=source) if dice else source
    result = run_fight(setup, dice_source, max_rounds=max_rounds).result()
    if as_json:
        dump_json(result.to_dict())
    else:
        print_fight(console, setup, result)


@app.command()
def schema() -> None:
    """Print the JSON Schema of encounter files."""
    from referee.model import EncounterSpec

    dump_json(EncounterSpec.model_json_schema(by_alias=True))


@app.command()
def catalog(
    as_json: Annotated[bool, typer.Option("--json", help="Print the catalog as JSON.")] = False,
) -> None:
    """List the catalog's weapons, armour and shields."""
    from referee import catalog as cat
    from referee.render import print_catalog

    data = {
        "weapons": [w.model_dump(mode="json", exclude_none=True) for w in cat.weapons().values()],
        "armour": [a.model_dump(mode="json", exclude_none=True) for a in cat.armours().values()],
        "shields": [s.model_dump(mode="json", exclude_none=True) for s in cat.shields().values()],
    }
    if as_json:
        dump_json(data)
    else:
        print_catalog(console, data)


def main() -> None:
    """Entry point: run the app, turning the library's errors into one line and exit status 2."""
    try:
        code = app(standalone_mode=False)
    except UsageError as exc:
        ctx = getattr(exc, "ctx", None)
        where = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
        message = exc.format_message()  # type: ignore[attr-defined]
        err_console.print(f"error: {message}{where}", markup=False, highlight=False, soft_wrap=True)
        sys.exit(2)
    except ClickException as exc:
        err_console.print(f"error: {exc.format_message()}", markup=False, highlight=False, soft_wrap=True)  # type: ignore[attr-defined]
        sys.exit(getattr(exc, "exit_code", 1))
    except typer.Abort:
        err_console.print("interrupted")
        sys.exit(130)
    except RefereeError as exc:
        err_console.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        err_console.print("interrupted")
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)


# Commands that live in their own modules register themselves on `app` when imported.
from referee import cli_commands  # noqa: E402, F401

if __name__ == "__main__":
    main()
