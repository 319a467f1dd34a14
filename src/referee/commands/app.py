"""The `referee` typer app. Its commands are imported when they are asked for by name, not at start-up.

Click's documented way of loading subcommands lazily: a group whose ``list_commands`` names every
command of :data:`referee.commands.COMMANDS` and whose ``get_command`` imports the one asked for
(its module registers it on :data:`app` with ``@app.command()``). So `referee odds ...` imports the
odds command and what it needs, never the simulator, the tracker or numba; help texts, option names,
error messages and exit codes are the ones the commands define, unchanged.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from typing import Annotated, Any, NoReturn

import typer
import typer.main
from typer.core import TyperGroup

from referee.commands import APP_HELP, COMMANDS, VERSION_HELP
from referee.commands.consoles import PlainLines, make_console
from referee.errors import RefereeError

# typer ships its own click; reach its exception classes through the public BadParameter.
UsageError: type[Exception] = typer.BadParameter.__mro__[1]
ClickException: type[Exception] = typer.BadParameter.__mro__[2]

console = make_console()
err_console = make_console(stderr=True)


def _help_lines_unpadded() -> None:
    """typer draws help in rich panels padded to the width with spaces; on a pipe or a file the lines
    keep their layout but lose the trailing spaces, as every other command's output does (issue 15)."""
    from typer import rich_utils

    made_by_typer = rich_utils._get_rich_console

    def help_console(stderr: bool = False) -> Any:
        made = made_by_typer(stderr)
        stream = sys.stderr if stderr else sys.stdout
        if stream is not None and not stream.isatty():
            made.file = PlainLines(stderr)  # type: ignore[assignment]  # a text stream in rich's uses
        return made

    rich_utils._get_rich_console = help_console


_help_lines_unpadded()


class LazyCommands(TyperGroup):
    """The `referee` group: every command listed, each imported on first use."""

    def list_commands(self, ctx: Any) -> list[str]:
        return [*COMMANDS, *(name for name in self.commands if name not in COMMANDS)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            self.commands[cmd_name] = load_command(cmd_name)
        return self.commands.get(cmd_name)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] not in COMMANDS:
            # an unknown name: load every command so "Did you mean ...?" weighs them all (error path only)
            for name in COMMANDS:
                self.get_command(ctx, name)
        return super().resolve_command(ctx, args)


app = typer.Typer(
    name="referee",
    help=APP_HELP,
    cls=LazyCommands,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(wanted: bool) -> None:
    if wanted:
        from referee import __version__

        sys.stdout.write(f"referee {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def _group(
    version: Annotated[
        bool,
        typer.Option("--version", help=VERSION_HELP, is_eager=True, callback=_print_version),
    ] = False,
) -> None:
    # A callback makes typer build a group even before any command module is imported.
    pass


def load_command(name: str) -> Any:
    """Import the module that defines command `name` and build its click command (as typer does)."""
    importlib.import_module(COMMANDS[name][0])
    for info in app.registered_commands:
        callback = info.callback
        if callback is not None and (info.name or typer.main.get_command_name(callback.__name__)) == name:
            return typer.main.get_command_from_info(
                info,
                pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode,
            )
    raise LookupError(f"{COMMANDS[name][0]} does not define the command {name!r}")


def one_line(message: str) -> None:
    """`error: ...` per problem: a file's problems come all at once, one line each (issue 15)."""
    for line in message.splitlines() or [""]:
        err_console.print(f"error: {line}", markup=False, highlight=False, soft_wrap=True)


def run() -> None:
    """Run the app, turning the library's errors into one line and exit status 2."""
    try:
        code = app(standalone_mode=False)
        sys.stdout.flush()  # a full disk or a closed pipe shows here, not at exit as a traceback
    except UsageError as exc:
        ctx = getattr(exc, "ctx", None)
        where = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
        one_line(f"{exc.format_message()}{where}")  # type: ignore[attr-defined]
        sys.exit(2)
    except ClickException as exc:
        one_line(exc.format_message())  # type: ignore[attr-defined]
        sys.exit(getattr(exc, "exit_code", 1))
    except typer.Abort:
        err_console.print("interrupted")
        sys.exit(130)
    except (RefereeError, KeyboardInterrupt, OSError, MemoryError) as exc:
        exit_for(exc)
    sys.exit(code if isinstance(code, int) else 0)


def exit_for(exc: RefereeError | KeyboardInterrupt | OSError | MemoryError) -> NoReturn:
    """What every command does with these, the app's and `referee odds` read without typer alike
    (:func:`referee.cli.as_the_app_does`): one line and the exit status."""
    if isinstance(exc, RefereeError):
        one_line(str(exc))
        sys.exit(2)
    if isinstance(exc, KeyboardInterrupt):
        err_console.print("interrupted")
        sys.exit(130)
    if isinstance(exc, OSError):  # stdout to /dev/full, a closed pipe: the output could not be written
        output_failed(exc)
    # the cost budgets (docs/errors.md, "Limits") should keep every run far from running out of memory
    one_line("out of memory; try a smaller encounter or fewer fights")
    sys.exit(2)


def output_failed(exc: OSError) -> NoReturn:
    """One line on stderr; stdout is pointed at /dev/null so that Python's flush at exit stays quiet."""
    with contextlib.suppress(OSError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    one_line(f"cannot write the output: {exc.strerror or exc}")
    sys.exit(2)
