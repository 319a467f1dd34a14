"""Environment rules: cover, concealment and fog (001's cover, MOD-FOG-1, 003's cover), visibility
(003's visibility), higher ground (001's heights), water and underwater (001's water, 001's underwater, 003's underwater),
drowning (003's drowning) and aerial combat (003's aerial combat), driven by scripted dice.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from referee.checks import Keep, Modifier
from referee.dice import ScriptedDice
from referee.engine.actions import Attack
from referee.engine.events import Event, EventType
from referee.engine.fight import Fight
from referee.engine.resolve import attack_context, resolve
from referee.engine.state import FightState
from referee.errors import EncounterFileError, IllegalActionError
from referee.files import setup_from_data
from referee.rules.attack import plan_attack
from referee.rules.context import Situation
from referee.rules.environment import (
    aerial_charge,
    breath_rounds,
    fog_concealment,
    may_attack_mid_move,
    skirmishes,
    underwater_move,
    water_penalty,
)

# Hero: no bonuses. Orc: AC 14 = 10 + leather 2 + Dex 13 (+1 on either ability scale) + medium shield 1.


def hero(name: str = "Hero", **kw: Any) -> dict[str, Any]:
    weapons = ["spear", "short bow", "long sword", "mace", "dagger"]
    return {"name": name, "level": 1, "attack_bonus": 0, "hp": 40, "weapons": weapons, **kw}


def orc(name: str = "Orc", **kw: Any) -> dict[str, Any]:
    return {
        "name": name, "kind": "monster", "hit_dice": 1, "attack_bonus": 0, "hp": 40,
        "abilities": {"dex": 13}, "armour": "leather", "shield": "medium shield", "weapons": ["spear"], **kw,
    }  # fmt: skip


def duel(
    ruleset: str,
    hero_kw: dict[str, Any] | None = None,
    orc_kw: dict[str, Any] | None = None,
    environment: dict[str, Any] | None = None,
    **options: str,
) -> Fight:
    data = {
        "name": "test",
        "ruleset": ruleset,
        "options": {"first_strike_reach_size": "off", **options},
        "environment": environment or {},
        "sides": [
            {"name": "Heroes", "combatants": [hero(**(hero_kw or {}))]},
            {"name": "Foes", "combatants": [orc(**(orc_kw or {}))]},
        ],
    }
    fight = Fight(setup_from_data(data, "test"))
    fight.begin(ScriptedDice([]))
    fight.start_round(ScriptedDice([10, 1], then=None) if ruleset != "mod" else ScriptedDice([10, 1, 1, 1]))
    return fight


def of(events: list[Event], kind: EventType) -> list[Event]:
    return [e for e in events if e.type is kind]


def attack(state: FightState, dice: list[int], weapon: str = "spear", **kw: Any) -> list[Event]:
    return resolve(
        state,
        Attack(kw.pop("actor", "Hero"), target=kw.pop("target", "Orc"), weapon=weapon, **kw),
        ScriptedDice(dice),
    )


def swing(state: FightState, dice: list[int], *flags: str, weapon: str = "spear", **kw: Any) -> Event:
    s = Situation(
        flags=frozenset(flags), cover=kw.pop("cover", "none"), concealment=kw.pop("concealment", "none")
    )
    return of(attack(state, dice, weapon, situation=s, **kw), EventType.ATTACK)[0]


def rules_of(e: Event) -> set[str]:
    return {m.rule for m in e.modifiers} | {c["rule"] for c in e.data["ac_components"]}


# --- cover (conflict `cover`) ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cover", "rule", "ac"),
    [("quarter", "MOD-COVER-25", 16), ("half", "MOD-COVER-50", 18), ("three_quarters", "MOD-COVER-75", 21),
     ("ninety", "MOD-COVER-90", 24)],
)  # fmt: skip
def test_mod_cover_percentages_gap_001_cover(cover: str, rule: str, ac: int) -> None:
    # rule: MOD-COVER-1 with GAP-001-COVER: 25% +2, 50% +4, 75% +7, 90% +10 to AC (TV-001-01..03:
    # parapet 25%, embrasures 50%, narrow window 75%, arrow slit 90%)
    roll = swing(duel("mod").state, [10, 1], cover=cover)
    assert roll.target_number == ac and rule in rules_of(roll)


def test_cover_conflict_three_quarters_odd_6_mod_7_mf_4() -> None:
    # conflict `cover`: the same 3/4 cover gives ODD-COVER-75 +6 (20), MOD-COVER-75 +7 (21), MF-COVER-2 +4 (18)
    assert swing(duel("odd").state, [10, 1], cover="three_quarters").target_number == 20
    assert swing(duel("mod").state, [10, 1], cover="three_quarters").target_number == 21
    mf = swing(duel("mf").state, [10, 1], cover="three_quarters")
    assert mf.target_number == 18 and "MF-COVER-2" in rules_of(mf)
    half = swing(duel("mf").state, [10, 1], cover="half")
    assert half.target_number == 16 and "MF-COVER-1" in rules_of(half)


def test_full_cover_cannot_be_attacked_directly_mf_cover_3() -> None:
    # rule: MF-COVER-3 — unless the referee rules the cover bypassed
    fight = duel("mf")
    with pytest.raises(IllegalActionError, match="MF-COVER-3"):
        swing(fight.state, [10, 1], cover="full")
    assert swing(fight.state, [10, 1], "bypass_cover", cover="full").target_number == 14


def test_concealment_to_ac_only_mod_cover_1() -> None:
    # rule: MOD-COVER-1 — concealment under mod_percent_ac: 25% +1, 50% +2, 75% +3 (GAP-001-COVER)
    fight = duel("mod")
    for degree, ac in (("quarter", 15), ("half", 16), ("three_quarters", 17)):
        assert swing(fight.state, [10, 1], concealment=degree).target_number == ac


def test_concealment_conflict_odd_to_hit_vs_mod_ac_vs_mf_miss_chance() -> None:
    # conflict `concealment`, 50%: ODD-SIT-CONC-50 -4 to hit; MOD-COVER-50 +2 AC; MF-VIS-1 33% miss chance
    odd = swing(duel("odd").state, [15, 1], concealment="half")
    assert (odd.total, odd.target_number) == (11, 14)
    mod = swing(duel("mod").state, [15, 1], concealment="half")
    assert (mod.total, mod.target_number) == (15, 16)
    mf = swing(duel("mf").state, [15, 33], concealment="half")  # hit, then d100 33 <= 33 → miss
    assert mf.data["missed_by_chance"] and not mf.hit and "MF-VIS-1" in mf.text


# --- fog (MOD-FOG-1, GAP-INCH) -----------------------------------------------------------------------------------


def test_fog_by_distance_tv_001_05() -> None:
    # rule: MOD-FOG-1 (TV-001-05) with GAP-INCH 1" = 10 ft: ≤ 1" 25%, 1.5" 50%, 3" invisible
    assert [fog_concealment(d) for d in (10, 15, 30)] == [25, 50, 100]
    assert fog_concealment(15, 30) == 25  # outdoors 1" = 10 yards
    fight = duel("mod", environment={"fog": "typical"})
    near = swing(fight.state, [10, 1])
    assert near.target_number == 15 and "MOD-FOG-1" in rules_of(near)
    mid = swing(fight.state, [10, 1], weapon="short bow", distance=15)
    assert mid.target_number == 16
    with pytest.raises(IllegalActionError, match="MOD-FOG-1"):
        swing(fight.state, [10, 1], weapon="short bow", distance=30)
    far = swing(fight.state, [14, 1], "detected", weapon="short bow", distance=30)
    assert Modifier(-4, "MOD-COND-INVIS-2", "100% concealment: unseen (MOD-FOG-1)") in far.modifiers


def test_bad_environment_values_are_refused() -> None:
    with pytest.raises(EncounterFileError, match=r"environment\.fog"):
        duel("mod", environment={"fog": "pea soup"})
    with pytest.raises(EncounterFileError, match=r"environment\.water_depth"):
        duel("mod", environment={"water_depth": "ankle"})
    with pytest.raises(EncounterFileError, match="unknown key 'lava'"):
        duel("mod", environment={"lava": True})


# --- visibility (003's visibility) ---------------------------------------------------------------------------------------


def test_unseen_target_66_percent_if_located_else_no_attack() -> None:
    # rule: MF-VIS-2 (66% when located), MF-VIS-3 (no attack otherwise), MF-VIS-5 (d100 after a hit)
    fight = duel("mf")
    with pytest.raises(IllegalActionError, match="MF-VIS-3"):
        swing(fight.state, [15, 1], concealment="full")
    kept = swing(fight.state, [15, 67, 1], "located", concealment="full")
    assert kept.hit and [d.sides for d in kept.dice] == [20, 100]
    lost = swing(fight.state, [15, 66], "located", concealment="full")
    assert not lost.hit and "MF-VIS-2" in lost.text


def test_area_attack_exempt_mf_vis_4_and_d6_dice_x_11() -> None:
    # rule: MF-VIS-4 (area effects exempt, the referee's flag); X-11: miss_chance_dice d6 → 66% is 1-4
    fight = duel("mf")
    area = swing(fight.state, [15, 3], "area", "hard_to_see")
    assert area.hit and [d.sides for d in area.dice] == [20]
    d6 = duel("mf", miss_chance_dice="d6")
    missed = swing(d6.state, [15, 4], "located", concealment="full")
    assert not missed.hit and missed.dice[1].sides == 6
    kept = swing(d6.state, [15, 5, 1], "located", concealment="full")
    assert kept.hit


def test_invisible_attacker_conflict_mf_advantage_vs_odd_dex_lost() -> None:
    # rule: MF-VIS-6 — advantage (2d20 keep highest: 3, 17 → 17); ODD-AC-DEX-2 under odd: the orc loses Dex (14 - 1 = 13)
    mf = swing(duel("mf", hero_kw={"conditions": ["invisible"]}).state, [3, 17, 1])
    assert mf.data["keep"] == Keep.HIGHEST.value and mf.total == 17
    odd = swing(duel("odd", hero_kw={"conditions": ["invisible"]}).state, [3, 1])
    assert odd.target_number == 13 and odd.data["keep"] == "all"


# --- higher ground (conflict `higher_ground`) ---------------------------------------------------------------------


def test_higher_ground_conflict() -> None:
    # rule: MOD-HIGH-1 cliff +2 / -2, MOD-HIGH-2 slope +1 / -1, MF-OTHER-1 +1, ODD-SIT-LOWER +1
    mod = duel("mod").state
    assert swing(mod, [10, 1], "higher").total == 12
    assert swing(mod, [10, 1], "lower").total == 8
    assert swing(mod, [10, 1], "higher", "slope").total == 11
    assert swing(mod, [10, 1], "lower", "slope").total == 9
    assert "MOD-HIGH-1" in rules_of(swing(mod, [10, 1], "higher"))
    assert "MOD-HIGH-2" in rules_of(swing(mod, [10, 1], "lower", "slope"))
    mf = swing(duel("mf").state, [10, 1], "higher")
    assert mf.total == 11 and "MF-OTHER-1" in rules_of(mf)
    assert swing(duel("odd").state, [10, 1], "higher").total == 11


# --- water (001's water) ------------------------------------------------------------------------------------------


def test_dagger_in_water_still_deals_1_tv_der_08() -> None:
    # rule: MOD-WATER-1 (-1 to hit and damage up to the waist), MOD-WATER-4 (minimum 1) — TV-DER-08:
    # dagger 1d4 rolls 1, waist deep: 1 damage; MOD-WATER-5: the orc, also waist deep, -1 more to hit
    fight = duel("mod", environment={"water_depth": "waist"})
    events = attack(fight.state, [15, 1], weapon="dagger")
    roll = of(events, EventType.ATTACK)[0]
    assert Modifier(-1, "MOD-WATER-1", "fighting in water") in roll.modifiers
    assert Modifier(-1, "MOD-WATER-5", "Orc is immersed") in roll.modifiers
    assert roll.target_number == 13  # MOD-WATER-1: no Dex in water (14 - 1)
    assert of(events, EventType.DAMAGE)[0].damage == 1


def test_water_depths_and_swimmers_tv_der_09() -> None:
    # rule: MOD-WATER-2 (-2 to the chest), MOD-WATER-3 (-4 above), MOD-WATER-7 (swimmers 0 / -1 / -2, TV-DER-09),
    # MOD-WATER-6 (aquatic: none)
    state = duel("mod").state
    walker = state["Hero"].spec
    swimmer = walker.model_copy(update={"swim": 20})
    fish = walker.model_copy(update={"aquatic": True})
    assert [water_penalty(walker, d)[0] for d in ("knee", "waist", "chest", "deep")] == [1, 1, 2, 4]
    assert [water_penalty(swimmer, d)[0] for d in ("waist", "chest", "deep")] == [0, 1, 2]
    assert (
        water_penalty(walker, "chest")[1] == "MOD-WATER-2"
        and water_penalty(walker, "deep")[1] == "MOD-WATER-3"
    )
    assert water_penalty(swimmer, "deep")[1] == "MOD-WATER-7"
    assert water_penalty(fish, "deep") == (0, "MOD-WATER-6")
    # a dry attacker still takes the immersed target's penalty (MOD-WATER-5)
    fight = duel("mod", environment={"depths": {"Orc": "deep"}})
    roll = swing(fight.state, [15, 1])
    assert roll.total == 11 and Modifier(-4, "MOD-WATER-5", "Orc is immersed") in roll.modifiers


# --- underwater (conflict `underwater`) ----------------------------------------------------------------------------


def test_underwater_mod_non_native_minus_4_minimum_1_no_dex() -> None:
    # rule: MOD-UW-4 (-4 to hit and damage, at least 1: TV-DER-08), MOD-UW-5 (no Dex to AC)
    fight = duel("mod", environment={"underwater": True})
    events = attack(fight.state, [19, 2], weapon="dagger")
    roll = of(events, EventType.ATTACK)[0]
    assert Modifier(-4, "MOD-UW-4", "underwater") in roll.modifiers and roll.total == 15
    assert roll.target_number == 13 and "MOD-UW-5" in rules_of(roll)
    assert of(events, EventType.DAMAGE)[0].damage == 1  # 2 - 4 → 1


def test_underwater_swimmers_and_aquatic_mod_uw_6_7() -> None:
    # rule: MOD-UW-6 (swim rate: -2), MOD-UW-7 (aquatic: nothing)
    swim = swing(duel("mod", hero_kw={"swim": 20}, environment={"underwater": True}).state, [15, 1])
    assert Modifier(-2, "MOD-UW-6", "underwater") in swim.modifiers
    fish = swing(
        duel("mod", hero_kw={"aquatic": True}, environment={"underwater": True}).state, [15, 1], weapon="mace"
    )
    assert fish.total == 15


def test_underwater_conflict_weapons_mod_uw_1_vs_mf_uw_1() -> None:
    # MOD-UW-1: only thrusting (spear) or natural weapons; long sword and mace refused.
    # MF-UW-1: spear normal, long sword with disadvantage (keep lowest of 17, 4), mace refused.
    mod = duel("mod", environment={"underwater": True})
    assert swing(mod.state, [15, 1]).total == 11
    for weapon in ("long sword", "mace"):
        with pytest.raises(IllegalActionError, match="MOD-UW-1"):
            swing(mod.state, [15, 1], weapon=weapon)
    mf = duel("mf", environment={"underwater": True})
    assert swing(mf.state, [15, 1]).data["keep"] == "all"
    sword = swing(mf.state, [17, 4], weapon="long sword")
    assert sword.data["keep"] == Keep.LOWEST.value and sword.total == 4
    with pytest.raises(IllegalActionError, match="MF-UW-1"):
        swing(mf.state, [15, 1], weapon="mace")


def test_arrows_spent_beyond_10_ft_mf_uw_2() -> None:
    # rule: MF-UW-2 — an arrow at 10 ft wounds (1d6 = 4), at 20 ft it hits for nothing
    fight = duel("mf", environment={"underwater": True})
    near = attack(fight.state, [18, 4], weapon="short bow", distance=10)
    assert of(near, EventType.DAMAGE)[0].damage == 4
    far = attack(fight.state, [18], weapon="short bow", distance=20)
    assert of(far, EventType.ATTACK)[0].hit and not of(far, EventType.DAMAGE)


def test_underwater_move_and_delay_mod_uw_2_3() -> None:
    # rule: MOD-UW-2 (1/3 move: 30 → 10 ft), MOD-UW-3 (1d6 segments each round, here 5 and 2)
    state = duel("mod").state
    assert underwater_move(state["Hero"].spec, state.setup.ruleset, True) == 10
    assert (
        underwater_move(state["Hero"].spec.model_copy(update={"swim": 20}), state.setup.ruleset, True) == 30
    )
    data = {
        "name": "t", "ruleset": "mod", "options": {"first_strike_reach_size": "off"},
        "environment": {"underwater": True},
        "sides": [{"name": "A", "combatants": [hero()]}, {"name": "B", "combatants": [orc()]}],
    }  # fmt: skip
    fight = Fight(setup_from_data(data, "t"))
    fight.begin(ScriptedDice([]))
    events = fight.start_round(ScriptedDice([8, 6, 5, 2]))
    delay = next(e for e in events if e.rule == "GAP-SEGMENTS")
    assert delay.data["delays"] == {"Hero": 5, "Orc": 2} and "MOD-UW-3" in delay.text
    assert fight.state.order == [["Orc"], ["Hero"]]  # 8 - 5 = 3 < 6 - 2 = 4


# --- drowning (003's drowning) -------------------------------------------------------------------------------------------


def test_breath_tv_der_07() -> None:
    # rule: MF-DROWN-1 (Con + 1d4 out of a fight), MF-DROWN-2 (ceil(Con / 3) while fighting) — TV-DER-07, Con 13
    assert breath_rounds(13, fighting=True, extra_d4=0) == 5
    assert breath_rounds(13, fighting=True, extra_d4=3) == 8
    assert breath_rounds(13, fighting=False, extra_d4=2) == 15


def test_drowning_save_each_round_mf_drown_3() -> None:
    # rule: MF-DROWN-3 with GAP-DROWN: Con 4 → ceil(4/3) = 2 rounds (+1d4 = 1 with drowning_fight_extra_d4);
    # end of round 4: Luck (Con) d20 4 <= 4 saved; end of round 5: d20 5 > 4 → drowns
    data = {
        "name": "t", "ruleset": "odd", "environment": {"underwater": True},
        "options": {"first_strike_reach_size": "off"},
        "sides": [{"name": "A", "combatants": [hero(abilities={"con": 4})]},
                  {"name": "B", "combatants": [orc(aquatic=True)]}],
    }  # fmt: skip
    fight = Fight(setup_from_data(data, "t"))
    fight.begin(ScriptedDice([]))
    for round_no, end_dice in ((1, [1]), (2, []), (3, []), (4, [4]), (5, [5])):
        fight.start_round(ScriptedDice([5, 1]))
        fight.state.acted = {"Hero", "Orc"}
        events = fight.end_round(ScriptedDice(end_dice))
        if round_no == 1:
            assert fight.state["Hero"].conditions["holding_breath"].data["breath"] == 3
        if round_no == 4:
            assert next(e for e in events if e.rule == "MF-DROWN-3").hit is True
    assert fight.state["Hero"].status == "dead"
    assert not fight.state["Orc"].has("holding_breath")  # aquatic


# --- aerial combat (003's aerial combat) ----------------------------------------------------------------------------------------


def test_flyer_plus_1_against_the_ground_mf_air_1() -> None:
    # rule: MF-AIR-1
    fight = duel("mf", hero_kw={"conditions": ["flying"]})
    assert Modifier(1, "MF-AIR-1", "flying, target on the ground") in swing(fight.state, [10, 1]).modifiers
    both = duel("mf", hero_kw={"conditions": ["flying"]}, orc_kw={"conditions": ["flying"]})
    assert "MF-AIR-1" not in rules_of(swing(both.state, [10, 1]))


def test_aerial_mid_move_skirmish_and_surprise_charge() -> None:
    # rule: MF-AIR-2 (attack mid-move in one direction), MF-AIR-3 (GAP-SKIRMISH), MF-AIR-4 (double damage vs
    # surprised: the whole damage ×2 under the default `double_damage = total`)
    fight = duel("mf", hero_kw={"conditions": ["flying"]})
    state, rs = fight.state, fight.state.setup.ruleset
    assert may_attack_mid_move(state["Hero"], rs, one_direction=True)
    assert not may_attack_mid_move(state["Hero"], rs, one_direction=False)
    assert not may_attack_mid_move(state["Orc"], rs, one_direction=True)
    assert skirmishes(state["Hero"]) and not skirmishes(state["Orc"])
    ctx = replace(
        attack_context(state, Attack("Hero", target="Orc", weapon="long sword", distance=30)), charge=True
    )
    plan = plan_attack(ctx).damage
    assert aerial_charge(ctx, plan).total_multiplier == 1
    state["Orc"].surprised = True
    doubled = aerial_charge(ctx, plan)
    assert (doubled.total_multiplier, doubled.dice_multiplier, doubled.doubled_by) == (2, 1, ("MF-AIR-4",))
