"""Time, movement, reach and the ODD charge (src/referee/rules/movement.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from referee.engine.state import CombatantState

from fractions import Fraction

import pytest
from tests.odd_helpers import encounter, fighter, give, orc, plan, rules_of, state_of

from referee.errors import IllegalActionError
from referee.rules import movement
from referee.rules.context import AttackForm


def test_six_rounds_make_a_turn() -> None:
    # rule: ODD-ROUND-2 (TV-000-17: 6 rounds = 1 turn ≈ 60 s; a round is 10 s)
    assert movement.turns(6) == (1, 0)
    assert movement.turns(13) == (2, 1)
    assert movement.seconds(1) == 10
    assert movement.seconds(6) == 60


def test_walk_jog_run_half_move_and_squares() -> None:
    # rule: ODD-MOVE-2, ODD-MOVE-3, ODD-MOVE-4, ODD-ACT-ATK (TV-DER-02: 25 ft → half 12, jog 50, run 100; 12 ft = 2 squares)
    assert movement.half_move(25) == 12
    assert [movement.pace_rate(25, p) for p in ("walk", "jog", "run")] == [25, 50, 100]
    assert movement.squares(12) == 2
    assert movement.squares(30) == 6
    with pytest.raises(IllegalActionError, match="ODD-MOVE-2"):
        movement.pace_rate(25, "sprint")


def test_fractions_dropped_but_never_below_one_foot() -> None:
    # rule: ODD-MOVE-3
    assert movement.drop_fractions(Fraction(15, 2)) == 7
    assert movement.drop_fractions(Fraction(1, 2)) == 1


def test_terrain_reduction_at_most_three_quarters_and_five_foot_minimum() -> None:
    # rule: ODD-MOVE-6, ODD-MOVE-7 (TV-DER-03: 30 ft, 75% → 7 ft; raised to 5 ft only if lower)
    assert movement.reduced_rate(30, Fraction(3, 4)) == 7
    assert movement.reduced_rate(10, Fraction(3, 4)) == 5  # 2.5 → 2 → at least 5 ft
    assert movement.reduced_rate(30, Fraction(1, 2)) == 15
    assert movement.reduced_rate(30, Fraction(1, 2), restrained=True) == 0
    with pytest.raises(IllegalActionError, match="ODD-MOVE-6"):
        movement.reduced_rate(30, Fraction(4, 5))
    assert [movement.parse_reduction(v) for v in ("1/2", "0.75", "50%", 25, None)] == [
        Fraction(1, 2), Fraction(3, 4), Fraction(1, 2), Fraction(1, 4), Fraction(0),
    ]  # fmt: skip
    with pytest.raises(IllegalActionError, match="terrain reduction"):
        movement.parse_reduction("lots")


def test_base_rate_reduced_by_encumbrance() -> None:
    # rule: ODD-MOVE-1 (GAP-ENCUMBRANCE: encumbered ×1/2, moderately ×3/4, overloaded ×1/4)
    state = state_of(encounter([fighter(move=30)], [orc()]))
    ann = state["Ann"]
    assert movement.base_rate(ann) == 30
    give(state, "Ann", "moderately_encumbered")
    assert movement.base_rate(ann) == 22  # 22.5 dropped
    give(state, "Ann", "encumbered")
    assert movement.base_rate(ann) == 15  # the heaviest applies
    assert movement.allowance(ann, "run") == 60


def test_moves_may_turn_corners_and_lines_stay_straight() -> None:
    # rule: ODD-MOVE-5 (a path's length is the sum of its legs), ODD-MOVE-4 (one square = 5 ft)
    assert movement.path_length([(0, 0), (0, 4), (3, 4)]) == 35
    assert movement.feet_between((0, 0), (3, 4)) == 20
    assert movement.adjacent_toward((0, 0), (0, 8)) == (0, 7)
    assert movement.along_line((0, 0), (8, 4), 4) == (4, 2)


@pytest.mark.parametrize(("distance", "allowed"), [(29, False), (30, True), (60, True), (61, False)])
def test_una_charges_the_orc(distance: int, allowed: bool) -> None:
    # rule: ODD-CHARGE-2 (TV-000-09: base 30 ft, jog 60 ft: a charge needs 30 <= d <= 60)
    state = state_of(encounter([fighter("Una", move=30)], [orc()]))
    if allowed:
        assert plan(state, "Una", "Orc", charge=True, distance=distance).armour_class.value == 12
    else:
        with pytest.raises(IllegalActionError, match="ODD-CHARGE-2"):
            plan(state, "Una", "Orc", charge=True, distance=distance)


def test_a_charge_ends_in_melee_adds_2_damage_and_exposes_the_charger() -> None:
    # rule: ODD-CHARGE-1 (melee only), ODD-CHARGE-3 (+2 damage), ODD-CHARGE-4 (AC 4 worse for the round)
    state = state_of(encounter([fighter("Una", weapons=["long sword", "javelin"])], [orc()]))
    with pytest.raises(IllegalActionError, match="ODD-CHARGE-1"):
        plan(state, "Una", "Orc", charge=True, distance=40, weapon="javelin", form=AttackForm.RANGED)
    charge = plan(state, "Una", "Orc", charge=True, distance=40)
    assert rules_of(charge.damage.modifiers) == [(2, "ODD-CHARGE-3")]
    assert [(e.condition, e.rounds, e.rule) for e in charge.on_attempt] == [("charging", 0, "ODD-CHARGE-4")]
    give(state, "Una", "charging")
    assert plan(state, "Orc", "Una").armour_class.value == 10 - 4
    assert plan(state, "Una", "Orc", charge=True, distance=40).on_attempt == ()  # already declared


def test_a_negated_charge_deals_no_extra_damage() -> None:
    # rule: ODD-CHARGE-5
    state = state_of(encounter([fighter("Una")], [orc()]))
    give(state, "Una", "charging", target="Orc", negated=True, negated_by="Orc")
    p = plan(state, "Una", "Orc", charge=True, distance=40)
    assert rules_of(p.damage.modifiers) == [(0, "ODD-CHARGE-5")]


def test_charge_rules_follow_the_charge_option() -> None:
    # rule: ODD-CHARGE-3 only under charge=odd_damage_bonus
    data = encounter([fighter("Una")], [orc()], options={"charge": "hr_to_hit_bonus"})
    state = state_of(data)
    p = plan(state, "Una", "Orc", charge=True, distance=30)
    assert "ODD-CHARGE-3" not in [m.rule for m in p.damage.modifiers]


def test_on_the_grid_melee_needs_reach() -> None:
    # rule: ODD-ACT-ATK (moving more than half the rate forbids attacking: out of reach, close in or charge)
    data = encounter([fighter(position=[0, 0], weapons=["long sword", "polearm"])], [orc(position=[0, 2])])
    state = state_of(data)
    with pytest.raises(IllegalActionError, match="ODD-ACT-ATK"):
        plan(state, "Ann", "Orc")
    assert plan(state, "Ann", "Orc", weapon="polearm").armour_class.value == 12  # 10 ft reach


def test_no_missile_attack_beyond_long_range() -> None:
    # rule: ODD-RANGED-3 (TV-DER-01: increment 30 ft: 90 ft is long range, 91 ft no attack possible)
    data = encounter([fighter(weapons=[{"name": "sling", "range": 30}])], [orc()])
    state = state_of(data)
    assert plan(state, "Ann", "Orc", distance=90).check.bonus == 3 - 6
    with pytest.raises(IllegalActionError, match="ODD-RANGED-3"):
        plan(state, "Ann", "Orc", distance=91)


def _mover(conditions: list[str] | None = None, **encounter: object) -> CombatantState:
    from tests.conftest import make_setup

    from referee.dice import ScriptedDice
    from referee.engine.fight import Fight

    data = {
        "sides": [
            {
                "name": "A",
                "combatants": [
                    {"name": "Diver", "hp": 9, "level": 1, "move": 30, "conditions": conditions or []}
                ],
            },
            {
                "name": "B",
                "combatants": [{"name": "Eel", "hp": 5, "hit_dice": 1, "swim": 40, "aquatic": True}],
            },
        ],
        **encounter,
    }
    fight = Fight(make_setup(data))
    fight.begin(ScriptedDice([]))
    return fight.state["Diver"]


def test_underwater_non_native_moves_at_a_third() -> None:
    # rule: MOD-UW-2: 30 ft → 10 ft for a non-native swimmer underwater
    from referee.rules.movement import allowance

    assert allowance(_mover(environment={"underwater": True}, ruleset="mod")) == 10
    assert allowance(_mover(environment={"underwater": True}, ruleset="mf")) == 30  # 003 has no such rule
    assert allowance(_mover()) == 30


def test_slowed_moves_at_half_speed_and_stunned_not_at_all() -> None:
    # rule: MOD-COND-SLOWED (half speed), MOD-COND-STUN-1 (immobile, no 5-ft minimum)
    from referee.rules.movement import allowance, is_restrained

    assert allowance(_mover(["slowed"], ruleset="mod")) == 15
    stunned = _mover(["stunned"], ruleset="mod")
    assert allowance(stunned) == 0 and is_restrained(stunned)
