"""The `referee` command. Thin: it reads files, calls the library and renders the results.

Every user-facing error is one line on stderr and exit status 2, never a traceback.

Starting is cheap (issue 12, "the command line answers at once"): this module imports neither typer
nor rich. `referee --help` is printed from the command table (:mod:`referee.commands.top_help`);
`referee odds` with a plainly written command line is answered without typer
(:mod:`referee.commands.odds_command_line`); any other invocation
runs the typer app (:mod:`referee.commands.app`), which imports only the module of the command asked
for. ``app``, ``console`` and ``err_console`` are made on first use.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's: importing typing is part of what this module avoids
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, NoReturn

    import typer
    from rich.console import Console

    app: typer.Typer
    console: Console
    err_console: Console
    UsageError: type[Exception]
    ClickException: type[Exception]

_FROM_APP = ("app", "console", "err_console", "UsageError", "ClickException")


def __getattr__(name: str) -> Any:
    """The typer app and the consoles, imported when first asked for (PEP 562)."""
    if name not in _FROM_APP:
        raise AttributeError(f"module 'referee.cli' has no attribute {name!r}")
    from referee.commands import app as module

    value = getattr(module, name)
    globals()[name] = value  # later look-ups skip this function
    return value


def fail(message: str) -> NoReturn:
    """Print one line naming the problem and exit with status 2."""
    import typer

    from referee.commands.app import one_line

    one_line(message)
    raise typer.Exit(2)


def warn(warnings: tuple[str, ...] | list[str]) -> None:
    """What a file may not mean (a module's descending AC read as ascending, issue 15): one line each on
    stderr; the command goes on."""
    if warnings:
        from referee.commands.app import err_console

        for warning in warnings:
            err_console.print(f"warning: {warning}", markup=False, highlight=False, soft_wrap=True)


def dump_json(data: Any) -> None:
    import json

    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def main() -> None:
    """Entry point: the top-level help at once, else the app (errors as one line, exit status 2)."""
    if sys.argv[1:] == ["--help"]:
        from referee.commands.top_help import print_top_help

        print_top_help()
        sys.exit(0)
    if sys.argv[1:] == ["--version"]:  # at once, as the help is (the app prints the same line)
        from referee import __version__

        sys.stdout.write(f"referee {__version__}\n")
        sys.exit(0)
    if sys.argv[1:2] == ["odds"]:
        # The exact odds multiply matrices of a few dozen rows at most: OpenBLAS's threads, started when
        # numpy is imported and spinning after each product, cost a whole fight's odds about 45 ms of CPU
        # and give nothing back; a referee who wants them sets the variable.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        answer_odds(sys.argv[2:])
    from referee.commands.app import run

    run()


_answered_plainly = False  # `referee odds` was answered without typer: the process may end at once (`run`)


def run() -> None:
    """The `referee` console script (pyproject.toml): :func:`main`; after `referee odds` answered without
    typer, the process ends at once (:func:`end_at_once`) instead of freeing what it made. Code that calls
    :func:`main` itself (tests, other programs) gets its SystemExit as before."""
    try:
        main()
    except SystemExit as stop:
        if _answered_plainly and (stop.code is None or isinstance(stop.code, int)):
            end_at_once(stop.code or 0)
        raise


def end_at_once(code: int) -> NoReturn:
    """Exit with `code` without the interpreter's clean-up, which frees the modules and every object one
    by one (after one attack's odds, about 10-15 ms of CPU on the 2-core machine, memory the system takes
    back at once anyway), as mypy's command line does (`fast_exit`). What the clean-up does that a user
    sees is done first: stdout and stderr flushed, the atexit handlers run. With another thread running,
    or output that cannot be flushed, the ordinary exit, unchanged."""
    import atexit
    import threading

    if threading.active_count() > 1:
        sys.exit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(code)
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def answer_odds(args: list[str]) -> None:
    """`referee odds ARGS` without typer when ARGS read plainly (:mod:`referee.commands.odds_text`).
    Returns (for the app) when the command line wants the app's own reading: help, a typo, `--catalog`,
    a bad number."""
    if any(name.startswith("_") and name.endswith("_COMPLETE") for name in os.environ):
        return  # click's shell completion is asked for by such a variable: the app's business
    from referee.commands.odds_command_line import read_command_line

    read = read_command_line(args)
    if read is None:
        return
    from referee.commands.odds_text import answer_question

    file, asked = read
    global _answered_plainly
    _answered_plainly = True
    as_the_app_does(lambda: answer_question(file, asked, process_ends=True))


def as_the_app_does(command: Callable[[], object]) -> NoReturn:
    """Run `command` as :func:`referee.commands.app.run` runs a command through typer's main (the same
    lines and exit statuses for what goes wrong), importing typer and the app only when something does."""
    from referee.errors import RefereeError

    try:
        try:
            command()
        except KeyboardInterrupt:  # typer's main: Exit(130), quietly
            sys.exit(130)
        except EOFError:  # typer's main: a blank line, then Abort (the app: "interrupted")
            sys.stderr.write("\n")
            raise KeyboardInterrupt from None
        except OSError as exc:
            import errno

            if exc.errno != errno.EPIPE:
                raise
            from typer._click.utils import PacifyFlushWrapper  # typer's main on a closed pipe

            sys.stdout = PacifyFlushWrapper(sys.stdout)
            sys.stderr = PacifyFlushWrapper(sys.stderr)
            sys.exit(1)
        sys.stdout.flush()  # a full disk or a closed pipe shows here, not at exit as a traceback
    except (RefereeError, KeyboardInterrupt, OSError, MemoryError) as exc:
        from referee.commands.app import exit_for

        exit_for(exc)
    except Exception as exc:
        import typer

        if isinstance(exc, typer.Exit):  # `fail`: its line is printed already
            sys.exit(exc.exit_code)
        raise
    sys.exit(0)


if __name__ == "__main__":
    main()
