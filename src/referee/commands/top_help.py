"""`referee --help` without importing typer or any command: the same panels typer draws, from
:data:`referee.commands.COMMANDS`.

Typer's help renderer imports rich's markdown and syntax modules (pygments) and typer itself, which
cost more than the whole answer should. This module draws the top-level help with the few rich pieces
it needs, with typer's styles, console settings and layout (``typer.rich_utils.rich_format_help`` for a
group in rich markup mode), so the text, its colours and its width are what typer prints;
tests/commands/test_top_help.py compares the two.
"""

from __future__ import annotations

import os
import sys

from rich.align import Align
from rich.columns import Columns
from rich.console import Console, Group
from rich.highlighter import RegexHighlighter
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.theme import Theme

from referee.commands import APP_HELP, COMMANDS, VERSION_HELP

USAGE = "Usage: {prog} [OPTIONS] COMMAND [ARGS]..."


class _OptionHighlighter(RegexHighlighter):
    # typer.rich_utils.OptionHighlighter
    highlights = [  # noqa: RUF012  (rich reads it as a class attribute)
        r"(^|\W)(?P<switch>\-\w+)(?![a-zA-Z0-9])",
        r"(^|\W)(?P<option>\-\-[\w\-]+)(?![a-zA-Z0-9])",
        r"(?P<types>\<[^\>]+\>)",
        r"(?P<usage>Usage: )",
    ]


class _TypesHighlighter(RegexHighlighter):
    # typer.rich_utils.TypesHighlighter
    highlights = [  # noqa: RUF012
        r"^(?P<types_sep>(\[|<))",
        r"(?P<types_sep>\|)",
        r"(?P<types_sep>(\]|>))(\.\.\.)?$",
    ]


def help_console() -> Console:
    """The console typer prints help on (typer.rich_utils._get_rich_console): same theme, colour
    detection and width (TERMINAL_WIDTH; FORCE_COLOR, PY_COLORS or GITHUB_ACTIONS force a terminal)."""
    width = os.getenv("TERMINAL_WIDTH")
    force = (
        True if os.getenv("GITHUB_ACTIONS") or os.getenv("FORCE_COLOR") or os.getenv("PY_COLORS") else None
    )
    if os.getenv("_TYPER_FORCE_DISABLE_TERMINAL"):
        force = False
    theme = Theme(
        {
            "option": "bold cyan",
            "switch": "bold green",
            "negative_option": "bold magenta",
            "negative_switch": "bold red",
            "types": "bold yellow",
            "types_sep": "dim",
            "usage": "yellow",
        }
    )
    made = Console(
        theme=theme,
        highlighter=_OptionHighlighter(),
        color_system="auto",
        force_terminal=force,
        width=int(width) if width else None,
    )
    if not sys.stdout.isatty():  # as the app's help (commands/app.py): no trailing spaces on a pipe
        from referee.commands.consoles import PlainLines

        made.file = PlainLines()  # type: ignore[assignment]  # a text stream in rich's uses of it
    return made


def program_name() -> str:
    """The name the usage line gives the program, as click detects it (click.utils._detect_program_name):
    the script's file name, or ``python -m package.module``."""
    main = sys.modules["__main__"]
    path = sys.argv[0]
    package = getattr(main, "__package__", None)
    if package in {None, ""} or (
        os.name == "nt" and package == "" and not os.path.exists(path) and os.path.exists(f"{path}.exe")
    ):
        return os.path.basename(path)
    name = os.path.splitext(os.path.basename(path))[0]
    module = str(package) if name == "__main__" else f"{package}.{name}"
    return f"python -m {module.lstrip('.')}"


def _panel(table: Table, title: str) -> Panel:
    return Panel(table, border_style="dim", title=title, title_align="left")


def _table() -> Table:
    return Table(
        highlight=False, show_header=False, expand=True, box=None, show_lines=False,
        leading=0, row_styles=None, pad_edge=False, padding=(0, 1), border_style=None,
    )  # fmt: skip


def print_top_help(console: Console | None = None) -> None:
    """Print `referee --help` as typer would: usage, the app's help, the Options and Commands panels."""
    console = console or help_console()
    highlight = _OptionHighlighter()
    console.print(Padding(highlight(USAGE.format(prog=program_name())), 1), style="bold")
    first_line = APP_HELP.partition("\n\n")[0].replace("\n", " ").strip()
    text = Group(highlight(Text.from_markup(first_line, style="")))
    console.print(Padding(Align(text, pad=False), (0, 1, 1, 1)))

    options = Table(
        highlight=True, show_header=False, expand=True, box=None, show_lines=False,
        leading=0, row_styles=None, pad_edge=False, padding=(0, 1), border_style=None,
    )  # fmt: skip
    for flag, explained in (("--version", VERSION_HELP), ("--help", "Show this message and exit.")):
        types = Text(style="bold yellow", overflow="fold")
        types.append("<bool>")
        helped = Columns([highlight(Text.from_markup(explained, style=""))])
        options.add_row(highlight(flag), highlight(""), highlight(""), highlight(""),
                        _TypesHighlighter()(types), helped)  # fmt: skip
    console.print(_panel(options, "Options"))

    commands = _table()
    commands.add_column(style="bold cyan", no_wrap=True, width=max(len(name) for name in COMMANDS))
    commands.add_column("Description", justify="left", no_wrap=False, ratio=10)
    for name, (_, summary) in COMMANDS.items():
        paragraph = summary.split("\n\n")[0].strip()
        commands.add_row(Text(name), highlight(Text.from_markup(paragraph, style="")))
    console.print(_panel(commands, "Commands"))
    sys.stdout.write("\n")  # click echoes typer's (empty) help string after the panels
