"""`referee odds` read without typer (commands/odds_command_line.py, referee.cli.answer_odds): a plainly
written command line is answered with the app's own lines and exit statuses; anything else goes to the app."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.conftest import angthar_data, environment_the_command_leaves

from referee.commands.odds_command_line import read_command_line


def write(path: Path, data: dict[str, object]) -> str:
    path.write_text(yaml.safe_dump(data))
    return str(path)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["f.yaml", "--attacker", "A", "--target", "B"], ("f.yaml", "A", "B", None, False)),
        (
            ["--target=B", "--attacker", "A", "f.yaml", "--distance", "30", "--charge"],
            ("f.yaml", "A", "B", 30, True),
        ),
    ],
)
def test_the_command_line_is_read_as_the_app_reads_it(args: list[str], expected: tuple[object, ...]) -> None:
    read = read_command_line(args)
    assert read is not None
    file, asked = read
    assert (file, asked["attacker"], asked["target"], asked["distance"], asked["charge"]) == expected


@pytest.mark.parametrize(
    "args",
    [
        ["f.yaml", "--help"],
        ["f.yaml", "--attacker"],
        ["f.yaml", "--attacker", "-x"],
        ["f.yaml", "--attacker", "A", "--attacker", "B"],
        ["f.yaml", "g.yaml"],
        ["f.yaml", "--distance", "-5"],
        ["f.yaml", "--distance", "12345"],
        ["f.yaml", "--catalog", "c.yaml"],
        ["f.yaml", "--json=yes"],
        ["--", "f.yaml"],
        [],
    ],
)
def test_anything_unusual_goes_to_the_app(args: list[str]) -> None:
    assert read_command_line(args) is None


def both_ways(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], args: list[str]
) -> list[tuple[int, str, str]]:
    """(exit status, stdout, stderr) of `referee odds ARGS` read without typer (referee.cli.main) and
    through the typer app (referee.commands.app.run), in this process."""
    from referee.cli import main
    from referee.commands.app import run

    monkeypatch.setattr(sys, "argv", ["referee", "odds", *args])
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")  # as `main` sets it; undone after the test
    results = []
    for entry in (main, run):
        try:
            with pytest.raises(SystemExit) as stop:
                entry()
        finally:
            gc.unfreeze()  # what `main` froze for the process's end (answer_question's process_ends)
        out = capsys.readouterr()
        results.append((int(stop.value.code or 0), out.out, out.err))
    return results


@pytest.mark.parametrize(
    "question",
    [
        ["--attacker", "Angthar", "--target", "Goblin"],
        ["--target=Goblin", "--json", "--attacker", "Angthar", "--distance", "5"],
        ["--fight"],
        ["--fight", "--json"],
        ["--attacker", "Angthar"],
        ["--fight", "--attacker", "Angthar"],
        ["--attacker", "Angthar", "--target", "Goblin", "--form", "kick"],
        ["--attacker", "Angthar", "--target", "Nobody"],
        ["--attacker", "Angthar", "--target", "Goblin", "--charge"],
        ["--attacker", "Angthar", "--target", "Goblin", "--weapon", "trident"],
    ],
)
def test_without_typer_the_answer_and_the_errors_are_the_apps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], question: list[str]
) -> None:
    # rule: ODD-ATK-1, ODD-CHARGE-2: the same lines and exit statuses, read either way
    file = write(tmp_path / "duel.yaml", angthar_data(max_rounds=20))
    fast, app = both_ways(monkeypatch, capsys, [file, *question])
    assert fast == app


@pytest.mark.parametrize("content", [None, "sides: [\n", "name: x\n", "{}"])
def test_without_typer_a_bad_file_is_the_apps_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], content: str | None
) -> None:
    path = tmp_path / "bad.yaml"
    if content is not None:
        path.write_text(content)
    fast, app = both_ways(monkeypatch, capsys, [str(path), "--attacker", "A", "--target", "B"])
    assert fast == app and fast[0] == 2 and fast[2].startswith("error: ")


@pytest.mark.parametrize("question", [["--attacker", "Angthar", "--target", "Goblin"], ["--fight", "--json"]])
def test_only_the_process_that_ends_freezes_what_the_answer_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], question: list[str]
) -> None:
    # the command line (the process ends) freezes the imports' objects for the collector; the app's
    # command, which tests and other callers run in their own process, leaves the collector as it was
    from referee.cli import main
    from referee.commands.app import run

    file = write(tmp_path / "duel.yaml", angthar_data(max_rounds=20))
    monkeypatch.setattr(sys, "argv", ["referee", "odds", file, *question])
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    gc.unfreeze()
    try:
        with pytest.raises(SystemExit):
            run()
        assert gc.get_freeze_count() == 0 and gc.isenabled()
        with pytest.raises(SystemExit):
            main()
        assert gc.get_freeze_count() > 1000 and gc.isenabled()
    finally:
        gc.unfreeze()
    capsys.readouterr()


def test_referee_odds_runs_openblas_on_one_thread_unless_told() -> None:
    """The chain's matrices are small: BLAS threads cost CPU and give nothing (docs/architecture.md)."""
    argv = ["odds", "no-such-file.yaml", "--fight"]
    for given, expected in ((None, "1"), ("2", "2")):
        assert environment_the_command_leaves(argv, "OPENBLAS_NUM_THREADS", given) == expected


CONSOLE_SCRIPT = (  # what the `referee` console script runs (pyproject.toml), with an atexit handler before it
    "import atexit, sys\n"
    "atexit.register(lambda: print('atexit handler ran', file=sys.stderr))\n"
    "from referee.cli import {entry}\n"
    "sys.exit({entry}())\n"
)


def console(entry: str, args: list[str], stdout: Any = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    code = CONSOLE_SCRIPT.format(entry=entry)
    return subprocess.run(
        [sys.executable, "-c", code, *args], stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=120
    )


@pytest.mark.parametrize(
    "question",
    [
        ["--attacker", "Angthar", "--target", "Goblin"],
        ["--fight", "--json"],
        ["--attacker", "Angthar", "--target", "Nobody"],
        ["--attacker", "Angthar"],
        ["--help"],
    ],
)
def test_the_console_script_ends_as_main_does(tmp_path: Path, question: list[str]) -> None:
    # referee.cli.run ends the process at once after `referee odds` read without typer: the same output,
    # exit status and atexit handlers as main's ordinary exit
    file = write(tmp_path / "duel.yaml", angthar_data(max_rounds=20))
    ended, ordinary = (console(entry, ["odds", file, *question]) for entry in ("run", "main"))
    assert (ended.returncode, ended.stdout, ended.stderr) == (
        ordinary.returncode, ordinary.stdout, ordinary.stderr,
    )  # fmt: skip
    assert ended.stderr.endswith("atexit handler ran\n")


def test_the_console_script_on_a_full_disk_is_mains(tmp_path: Path) -> None:
    file = write(tmp_path / "duel.yaml", angthar_data(max_rounds=20))
    args = ["odds", file, "--attacker", "Angthar", "--target", "Goblin"]
    with open("/dev/full", "w") as full:
        ended, ordinary = (console(entry, args, stdout=full) for entry in ("run", "main"))
    assert ended.returncode == ordinary.returncode == 2
    assert ended.stderr == ordinary.stderr and "Traceback" not in ended.stderr


def test_a_fights_cyclic_garbage_does_not_grow_with_its_rounds() -> None:
    # the command line keeps the collector paused through a whole fight's odds (odds_text.answer_question):
    # what the chain leaves for it is made before the rounds are played, however many they are
    from referee import odds
    from referee.files import setup_from_data

    def garbage(rounds: int) -> int:
        setup = setup_from_data({**angthar_data(goblins=2, goblin_hp=None), "max_rounds": rounds}, "x")
        gc.collect()
        gc.disable()
        try:
            assert len(odds.fight_odds(setup).rounds) == rounds
            return gc.collect()
        finally:
            gc.enable()

    garbage(3)  # the caches filled alike for both
    assert garbage(3) == garbage(30)
