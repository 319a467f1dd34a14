"""The agreement tests can fail: enough fights to see a 2-point difference (tests/agreement/power.py)."""

from __future__ import annotations

import pytest
from tests.agreement.paths import Record, exact_walk, outcomes, simulated
from tests.agreement.power import POWER, SHIFT, disagreements, fights_for, fights_for_power, rejection_chance
from tests.conftest import make_setup

from referee.exact_engine import exact_fight


@pytest.mark.parametrize("p", [0.0, 0.01, 0.1, 0.3, 0.5, 0.7, 0.95, 1.0])
def test_the_number_of_fights_gives_the_power_to_see_two_points(p: float) -> None:
    n = fights_for_power(p)
    for q in (p - SHIFT, p + SHIFT):
        if 0 <= q <= 1:
            assert rejection_chance(p, q, n) >= POWER
            if n > 100:  # and not many more fights than that: half as many would miss it too often
                assert rejection_chance(p, q, n // 2) < POWER
    assert rejection_chance(p, p, n) < 1e-4  # the same chance is (almost) never rejected


def test_half_a_chance_needs_about_twenty_thousand_fights() -> None:
    # (4.5·0.5 + 1.28·0.49)² / 0.02² ≈ 20,700: the most any one comparison needs
    assert 20_000 < fights_for_power(0.5) < 21_500
    assert fights_for({"win A": 0.5, "draw": 0.01}) == fights_for_power(0.5)


def one_hp_duel() -> dict[str, object]:
    def side(name: str, ac: int) -> dict[str, object]:
        fighter = {"name": name, "level": 1, "attack_bonus": 0, "hp": 1, "ac": ac,
                   "abilities": {"str": 10, "dex": 10}, "weapons": [{"name": "club", "damage": "1"}]}  # fmt: skip
        return {"name": name, "combatants": [fighter]}

    return {"name": "one-hp duel", "ruleset": "odd", "max_rounds": 1, "sides": [side("A", 16), side("B", 11)]}


def test_a_path_two_points_off_is_rejected() -> None:
    # the fast simulator agrees with the exact walk, and would not if either answer moved by 2 points
    setup = make_setup(one_hp_duel())
    walked = exact_fight(setup)
    exact = outcomes(walked.wins, walked.draw, walked.limit)
    n = fights_for(exact)
    sampled = simulated(setup, n)
    assert not disagreements(sampled, exact, n)
    for outcome in ("win A", "win B", "limit"):
        for shift in (-SHIFT, SHIFT):
            moved = {**exact, outcome: exact[outcome] + shift}
            assert disagreements(sampled, moved, n), (outcome, shift)
            assert disagreements({**sampled, outcome: sampled[outcome] + shift}, exact, n), (outcome, shift)


def test_the_exact_walk_path_records_its_refusal() -> None:
    record = Record("refused")
    assert exact_walk(make_setup(one_hp_duel()), record, max_work=10) is None
    assert "more than 10" in record.refusals["exact engine walk"]
