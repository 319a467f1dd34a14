"""ODD grapple, pummel, overbear, touch and natural weapons (src/referee/rules/maneuvers.py)."""

from __future__ import annotations

import pytest
from tests.odd_helpers import encounter, fighter, give, orc, plan, rules_of, state_of

from referee.errors import IllegalActionError
from referee.rules.context import AttackForm, Situation


def troll_and_halfling(**options: str) -> dict:  # type: ignore[type-arg]
    troll = {"name": "Troll", "hit_dice": 6, "hp": 40, "ac": 16, "size": "large", "abilities": {"str": 18},
             "weapons": ["claw"]}  # fmt: skip
    halfling = fighter(
        "Hob", size="small", abilities={"str": 14, "dex": 14}, armour="chain mail", shield="small shield"
    )
    return encounter([halfling], [troll], options=options)


def test_troll_grapples_the_halfling_on_the_bridge() -> None:
    # rule: ODD-GRAP-2 (TV-000-10, X-5): 15 + Str 14 (+1) + Dex 14 (+1) - 2 × 2 sizes = 13; armour ignored
    state = state_of(troll_and_halfling())
    p = plan(state, "Troll", "Hob", form=AttackForm.GRAPPLE)
    assert p.armour_class.value == 13
    assert p.armour_class.kind == "grapple"
    assert rules_of(p.armour_class.components) == [
        (15, "ODD-GRAP-2"),
        (1, "ODD-GRAP-2"),
        (1, "ODD-GRAP-2"),
        (-4, "ODD-GRAP-2"),
    ]


def test_the_same_inputs_under_the_overbear_formula() -> None:
    # rule: ODD-OVERB-2: 15 + Str (+1) - 4 = 12; no Dex, no armour
    state = state_of(troll_and_halfling())
    p = plan(state, "Troll", "Hob", form=AttackForm.OVERBEAR)
    assert p.armour_class.value == 12


def test_grapple_roll_adds_strength_and_bth_only_if_the_referee_allows() -> None:
    # rule: ODD-GRAP-1 (d20 + Str; BTH only with option grapple_adds_bth)
    state = state_of(troll_and_halfling())
    assert rules_of(plan(state, "Troll", "Hob", form=AttackForm.GRAPPLE).check.modifiers) == [
        (3, "ODD-GRAP-1")
    ]
    state = state_of(troll_and_halfling(grapple_adds_bth="on"))
    assert sorted(rules_of(plan(state, "Troll", "Hob", form=AttackForm.GRAPPLE).check.modifiers)) == [
        (3, "ODD-GRAP-1"), (6, "ODD-BTH-2"),
    ]  # fmt: skip


def test_a_grapple_hit_holds_the_defender() -> None:
    # rule: ODD-GRAP-3: held = grappled, prone and defenceless until broken; the holder is grappling
    state = state_of(troll_and_halfling())
    p = plan(state, "Troll", "Hob", form=AttackForm.GRAPPLE)
    assert sorted((e.condition, e.who, e.rounds) for e in p.on_hit) == [
        ("defenceless", "defender", None), ("grappled", "defender", None), ("grappling", "attacker", None),
        ("prone", "defender", None),
    ]  # fmt: skip
    assert p.damage.none  # a grapple holds, it does not hurt


def test_a_held_creature_is_hit_at_plus_10_loses_dex_and_can_only_break_free() -> None:
    # rule: ODD-GRAP-3 (prone and defenceless: +10, ODD-SIT-DEFENCELESS; no Dex, ODD-AC-DEX-2)
    data = troll_and_halfling()
    data["sides"][1]["combatants"].append(orc("Goblin"))
    state = state_of(data)
    for name in ("grappled", "prone", "defenceless"):
        give(state, "Hob", name, source="Troll")
    give(state, "Troll", "grappling", source="Troll")
    goblin = plan(state, "Goblin", "Hob")
    assert (10, "ODD-SIT-DEFENCELESS") in rules_of(goblin.check.modifiers)
    assert any(m.rule == "ODD-GRAP-3" and m.value == 0 for m in goblin.armour_class.components)  # Dex +1 lost
    assert goblin.armour_class.value == 10 + 5 + 1  # chain + small shield, no Dex
    with pytest.raises(IllegalActionError, match="ODD-GRAP-3"):
        plan(state, "Hob", "Goblin")
    with pytest.raises(IllegalActionError, match="ODD-GRAP-3"):
        plan(state, "Hob", "Troll")  # a sword blow is not breaking the hold


def test_breaking_the_hold_is_a_grapple_against_the_holders_grapple_ac() -> None:
    # rule: ODD-GRAP-4 (GAP-GRAPPLE-BREAK: 15 + troll Str 18 (+3) + Dex 0 + 2 × 2 sizes = 22)
    state = state_of(troll_and_halfling())
    give(state, "Hob", "grappled", source="Troll")
    p = plan(state, "Hob", "Troll", form=AttackForm.GRAPPLE)
    assert p.armour_class.value == 22
    assert rules_of(p.check.modifiers) == [(1, "ODD-GRAP-1")]
    assert p.on_hit == ()  # breaking free does not put the troll in a hold


def test_pummel_is_strength_against_normal_ac_for_1d2_plus_strength_subdual() -> None:
    # rule: ODD-PUMMEL-1 (d20 + Str vs normal AC, no BTH), ODD-PUMMEL-2 (1d2 + Str, subdual)
    state = state_of(encounter([fighter(abilities={"str": 16})], [orc()]))
    p = plan(state, "Ann", "Orc", form=AttackForm.PUMMEL, weapon="unarmed")
    assert rules_of(p.check.modifiers) == [(2, "ODD-PUMMEL-1")]
    assert p.armour_class.value == 12
    assert p.damage.dice.text == "1d2"
    assert rules_of(p.damage.modifiers) == [(2, "ODD-PUMMEL-2")]
    assert p.damage.subdual


def test_a_characters_bare_handed_blow_is_a_pummel_a_monsters_claw_is_not() -> None:
    # rule: ODD-UNARMED-2 (a non-monk punching is pummelling; natural weapons never are),
    # ODD-UNARMED-1 (natural weapons attack as melee: d20 + BTH + Str, monster's damage)
    state = state_of(encounter([fighter(weapons=[])], [orc(weapons=["claw"])]))
    assert plan(state, "Ann", "Orc").form is AttackForm.PUMMEL
    claw = plan(state, "Orc", "Ann")
    assert claw.form is AttackForm.MELEE
    assert rules_of(claw.check.modifiers) == [(1, "ODD-BTH-2")]
    assert claw.damage.dice.text == "1d4"
    with pytest.raises(IllegalActionError, match="ODD-UNARMED-2"):
        plan(state, "Orc", "Ann", form=AttackForm.PUMMEL)
    state = state_of(encounter([fighter()], [orc(weapons=[])]))
    assert plan(state, "Orc", "Ann").form is AttackForm.MELEE  # a monster's bare attack is a natural one


def test_overbear_knocks_down_to_the_end_of_the_round_and_exposes_the_attacker() -> None:
    # rule: ODD-OVERB-1 (d20 + Str), ODD-OVERB-3 (prone to the end of the round, 1d2 subdual),
    # ODD-OVERB-5 (attacker AC 2 worse for the round, hit or miss)
    state = state_of(encounter([fighter(abilities={"str": 14})], [orc()]))
    p = plan(state, "Ann", "Orc", form=AttackForm.OVERBEAR)
    assert rules_of(p.check.modifiers) == [(1, "ODD-OVERB-1")]
    assert [(e.condition, e.who, e.rounds) for e in p.on_hit] == [("prone", "defender", 0)]
    assert [(e.condition, e.who, e.rounds) for e in p.on_attempt] == [("overbearing", "attacker", 0)]
    assert p.damage.dice.text == "1d2" and p.damage.subdual
    assert rules_of(p.damage.modifiers) == []  # no Str to overbear damage
    give(state, "Ann", "overbearing")
    orc_swing = plan(state, "Orc", "Ann")
    assert orc_swing.armour_class.value == 10 - 2
    assert orc_swing.armour_class.components[-1].rule == "ODD-OVERB-5"


def test_no_overbearing_a_defender_two_sizes_larger() -> None:
    # rule: ODD-OVERB-4, ODD-OVERB-2 (TV-DER-05: Small vs Large refused; Small vs Medium Str +1 → 15 + 1 + 2 = 18)
    data = encounter(
        [fighter("Pip", size="small")], [orc("Ogre", size="large"), orc("Man", abilities={"str": 13})]
    )
    state = state_of(data)
    with pytest.raises(IllegalActionError, match="ODD-OVERB-4"):
        plan(state, "Pip", "Ogre", form=AttackForm.OVERBEAR)
    assert plan(state, "Pip", "Man", form=AttackForm.OVERBEAR).armour_class.value == 18


def test_touch_ac_counts_dex_and_protective_magic_only() -> None:
    # rule: ODD-TOUCH-1 (10 + Dex + rings/spells; no armour, shield or cover), ODD-AC-MAGIC-2 (magic armour does
    # not count against touch), ODD-AC-MAGIC-1 (it counts against a normal attack)
    knight = fighter("Knight", abilities={"dex": 14}, armour={"name": "chain mail", "enhancement": 2},
                     shield="medium shield", protection=[{"name": "ring of protection", "enhancement": 1}])  # fmt: skip
    state = state_of(encounter([knight], [orc("Wight")]))
    touch = plan(state, "Wight", "Knight", form=AttackForm.TOUCH, situation=Situation(cover="half"))
    assert touch.armour_class.value == 10 + 1 + 1
    assert [m.rule for m in touch.armour_class.components] == [
        "ODD-TOUCH-1",
        "ODD-AC-DEX-1",
        "ODD-AC-MAGIC-2",
    ]
    assert touch.damage.none
    normal = plan(state, "Wight", "Knight")
    assert normal.armour_class.value == 10 + 5 + 2 + 1 + 1 + 1  # chain, its +2, Dex, shield, ring
    assert ("ODD-AC-MAGIC-1", 2) in [(m.rule, m.value) for m in normal.armour_class.components]


def test_the_odd_hold_only_under_its_grapple_option() -> None:
    # rule: ODD-GRAP-3 (grapple_state=odd_held_defenceless; the 001 variant is another module's)
    state = state_of(troll_and_halfling(grapple_state="mod_grappled_plus_4"))
    p = plan(state, "Troll", "Hob", form=AttackForm.GRAPPLE)
    assert not [e for e in p.on_hit if e.rule == "ODD-GRAP-3"]
