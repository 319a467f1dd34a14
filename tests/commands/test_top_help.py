"""`referee --help` drawn without typer (referee.commands.top_help) is exactly what typer draws."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from referee.commands import COMMANDS
from referee.commands.app import load_command

FAST = "import sys; from referee.cli import main; sys.exit(main())"
TYPER = "import sys; from referee.commands.app import run; run()"  # the app itself, every command loaded


def help_text(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in {"COLUMNS", "FORCE_COLOR", "TERMINAL_WIDTH"}}
    return subprocess.run(
        [sys.executable, "-c", code, "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**clean, **env},
    )


@pytest.mark.parametrize(
    "env",
    [{}, {"COLUMNS": "60"}, {"FORCE_COLOR": "1", "TERMINAL_WIDTH": "100"}],
    ids=["plain", "narrow", "colour"],
)
def test_the_top_level_help_is_the_one_typer_prints(env: dict[str, str]) -> None:
    fast, typer = help_text(FAST, **env), help_text(TYPER, **env)
    assert (fast.returncode, typer.returncode) == (0, 0), fast.stderr + typer.stderr
    assert fast.stdout == typer.stdout
    plain = re.sub(r"\x1b\[[0-9;]*m", "", fast.stdout)
    assert "Usage: -c [OPTIONS] COMMAND [ARGS]..." in plain  # click's program name, as typer gives it
    assert all(name in plain for name in COMMANDS)


def test_the_table_gives_each_command_its_docstring_summary() -> None:
    for name, (_, summary) in COMMANDS.items():
        command = load_command(name)
        assert command.name == name
        assert (command.help or "").split("\n\n")[0].strip() == summary, name


def test_the_top_level_help_imports_neither_typer_nor_any_command() -> None:
    code = (
        "import sys\nfrom referee.cli import main\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)"
    )
    out = subprocess.run([sys.executable, "-c", code, "--help"], capture_output=True, text=True, timeout=120)
    loaded = set(out.stderr.split())
    heavy = {"typer", "click", "pydantic", "d20", "lark", "numpy", "icepool", "yaml", "rich.markdown"}
    assert not heavy & loaded
    drawn_by = {"referee.commands.top_help", "referee.commands.consoles"}  # consoles: the pipe's lines
    assert {m for m in loaded if m.startswith("referee.commands.")} == drawn_by
