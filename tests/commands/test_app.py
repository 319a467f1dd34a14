"""The `referee` app loads a command's module only when that command runs; every command stays reachable."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import EXAMPLES, referee

from referee.commands import COMMANDS

DUEL = str(EXAMPLES / "duel.yaml")


def modules_after(*args: str) -> set[str]:
    """The modules a whole `referee ARGS` process imported (it must succeed)."""
    code = (
        "import sys\nfrom referee.cli import main\ntry:\n    main()\nexcept SystemExit as stop:\n"
        "    assert not stop.code, stop.code\nprint(' '.join(sorted(sys.modules)), file=sys.stderr)"
    )
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return set(out.stderr.split())


def test_one_attacks_odds_import_only_what_they_need() -> None:
    loaded = modules_after("odds", DUEL, "--attacker", "Angthar", "--target", "Goblin", "--json")
    assert not {"numba", "numpy", "fastapi", "uvicorn", "matplotlib", "referee.sim", "referee.web"} & loaded
    assert "icepool" not in loaded  # a battle axe's 1d8 is walked through the engine's own damage roll
    commands = {m for m in loaded if m.startswith("referee.commands.")}
    # read without typer (referee.cli.answer_odds): neither the app nor typer
    assert commands == {"referee.commands.odds_command_line", "referee.commands.odds_text"}  # JSON: no rich
    assert "typer" not in loaded
    # its dice (1d8, 1d6) are read without d20 and its lark grammar (referee.dice._simple)
    assert not {"d20", "lark"} & loaded


def test_an_odds_command_line_the_quick_reading_leaves_goes_to_the_app() -> None:
    loaded = modules_after("odds", DUEL, "--attacker", "Angthar", "--target", "Goblin", "--distance", "-0")
    commands = {m for m in loaded if m.startswith("referee.commands.")}
    assert {"referee.commands.app", "referee.commands.odds", "referee.commands.odds_text"} <= commands
    assert not {"numba", "numpy", "fastapi", "uvicorn", "referee.sim", "referee.web"} & loaded


def test_a_mistyped_command_is_answered_from_every_command() -> None:
    out = referee("odd")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip() == "error: No such command 'odd'. Did you mean 'odds'? (see `-c --help`)"


def test_every_command_answers_its_help() -> None:
    for name in COMMANDS:
        out = referee(name, "--help")
        assert out.returncode == 0, out.stderr
        assert f"-c {name} [OPTIONS]" in out.stdout


def test_python_m_runs_every_command() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "referee.cli", "rules", "--json"], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0 and '"preset": "odd"' in out.stdout, out.stderr


def test_cli_commands_registers_every_command() -> None:
    import typer.main

    import referee.cli_commands  # noqa: F401
    from referee.cli import app

    names = {
        info.name or typer.main.get_command_name(info.callback.__name__)
        for info in app.registered_commands
        if info.callback is not None
    }
    assert set(COMMANDS) == names


def test_help_on_a_pipe_has_no_trailing_spaces() -> None:
    # issue 15: rich pads its panels to the width; a pipe or a file gets the lines without the padding
    for args in (("--help",), ("sim", "--help"), ("odds", "--help")):
        out = referee(*args)
        assert out.returncode == 0 and "Usage:" in out.stdout
        assert [line for line in out.stdout.splitlines() if line != line.rstrip()] == []
