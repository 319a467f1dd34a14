"""The default tactics' target: the living enemy with the fewest hit points (hp - subdual damage,
GAP-SUBDUAL), ties to the first in the file — as a pure rule and through the engine's tactics."""

from __future__ import annotations

import pytest
from tests.conftest import angthar_data, make_setup

from referee.dice import ScriptedDice
from referee.engine import tactics
from referee.engine.fight import Fight
from referee.rules import targeting
from referee.rules.targeting import choose_target, target_priority


def test_fewest_hit_points_first() -> None:
    assert choose_target([("a", 7, 0, 0), ("b", 4, 0, 1), ("c", 9, 0, 2)]) == "b"


def test_subdual_damage_counts_against_hit_points() -> None:
    # GAP-SUBDUAL: 7 hp with 5 subdual is nearer to falling than 4 hp
    assert target_priority(7, 5, 0) < target_priority(4, 0, 1)
    assert choose_target([("a", 4, 0, 0), ("b", 7, 5, 1)]) == "b"


def test_ties_go_to_the_first_in_the_file() -> None:
    assert choose_target([("late", 4, 0, 3), ("early", 4, 0, 1)]) == "early"


def test_no_enemy_no_target() -> None:
    assert choose_target([]) is None


def test_the_engine_tactics_use_the_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    # the tactics pick by the rule here: Goblin 2 (3 hp) before Goblin 1 (5 hp); a changed rule reaches them
    data = angthar_data(goblins=2, goblin_hp=None)
    fight = Fight(make_setup(data))
    fight.begin(ScriptedDice([5, 3]))
    assert tactics.choose_target(fight.state, "Angthar") == "Goblin 2"
    monkeypatch.setattr(targeting, "target_priority", lambda hp, subdual, index: (-hp, index))
    assert tactics.choose_target(fight.state, "Angthar") == "Goblin 1"
