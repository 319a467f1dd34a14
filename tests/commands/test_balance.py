"""`referee balance MONSTER_FILE`: fighters per level for a fair fight, and equivalent hit dice."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from tests.conftest import referee

from referee.commands.balance import Balancer, harmonic_mean, parse_levels, standard_fighter

GOBLIN = {"name": "Goblin", "hit_dice": "1d6", "ac": 12, "weapons": [{"name": "scimitar", "damage": "1d6"}]}
OGRE = {
    "name": "Ogre",
    "hit_dice": "4+1",
    "ac": 15,
    "size": "large",
    "weapons": [{"name": "club", "damage": "1d10"}],
}


def write(tmp_path: Path, data: object) -> str:
    path = tmp_path / "monster.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


def test_standard_fighter() -> None:
    # rule: ODD-HD-1 (d10 class die, average hit points), GAP-CLASS-BTH (level - 1, filled in by the loader)
    setup = Balancer([GOBLIN], {}, None, 100, 0, 1).setup(5, 2)
    fighter = setup.combatants[0]
    assert (
        fighter.attack_bonus == 4
        and fighter.hp == 28
        and fighter.armour
        and fighter.armour.name == "chain mail"
    )
    assert [w.name for w in fighter.weapons] == ["long sword"] and len(setup.combatants) == 3
    assert standard_fighter(1, 1)["hp"] == 6


def test_an_ogre_needs_more_fighters_at_low_level(tmp_path: Path) -> None:
    out = referee("balance", write(tmp_path, OGRE), "--levels", "1-3", "--fights", "1500", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    levels = {row["level"]: row for row in data["levels"]}
    assert levels[1]["fighters"] >= levels[3]["fighters"] >= 1
    assert 0.25 < levels[2]["monster_win_rate"] < 0.75
    assert 2 < data["equivalent_hit_dice"] < 7  # a 4+1 HD ogre is worth a handful of fighter levels
    assert all(row["path"] == "vectorised" for row in data["levels"])


def test_text_output(tmp_path: Path) -> None:
    out = referee("balance", write(tmp_path, {"monsters": [GOBLIN, GOBLIN | {"name": "Goblin boss"}]}),
                  "--levels", "1,2", "--fights", "500")  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "equivalent hit dice" in out.stdout and "Goblin" in out.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--levels", "3-1"], "levels"), (["--levels", "x"], "levels"), (["--fights", "1"], "--fights"),
     (["--ruleset", "nonsense"], "nonsense")],
)  # fmt: skip
def test_bad_input_is_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    out = referee("balance", write(tmp_path, GOBLIN), *args)
    assert out.returncode == 2 and out.stderr.startswith("error: ") and message in out.stderr
    assert out.stderr.count("\n") == 1


def test_bad_monster_file(tmp_path: Path) -> None:
    out = referee("balance", write(tmp_path, ["not a monster"]))
    assert out.returncode == 2 and out.stderr.startswith("error: ")


def test_helpers() -> None:
    assert parse_levels("1-3,5") == [1, 2, 3, 5]
    assert harmonic_mean([2.0, 6.0]) == pytest.approx(3.0)
    assert harmonic_mean([]) is None


def test_balance_prints_the_path_first_and_progress_on_stderr(tmp_path: Path) -> None:
    env = {**os.environ, "REFEREE_PROGRESS_SECONDS": "0"}
    out = subprocess.run(
        [sys.executable, "-c", "from referee.cli import main; main()", "balance", write(tmp_path, GOBLIN),
         "--levels", "1-3", "--fights", "200", "--json"],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    lines = out.stderr.splitlines()
    assert lines[0] == "balance: path: vectorised"
    assert any(" of 3 levels " in line and "left" in line for line in lines[1:])
    # each line says what is under way, and no rate before a level is done
    assert any(line.startswith("balance: 0 of 3 levels (0%); level 1: ") for line in lines[1:])
    assert not any(re.search(r"(?<![\d.,])0 levels/s", line) for line in lines)
    assert json.loads(out.stdout)["levels"][0]["level"] == 1


# a grappler: its holds (ODD-GRAP-3) keep it on the event engine
APE = {
    "name": "Ape",
    "hp": 20,
    "ac": 13,
    "weapons": [{"name": "fist", "damage": "1d4"}],
    "tactic": {"maneuver": "grapple"},
}


def test_a_monster_the_event_engine_plays_is_balanced_at_every_level_by_default() -> None:
    # rule: ODD-GRAP-3 (a hold: the event engine plays it). The search's worst case (60 tries a level, 300
    # fights a try, every round's damage dice) is not refused: each try is checked as `sim` checks a run,
    # and the monster's hit dice over the whole search
    from referee.commands.balance import check_search_budget
    from referee.sim import EVENT_ENGINE

    balancer = Balancer([APE], {}, None, 2000, 0, 1)
    path, reason = check_search_budget(balancer, 2000, parse_levels("1-12"))
    assert path == EVENT_ENGINE and "grappled" in reason


def test_hit_dice_rolled_in_every_fight_of_the_search_are_refused_with_what_fits() -> None:
    from referee.budget import OverBudget
    from referee.commands.balance import check_search_budget

    big = Balancer([{**APE, "name": "Big", "hp": None, "hit_dice": "1000d1000"}], {}, None, 2000, 0, 1)
    with pytest.raises(OverBudget, match=r"roll 216,000,000 hit dice.*ask for --fights 6 or fewer"):
        check_search_budget(big, 2000, parse_levels("1-12"))
    with pytest.raises(OverBudget, match=r"ask for --fights 83 or fewer"):
        check_search_budget(big, 2000, [1])
    check_search_budget(big, 80, [1])  # 80 fights a try fit
    large = Balancer([{**APE, "name": "Large", "hp": None, "hit_dice": "100"}], {}, None, 2000, 0, 1)
    with pytest.raises(OverBudget, match=r"ask for at most 2 level\(s\) with --levels"):
        check_search_budget(large, 2000, parse_levels("1-12"))


def test_the_paths_taken_are_told_once_each() -> None:
    from referee.commands.balance import paths_line

    told = {
        "vectorised",
        "event engine (Ape's attack on Fighter 1 imposes conditions)",
        "event engine (Ape's attack on Fighter imposes conditions)",
    }
    assert paths_line(told) == "event engine (Ape's attack on Fighter 1 imposes conditions), vectorised"
    assert paths_line({"vectorised"}) == "vectorised"
