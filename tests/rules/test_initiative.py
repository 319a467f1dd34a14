"""Initiative ordering (ODD-INIT-1 to ODD-INIT-4) as pure functions."""

from __future__ import annotations

from referee.rules.initiative import Roll, order_groups, order_individual


def test_highest_roll_first() -> None:
    # rule: ODD-INIT-1 (TV-000-01): Angthar 7 beats the goblin's 4
    assert order_individual([Roll("Goblin", 4, 10), Roll("Angthar", 7, 12)]) == [["Angthar"], ["Goblin"]]


def test_ties_by_dex_then_simultaneous() -> None:
    # rule: ODD-INIT-2, ODD-INIT-3
    rolls = [Roll("a", 5, 10), Roll("b", 5, 14), Roll("c", 5, 10), Roll("d", 2, 18)]
    assert order_individual(rolls) == [["b"], ["a", "c"], ["d"]]


def test_delays_lower_the_effective_roll() -> None:
    # GAP-SEGMENTS: a delay of k segments lowers the effective initiative by k
    assert order_individual([Roll("a", 8, 10, delay=6), Roll("b", 5, 10)]) == [["b"], ["a"]]


def test_group_initiative() -> None:
    # rule: ODD-INIT-4; ties act together (GAP-INIT-GROUP-TIE)
    members = {"A": ["a1", "a2"], "B": ["b1"]}
    assert order_groups([("A", 3), ("B", 9)], members) == [["b1"], ["a1", "a2"]]
    assert order_groups([("A", 4), ("B", 4)], members) == [["a1", "a2", "b1"]]
