"""The consoles the commands print on (rich), without typer: a terminal's, and a pipe's or a file's.

On a terminal rich wraps prose at its width and draws colours; anywhere else every line is whole (a
very wide console) and unpadded (:class:`PlainLines`), so a pipe or a file gets the same lines whatever
the terminal was (issue 15). :mod:`referee.commands.app` makes the app's two consoles from here, and
`referee odds` draws its answers here without importing typer (:mod:`referee.commands.odds_text`).
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from typing import Any

from rich.console import Console

PIPE_WIDTH = 10_000  # a pipe or a file gets every line whole: only a terminal's width wraps (issue 15)


class PlainLines:
    """A stream for rich that writes lines without trailing spaces (rich pads to the width) to the
    current sys.stdout or sys.stderr, looked up at each write as a test runner swaps them."""

    def __init__(self, stderr: bool = False) -> None:
        self.stderr = stderr
        self.pending = ""

    def _stream(self) -> Any:
        return sys.stderr if self.stderr else sys.stdout

    def write(self, text: str) -> int:
        lines = (self.pending + text).split("\n")
        self.pending = lines.pop()
        if lines:
            self._stream().write("".join(line.rstrip(" ") + "\n" for line in lines))
        return len(text)

    def flush(self) -> None:
        if self.pending:
            self._stream().write(self.pending.rstrip(" "))
            self.pending = ""
        self._stream().flush()

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return int(self._stream().fileno())


def make_console(stderr: bool = False) -> Console:
    """A terminal's console wraps prose at its width; anywhere else lines are whole and unpadded."""
    stream = sys.stderr if stderr else sys.stdout
    if stream is not None and stream.isatty():
        return Console(stderr=stderr, highlight=False)
    plain: Any = PlainLines(stderr)  # a text stream in all rich uses of it (write, flush, isatty)
    return plain_console(plain)


def plain_console(file: Any) -> Console:
    """The console of a pipe or a file: every line whole, no colours (rich pads lines to the width; the
    file given strips that, as :class:`PlainLines` does)."""
    return Console(file=file, width=PIPE_WIDTH, highlight=False, soft_wrap=True)


def plain_text(draw: Callable[[Console], object]) -> str:
    """What `draw(console)` prints on a pipe's console, as one string (trailing spaces stripped)."""
    buffer = io.StringIO()
    draw(plain_console(buffer))
    *lines, last = buffer.getvalue().split("\n")
    return "".join(line.rstrip(" ") + "\n" for line in lines) + last.rstrip(" ")
