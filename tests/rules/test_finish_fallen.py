"""Option `finish_fallen` (HR-HELPLESS-1, MOD-HELPLESS-MELEE, GAP-COUP): the default tactics' pool of
targets (rules/targeting.py) and the end of a fight with fallen enemies left (rules/turns.py, ODD-ROUND-4)."""

from __future__ import annotations

from referee.rules import targeting, turns
from referee.rules.options import FinishFallen
from referee.rules.ruleset import Ruleset


def test_the_option_is_off_by_default_in_every_preset() -> None:
    """HR-HELPLESS-1: striking the fallen is a tactic the referee chooses; no preset chooses it."""
    for name in ("odd", "mod", "hr", "mf", "dac", "full"):
        assert Ruleset.preset(name).finish_fallen is FinishFallen.OFF
    assert Ruleset.preset("odd").with_options(finish_fallen="always").finish_fallen is FinishFallen.ALWAYS


def test_off_leaves_the_fallen_alone() -> None:
    """GAP-HP-ZERO: an unconscious character is no target while the option is off, even alone."""
    assert targeting.target_pool(["orc"], ["Bran"], FinishFallen.OFF) == ["orc"]
    assert targeting.target_pool([], ["Bran"], FinishFallen.OFF) == []


def test_when_no_standing_enemy_strikes_the_fallen_only_then() -> None:
    """HR-HELPLESS-1 / MOD-HELPLESS-MELEE: the fallen become targets once no enemy stands."""
    assert targeting.target_pool(["Tam"], ["Bran"], FinishFallen.WHEN_NO_STANDING_ENEMY) == ["Tam"]
    assert targeting.target_pool([], ["Bran"], FinishFallen.WHEN_NO_STANDING_ENEMY) == ["Bran"]


def test_always_puts_the_fallen_first_by_fewest_hit_points() -> None:
    """HR-HELPLESS-1 with the default target (fewest hit points): a fallen enemy (0 hp or less) goes first."""
    pool = targeting.target_pool([("Tam", 3, 0, 1)], [("Bran", -2, 0, 0)], FinishFallen.ALWAYS)
    assert targeting.choose_target(pool) == "Bran"


def test_a_side_with_fallen_to_finish_fights_on_until_the_round_limit() -> None:
    """ODD-ROUND-4 with `finish_fallen`: one side standing wins, but only once its fallen foes are dead
    or the last round is over."""
    assert turns.fight_end(["Ogre"], 3, 100, True, fallen_to_finish=True) is None
    assert turns.fight_end(["Ogre"], 3, 100, False, fallen_to_finish=True) is None
    end = turns.fight_end(["Ogre"], 100, 100, True, fallen_to_finish=True)
    assert end is not None and end.winner == "Ogre"
    plain = turns.fight_end(["Ogre"], 3, 100, False)
    assert plain is not None and plain.winner == "Ogre"
