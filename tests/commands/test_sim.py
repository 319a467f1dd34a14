"""`referee sim FILE -n N`: win rates with intervals, rounds, survival, the path that ran; one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import EXAMPLES, referee

from referee.commands.sim import parse_count

DUEL = str(EXAMPLES / "duel.yaml")
GOBLINS = str(EXAMPLES / "angthar_and_the_goblins.yaml")


def sim_json(*args: str) -> dict:  # type: ignore[type-arg]
    out = referee("sim", *args, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_json_has_every_number_and_the_path() -> None:
    data = sim_json(GOBLINS, "-n", "20k", "--seed", "4")
    assert data["fights"] == 20_000 and data["path"] == "vectorised" and data["fallback_reason"] is None
    wins = {s["side"]: s for s in data["sides"]}
    village = wins["Village"]
    assert 0.9 < village["win_rate"] < 0.97  # TV-000: Angthar usually beats three goblins
    low, high = village["ci95"]
    assert low < village["win_rate"] < high and high - low < 0.01
    total = sum(s["wins"] for s in data["sides"]) + data["draws"]["count"] + data["round_limit"]["count"]
    assert total == 20_000
    assert sum(data["rounds"]["distribution"].values()) == 20_000
    assert 3 <= data["rounds"]["median"] <= 6 and data["rounds"]["mean"] > 3
    angthar = data["combatants"][0]
    assert (
        angthar["name"] == "Angthar" and angthar["survival_rate"] == 1.0 and 0 < angthar["mean_hp_left"] <= 30
    )


def test_same_seed_same_json() -> None:
    a = sim_json(DUEL, "-n", "5000", "--seed", "1")
    b = sim_json(DUEL, "-n", "5000", "--seed", "1")
    for noisy in ("seconds", "fights_per_second"):
        a.pop(noisy), b.pop(noisy)
    assert a == b


def test_fallback_is_reported(tmp_path: Path) -> None:
    data = sim_json(str(EXAMPLES / "charge.yaml"), "-n", "5")
    assert data["path"] == "event engine" and "positions" in data["fallback_reason"]
    out = referee("sim", DUEL, "-n", "5", "--engine")
    assert out.returncode == 0 and "event engine" in out.stdout


def test_text_output_and_plot(tmp_path: Path) -> None:
    png = tmp_path / "duel.png"
    out = referee("sim", DUEL, "-n", "2000", "--plot", str(png))
    assert out.returncode == 0, out.stderr
    assert "path: vectorised" in out.stdout and "95% interval" in out.stdout and "Angthar" in out.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-n", "0"], "from 1 to"),
        (["-n", "lots"], "whole number"),
        (["-n", "1.5"], "whole number"),
        (["--workers", "0"], "--workers"),
        (["--plot", "out.jpg"], "PNG"),
        (["--plot", "/no/such/dir/out.png"], "no such directory"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    out = referee("sim", DUEL, *args)
    assert out.returncode == 2
    assert out.stderr.startswith("error: ") and message in out.stderr and out.stderr.count("\n") == 1


def test_missing_file_is_one_line() -> None:
    out = referee("sim", "no-such-encounter.yaml")
    assert out.returncode == 2 and out.stderr.startswith("error: ") and "Traceback" not in out.stderr


def test_parse_count() -> None:
    assert parse_count("1e6") == 1_000_000 and parse_count("10k") == 10_000 and parse_count("1_000") == 1000
    assert parse_count("2M") == 2_000_000


def referee_with_progress(*args: str, every: str = "0") -> subprocess.CompletedProcess[str]:
    """`referee` as a process whose stderr is a pipe (not a terminal), progress lines `every` seconds."""
    env = {**os.environ, "REFEREE_PROGRESS_SECONDS": every}
    return subprocess.run(
        [sys.executable, "-c", "from referee.cli import main; main()", *args],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip


def test_path_and_fallback_reason_come_first_on_stderr() -> None:
    out = referee_with_progress("sim", str(EXAMPLES / "charge.yaml"), "-n", "5", "--json")
    assert out.returncode == 0, out.stderr
    first = out.stderr.splitlines()[0]
    assert "path: event engine (fallback: " in first and "positions" in first
    assert json.loads(out.stdout)["path"] == "event engine"  # stdout is the JSON alone


def test_a_long_run_prints_progress_lines_with_the_time_left() -> None:
    out = referee_with_progress("sim", DUEL, "-n", "400k", "--json")  # four batches of the fast path
    assert out.returncode == 0, out.stderr
    lines = out.stderr.splitlines()
    assert lines[0].endswith("path: vectorised")
    progress = [line for line in lines[1:] if " of 400,000 fights " in line]
    assert len(progress) == 3 and all("left" in line and "fights/s" in line for line in progress)
    assert json.loads(out.stdout)["fights"] == 400_000


def test_no_progress_lines_before_the_interval() -> None:
    out = referee_with_progress("sim", DUEL, "-n", "400k", "--json", every="3600")
    lines = out.stderr.splitlines()
    assert out.returncode == 0 and len(lines) == 1 and lines[0].endswith("path: vectorised")


def test_progress_bar_on_a_terminal_appears_only_after_its_delay() -> None:
    from referee.commands.sim import RunProgress

    quiet = RunProgress("quick", delay=3600, terminal=True)
    quiet(1, 10)
    assert quiet.bar is None
    shown = RunProgress("slow", delay=0, terminal=True)
    shown(1, 10)
    shown(5, 10)
    assert shown.bar is not None and shown.bar.tasks[0].completed == 5
    shown.close()


def test_time_left_is_estimated_from_the_rate_so_far() -> None:
    from referee.commands.sim import RunProgress, duration

    progress = RunProgress("x", terminal=False, every=3600)
    progress.started -= 10.0  # ten seconds for a quarter of the fights: thirty to go
    left = progress.left(25, 100)
    assert left is not None and 29.0 < left < 31.0
    assert duration(42) == "42 s" and duration(185) == "3 min 5 s" and duration(7800) == "2 h 10 min"


def test_a_slow_rate_is_said_in_two_figures_not_rounded_to_nothing() -> None:
    from referee.commands.sim import per_second

    assert [per_second(r) for r in (0.4, 0.046, 3.14159, 10.0, 12_345.6)] == [
        "0.4", "0.046", "3.1", "10", "12,346",
    ]  # fmt: skip


def test_a_slow_choice_of_path_says_what_is_under_way(capsys: pytest.CaptureFixture[str]) -> None:
    """Compiling a preset's tables takes seconds before the path is known: a line says so, then the path."""
    import time

    from referee.commands.sim import RunProgress

    slow = RunProgress("simulating x", terminal=False)
    slow.planning(after=0.01)
    time.sleep(0.3)
    slow.announce("vectorised", "")
    quick = RunProgress("simulating y", terminal=False)
    quick.planning(after=3600)
    quick.announce("vectorised", "")
    time.sleep(0.05)
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "simulating x: working out the fast path's tables (the exact odds of every attack)...",
        "simulating x: path: vectorised",
        "simulating y: path: vectorised",
    ]
    assert slow.notice is None and quick.notice is None  # the timers are gone before any fight or fork
