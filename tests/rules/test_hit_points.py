"""Defeat at zero hit points (ODD-HP-1 with GAP-HP-ZERO) and subdual damage (GAP-SUBDUAL)."""

from __future__ import annotations

from referee.rules.hit_points import status_after_damage
from referee.rules.ruleset import Ruleset

ODD = Ruleset()


def test_monsters_die_at_zero_characters_fall() -> None:
    # rule: ODD-HP-1
    assert status_after_damage(0, 0, is_monster=True, ruleset=ODD) == "dead"
    assert status_after_damage(0, 0, is_monster=False, ruleset=ODD) == "unconscious"
    assert status_after_damage(-9, 0, is_monster=False, ruleset=ODD) == "unconscious"
    assert status_after_damage(-10, 0, is_monster=False, ruleset=ODD) == "dead"
    assert status_after_damage(1, 0, is_monster=False, ruleset=ODD) == "active"


def test_die_at_zero_option() -> None:
    # rule: ODD-HP-1 ("killed")
    rs = ODD.with_options(zero_hp="die_at_zero")
    assert status_after_damage(0, 0, is_monster=False, ruleset=rs) == "dead"


def test_subdual_knocks_out() -> None:
    # rule: ODD-PUMMEL-2 (GAP-SUBDUAL): subdual at or above current hit points → unconscious
    assert status_after_damage(5, 5, is_monster=True, ruleset=ODD) == "unconscious"
    assert status_after_damage(5, 4, is_monster=True, ruleset=ODD) == "active"


def test_knockout_leaves_the_target_alive() -> None:
    # rule: MF-KO-1
    assert status_after_damage(0, 0, is_monster=True, ruleset=ODD, knockout=True) == "unconscious"
