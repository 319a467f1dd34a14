"""`referee odds FILE`: one attack's exact odds, or the whole fight's; JSON twins; one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.conftest import EXAMPLES, angthar_data, referee

from referee.cli import main


def referee_here(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> subprocess.CompletedProcess[str]:
    """The same entry point in this process (faster): exit status, stdout and stderr."""
    monkeypatch.setattr(sys, "argv", ["referee", *args])
    with pytest.raises(SystemExit) as stop:
        main()
    out = capsys.readouterr()
    return subprocess.CompletedProcess(args, int(stop.value.code or 0), out.out, out.err)


def write(tmp_path: Path, data: dict[str, Any]) -> str:
    path = tmp_path / "encounter.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


def test_attack_odds_json_for_tv_000_02(tmp_path: Path) -> None:
    # rule: ODD-ATK-1, ODD-BTH-1, ODD-MELEE-1 (TV-000-02): Angthar needs a natural 7, hits 14 times in 20
    file = write(tmp_path, angthar_data())
    out = referee("odds", file, "--attacker", "Angthar", "--target", "Goblin", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert {"hit", "crit", "fumble", "needed", "damage", "expected_damage", "drop"} <= set(data)
    assert (data["needed"], data["hit"], data["crit"], data["fumble"]) == (7, 0.7, 0.0, 0.0)
    assert data["damage"]["0"] == pytest.approx(0.3)
    assert data["expected_damage"] == pytest.approx(3.85)
    assert data["drop"] == pytest.approx(0.7 * 6 / 8)  # rule: ODD-HP-1 (4 HP goblin, 1d8+1 ≥ 4)


def test_attack_odds_read_like_a_referee_explains_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # rule: HR-CRIT-1, HR-FUMBLE-1 (TV-002-04): 1.25% each
    data = angthar_data(options={"critical_hits": "confirm_16_20", "fumbles": "confirm_1_5"})
    file = write(tmp_path, data)
    out = referee_here(monkeypatch, capsys, "odds", file, "--attacker", "Angthar", "--target", "Goblin")
    assert out.returncode == 0, out.stderr
    assert "needs: natural 7 or more" in out.stdout
    assert "critical 1.25%" in out.stdout and "fumble 1.25%" in out.stdout


def test_fight_odds_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # rule: ODD-INIT-1, ODD-ROUND-4, ODD-HP-1: a whole fight's exact chances add up to one
    file = write(tmp_path, angthar_data(max_rounds=20))
    out = referee_here(monkeypatch, capsys, "odds", file, "--fight", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert {"wins", "draw", "rounds", "states"} <= set(data)
    assert set(data["wins"]) == {"Village", "Goblins"}
    total = sum(data["wins"].values()) + data["draw"] + data["limit"] + data["unresolved"]
    assert total == pytest.approx(1, abs=1e-12)
    assert sum(data["rounds"].values()) == pytest.approx(1, abs=1e-12)
    assert data["states"] == 31 * 5  # Angthar 30 HP, the goblin 4 HP (0 = down)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--attacker", "Angthar"],
            "give --attacker and --target for one attack (combatants: Angthar, Goblin)",
        ),
        (["--attacker", "Angthar", "--target", "Goblin", "--form", "kick"], "unknown attack form 'kick'"),
        (["--attacker", "Angthar", "--target", "Nobody"], "no combatant called 'Nobody'"),
        (["--fight", "--attacker", "Angthar"], "leave out --attacker"),
    ],
)
def test_bad_questions_are_one_line_errors(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    out = referee_here(monkeypatch, capsys, "odds", write(tmp_path, angthar_data()), *args)
    assert out.returncode == 2
    assert out.stderr.startswith("error: ") and message in out.stderr
    assert "Traceback" not in out.stderr and out.stderr.count("\n") == 1


def test_a_fight_over_the_bound_points_to_the_simulator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # six combatants are over the exact model's bound (docs/odds.md)
    out = referee_here(monkeypatch, capsys, "odds", write(tmp_path, angthar_data(goblins=5)), "--fight")
    assert out.returncode == 2
    assert "referee sim" in out.stderr


def test_the_house_rules_duel_is_answered_and_a_grapple_refused_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # rule: MF-FUMBLE-2: the preset's free attack back after a fumble is carried by the exact odds;
    # a grapple (a condition, ODD-GRAP-1) is not, and the refusal says why in one line
    out = referee_here(
        monkeypatch, capsys, "odds", str(EXAMPLES / "house_rules_duel.yaml"), "--fight", "--json"
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["wins"]["Village"] == pytest.approx(0.750045, abs=1e-6)
    out = referee_here(monkeypatch, capsys, "odds", str(EXAMPLES / "grapple.yaml"), "--fight")
    assert out.returncode == 2
    assert "grappled" in out.stderr and "referee sim" in out.stderr and out.stderr.count("\n") == 1


def test_a_fight_the_chain_refuses_says_the_engine_walked_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # rule: HR-HELPLESS-1, GAP-COUP (finish_fallen): beyond the chain, within the engine walk's budget
    fighter = {"level": 1, "hp": 2, "weapons": [{"name": "dagger", "damage": "1d2"}]}
    data = {
        "name": "tiny", "ruleset": "odd", "options": {"finish_fallen": "when_no_standing_enemy"}, "max_rounds": 3,
        "sides": [{"name": "A", "combatants": [{"name": "Ann", **fighter}]},
                  {"name": "B", "combatants": [{"name": "Bob", **fighter}]}],
    }  # fmt: skip
    file = write(tmp_path, data)
    out = referee_here(monkeypatch, capsys, "odds", file, "--fight", "--json")
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["path"] == "engine walk" and "finish_fallen" in answer["chain_refused"]
    out = referee_here(monkeypatch, capsys, "odds", file, "--fight")
    assert out.returncode == 0 and "(exact: the engine walked" in out.stdout and "finish_fallen" in out.stdout
