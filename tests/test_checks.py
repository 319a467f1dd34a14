"""Checks and modifiers: the one truth for hit or miss."""

from __future__ import annotations

from referee.checks import Check, Compare, Keep, Modifier, Natural


def angthar_check(natural: Natural = Natural.NONE) -> Check:
    return Check(
        label="Angthar → Goblin",
        modifiers=(Modifier(4, "ODD-MELEE-1", "basic to-hit"), Modifier(1, "ODD-MELEE-1", "Str")),
        target=12,
        natural=natural,
        words=("hit", "miss"),
    )


def test_angthar_breakdown_reads_like_a_referee() -> None:
    # rule: ODD-ATK-1, ODD-MELEE-1 (TV-000-02): 12 + 4 + 1 = 17 >= 12
    check = angthar_check()
    assert check.succeeds(12)
    assert check.breakdown([12]) == (
        "1d20 12 +4 basic to-hit [ODD-MELEE-1] +1 Str [ODD-MELEE-1] = 17 >= AC 12 → hit"
    )
    assert check.needed() == 7
    assert check.breakdown([2]).endswith("= 7 < AC 12 → miss")


def test_equality_hits() -> None:
    # rule: ODD-ATK-1 (equality hits)
    assert angthar_check().succeeds(7)
    assert not angthar_check().succeeds(6)


def test_natural_rolls_option() -> None:
    # rule: HR-NAT-1: natural 20 always hits, natural 1 always misses
    hard = Check(
        "x",
        modifiers=(Modifier(-10, "ODD-SIT-INVIS", "invisible"),),
        target=15,
        natural=Natural.AUTO_HIT_MISS,
    )
    assert hard.succeeds(20)
    easy = Check("x", modifiers=(Modifier(20, "ODD-SIT-1", "easy"),), target=5, natural=Natural.AUTO_HIT_MISS)
    assert not easy.succeeds(1)
    plain = Check("x", modifiers=(Modifier(20, "ODD-SIT-1", "easy"),), target=5)
    assert plain.succeeds(1)


def test_outcome_table_and_advantage() -> None:
    table = angthar_check().outcome_table()
    assert table.count(True) == 14
    adv = Check("x", target=12, keep=Keep.HIGHEST)
    assert adv.dice_count == 2
    assert adv.natural_of([3, 15]) == 15
    assert Check("x", keep=Keep.LOWEST).natural_of([3, 15]) == 3


def test_roll_under_check() -> None:
    # rule: ODD-SURP-2 (GAP-ATTR-CHECK): d20 <= Wisdom passes
    check = Check("Wisdom", target=10, target_label="Wis", compare=Compare.AT_MOST)
    assert check.succeeds(10)
    assert not check.succeeds(11)
    assert check.needed() == 10


def test_automatic_check() -> None:
    check = Check("helpless", automatic=True, words=("hit", "miss"))
    assert check.succeeds(1)
    assert check.dice_count == 0
    assert "automatic hit" in check.breakdown([])


def test_modifier_round_trip() -> None:
    m = Modifier(2, "ODD-COVER-25", "quarter cover")
    assert Modifier.from_dict(m.to_dict()) == m
    assert str(m) == "+2 quarter cover [ODD-COVER-25]"
