"""ODD situational modifiers, cover and referee rulings (src/referee/rules/situational.py)."""

from __future__ import annotations

import pytest
from tests.odd_helpers import encounter, fighter, give, orc, plan, rules_of, state_of

from referee.checks import Modifier
from referee.errors import IllegalActionError
from referee.rules.context import Situation
from referee.rules.situational import ruling, ruling_band


def ann_and_orc(**ann: object) -> dict:  # type: ignore[type-arg]
    return encounter([fighter(**ann)], [orc()])


def to_hit(state, situation: Situation | None = None, attacker: str = "Ann", target: str = "Orc", **fields):  # type: ignore[no-untyped-def]
    p = plan(state, attacker, target, situation=situation or Situation(), **fields)
    return [(v, r) for v, r in rules_of(p.check.modifiers) if r != "ODD-BTH-1"]


def test_prone_or_blind_defender_is_plus_5_counted_once() -> None:
    # rule: ODD-SIT-PRONE
    state = state_of(ann_and_orc())
    give(state, "Orc", "prone")
    assert to_hit(state) == [(5, "ODD-SIT-PRONE")]
    give(state, "Orc", "blind")
    assert to_hit(state) == [(5, "ODD-SIT-PRONE")]  # prone and blind: still +5
    state = state_of(ann_and_orc())
    give(state, "Orc", "blind")
    assert to_hit(state) == [(5, "ODD-SIT-PRONE")]


def test_prone_and_defenceless_is_plus_10_replacing_plus_5() -> None:
    # rule: ODD-SIT-DEFENCELESS (+10 replaces +5: GAP-INTERPRETATIONS)
    state = state_of(ann_and_orc())
    give(state, "Orc", "prone")
    give(state, "Orc", "defenceless")
    p = plan(state, "Ann", "Orc")
    assert sorted(rules_of(p.check.modifiers)) == [(3, "ODD-BTH-1"), (10, "ODD-SIT-DEFENCELESS")]
    assert p.check.bonus == 13


def test_defender_lower_stunned_or_cowering() -> None:
    # rule: ODD-SIT-LOWER (+1), ODD-SIT-STUN (+2 stunned or cowering)
    state = state_of(ann_and_orc())
    assert to_hit(state, Situation(flags=frozenset({"higher"}))) == [(1, "ODD-SIT-LOWER")]
    give(state, "Orc", "cowering")
    assert to_hit(state) == [(2, "ODD-SIT-STUN")]
    give(state, "Orc", "stunned")
    assert to_hit(state) == [(2, "ODD-SIT-STUN")]


def test_invisible_defender_or_blind_attacker_is_minus_10_counted_once() -> None:
    # rule: ODD-SIT-INVIS
    state = state_of(ann_and_orc())
    give(state, "Orc", "invisible")
    assert to_hit(state) == [(-10, "ODD-SIT-INVIS")]
    give(state, "Ann", "blind")
    assert to_hit(state) == [(-10, "ODD-SIT-INVIS")]


def test_attacking_from_a_mount_or_unstable_platform() -> None:
    # rule: ODD-SIT-MOUNT-M (-2 melee), ODD-SIT-MOUNT-R (-4 ranged)
    state = state_of(ann_and_orc(weapons=["long sword", "short bow"]))
    give(state, "Ann", "mounted")
    assert to_hit(state) == [(-2, "ODD-SIT-MOUNT-M")]
    assert to_hit(state, weapon="short bow", distance=30) == [(-4, "ODD-SIT-MOUNT-R")]
    state = state_of(ann_and_orc())
    assert to_hit(state, Situation(flags=frozenset({"unstable"}))) == [(-2, "ODD-SIT-MOUNT-M")]


@pytest.mark.parametrize(
    ("degree", "value", "rule"),
    [
        ("quarter", -2, "ODD-SIT-CONC-25"),
        ("half", -4, "ODD-SIT-CONC-50"),
        ("three_quarters", -6, "ODD-SIT-CONC-75"),
        ("full", -10, "ODD-SIT-CONC-100"),
    ],
)
def test_concealment_is_a_to_hit_penalty_one_degree_only(degree: str, value: int, rule: str) -> None:
    # rule: ODD-SIT-CONC (to hit, not AC; one degree applies)
    state = state_of(ann_and_orc())
    p = plan(state, "Ann", "Orc", situation=Situation(concealment=degree))
    assert [(v, r) for v, r in rules_of(p.check.modifiers) if "-CONC-" in r] == [(value, rule)]
    assert p.armour_class.value == 12  # concealment leaves AC alone


def test_listed_modifiers_are_cumulative() -> None:
    # rule: ODD-SIT-3: prone +5, from above +1, dense fog -4, on BTH +3 → +5 in all
    state = state_of(ann_and_orc())
    give(state, "Orc", "prone")
    p = plan(state, "Ann", "Orc", situation=Situation(concealment="half", flags=frozenset({"higher"})))
    assert sorted(rules_of(p.check.modifiers)) == [
        (-4, "ODD-SIT-CONC-50"), (1, "ODD-SIT-LOWER"), (3, "ODD-BTH-1"), (5, "ODD-SIT-PRONE"),
    ]  # fmt: skip
    assert p.check.bonus == 5
    assert p.check.needed() == 7  # 7 + 5 = 12 = AC


def test_other_variants_leave_the_odd_modifiers_out() -> None:
    # rule: ODD-SIT-PRONE applies only under prone=odd_plus_5, ODD-SIT-STUN only under stunned=odd_plus_2
    data = ann_and_orc()
    data["options"] = {"prone": "mf_plus_2", "stunned": "mod_plus_4", "concealment": "mf_miss_chance"}
    state = state_of(data)
    give(state, "Orc", "prone")
    give(state, "Orc", "stunned")
    found = to_hit(state, Situation(concealment="half"))
    assert not [r for _, r in found if r.startswith("ODD-")]


@pytest.mark.parametrize(
    ("degree", "ac", "rule"),
    [("quarter", 14, "ODD-COVER-25"), ("half", 16, "ODD-COVER-50"), ("three_quarters", 18, "ODD-COVER-75"),
     ("full", 22, "ODD-COVER-100")],
)  # fmt: skip
def test_cover_raises_ac(degree: str, ac: int, rule: str) -> None:
    # rule: ODD-COVER-25 +2, ODD-COVER-50 +4, ODD-COVER-75 +6, ODD-COVER-100 +10 (orc AC 12)
    state = state_of(ann_and_orc(weapons=["long sword", "short bow"]))
    for weapon, distance in (("long sword", None), ("short bow", 30)):
        p = plan(state, "Ann", "Orc", weapon=weapon, distance=distance, situation=Situation(cover=degree))
        assert p.armour_class.value == ac
        assert p.armour_class.components[-1].rule == rule


def test_anaximorus_behind_the_column() -> None:
    # rule: ODD-COVER-75, ODD-COVER-MELEE, ODD-COVER-NOATK (TV-000-13)
    data = encounter([fighter("Anaximorus", weapons=["dagger", "light crossbow"])], [orc("Golem", ac=14)])
    state = state_of(data)
    golem_swings = plan(state, "Golem", "Anaximorus", situation=Situation(cover="three_quarters"))
    assert golem_swings.armour_class.value == 10 + 6
    # in melee the column shelters the golem from her just as much
    she_stabs = plan(
        state,
        "Anaximorus",
        "Golem",
        situation=Situation(cover="three_quarters", flags=frozenset({"attacker_in_cover"})),
    )
    assert she_stabs.armour_class.value == 14 + 6
    assert she_stabs.armour_class.components[-1].rule == "ODD-COVER-MELEE"
    # a bolt shot out of cover gives the golem nothing
    she_shoots = plan(state, "Anaximorus", "Golem", weapon="light crossbow", distance=30,
                      situation=Situation(cover="three_quarters", flags=frozenset({"attacker_in_cover"})))  # fmt: skip
    assert she_shoots.armour_class.value == 14
    with pytest.raises(IllegalActionError, match="ODD-COVER-NOATK"):
        plan(state, "Anaximorus", "Golem", situation=Situation(flags=frozenset({"no_attack_from_cover"})))


def test_cover_degree_not_in_the_odd_table_is_refused() -> None:
    # rule: ODD-COVER-75 (the ODD table has no 90% cover)
    state = state_of(ann_and_orc())
    with pytest.raises(IllegalActionError, match="not an ODD degree"):
        plan(state, "Ann", "Orc", situation=Situation(cover="ninety"))


def test_attacker_must_know_the_defender_is_there() -> None:
    # rule: ODD-SIT-4
    state = state_of(ann_and_orc())
    with pytest.raises(IllegalActionError, match="ODD-SIT-4"):
        plan(state, "Ann", "Orc", situation=Situation(flags=frozenset({"undetected"})))
    give(state, "Orc", "invisible")  # known to be there, position unknown: -10 (ODD-SIT-INVIS)
    assert plan(state, "Ann", "Orc").check.bonus == 3 - 10


def test_rusted_armour_and_a_defensive_maneuver_adjust_ac() -> None:
    # rule: ODD-AC-SIT (TV-000-16: rusted chain +5 → +4, AC 14), ODD-MANEUVER-1 (+2 for the round)
    state = state_of(encounter([fighter()], [orc("Guard", ac=None, armour="chain mail")]))
    rust = Modifier(-1, "ODD-AC-SIT", "rusted armour")
    p = plan(state, "Ann", "Guard", situation=Situation(ac_modifiers=(rust,)))
    assert p.armour_class.value == 14
    give(state, "Guard", "maneuvering", ac=2, reason="parrying and giving ground")
    assert plan(state, "Ann", "Guard").armour_class.value == 17
    assert plan(state, "Ann", "Guard").armour_class.components[-1].rule == "ODD-MANEUVER-1"


def test_referee_rulings_and_their_bands() -> None:
    # rule: ODD-SIT-1, ODD-SIT-2 (TV-000-11: the drunk on a fraying rope, -10 is difficult)
    assert [ruling_band(v) for v in (0, 5, -5, 6, -10, 11, -15)] == [
        "easy", "easy", "easy", "difficult", "difficult", "heroic", "heroic",
    ]  # fmt: skip
    drunk = ruling(-10, "drunk, swinging on a fraying rope", band="difficult")
    assert (drunk.value, drunk.rule) == (-10, "ODD-SIT-1")
    assert "difficult" in drunk.reason
    with pytest.raises(IllegalActionError, match="ODD-SIT-2"):
        ruling(-10, "drunk", band="easy")
    with pytest.raises(IllegalActionError, match="ODD-SIT-2"):
        ruling(2, "sun behind him", band="trivial")
    state = state_of(ann_and_orc())
    p = plan(state, "Ann", "Orc", situation=Situation(modifiers=(drunk,)))
    assert p.check.bonus == 3 - 10


def test_further_modifiers_magic_weapons_and_the_same_procedure_for_monsters() -> None:
    # rule: ODD-MELEE-3 (a magic weapon's bonus adds to the roll), ODD-NPC-1 (monsters use the same
    # procedure), ODD-ROUND-3 (abstract rounds: the ODD ruleset has no segments)
    state = state_of(encounter([fighter(weapons=[{"name": "long sword", "to_hit": 1}])], [orc()]))
    assert sorted(rules_of(plan(state, "Ann", "Orc").check.modifiers)) == [
        (1, "ODD-MELEE-3"),
        (3, "ODD-BTH-1"),
    ]
    give(state, "Ann", "prone")
    assert sorted(rules_of(plan(state, "Orc", "Ann").check.modifiers)) == [
        (1, "ODD-BTH-2"),
        (5, "ODD-SIT-PRONE"),
    ]
    assert state.setup.ruleset["round_timing"] == "abstract"
