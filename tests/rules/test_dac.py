"""Layered descending armour class (DAC-*): the fifth seed's worked examples (TV-004-*) and every rule."""

from __future__ import annotations

from typing import Any

import pytest
from tests.conftest import EXAMPLES, make_setup

from referee.checks import Modifier
from referee.dice import ScriptedDice
from referee.engine.actions import Attack
from referee.engine.events import EventType
from referee.engine.fight import Fight
from referee.engine.resolve import attack_context
from referee.errors import EncounterFileError
from referee.files import load_encounter
from referee.model import Combatant
from referee.rules.armour_class import ArmourClass, armour_class, protection
from referee.rules.attack import plan_attack
from referee.rules.context import AttackForm, Situation
from referee.rules.dac import armour_classes, armour_type, parse_defence_tag, type_modifier
from referee.rules.ruleset import Ruleset

DAC = Ruleset.preset("dac")

LUCAS: dict[str, Any] = {"name": "Lucas", "level": 3, "hp": 20, "abilities": {"dex": 16}}  # Dodge +2
KRIEGER: dict[str, Any] = {
    "name": "Krieger",
    "level": 3,
    "hp": 30,
    "natural_armour": 5,
    "abilities": {"dex": 7},
}


def kit(base: dict[str, Any], **gear: Any) -> dict[str, Any]:
    return {**base, **gear}


def setup_of(defender: dict[str, Any], attackers: int = 1, options: dict[str, str] | None = None,
             attacker: dict[str, Any] | None = None, ruleset: str = "dac") -> Any:  # fmt: skip
    foe = {"name": "Orc", "hit_dice": 1, "hp": 5, "weapons": ["club"], **(attacker or {})}
    if attackers > 1:
        foe["count"] = attackers
    return make_setup(
        {"ruleset": ruleset, "options": options or {},
         "sides": [{"name": "A", "combatants": [foe]}, {"name": "D", "combatants": [defender]}]}
    )  # fmt: skip


def combatant(defender: dict[str, Any], **kw: Any) -> Combatant:
    setup = setup_of(defender, **kw)
    return setup.combatant(defender["name"])


def four(defender: dict[str, Any], options: dict[str, str] | None = None) -> tuple[int, int, int, int]:
    ruleset = DAC.with_options(**(options or {}))
    f = armour_classes(combatant(defender, options=options), ruleset)
    return f.total, f.flatfooted, f.touch, f.flatfooted_touch


def total(defender: dict[str, Any]) -> int:
    return four(defender)[0]


def fight_of(defender: dict[str, Any], attackers: int = 1, **kw: Any) -> Fight:
    fight = Fight(setup_of(defender, attackers, **kw))
    fight.begin(ScriptedDice([]))
    fight.start_round(ScriptedDice([10 - i for i in range(attackers)] + [1]))
    return fight


def ac_now(fight: Fight, defender: str, attacker: str = "Orc", **kw: Any) -> ArmourClass:
    situation = Situation(flags=frozenset(kw.pop("flags", ())))
    return armour_class(
        attack_context(fight.state, Attack(attacker, target=defender, situation=situation, **kw))
    )


# --- 6.1 basics -------------------------------------------------------------------------------------


def test_tv_004_01_bonus_subtracts_penalty_adds() -> None:
    # rule: DAC-AC-2 (TV-004-01): AC 4 with a +1 bonus → 3; with a -2 penalty → 6
    listed = [Modifier(4, "DAC-AC-1", "listed AC")]
    assert sum(m.value for m in [*listed, protection(1, "DAC-AC-2", "bonus", descending=True)]) == 3
    assert sum(m.value for m in [*listed, protection(-2, "DAC-AC-2", "penalty", descending=True)]) == 6
    fight = fight_of({"name": "Knight", "hp": 9, "ac": 4})
    bonus = Situation(ac_modifiers=(Modifier(1, "DAC-AC-2", "bonus"),))
    penalty = Situation(ac_modifiers=(Modifier(-2, "DAC-AC-2", "penalty"),))
    assert (
        armour_class(attack_context(fight.state, Attack("Orc", target="Knight", situation=bonus))).value == 3
    )
    assert (
        armour_class(attack_context(fight.state, Attack("Orc", target="Knight", situation=penalty))).value
        == 6
    )


def test_descending_to_hit_needs_20_minus_ac() -> None:
    # rule: DAC-AC-1 with GAP-DESC-TOHIT: hit iff d20 + mods + DAC >= 20; the breakdown shows "AC 5 (needs 15)"
    fight = fight_of({"name": "Knight", "hp": 9, "armour": "chain mail"})
    plan = plan_attack(attack_context(fight.state, Attack("Orc", target="Knight")))
    assert plan.armour_class.value == 5 and plan.check.target == 15
    assert plan.check.bonus == 1  # the orc's hit die (ODD-BTH-2)
    assert plan.check.succeeds(14) and not plan.check.succeeds(13)
    assert "AC 5 (needs 15)" in plan.check.breakdown([14])


def test_to_hit_modifiers_stay_on_the_roll() -> None:
    # rule: DAC-AC-3: a change to the attacker's situation is a to-hit modifier, never folded into the AC
    fight = fight_of({"name": "Knight", "hp": 9, "armour": "chain mail"})
    situation = Situation(modifiers=(Modifier(2, "DAC-AC-3", "higher ground"),))
    plan = plan_attack(attack_context(fight.state, Attack("Orc", target="Knight", situation=situation)))
    assert plan.armour_class.value == 5 and plan.check.bonus == 3


def test_seven_component_kinds_and_base_ten() -> None:
    # rule: DAC-AC-4, DAC-BASE-1: base 10; natural armour, worn armour, deflection, dodge, enhancement,
    # circumstantial all show in one attack's breakdown
    assert total({"name": "Plain", "hp": 5}) == 10
    giant = {"creature_type": "giant"}
    defender = kit(KRIEGER, armour="leather", shield="medium shield", abilities={"dex": 16},
                   protection=[{"name": "ring", "enhancement": 1}], defences=["Defence II [Giants]"])  # fmt: skip
    fight = fight_of(defender, attacker=giant)
    ac = ac_now(fight, "Krieger")
    rules = {m.rule for m in ac.components}
    assert {"DAC-NAT-1", "DAC-MOD-LIGHT", "DAC-DEFL-1", "DAC-DODGE-1", "DAC-ENH-1", "DAC-CIRC-2"} <= rules
    assert ac.value == 5 - 1 - 1 - 2 - 1 - 2  # -2


def test_flatfooted_touch_is_base_ten_only_without_enhancement_or_dodge_penalty() -> None:
    # rule: DAC-BASE-2: flatfooted and touched → 10 for a plain defender; Krieger's kit gives 8
    assert four({"name": "Plain", "hp": 5, "abilities": {"dex": 16}})[3] == 10
    krieger = load_encounter(EXAMPLES / "lucas_and_krieger.yaml").combatant("Krieger")
    assert armour_classes(krieger, DAC).flatfooted_touch == 8


# --- 6.2 natural armour and types ---------------------------------------------------------------------


def test_tv_004_02_lucas_unarmoured_flatfooted() -> None:
    # rule: DAC-BASE-1, DAC-DODGE-4 (TV-004-02): Lucas, human, no armour, flatfooted → 10
    assert four(LUCAS)[1] == 10


def test_tv_004_03_krieger_natural_armour() -> None:
    # rule: DAC-NAT-1, DAC-TYPE-MEDIUM (TV-004-03): natural armour 5 → AC 5, type Medium
    assert total(kit(KRIEGER, abilities={"dex": 10})) == 5
    assert armour_type(5) == ("medium", "DAC-TYPE-MEDIUM")


@pytest.mark.parametrize(
    ("value", "kind", "rule", "mod", "mod_rule"),
    [
        (10, "none", "DAC-TYPE-NONE", 0, "DAC-TYPE-NONE"),
        (11, "none", "GAP-TYPE-ABOVE-10", 0, "DAC-TYPE-NONE"),
        (9, "light", "DAC-TYPE-LIGHT", 1, "DAC-MOD-LIGHT"),
        (7, "light", "DAC-TYPE-LIGHT", 1, "DAC-MOD-LIGHT"),
        (6, "medium", "DAC-TYPE-MEDIUM", 2, "DAC-MOD-MEDIUM"),
        (4, "heavy", "DAC-TYPE-HEAVY", 3, "DAC-MOD-HEAVY"),
        (1, "heavy", "DAC-TYPE-HEAVY", 3, "DAC-MOD-HEAVY"),
        (0, "very heavy", "DAC-TYPE-VHEAVY", 4, "DAC-MOD-VHEAVY"),
        (-3, "very heavy", "DAC-TYPE-VHEAVY", 4, "DAC-MOD-VHEAVY"),
        (-4, "impenetrable", "DAC-TYPE-IMPEN", 5, "DAC-MOD-IMPEN"),
        (-5, "impenetrable", "DAC-TYPE-IMPEN", 5, "DAC-MOD-IMPEN"),
        (-6, "unbreakable", "DAC-TYPE-UNBREAK", 6, "DAC-MOD-UNBREAK"),
        (-9, "unbreakable", "DAC-TYPE-UNBREAK", 6, "DAC-MOD-UNBREAK"),
        (-10, "untouchable", "DAC-TYPE-UNTOUCH", 7, "DAC-MOD-UNTOUCH"),
        (-14, "untouchable", "DAC-TYPE-UNTOUCH", 7, "DAC-MOD-UNTOUCH"),
    ],
)
def test_type_table_and_modifiers(value: int, kind: str, rule: str, mod: int, mod_rule: str) -> None:
    # rule: DAC-TYPE-NONE to DAC-TYPE-UNTOUCH and DAC-MOD-LIGHT to DAC-MOD-UNTOUCH (band edges), GAP-TYPE-ABOVE-10
    assert armour_type(value) == (kind, rule)
    assert type_modifier(value) == (mod, mod_rule)


def test_worn_armour_is_typed_by_its_listed_value() -> None:
    # rule: DAC-TYPE-USE: leather 8 Light, chain 5 Medium, full plate 1 and bronze plate 4 Heavy
    assert [armour_type(v)[0] for v in (8, 5, 1, 4)] == ["light", "medium", "heavy", "heavy"]


def test_natural_armour_10_when_none_is_given() -> None:
    # rule: DAC-NAT-2: no natural armour counts as natural armour 10: chain over N 10 = min(5, 10 - 2) = 5
    plain = {"name": "Plain", "hp": 5}
    assert (
        total(kit(plain, armour="chain mail"))
        == total(kit(plain, armour="chain mail", natural_armour=10))
        == 5
    )
    assert total(kit(plain, armour="leather", natural_armour=10)) == 8


def test_touch_ignores_natural_and_worn_armour() -> None:
    # rule: DAC-NAT-3, DAC-EQ-3: a touch attack sees base 10, not natural armour 5 nor full plate
    assert four(kit(KRIEGER, abilities={"dex": 10}))[2] == 10
    assert four({"name": "Plain", "hp": 5, "armour": "full plate"})[2] == 10


# --- 6.3 equipped armour -----------------------------------------------------------------------------


def test_tv_004_04_lucas_in_chain_mail() -> None:
    # rule: DAC-EQ-1, DAC-EQ-2 (TV-004-04): 5 = min(5, 10 - 2)
    assert total(kit(LUCAS, armour="chain mail", abilities={"dex": 10})) == 5


@pytest.mark.parametrize(("armour", "expected"), [("leather", 4), ("full plate", 1), ("bronze plate", 2)])
def test_tv_004_05_to_07_krieger_armour_over_natural(armour: str, expected: int) -> None:
    # rule: DAC-EQ-2, DAC-MOD-LIGHT, DAC-MOD-HEAVY, DAC-TYPE-HEAVY (TV-004-05, TV-004-06, TV-004-07)
    assert total(kit(KRIEGER, armour=armour, abilities={"dex": 10})) == expected


def test_layered_armour_counts_the_best_suit_only() -> None:
    # rule: DAC-EQ-4: leather (8) worn with chain mail (5) → 5, never stacked
    defender = {"name": "Plain", "hp": 5, "armour": "leather", "armour_layers": ["chain mail"]}
    assert total(defender) == 5
    fight = fight_of(defender)
    assert any(m.rule == "DAC-EQ-4" and "leather" in m.reason for m in ac_now(fight, "Plain").components)


# --- 6.4 deflection ----------------------------------------------------------------------------------


def test_tv_004_08_shield_deflection_with_dodge_zero() -> None:
    # rule: DAC-DEFL-1 (TV-004-08, X-9): Krieger A 4 + Medium Shield → 3 with Dodge 0; 4 with his -1 Dodge
    assert total(kit(KRIEGER, armour="leather", shield="medium shield", abilities={"dex": 10})) == 3
    assert total(kit(KRIEGER, armour="leather", shield="medium shield")) == 4


def test_deflection_uses_per_round_then_shield_lost() -> None:
    # rule: DAC-DEFL-3, DAC-DEFL-4, DAC-AC-SHIELDLOST: a medium shield's 2 uses go to the first two attacks;
    # the third sees Total AC + 1 as a circumstantial penalty; a new round restores the uses
    fight = fight_of(
        {"name": "Knight", "hp": 30, "armour": "chain mail", "shield": "medium shield"}, attackers=3
    )
    seen = []
    for orc in ("Orc 1", "Orc 2", "Orc 3"):
        ac = ac_now(fight, "Knight", orc)
        seen.append((ac.value, ac.deflection_uses))
        events = fight.act(Attack(orc, target="Knight"), ScriptedDice([1]))
        attack = next(e for e in events if e.type is EventType.ATTACK)
        assert attack.data["deflection_used"] == ac.deflection_uses
    assert seen == [(4, 1), (4, 1), (5, 0)]
    assert fight.state["Knight"].deflections_used == 2
    last = ac_now(fight, "Knight", "Orc 1")
    assert [m.rule for m in last.components if m.value == 1] == ["DAC-AC-SHIELDLOST"]
    fight.act(Attack("Knight", target="Orc 1"), ScriptedDice([1]))
    fight.end_round(ScriptedDice([]))
    fight.start_round(ScriptedDice([10, 9, 8, 1]))
    assert fight.state["Knight"].deflections_used == 0
    assert ac_now(fight, "Knight", "Orc 1").value == 4


def test_declined_deflection_spends_no_use() -> None:
    # rule: DAC-DEFL-4: declined before the roll → no deflection for that attack, no use spent
    fight = fight_of(
        {"name": "Knight", "hp": 30, "armour": "chain mail", "shield": "small shield"}, attackers=2
    )
    declined = Situation(flags=frozenset({"decline_deflection"}))
    ac = armour_class(attack_context(fight.state, Attack("Orc 1", target="Knight", situation=declined)))
    assert (ac.value, ac.deflection_uses) == (5, 0)
    fight.act(Attack("Orc 1", target="Knight", situation=declined), ScriptedDice([1]))
    assert fight.state["Knight"].deflections_used == 0
    assert ac_now(fight, "Knight", "Orc 2").value == 4  # the small shield's one use is still there


def test_flatfooted_loses_deflection_except_at_the_shield_location() -> None:
    # rule: DAC-DEFL-2: flatfooted → no deflection, unless the attack targets where the shield is fixed
    fight = fight_of({"name": "Knight", "hp": 30, "armour": "chain mail", "shield": "medium shield"})
    assert ac_now(fight, "Knight", flags={"flatfooted"}).value == 5
    located = ac_now(fight, "Knight", flags={"flatfooted", "shield_location"})
    assert (located.value, located.deflection_uses) == (4, 0)


def test_two_shields_stack_only_when_both_are_brought_to_bear() -> None:
    # rule: DAC-DEFL-5: one shield counts; both together +2, spending a use of each
    defender = {"name": "Knight", "hp": 30, "armour": "chain mail", "shield": "small shield",
                "off_hand_shield": "small shield"}  # fmt: skip
    fight = fight_of(defender)
    assert ac_now(fight, "Knight").value == 4
    both = ac_now(fight, "Knight", flags={"both_shields"})
    assert (both.value, both.deflection_uses) == (3, 2)


def test_shield_defence_proficiency_adds_one_deflect() -> None:
    # rule: DAC-DEFL-3 with GAP-SHIELD-USES: Shield Defence +1 Deflect (TV-004-13's 2 from a Medium Shield +1)
    plain = {"name": "Plain", "hp": 5, "armour": "chain mail", "shield": "medium shield"}
    assert total(plain) == 4
    assert total(kit(plain, proficiencies=["Shield Defence"])) == 3


# --- 6.5 dodge ---------------------------------------------------------------------------------------


def test_tv_004_09_dodge_unarmoured() -> None:
    # rule: DAC-DODGE-1, GAP-DODGE (TV-004-09): Lucas 10 - 2 = 8; Krieger 5 + 1 = 6
    assert total(LUCAS) == 8
    assert total(KRIEGER) == 6


def test_tv_004_10_dodge_in_chain_mail() -> None:
    # rule: DAC-DODGE-2, DAC-DODGE-3, DAC-EQ-2, DAC-MOD-MEDIUM (TV-004-10, X-12): Lucas 5 - 1 = 4;
    # Krieger min(5, 5 - 2) = 3, Dodge -1 in full → 4
    assert total(kit(LUCAS, armour="chain mail")) == 4
    assert total(kit(KRIEGER, armour="chain mail")) == 4


def test_tv_der_11_heavy_armour_removes_dodge() -> None:
    # rule: DAC-EQ-2, DAC-DODGE-2 (TV-DER-11): Lucas in full plate: min(1, 7) = 1, Dodge removed → 1
    assert total(kit(LUCAS, armour="full plate")) == 1


def test_combat_proficiencies_lift_the_armour_limit() -> None:
    # rule: DAC-DODGE-2 with GAP-COMBAT-PROF: training (medium) keeps +2 in chain; (heavy) keeps half in plate
    assert total(kit(LUCAS, armour="chain mail", proficiencies=["armour training (medium)"])) == 3
    assert total(kit(LUCAS, armour="full plate", proficiencies=["Armor Training (heavy)"])) == 0


def test_natural_armour_type_does_not_limit_dodge() -> None:
    # rule: GAP-NAT-DODGE: natural armour 1 (Heavy) with Dex 16 keeps the full +2
    assert total({"name": "Beetle", "hp": 5, "natural_armour": 1, "abilities": {"dex": 16}}) == -1


def test_dodge_penalty_kept_flatfooted_bonus_lost() -> None:
    # rule: DAC-DODGE-3, DAC-DODGE-4: Krieger flatfooted keeps his -1; Lucas loses +2;
    # with dex_loss = whole_modifier the penalty is dropped too
    assert four(KRIEGER)[1] == 6
    assert four(LUCAS)[1] == 10
    assert four(KRIEGER, options={"dex_loss": "whole_modifier"})[1] == 5


# --- 6.6 enhancement and circumstantial --------------------------------------------------------------


def test_tv_004_11_highest_enhancement_only() -> None:
    # rule: DAC-ENH-1, DAC-ENH-2, DAC-DEFL-1 (TV-004-11): Chain Mail +2 → 2; + Medium Shield +2 → 1;
    # + Cloak of Protection +3 → 0
    lucas = kit(LUCAS, armour={"name": "chain mail", "enhancement": 2})
    assert total(lucas) == 2
    lucas["shield"] = {"name": "medium shield", "enhancement": 2}
    assert total(lucas) == 1
    lucas["protection"] = [{"name": "cloak of protection", "enhancement": 3}]
    assert total(lucas) == 0


def test_touch_enhancement_option() -> None:
    # rule: DAC-ENH-3: dac_touch_enhancement = exclude_armour → Lucas touch 6 / ff touch 9;
    # all (literal) → 5 / 8
    lucas = load_encounter(EXAMPLES / "lucas_and_krieger.yaml").combatant("Lucas")
    default = armour_classes(lucas, DAC)
    literal = armour_classes(lucas, DAC.with_options(dac_touch_enhancement="all"))
    assert (default.touch, default.flatfooted_touch) == (6, 9)
    assert (literal.touch, literal.flatfooted_touch) == (5, 8)


def test_tv_004_12_defence_tags_and_darkness() -> None:
    # rule: DAC-CIRC-1, DAC-CIRC-2, DAC-CIRC-3 (TV-004-12, X-6): Defence IV [Giants] and II [Undead] against an
    # undead giant → +4, not +6; in total darkness as well → net 0
    defender = {
        "name": "Hero",
        "hp": 9,
        "defences": ["Defence IV [Giants]", {"value": 2, "against": "undead"}],
    }
    fight = fight_of(defender, attacker={"creature_type": ["undead", "giant"]})
    assert ac_now(fight, "Hero").value == 10 - 4
    assert ac_now(fight, "Hero", flags={"darkness"}).value == 10
    plain = fight_of(defender)  # an orc has no creature type: no Defence applies
    assert ac_now(plain, "Hero").value == 10


def test_circumstantial_not_in_recorded_acs() -> None:
    # rule: DAC-CIRC-4: Defence tags are applied per attack, never folded into the four recorded values
    assert four({"name": "Hero", "hp": 9, "defences": [{"value": 4, "against": "giant"}]}) == (10, 10, 10, 10)


def test_defence_tag_text() -> None:
    # rule: DAC-CIRC-2: "Defence IV [Giants]" reads as 4 against giants; a bad tag is a one-line file error
    assert parse_defence_tag("Defence IV [Giants]") == {"value": 4, "against": "Giants"}
    assert parse_defence_tag("defense 9 [Undead]") == {"value": 9, "against": "Undead"}
    with pytest.raises(EncounterFileError, match="not a Defence tag"):
        setup_of({"name": "Hero", "hp": 9, "defences": ["Shield IV"]})


# --- 6.7 the four ACs ---------------------------------------------------------------------------------


def test_tv_004_13_to_17_lucas_and_krieger() -> None:
    # rule: DAC-AC-TOTAL, DAC-AC-FLATFOOTED, DAC-AC-TOUCH, DAC-AC-FFTOUCH, DAC-ENH-2, DAC-DODGE-3
    # TV-004-13 Lucas total 0; TV-004-14 Krieger total 1; TV-004-15 flatfooted 3 / 2;
    # TV-004-16 touch 6 / 7; TV-004-17 flatfooted touch 9 / 8
    setup = load_encounter(EXAMPLES / "lucas_and_krieger.yaml")
    got = {c.name: armour_classes(c, setup.ruleset) for c in setup.combatants}
    assert (
        got["Lucas"].total,
        got["Lucas"].flatfooted,
        got["Lucas"].touch,
        got["Lucas"].flatfooted_touch,
    ) == (0, 3, 6, 9)
    assert (got["Krieger"].total, got["Krieger"].flatfooted, got["Krieger"].touch, got["Krieger"].flatfooted_touch) == (1, 2, 7, 8)  # fmt: skip
    lucas_total = {m.rule: m.value for m in got["Lucas"].breakdown["total"] if m.value}
    assert lucas_total == {
        "DAC-EQ-1": 5,
        "DAC-DEFL-1": -1,
        "DAC-DEFL-3": -1,
        "DAC-DODGE-2": -1,
        "DAC-ENH-2": -2,
    }


def test_tv_004_18_invisible_attacker() -> None:
    # rule: DAC-SPEC-INVIS, DAC-CIRC-3, GAP-FLATFOOTED (TV-004-18): Krieger uses his flatfooted AC 2, 4 worse → 6
    setup = load_encounter(EXAMPLES / "lucas_and_krieger.yaml")
    fight = Fight(setup)
    fight.begin(ScriptedDice([3, 2, 5, 2, 8, 8]))
    from tests.odd_helpers import give

    give(fight.state, "Lucas", "invisible")
    ac = armour_class(attack_context(fight.state, Attack("Lucas", target="Krieger")))
    assert (ac.value, ac.kind) == (6, "flatfooted")
    assert {"DAC-SPEC-INVIS"} <= {m.rule for m in ac.components}
    sees = Situation(flags=frozenset({"sees"}))
    assert (
        armour_class(attack_context(fight.state, Attack("Lucas", target="Krieger", situation=sees))).value
        == 1
    )


def test_pure_api_and_attack_path_agree() -> None:
    # rule: DAC-AC-TOTAL, DAC-AC-TOUCH: armour_classes and an attack's AC are one code path
    setup = load_encounter(EXAMPLES / "lucas_and_krieger.yaml")
    fight = Fight(setup)
    fight.begin(ScriptedDice([3, 2, 5, 2, 8, 8]))
    for attacker, defender in (("Lucas", "Krieger"), ("Krieger", "Lucas")):
        pure = armour_classes(setup.combatant(defender), setup.ruleset)
        normal = armour_class(attack_context(fight.state, Attack(attacker, target=defender)))
        touch = armour_class(
            attack_context(fight.state, Attack(attacker, target=defender, form=AttackForm.TOUCH))
        )
        assert (normal.value, touch.value) == (pure.total, pure.touch)
        assert touch.kind == "touch" and normal.convention == "descending"


def test_ascending_rulesets_get_the_layered_values_converted() -> None:
    # rule: DAC-AC-TOTAL in the ascending convention: AAC = 20 - DAC
    krieger = load_encounter(EXAMPLES / "lucas_and_krieger.yaml").combatant("Krieger")
    up = armour_classes(krieger, DAC.with_options(armour_class="ascending"))
    assert (up.convention, up.total, up.flatfooted, up.touch, up.flatfooted_touch) == (
        "ascending",
        19,
        18,
        13,
        12,
    )
    odd = armour_classes(krieger, Ruleset.preset("odd"))  # dex_loss = whole_modifier drops the -1 flatfooted
    assert (odd.total, odd.flatfooted, odd.touch, odd.flatfooted_touch) == (19, 19, 13, 13)


def test_armour_damage_worsens_worn_armour() -> None:
    # rule: DAC-EQ-1 with HR-ARMDMG-1: leather damaged by one critical is AC 9 under the layered model
    fight = fight_of({"name": "Knight", "hp": 30, "armour": "leather"})
    fight.state["Knight"].armour_loss = 1
    assert ac_now(fight, "Knight").value == 9


# --- both conventions (RULES.md 1.3, GAP-DESC-TOHIT) -------------------------------------------------


def duel_data(ruleset: str, options: dict[str, str], goblin_ac: int) -> dict[str, Any]:
    return {
        "ruleset": ruleset, "options": options,
        "sides": [
            {"name": "Village", "combatants": [{"name": "Angthar", "level": 5, "attack_bonus": 4, "hp": 30,
                                                "abilities": {"str": 14, "dex": 12}, "armour": "leather",
                                                "weapons": ["battle axe"]}]},
            {"name": "Goblins", "combatants": [{"name": "Goblin", "hit_dice": 2, "hp": 12, "ac": goblin_ac,
                                                "weapons": [{"name": "scimitar", "damage": "1d6"}]}]},
        ],
    }  # fmt: skip


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_same_rolls_hit_alike_in_both_conventions(seed: int) -> None:
    # rule: DAC-AC-1, DAC-AC-2 with GAP-DESC-TOHIT: AAC = 20 - DAC, so the same dice give the same fight
    from referee.dice import RandomDice
    from referee.engine.fight import run_fight

    up = run_fight(make_setup(duel_data("odd", {}, 12)), RandomDice(seed)).result()
    down = run_fight(
        make_setup(duel_data("odd", {"armour_class": "descending"}, 8)), RandomDice(seed)
    ).result()
    attacks_up = [e for e in up.events if e.type is EventType.ATTACK]
    attacks_down = [e for e in down.events if e.type is EventType.ATTACK]
    assert [(e.actor, e.data["natural"], e.hit) for e in attacks_up] == [
        (e.actor, e.data["natural"], e.hit) for e in attacks_down
    ]
    assert all(u.data["ac"] == 20 - d.data["ac"] for u, d in zip(attacks_up, attacks_down, strict=True))
    assert {e.data["ac_convention"] for e in attacks_down} == {"descending"}
    assert (up.winner, up.rounds) == (down.winner, down.rounds)


def test_every_natural_roll_agrees_across_conventions() -> None:
    # rule: DAC-AC-1 (GAP-DESC-TOHIT): chain mail AAC 15 / DAC 5: the same naturals hit against both
    checks = []
    for options in ({}, {"armour_class": "descending"}):
        fight = fight_of({"name": "Knight", "hp": 9, "armour": "chain mail"}, ruleset="odd", options=options)
        checks.append(plan_attack(attack_context(fight.state, Attack("Orc", target="Knight"))).check)
    up, down = checks
    assert (up.target, down.target, down.shown_target) == (15, 15, 5)
    assert up.outcome_table() == down.outcome_table()


def test_situational_bonuses_flip_sign() -> None:
    # rule: DAC-AC-2 with ODD-CHARGE-4 and ODD-COVER-50: a charger is 4 worse (DAC 5 → 9, AAC 15 → 11);
    # half cover is +4 (DAC 5 → 1, AAC 15 → 19)
    from tests.odd_helpers import give

    for options, plain, charging, covered in (({}, 15, 11, 19), ({"armour_class": "descending"}, 5, 9, 1)):
        fight = fight_of({"name": "Knight", "hp": 9, "armour": "chain mail"}, ruleset="odd", options=options)
        assert ac_now(fight, "Knight").value == plain
        cover = armour_class(
            attack_context(fight.state, Attack("Orc", target="Knight", situation=Situation(cover="half")))
        )
        assert cover.value == covered
        give(fight.state, "Knight", "charging")
        assert ac_now(fight, "Knight").value == charging


@pytest.mark.parametrize(("ruleset", "options"), [("dac", {}), ("odd", {"armour_class": "descending"})])
def test_whole_fight_runs_descending(ruleset: str, options: dict[str, str]) -> None:
    # rule: DAC-AC-TOTAL, DAC-DEFL-3: Lucas and Krieger fight to the end; shield uses are recorded
    from referee.dice import RandomDice
    from referee.engine.fight import run_fight
    from referee.files import read_yaml, setup_from_data

    data = read_yaml(EXAMPLES / "lucas_and_krieger.yaml")
    data.update(ruleset=ruleset, options=options)
    result = run_fight(setup_from_data(data, "lucas and krieger"), RandomDice(1)).result()
    assert result.winner in {"Lucas", "Krieger"}
    attacks = [e for e in result.events if e.type is EventType.ATTACK]
    assert {e.data["ac_convention"] for e in attacks} == {"descending"}
    assert {e.data["ac"] for e in attacks if e.target == "Lucas"} == {0}
    if ruleset == "dac":
        assert all(e.data["deflection_used"] == 1 for e in attacks)  # one attack a round: a use each


def test_every_target_is_defending() -> None:
    # rule: DAC-DEF-1, GAP-FLATFOOTED: an unaware target is still defending: it keeps armour and
    # enhancement, flatfooted (no Dodge bonus, no deflection)
    fight = fight_of(kit(LUCAS, armour="chain mail", shield="medium shield"))
    ac = ac_now(fight, "Lucas", flags={"unaware"})
    assert (ac.value, ac.kind, ac.deflection_uses) == (5, "flatfooted", 0)
    assert ac_now(fight, "Lucas").value == 3


def test_layered_touch_ac_under_ascending_armour_class() -> None:
    # rule: DAC-AC-TOUCH with touch_ac = dac_layered in an ascending game: Lucas's touch DAC 6 is AAC 14
    from referee.files import read_yaml, setup_from_data

    data = read_yaml(EXAMPLES / "lucas_and_krieger.yaml")
    data.update(ruleset="odd", options={"touch_ac": "dac_layered"})
    fight = Fight(setup_from_data(data, "lucas and krieger"))
    fight.begin(ScriptedDice([3, 2, 5, 2, 8, 8]))
    touch = armour_class(
        attack_context(fight.state, Attack("Krieger", target="Lucas", form=AttackForm.TOUCH))
    )
    assert (touch.value, touch.convention, touch.kind) == (14, "ascending", "touch")


def test_armour_given_in_either_convention() -> None:
    # rule: DAC-EQ-1 with RULES.md 1.3: `ac: 3` (descending) or `ac_bonus: 7` (ascending) name the same armour
    by_dac = {"name": "Plain", "hp": 5, "armour": {"name": "dragon hide", "ac": 3}}
    by_aac = {"name": "Plain", "hp": 5, "armour": {"name": "dragon hide", "ac_bonus": 7}}
    assert total(by_dac) == total(by_aac) == 3
    fight = fight_of(by_dac, ruleset="odd")
    assert ac_now(fight, "Plain").value == 17


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("defences", [{"value": 0, "against": "giant"}], "greater than or equal to 1"),
        ("defences", ["Defence IV Giants"], "not a Defence tag"),
        ("off_hand_shield", "buckler of doom", "unknown shield"),
        ("armour_layers", ["mithral shirt"], "unknown armour"),
    ],
)
def test_bad_descending_fields_are_one_line_errors(field: str, value: Any, message: str) -> None:
    with pytest.raises(EncounterFileError, match=message) as err:
        setup_of({"name": "Hero", "hp": 9, field: value})
    assert "\n" not in str(err.value)
