"""What decided an outcome (issue 13, item 12): the modifiers whose removal alone flips hit and miss,
and the damage modifiers without which the target would still stand. Every number is worked by hand."""

from __future__ import annotations

from dataclasses import replace

from tests.conftest import angthar_data, make_setup

from referee.checks import Check, Keep, Modifier, Natural
from referee.dice import DieRoll, ScriptedDice
from referee.engine.actions import Attack
from referee.engine.fight import Fight
from referee.engine.resolve import plan_declared_attack
from referee.rules.armour_class import ArmourClass
from referee.rules.attack import AttackPlan
from referee.rules.attack_roll import AttackOutcome
from referee.rules.decisive import (
    ARMOUR,
    DAMAGE,
    TO_HIT,
    Decisive,
    attack_decisive,
    check_decisive,
    damage_base,
    damage_decisive,
    describe,
    tally,
)
from referee.rules.ruleset import Ruleset

ODD = Ruleset.preset("odd")
BTH = Modifier(4, "ODD-BTH-1", "basic to-hit")
STR = Modifier(1, "ODD-MELEE-1", "Str")


def ascending(*components: Modifier) -> ArmourClass:
    return ArmourClass(sum(m.value for m in components), "ascending", components)


def descending(*components: Modifier) -> ArmourClass:
    return ArmourClass(sum(m.value for m in components), "descending", components)


def attack_check(
    ac: ArmourClass, *mods: Modifier, natural: Natural = Natural.NONE, keep: Keep = Keep.ALL
) -> Check:
    """An attack check as rules/attack.py builds it: the target is the AC's target number."""
    shown = ac.value if ac.convention == "descending" else None
    return Check("A → B", modifiers=mods, target=ac.to_hit_target, target_modifiers=ac.components,
                 natural=natural, keep=keep, shown_target=shown, words=("hit", "miss"))  # fmt: skip


def rules_of(found: tuple[Decisive, ...]) -> list[tuple[str, int, str]]:
    return [(d.modifier.rule, d.modifier.value, d.side) for d in found]


# --- the attack roll --------------------------------------------------------------------------------


def test_both_bonuses_decide_an_exact_hit() -> None:
    # rule: ODD-BTH-1, ODD-MELEE-1: d20 13 + 4 + 1 = 18 against AC 18 hits; without the +4 it is 14, without
    # the +1 it is 17: each alone would have missed, so both decided it
    ac = ascending(Modifier(18, "ODD-AC-1", "listed AC"))
    found = check_decisive(attack_check(ac, BTH, STR), 13, ac, ODD)
    assert rules_of(found) == [("ODD-BTH-1", 4, TO_HIT), ("ODD-MELEE-1", 1, TO_HIT)]
    assert describe(d.to_dict() for d in found) == (
        "+4 basic to-hit [ODD-BTH-1] and +1 Str [ODD-MELEE-1] decided it"
    )


def test_a_hit_with_room_to_spare_has_nothing_decisive() -> None:
    # rule: ODD-ATK-1: d20 18 + 5 = 23 against AC 12; without either bonus it still hits
    ac = ascending(Modifier(10, "ODD-AC-1", "base"), Modifier(2, "ODD-AC-ARMOR", "leather"))
    assert check_decisive(attack_check(ac, BTH, STR), 18, ac, ODD) == ()


def test_a_natural_20_under_hr_nat_1_is_decided_by_nothing() -> None:
    # rule: HR-NAT-1: a natural 20 hits whatever the total (20 + 4 = 24 against AC 30), a natural 1 misses
    # (1 + 25 = 26 against AC 12); no modifier's removal changes that
    high = ascending(Modifier(30, "ODD-AC-1", "listed AC"))
    assert check_decisive(attack_check(high, BTH, natural=Natural.AUTO_HIT_MISS), 20, high, ODD) == ()
    low = ascending(Modifier(12, "ODD-AC-1", "listed AC"))
    huge = Modifier(25, "ODD-SIT-1", "referee")
    assert check_decisive(attack_check(low, huge, natural=Natural.AUTO_HIT_MISS), 1, low, ODD) == ()


def test_a_natural_20_without_hr_nat_1_is_an_ordinary_roll() -> None:
    # rule: ODD-ATK-1 (natural_rolls = none): 20 + 4 = 24 against AC 24 hits only with the +4
    ac = ascending(Modifier(24, "ODD-AC-1", "listed AC"))
    assert rules_of(check_decisive(attack_check(ac, BTH), 20, ac, ODD)) == [("ODD-BTH-1", 4, TO_HIT)]


def test_armour_decides_a_miss() -> None:
    # rule: ODD-AC-ARMOR: d20 10 + 1 hit dice [ODD-BTH-2] = 11 against AC 12 (10 base + 2 leather) misses;
    # without the leather the AC is 10 and 11 hits. The +1 only helped; the base 10 is no modifier.
    ac = ascending(Modifier(10, "ODD-AC-1", "base"), Modifier(2, "ODD-AC-ARMOR", "leather"))
    check = attack_check(ac, Modifier(1, "ODD-BTH-2", "hit dice"))
    found = check_decisive(check, 10, ac, ODD)
    assert rules_of(found) == [("ODD-AC-ARMOR", 2, ARMOUR)]
    assert str(found[0]) == "+2 leather [ODD-AC-ARMOR] (AC)"


def test_a_dex_penalty_to_ac_decides_a_hit() -> None:
    # rule: ODD-AC-DEX-1: AC 11 = 10 base + 2 leather - 1 Dex; d20 6 + 5 = 11 hits, at AC 12 it would miss.
    # The +1 Str also decided it (10 < 11); the +4 too (7 < 11)
    dex = Modifier(-1, "ODD-AC-DEX-1", "Dex")
    ac = ascending(Modifier(10, "ODD-AC-1", "base"), Modifier(2, "ODD-AC-ARMOR", "leather"), dex)
    found = check_decisive(attack_check(ac, BTH, STR), 6, ac, ODD)
    assert rules_of(found) == [
        ("ODD-BTH-1", 4, TO_HIT),
        ("ODD-MELEE-1", 1, TO_HIT),
        ("ODD-AC-DEX-1", -1, ARMOUR),
    ]


def test_descending_ac_a_shield_decides_a_miss() -> None:
    # rule: GAP-DESC-TOHIT: DAC 4 = 5 chain mail - 1 shield needs 20 - 4 = 16; d20 14 + 1 = 15 misses.
    # Without the shield the DAC is 5, needing 15: a hit. So the -1 shield [DAC-DEFL-1] decided it.
    ac = descending(Modifier(5, "DAC-EQ-1", "chain mail"), Modifier(-1, "DAC-DEFL-1", "shield"))
    check = attack_check(ac, Modifier(1, "ODD-BTH-2", "hit dice"))
    assert (check.target, check.succeeds(14)) == (16, False)
    assert rules_of(check_decisive(check, 14, ac, ODD)) == [("DAC-DEFL-1", -1, ARMOUR)]


def test_descending_ac_a_worse_ac_component_decides_a_hit() -> None:
    # rule: DAC-DODGE-3, GAP-DESC-TOHIT: DAC 6 = 5 chain mail + 1 Dex penalty needs 14; d20 13 + 1 = 14 hits.
    # Without the penalty the DAC is 5, needing 15: a miss. The +1 hit dice decided it too (13 < 14).
    penalty = Modifier(1, "DAC-DODGE-3", "Dex penalty kept")
    ac = descending(Modifier(5, "DAC-EQ-1", "chain mail"), penalty)
    found = check_decisive(attack_check(ac, Modifier(1, "ODD-BTH-2", "hit dice")), 13, ac, ODD)
    assert rules_of(found) == [("ODD-BTH-2", 1, TO_HIT), ("DAC-DODGE-3", 1, ARMOUR)]


def test_advantage_the_kept_die_is_the_natural() -> None:
    # rule: GAP-ADV: 2d20 keep highest, 7 and 13: the 13 is kept; 13 + 4 + 1 = 18 against AC 18 as above
    ac = ascending(Modifier(18, "ODD-AC-1", "listed AC"))
    check = attack_check(ac, BTH, STR, keep=Keep.HIGHEST)
    natural = check.natural_of((7, 13))
    assert rules_of(check_decisive(check, natural, ac, ODD)) == [
        ("ODD-BTH-1", 4, TO_HIT),
        ("ODD-MELEE-1", 1, TO_HIT),
    ]


def test_zero_entries_never_decide() -> None:
    # rule: ODD-AC-DEX-2: a lost Dex is listed as +0 ("no Dex: surprised"); removing nothing flips nothing
    ac = ascending(Modifier(12, "ODD-AC-1", "listed AC"), Modifier(0, "ODD-AC-DEX-2", "no Dex: surprised"))
    assert check_decisive(attack_check(ac, Modifier(0, "ODD-MELEE-1", "Str")), 12, ac, ODD) == ()


# --- attack_decisive: automatic results and the miss chance ------------------------------------------


def planned(**options: object) -> AttackPlan:
    """Angthar (d20 + 4 BTH + 1 Str against the goblin's AC 12; battle axe 1d8 + 1 Str), to act."""
    fight = Fight(make_setup(angthar_data(options=options)))
    fight.begin(ScriptedDice([]))
    fight.start_round(ScriptedDice([7, 4]))
    return plan_declared_attack(fight.state, Attack("Angthar", target="Goblin"))[1]


def outcome(natural: int, hit: bool, missed_by_chance: bool = False) -> AttackOutcome:
    return AttackOutcome(natural, hit, False, False, missed_by_chance, (natural,))


def test_the_plan_of_a_rolled_attack() -> None:
    # rule: ODD-BTH-1: d20 8 + 4 + 1 = 13 against AC 12; without the +4 it is 9, a miss; the +1 leaves 12, a hit
    assert rules_of(attack_decisive(planned(), outcome(8, True), ODD)) == [("ODD-BTH-1", 4, TO_HIT)]


def test_an_automatic_hit_has_nothing_decisive() -> None:
    # rule: HR-HELPLESS-1: an automatic hit rolls no die; no modifier decided it
    plan = planned()
    plan = replace(plan, check=replace(plan.check, automatic=True))
    assert attack_decisive(plan, AttackOutcome(0, True, False, False, False, ()), ODD) == ()


def test_a_hit_lost_to_the_miss_chance_is_decided_by_no_modifier() -> None:
    # rule: MF-VIS-5: 8 + 5 = 13 hits AC 12, then the d100 takes it away: the die decided, not the +4
    plan = replace(planned(), miss_chance=50, miss_chance_rule="MF-VIS-1")
    assert attack_decisive(plan, outcome(8, False, missed_by_chance=True), ODD) == ()
    # a hit that survived the miss chance is decided as any hit; a miss by the roll is not certain to flip
    assert rules_of(attack_decisive(plan, outcome(8, True), ODD)) == [("ODD-BTH-1", 4, TO_HIT)]
    assert attack_decisive(plan, outcome(2, False), ODD) == ()


# --- damage -----------------------------------------------------------------------------------------


def test_strength_decides_a_defeat() -> None:
    # rule: ODD-MELEE-2: d8 3 + 1 Str = 4 damage drops the 4-hp goblin; 3 would leave it standing at 1 hp
    plan = planned()
    base = damage_base(plan, False, (DieRoll(8, 3, "damage"),))
    assert base == 3
    found = damage_decisive(plan, base, plan.damage.modifiers, lambda n: n < 4)
    assert rules_of(found) == [("ODD-MELEE-2", 1, DAMAGE)]
    # 7 damage (d8 6 + 1) kills it with or without the +1: nothing decided the defeat
    assert damage_decisive(plan, 6, plan.damage.modifiers, lambda n: n < 4) == ()
    # a blow that leaves it standing decides no defeat
    assert damage_decisive(plan, 1, plan.damage.modifiers, lambda n: n < 4) == ()


def test_minimum_damage_fells_anyway() -> None:
    # rule: GAP-MIN-DAMAGE: d8 1 + 1 Str - 2 = 0, at least 1: the 1-hp target falls; without the +1 it is
    # -1, still at least 1, so the +1 decided nothing (and removing the -2 only adds damage)
    plan = planned()
    mods = (Modifier(1, "ODD-MELEE-2", "Str"), Modifier(-2, "MOD-COND-FATIGUED", "fatigued"))
    assert damage_decisive(plan, 1, mods, lambda n: n < 1) == ()


def test_double_damage_counts_the_modifier_twice() -> None:
    # rule: HR-CHARGE-4 (double_damage = total): (d8 1 + 1 Str) x 2 = 4 drops the 4-hp goblin; without the
    # +1 it is 2
    plan = planned()
    plan = replace(plan, damage=replace(plan.damage, total_multiplier=2, doubled_by=("HR-CHARGE-4",)))
    assert rules_of(damage_decisive(plan, 1, plan.damage.modifiers, lambda n: n < 4)) == [
        ("ODD-MELEE-2", 1, DAMAGE)
    ]


def test_maximised_damage_is_replayed_as_the_maximum() -> None:
    # rule: HR-HELPLESS-2: maximum damage rolls no die: the base of 1d8 is 8
    plan = planned()
    assert damage_base(replace(plan, damage=replace(plan.damage, maximise=True)), False, ()) == 8


# --- the fight's table ------------------------------------------------------------------------------


def test_tally_counts_outcomes_most_first() -> None:
    bth = BTH.to_dict()
    strength = STR.to_dict()
    rows = tally([[bth, strength], [bth], [strength, strength]])
    assert [(r.rule, r.reason, r.outcomes) for r in rows] == [
        ("ODD-BTH-1", "basic to-hit", 2),
        ("ODD-MELEE-1", "Str", 2),
    ]
    assert describe([]) == ""
