"""Cost inside the documented limits is bounded (issue 16, item 4; docs/errors.md, "Limits").

Each input here is within every per-input limit, but the work it asks for multiplies them. Each
command answers quickly or refuses in one line with the figure, under `ulimit -v` and a timeout.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from referee import budget, chance
from referee.budget import OverBudget, check_dice_distribution, check_fight_turns, expression_cost
from referee.dice import RandomDice
from referee.rules import hit_points
from reliability.cli_run import TIMEOUT, referee

QUICK = 30.0  # seconds: far less than the minutes the unbudgeted work took, slack for a busy machine


def encounter(tmp_path: Path, damage: str = "1d6", hit_dice: str = "1d6", extra: str = "") -> Path:
    path = tmp_path / "cost.yaml"
    path.write_text(
        f"ruleset: odd\n{extra}sides:\n"
        f"  - name: A\n    combatants:\n      - {{name: Ann, level: 1, hp: 10, weapons: [{{name: big, damage: '{damage}'}}]}}\n"
        f"  - name: B\n    combatants:\n      - {{name: Gob, hit_dice: '{hit_dice}', weapons: [{{name: s, damage: 1d6}}]}}\n"
    )
    return path


def refused_quickly(*args: str | Path) -> str:
    run = referee(*args)
    line = run.refused()
    assert run.seconds < QUICK, f"{args}: {run.seconds:.1f} s"
    assert any(ch.isdigit() for ch in line), line  # the figure
    return line


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS (ulimit -v) is enforced on Linux")
class TestCommandsUnderACap:
    def test_odds_of_a_thousand_dice_weapon(self, tmp_path: Path) -> None:
        # round 1: RecursionError from icepool's `@` (one frame per die)
        line = refused_quickly(
            "odds", encounter(tmp_path, damage="1000d6"), "--attacker", "Ann", "--target", "Gob"
        )
        assert "1000d6" in line and "steps" in line

    def test_odds_of_a_product_of_large_dice(self, tmp_path: Path) -> None:
        # round 1: 27 s, 311 MB and 10 MB printed
        line = refused_quickly(
            "odds", encounter(tmp_path, damage="1d1000*1d1000"), "--attacker", "Ann", "--target", "Gob"
        )
        assert "1,000,000 outcomes" in line

    def test_sim_and_balance_with_a_thousand_large_hit_dice(self, tmp_path: Path) -> None:
        # round 1: 2.8 GB, then a MemoryError traceback
        assert "dice" in refused_quickly("sim", encounter(tmp_path, hit_dice="1000d1000"))
        monster = tmp_path / "monster.yaml"
        monster.write_text("name: Big\nhit_dice: 1000d1000\nac: 5\nweapons: [{name: club, damage: 1d10}]\n")
        assert "balance" in refused_quickly("balance", monster, "--levels", "1")

    def test_fight_odds_against_such_a_target(self, tmp_path: Path) -> None:
        # round 1: past 40 s
        refused_quickly("odds", "--fight", encounter(tmp_path, hit_dice="1000d1000"))

    def test_two_hundred_combatants_for_a_thousand_rounds(self, tmp_path: Path) -> None:
        # round 1: minutes and 3 GB (extrapolated)
        path = tmp_path / "crowd.yaml"
        side = "    combatants:\n      - {{name: {}, count: 100, hp: 10000, weapons: [{{name: pin, damage: '1'}}]}}\n"
        path.write_text(
            f"max_rounds: 1000\nsides:\n  - name: A\n{side.format('Ann')}  - name: B\n{side.format('Bob')}"
        )
        for command in ("fight", "sim"):
            line = refused_quickly(command, path)
            assert "200,000 turns" in line and f"{budget.MAX_FIGHT_TURNS:,}" in line

    def test_a_budgeted_question_still_answers(self, tmp_path: Path) -> None:
        run = referee("odds", encounter(tmp_path, damage="100d6"), "--attacker", "Ann", "--target", "Gob")
        assert run.code == 0, run.err
        assert run.seconds < TIMEOUT


# --- the budgets themselves (library) ---------------------------------------------------------------


def test_cost_is_measured_from_the_expression_alone() -> None:
    started = time.perf_counter()
    assert expression_cost("1d1000*1d1000").outcomes == 1_000_000
    assert expression_cost("2d6+1").outcomes == 11
    assert expression_cost("1000d1000").outcomes == 999_001
    assert time.perf_counter() - started < 1.0
    check_dice_distribution("2d20kh1+1d8", "test")  # small: accepted
    with pytest.raises(OverBudget, match="the limit is"):
        check_dice_distribution("1000d6", "test")


def test_exact_odds_of_many_dice_do_not_recurse() -> None:
    from referee.odds.dice import dice_die, die_fractions

    dist = die_fractions(dice_die("1000d1"))  # a thousand dice, one outcome: cheap, and no recursion
    assert dist == {1000: 1}
    assert die_fractions(dice_die("3d6"))[10] == pytest.approx(27 / 216)


def test_an_exact_walk_of_long_sequences_is_refused_early() -> None:
    from referee.files import setup_from_data

    setup = setup_from_data(
        {
            "sides": [
                {"name": "A", "combatants": [{"name": "Ann", "hit_dice": "1000d6"}]},
                {"name": "B", "combatants": [{"name": "Bob", "hp": 3}]},
            ]
        }
    )
    ann = setup.combatants[0]
    started = time.perf_counter()
    with pytest.raises(chance.TooManyOutcomes):
        chance.distribution(lambda dice: hit_points.roll_hit_points(ann, dice), limit=20_000)
    assert time.perf_counter() - started < 10.0  # round 1: 20,000 walks of 1000 dice each
    assert 1000 <= hit_points.roll_hit_points(ann, RandomDice(1)) <= 6000


def test_fight_turns_budget_edge() -> None:
    check_fight_turns(100, budget.MAX_FIGHT_TURNS // 100, "edge")
    with pytest.raises(OverBudget, match="the limit is"):
        check_fight_turns(100, budget.MAX_FIGHT_TURNS // 100 + 1, "past")
