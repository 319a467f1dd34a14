"""`referee sim FILE -n N`: win rates with intervals, rounds, survival, the path that ran; one-line errors."""

from __future__ import annotations

import json
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


def test_progress_bar_appears_only_after_its_delay() -> None:
    from referee.commands.sim import LazyProgress

    quiet = LazyProgress("quick", delay=3600)
    quiet(1, 10)
    assert quiet.bar is None
    shown = LazyProgress("slow", delay=0)
    shown(1, 10)
    shown(5, 10)
    assert shown.bar is not None and shown.bar.tasks[0].completed == 5
    shown.close()
