"""The house-rules post (002, HR-*), driven by scripted dice. Dice order: attack d20, confirmation d20 if
any, damage dice; Strength checks roll their Nd6 in order; a garrotte hit rolls its 1d4 after the attack."""

from __future__ import annotations

from typing import Any

import pytest
from tests.conftest import angthar_data, make_setup

from referee.dice import RandomDice, ScriptedDice
from referee.engine.actions import Attack, Wait
from referee.engine.events import Event, EventType
from referee.engine.fight import Fight
from referee.engine.house import Escape, ResetGarrotte, rest_events
from referee.engine.resolve import attack_context, resolve
from referee.engine.state import Condition, FightState
from referee.engine.tactics import choose_action
from referee.engine.withdrawal import Withdraw
from referee.errors import IllegalActionError
from referee.rules.attack import plan_attack
from referee.rules.context import AttackForm, Situation
from referee.rules.house import armour_recovery, attacks_allowed, can_move
from referee.rules.ruleset import Ruleset


def started(data: dict[str, Any], initiative: list[int] | None = None) -> Fight:
    fight = Fight(make_setup(data))
    fight.begin(ScriptedDice([]))
    count = sum(c.get("count", 1) for s in data["sides"] for c in s["combatants"])
    fight.start_round(ScriptedDice(initiative or [10 - i for i in range(count)]))
    return fight


def of(events: list[Event], kind: EventType) -> list[Event]:
    return [e for e in events if e.type is kind]


def attack(state: FightState, dice: list[int], actor: str, target: str, **kw: Any) -> list[Event]:
    return resolve(state, Attack(actor, target=target, **kw), ScriptedDice(dice))


def flags(*names: str, **kw: Any) -> Situation:
    return Situation(flags=frozenset(names), **kw)


def encounter(
    ruleset: str, heroes: list[dict[str, Any]], foes: list[dict[str, Any]], **extra: Any
) -> dict[str, Any]:
    return {
        "name": "house rules",
        "ruleset": ruleset,
        "sides": [{"name": "Heroes", "combatants": heroes}, {"name": "Foes", "combatants": foes}],
        **extra,
    }


def hero(name: str = "Hero", **kw: Any) -> dict[str, Any]:
    return {"name": name, "level": 1, "attack_bonus": 0, "hp": 20, "weapons": ["long sword"], **kw}


def orc(name: str = "Orc", **kw: Any) -> dict[str, Any]:
    return {"name": name, "hit_dice": 1, "attack_bonus": 0, "hp": 8, "ac": 12, "weapons": ["scimitar"], **kw}


# --- HR-MOVE-1, HR-MOVE-2 and the `move_and_attack` conflict ----------------------------------------------


def test_half_move_then_attack_but_no_more_hr_move_1() -> None:
    # rule: HR-MOVE-1: move 30 → up to 15 ft and still attack; 20 ft forbids the attack
    fight = started(angthar_data(ruleset="hr"), [7, 4])
    fight.state["Angthar"].moved_this_round = 15
    assert of(attack(fight.state, [12, 6], "Angthar", "Goblin"), EventType.ATTACK)[0].total == 17
    fight.state["Angthar"].moved_this_round = 20
    with pytest.raises(IllegalActionError, match="HR-MOVE-1"):
        attack(fight.state, [12, 6], "Angthar", "Goblin")


def test_moving_leaves_a_single_attack_hr_move_2() -> None:
    # conflict `move_and_attack`: a 2-attack creature that moved 10 ft keeps 2 attacks under odd (ODD-ATK-3,
    # abilities unaffected by moving) but has one under hr (HR-MOVE-2).
    fight = started(angthar_data(ruleset="hr"), [7, 4])
    angthar = fight.state["Angthar"]
    assert attacks_allowed(Ruleset.preset("hr"), angthar, 2) == 2
    angthar.moved_this_round = 10
    assert attacks_allowed(Ruleset.preset("odd"), angthar, 2) == 2
    assert attacks_allowed(Ruleset.preset("hr"), angthar, 2) == 1
    angthar.attackers_this_round.append(
        "Angthar"
    )  # pretend a first attack happened (on itself, for the count)
    fight.state["Goblin"].attackers_this_round.append("Angthar")
    with pytest.raises(IllegalActionError, match="HR-MOVE-2"):
        attack(fight.state, [12, 6], "Angthar", "Goblin")


# --- HR-CAST-MOVE and the `move_and_cast` conflict ------------------------------------------------------------


def test_move_and_cast_conflict() -> None:
    # conflict `move_and_cast`: odd (ODD-ACT-CAST-3) forbids any movement when casting; hr (HR-CAST-MOVE)
    # allows half the rate (15 of 30 ft) with a one-round spell, not 20 ft, not a two-round spell.
    from referee.engine.odd_actions import CastSpell

    def cast(ruleset: str, moved: int, rounds: int = 1) -> list[Event]:
        fight = started(angthar_data(ruleset=ruleset), [7, 4])
        return resolve(
            fight.state, CastSpell("Angthar", spell="sleep", moved=moved, rounds=rounds), ScriptedDice([])
        )

    with pytest.raises(IllegalActionError, match="ODD-ACT-CAST-3"):
        cast("odd", 10)
    assert cast("odd", 0) and cast("hr", 15)
    with pytest.raises(IllegalActionError, match="HR-CAST-MOVE"):
        cast("hr", 20)
    with pytest.raises(IllegalActionError, match="HR-CAST-MOVE"):
        cast("hr", 10, rounds=2)


# --- HR-WITHDRAW-1..3, GAP-AOO ------------------------------------------------------------------------------


def test_fighting_withdrawal_provokes_nothing_hr_withdraw_1() -> None:
    # rule: HR-WITHDRAW-1: 15 ft of a 30-ft rate is a fighting withdrawal: no attack of opportunity
    fight = started(angthar_data(ruleset="hr"), [7, 4])
    events = fight.act(Withdraw("Angthar", feet=15), ScriptedDice([]))
    assert not of(events, EventType.ATTACK)
    assert events[0].rule == "HR-WITHDRAW-1" and events[0].data["fighting_withdrawal"] is True


def test_leaving_melee_at_more_than_half_move_provokes_hr_withdraw_2() -> None:
    # rule: HR-WITHDRAW-2 (GAP-AOO): 30 ft → the goblin gets a free attack: d20 14 + 1 = 15 vs AC 12, scimitar 5
    fight = started(angthar_data(ruleset="hr"), [7, 4])
    events = fight.act(Withdraw("Angthar", feet=30), ScriptedDice([14, 5]))
    hit = of(events, EventType.ATTACK)[0]
    assert (hit.actor, hit.target, hit.total, hit.hit) == ("Goblin", "Angthar", 15, True)
    assert of(events, EventType.DAMAGE)[0].damage == 5
    assert "Goblin" not in fight.state.acted  # the attack of opportunity used no action
    assert fight.state["Goblin"].has("aoo_used")


def test_fighting_withdrawal_toggle_conflict() -> None:
    # conflict `fighting_withdrawal` (part of `move_and_attack`): odd has no attacks of opportunity at all
    fight = started(angthar_data(ruleset="odd"), [7, 4])
    assert not of(fight.act(Withdraw("Angthar", feet=30), ScriptedDice([])), EventType.ATTACK)


def test_withdrawing_character_makes_no_attack_hr_withdraw_3() -> None:
    # rule: HR-WITHDRAW-3: no attack in the round of a withdrawal, not even against another target
    fight = started(angthar_data(ruleset="hr", goblins=2), [7, 4, 3])
    fight.push(resolve(fight.state, Withdraw("Angthar", feet=10), ScriptedDice([])))
    with pytest.raises(IllegalActionError, match="HR-WITHDRAW-3"):
        attack(fight.state, [12, 6], "Angthar", "Goblin 2")


# --- HR-CHARGE-1..5 and the `charge` conflict ----------------------------------------------------------------


def test_charge_conflict_hr_to_hit_odd_damage() -> None:
    # conflict `charge`: the same charge, d20 12, battle axe 6. odd (ODD-CHARGE-3): 17 to hit, 6+1+2 = 9
    # damage. hr (HR-CHARGE-2): +2 to hit → 19, no damage bonus: 6+1 = 7.
    odd = started(angthar_data(ruleset="odd", goblin_hp=20, distance=30), [7, 4])
    hr = started(angthar_data(ruleset="hr", goblin_hp=20, distance=30), [7, 4])
    o = attack(odd.state, [12, 6], "Angthar", "Goblin", charge=True)
    h = attack(hr.state, [12, 6], "Angthar", "Goblin", charge=True)
    assert (of(o, EventType.ATTACK)[0].total, of(o, EventType.DAMAGE)[0].damage) == (17, 9)
    assert (of(h, EventType.ATTACK)[0].total, of(h, EventType.DAMAGE)[0].damage) == (19, 7)


def test_no_charge_with_a_missile_hr_charge_3_nor_beyond_full_move_hr_charge_2() -> None:
    # rule: HR-CHARGE-3 (no missile charges), HR-CHARGE-2 (a charge covers at most the full rate, 30 ft)
    data = angthar_data(ruleset="hr", distance=30)
    data["sides"][0]["combatants"][0]["weapons"] = ["battle axe", "short bow"]
    fight = started(data, [7, 4])
    with pytest.raises(IllegalActionError, match="HR-CHARGE-3"):
        attack(fight.state, [12, 6], "Angthar", "Goblin", charge=True, weapon="short bow")
    with pytest.raises(IllegalActionError, match="HR-CHARGE-2"):
        attack(fight.state, [12, 6], "Angthar", "Goblin", charge=True, distance=35)


@pytest.mark.parametrize(("round_no", "allowed"), [(5, False), (10, False), (11, True)])
def test_one_charge_in_ten_rounds_tv_der_15(round_no: int, allowed: bool) -> None:
    # rule: HR-CHARGE-1 (TV-DER-15): charged in round 1; round 5 refused, round 11 allowed
    fight = started(angthar_data(ruleset="hr", goblin_hp=20, distance=30), [7, 4])
    fight.push(attack(fight.state, [12, 6], "Angthar", "Goblin", charge=True))
    assert fight.state["Angthar"].last_charge_round == 1
    fight.state.round = round_no
    if allowed:
        attack(fight.state, [12, 6], "Angthar", "Goblin", charge=True)
    else:
        with pytest.raises(IllegalActionError, match="HR-CHARGE-1"):
            attack(fight.state, [12, 6], "Angthar", "Goblin", charge=True)


def test_charger_loses_dex_and_set_spear_doubles_hr_charge_4_5() -> None:
    # rule: HR-CHARGE-5: the charger (Dex 16: +2 on the ODD table, leather +2) drops from AC 14 to AC 12
    # for the round; HR-CHARGE-4: the goblin's set spear hits the charger for double damage: d6 3 × 2 = 6
    # (option `double_damage = total`, the default; `dice` would roll 2d6 = 3 + 4 = 7).
    data = angthar_data(ruleset="hr", goblin_hp=20, distance=30)
    data["sides"][0]["combatants"][0]["abilities"]["dex"] = 16
    data["sides"][1]["combatants"][0]["weapons"] = ["spear"]
    fight = started(data, [7, 4])
    before = plan_attack(attack_context(fight.state, Attack("Goblin", target="Angthar")))
    assert before.armour_class.value == 14
    fight.push(attack(fight.state, [2], "Angthar", "Goblin", charge=True))
    events = attack(fight.state, [13, 3, 4], "Goblin", "Angthar", distance=5)
    roll = of(events, EventType.ATTACK)[0]
    assert roll.data["ac"] == 12 and roll.hit
    assert any(c["rule"] == "HR-CHARGE-5" for c in roll.data["ac_components"])
    assert of(events, EventType.DAMAGE)[0].damage == 6
    assert of(events, EventType.DAMAGE)[0].rule == "HR-CHARGE-4"


# --- HR-GARROTE-1..6 ----------------------------------------------------------------------------------------


def garrotte_fight(strength: int = 10) -> Fight:
    assassin = hero("Assassin", weapons=["garrotte"], abilities={"str": 12})
    guard = orc("Guard", shield="small shield", abilities={"dex": 16, "str": strength}, ac=None)
    return started(encounter("hr", [assassin], [guard]), [9, 2])


def test_garrotte_only_from_behind_against_rear_ac_hr_garrote_1() -> None:
    # rule: HR-GARROTE-1 with GAP-REAR-AC: rear AC drops Dex (+2) and shield (+1): 13 → 10
    fight = garrotte_fight()
    with pytest.raises(IllegalActionError, match="HR-GARROTE-1"):
        attack(fight.state, [10, 1], "Assassin", "Guard")
    roll = of(attack(fight.state, [10, 1], "Assassin", "Guard", situation=flags("rear")), EventType.ATTACK)[0]
    assert (roll.data["ac"], roll.hit) == (10, True)


@pytest.mark.parametrize(("d4", "count"), [(1, 2), (2, 3), (3, 4), (4, 5)])
def test_garrotte_count_is_1d4_plus_1_tv_der_12(d4: int, count: int) -> None:
    # rule: HR-GARROTE-2 (TV-DER-12): death after 1d4+1 ∈ {2..5} rounds unless freed
    fight = garrotte_fight()
    events = attack(fight.state, [10, d4], "Assassin", "Guard", situation=flags("rear"))
    cond = next(e for e in of(events, EventType.CONDITION) if e.data["condition"] == "garrotted")
    assert cond.data["extra"]["count"] == count and cond.data["extra"]["dies_round"] == 1 + count
    assert not of(events, EventType.DAMAGE)


def test_garrotted_victim_dies_at_the_end_of_the_count_hr_garrote_2_5() -> None:
    # rule: HR-GARROTE-2 (d4 1 → 2 rounds: dead at the end of round 3), HR-GARROTE-3 (failed 4d6 escapes),
    # HR-GARROTE-5 (the garrotter may do nothing else; unsteered it keeps the hold)
    fight = garrotte_fight()
    fight.act(Attack("Assassin", target="Guard", situation=flags("rear")), ScriptedDice([10, 1]))
    assert isinstance(choose_action(fight.state, "Guard"), Escape)
    assert isinstance(choose_action(fight.state, "Assassin"), Wait)
    with pytest.raises(IllegalActionError, match="HR-GARROTE-5"):
        attack(fight.state, [10], "Assassin", "Guard", situation=flags("rear"))
    fight.act(Escape("Guard"), ScriptedDice([6, 6, 6, 6]))
    for _ in range(2):
        fight.end_round(ScriptedDice([]))
        assert fight.state["Guard"].is_active()
        fight.start_round(ScriptedDice([9, 2]))
        fight.act(Wait("Assassin", "keeps the garrotte tight"), ScriptedDice([]))
        fight.act(Escape("Guard"), ScriptedDice([6, 6, 6, 6]))
    events = fight.end_round(ScriptedDice([]))
    defeat = of(events, EventType.DEFEAT)[0]
    assert (defeat.target, defeat.rule, defeat.data["status"]) == ("Guard", "HR-GARROTE-2", "dead")


def test_victim_breaks_free_and_the_garrotte_is_reset_hr_garrote_3_4() -> None:
    # rule: HR-GARROTE-3: 4d6 = 4 <= Str 10 frees the guard; HR-GARROTE-4: the assassin re-sets it with
    # 4d6 = 8 <= Str 12, no to-hit roll, and a fresh 1d4+1 (d4 4 → 5 rounds)
    fight = garrotte_fight()
    fight.act(Attack("Assassin", target="Guard", situation=flags("rear")), ScriptedDice([10, 1]))
    freed = fight.act(Escape("Guard"), ScriptedDice([1, 1, 1, 1]))
    assert of(freed, EventType.CHECK)[0].hit is True
    assert not fight.state["Guard"].has("garrotted") and not fight.state["Assassin"].has("garrotting")
    fight.end_round(ScriptedDice([]))
    fight.start_round(ScriptedDice([9, 2]))
    reset = fight.act(ResetGarrotte("Assassin", target="Guard"), ScriptedDice([2, 2, 2, 2, 4]))
    assert not of(reset, EventType.ATTACK)
    assert fight.state["Guard"].conditions["garrotted"].data["dies_round"] == 2 + 5


def test_hurt_garrotter_must_pass_3d6_once_a_round_hr_garrote_6() -> None:
    # rule: HR-GARROTE-6: a hit on the garrotter → 3d6 Str check (12 <= 12 holds); a second hit the same
    # round asks no check; next round a failed check (18 > 12) frees the victim
    assassin = hero("Assassin", weapons=["garrotte"], abilities={"str": 12})
    guard = orc("Guard", hp=30)
    other = orc("Sergeant", hp=30)
    fight = started(encounter("hr", [assassin], [guard, other]), [9, 2, 1])
    fight.act(Attack("Assassin", target="Guard", situation=flags("rear")), ScriptedDice([12, 4]))
    first = fight.act(Attack("Guard", target="Assassin"), ScriptedDice([19, 2, 4, 4, 4]))
    assert of(first, EventType.CHECK)[0].hit is True
    second = fight.act(Attack("Sergeant", target="Assassin"), ScriptedDice([19, 2]))
    assert not of(second, EventType.CHECK)
    fight.end_round(ScriptedDice([]))
    fight.start_round(ScriptedDice([9, 2, 1]))
    fight.act(Wait("Assassin"), ScriptedDice([]))
    lost = fight.act(Attack("Guard", target="Assassin"), ScriptedDice([19, 2, 6, 6, 6]))
    assert of(lost, EventType.CHECK)[0].hit is False
    assert not fight.state["Guard"].has("garrotted")


# --- HR-NET-1, HR-NET-2 -----------------------------------------------------------------------------------


def test_net_range_30_ft_tv_der_13() -> None:
    # rule: HR-NET-1 (TV-DER-13): 30 ft allowed, 35 ft not, even with a range increment of 20 ft
    fight = started(encounter("hr", [hero(weapons=[{"name": "net", "range": 20}])], [orc()]), [9, 2])
    attack(fight.state, [19], "Hero", "Orc", distance=30)
    with pytest.raises(IllegalActionError, match="HR-NET-1"):
        attack(fight.state, [20], "Hero", "Orc", distance=35)


def test_netted_target_cannot_attack_until_a_4d6_strength_check_hr_net_2() -> None:
    # rule: HR-NET-1 (hit vs AC 12: d20 15 at 10 ft, medium range -2 → 13), HR-NET-2 (no attack, no move;
    # 4d6 = 20 > Str 10 fails, 4d6 = 8 breaks the net), GAP-NET-ESCAPE (one try a round, as the action)
    fight = started(encounter("hr", [hero(weapons=["net"])], [orc()]), [9, 2])
    events = fight.act(Attack("Hero", target="Orc", distance=15), ScriptedDice([15]))
    assert of(events, EventType.ATTACK)[0].hit and not of(events, EventType.DAMAGE)
    orc_state = fight.state["Orc"]
    assert orc_state.has("netted") and not can_move(orc_state)
    with pytest.raises(IllegalActionError, match="HR-NET-2"):
        attack(fight.state, [15, 3], "Orc", "Hero")
    assert isinstance(choose_action(fight.state, "Orc"), Escape)
    assert of(fight.act(Escape("Orc"), ScriptedDice([5, 5, 5, 5])), EventType.CHECK)[0].hit is False
    fight.end_round(ScriptedDice([]))
    fight.start_round(ScriptedDice([9, 2]))
    fight.act(Wait("Hero"), ScriptedDice([]))
    fight.act(Escape("Orc"), ScriptedDice([2, 2, 2, 2]))
    assert not fight.state["Orc"].has("netted")


# --- HR-MISSILE-1..5 ---------------------------------------------------------------------------------------


def test_missiles_need_more_than_5_ft_tv_der_14() -> None:
    # rule: HR-MISSILE-1 (TV-DER-14): 5 ft not allowed, 10 ft allowed
    fight = started(encounter("hr", [hero(weapons=["short bow"])], [orc()]), [9, 2])
    with pytest.raises(IllegalActionError, match="HR-MISSILE-1"):
        attack(fight.state, [15, 3], "Hero", "Orc", distance=5)
    attack(fight.state, [15, 3], "Hero", "Orc", distance=10)


def test_no_firing_from_melee_and_firing_costs_dex_hr_missile_2_3() -> None:
    # rule: HR-MISSILE-2 (in melee: move out first), HR-MISSILE-3 (the shooter, Dex 16 (+2), AC 12 → 10)
    archer = hero("Archer", weapons=["short bow"], abilities={"dex": 16})
    fight = started(encounter("hr", [archer], [orc()]), [9, 2])
    with pytest.raises(IllegalActionError, match="HR-MISSILE-2"):
        attack(fight.state, [15, 3], "Archer", "Orc", distance=20, situation=flags("in_melee"))
    ac_before = plan_attack(attack_context(fight.state, Attack("Orc", target="Archer"))).armour_class.value
    fight.push(attack(fight.state, [15, 3], "Archer", "Orc", distance=20))
    ac_after = plan_attack(attack_context(fight.state, Attack("Orc", target="Archer"))).armour_class
    assert (ac_before, ac_after.value) == (12, 10)
    assert any(m.rule == "HR-MISSILE-3" for m in ac_after.components)


def melee_shot(ruleset: str) -> Fight:
    archer = hero("Archer", weapons=["short bow"], position=[0, 0])
    guard = hero("Guard", ac=10, position=[7, 1], weapons=["spear"])
    target = orc(ac=13, position=[6, 0])
    return started(encounter(ruleset, [archer, guard], [target]), [9, 5, 2])


def test_missiles_into_melee_conflict_second_roll() -> None:
    # conflict `missiles_into_melee`: half cover from the melee (+4: AC 13 → 17), d20 14 misses the orc.
    # hr (HR-MISSILE-4, HR-MISSILE-5): 14 would have hit without the cover → a second roll against the guard
    # in the melee: d20 12 vs AC 10 → hit, d6 3. odd: no second roll (ODD-RANGED-4 strays are the referee's).
    shot = flags("into_melee", cover="half")
    hr = melee_shot("hr")
    events = attack(hr.state, [14, 12, 3], "Archer", "Orc", situation=shot)
    attacks = of(events, EventType.ATTACK)
    assert [(a.target, a.hit) for a in attacks] == [("Orc", False), ("Guard", True)]
    assert attacks[0].data["ac"] == 17
    assert any(e.rule == "HR-MISSILE-5" for e in events)
    odd = melee_shot("odd")
    events = resolve(
        odd.state, Attack("Archer", target="Orc", situation=shot), ScriptedDice([14], then=RandomDice(1))
    )
    assert not any(e.rule == "HR-MISSILE-5" for e in events)
    # a miss that would have missed anyway (d20 10 < 13) gets no second roll
    assert len(of(attack(hr.state, [10], "Archer", "Orc", situation=shot), EventType.ATTACK)) == 1


# --- HR-TOUCH-1..4 and the `touch_ac` conflict -----------------------------------------------------------


def touch_fight(ruleset: str) -> Fight:
    cleric = hero("Cleric", weapons=["unarmed"])
    knight = orc("Knight", ac=None, armour="chain mail", shield="small shield", abilities={"dex": 14},
                 protection=[{"name": "ring of protection", "enhancement": 1}])  # fmt: skip
    return started(encounter(ruleset, [cleric], [knight]), [9, 2])


def test_touch_ac_conflict_hr_dex_cover_odd_dex_magic() -> None:
    # conflict `touch_ac`: chain mail, shield, Dex 14 (+1), ring +1. hr (HR-TOUCH-1): 10 + 1 = 11 (no ring,
    # no armour, no shield); odd (ODD-TOUCH-1, ODD-AC-MAGIC-2): 10 + 1 + 1 = 12. With half cover hr adds +4.
    hr, odd = touch_fight("hr"), touch_fight("odd")
    touch = Attack("Cleric", target="Knight", form=AttackForm.TOUCH)
    assert plan_attack(attack_context(hr.state, touch)).armour_class.value == 11
    assert plan_attack(attack_context(odd.state, touch)).armour_class.value == 12
    covered = Attack("Cleric", target="Knight", form=AttackForm.TOUCH, situation=Situation(cover="half"))
    assert plan_attack(attack_context(hr.state, covered)).armour_class.value == 15


def test_missed_touch_spell_stays_charged_tv_002_03() -> None:
    # rule: HR-TOUCH-3 (TV-002-03): cause light wounds misses → still charged; waiting keeps it; another
    # touch may deliver it; any other action (an ordinary attack) loses it. HR-TOUCH-2: no damage.
    fight = touch_fight("hr")
    spell = flags("spell")
    missed = fight.act(
        Attack("Cleric", target="Knight", form=AttackForm.TOUCH, situation=spell), ScriptedDice([2])
    )
    assert fight.state["Cleric"].has("charged_touch")
    assert any(e.rule == "HR-TOUCH-3" for e in missed)
    fight.act(Wait("Knight"), ScriptedDice([]))
    fight.end_round(ScriptedDice([]))
    fight.start_round(ScriptedDice([9, 2]))
    fight.act(Wait("Cleric", "waits"), ScriptedDice([]))
    assert fight.state["Cleric"].has("charged_touch")
    hit = resolve(fight.state, Attack("Cleric", target="Knight", form=AttackForm.TOUCH, situation=spell),
                  ScriptedDice([15]))  # fmt: skip
    assert of(hit, EventType.ATTACK)[0].hit and not of(hit, EventType.DAMAGE)
    assert any(e.type is EventType.CONDITION and e.data["added"] is False for e in hit)
    lost = resolve(fight.state, Attack("Cleric", target="Knight"), ScriptedDice([2]))
    assert lost[-1].rule == "HR-TOUCH-3" and lost[-1].data["added"] is False


def test_quivering_palm_is_not_a_touch_attack_hr_touch_4() -> None:
    # rule: HR-TOUCH-4
    monk = hero("Monk", weapons=[{"name": "quivering palm", "damage": "1d6", "natural": True}])
    fight = started(encounter("hr", [monk], [orc()]), [9, 2])
    with pytest.raises(IllegalActionError, match="HR-TOUCH-4"):
        attack(fight.state, [15], "Monk", "Orc", form=AttackForm.TOUCH)
    attack(fight.state, [15, 3], "Monk", "Orc")


# --- HR-HELPLESS-1..4 and the `helpless_targets` / `prone` conflicts -----------------------------------------


def helpless(ruleset: str, conditions: list[str], **kw: Any) -> Fight:
    data = angthar_data(ruleset=ruleset, goblin_hp=20)
    data["sides"][1]["combatants"][0]["conditions"] = conditions
    data["sides"][0]["combatants"][0].update(kw)
    return started(data, [7, 4])


def test_helpless_melee_hits_automatically_for_maximum_hr_helpless_1_2() -> None:
    # rule: HR-HELPLESS-1 (no roll), HR-HELPLESS-2 (proficient: battle axe 8 + Str 1 = 9)
    fight = helpless("hr", ["sleeping"])
    events = attack(fight.state, [], "Angthar", "Goblin")
    roll = of(events, EventType.ATTACK)[0]
    assert roll.hit and roll.data["automatic"] is True and not roll.dice
    assert of(events, EventType.DAMAGE)[0].damage == 9
    assert of(events, EventType.DAMAGE)[0].rule == "HR-HELPLESS-2"


def test_not_proficient_rolls_damage_hr_helpless_2() -> None:
    # rule: HR-HELPLESS-2: not proficient with the battle axe → d8 rolled (3) + Str 1 = 4
    fight = helpless("hr", ["bound"], proficiencies=["long sword"])
    assert of(attack(fight.state, [3], "Angthar", "Goblin"), EventType.DAMAGE)[0].damage == 4


def test_missiles_roll_against_the_helpless_hr_helpless_3() -> None:
    # rule: HR-HELPLESS-3: a javelin at 20 ft rolls to hit (d20 2 → miss) and for damage
    fight = helpless("hr", ["paralyzed"], weapons=["javelin"])
    roll = of(attack(fight.state, [2], "Angthar", "Goblin", distance=20), EventType.ATTACK)[0]
    assert roll.data["automatic"] is None and roll.hit is False


def test_multiplicative_bonuses_do_not_apply_hr_helpless_4() -> None:
    # rule: HR-HELPLESS-4: a set spear's double dice (HR-CHARGE-4) is multiplicative: dropped; Str stays
    fight = helpless("hr", ["unconscious"], weapons=["spear"])
    ctx = attack_context(fight.state, Attack("Angthar", target="Goblin", situation=flags("receives_charge")))
    plan = plan_attack(ctx)
    assert plan.damage.dice_multiplier == 1 and plan.damage.total_multiplier == 1 and plan.damage.maximise
    assert [m.value for m in plan.damage.modifiers] == [1]
    # and a thief's backstab multiplier (MOD-BSTAB-2, under `flank_and_rear = mod`) is dropped too
    fight = started(angthar_data(ruleset="hr", options={"flank_and_rear": "mod"}, goblin_hp=20), [7, 4])
    goblin = fight.state["Goblin"]
    goblin.surprised = True
    backstab = Attack("Angthar", target="Goblin", situation=flags("backstab"))
    assert plan_attack(attack_context(fight.state, backstab)).damage.dice_multiplier > 1  # awake: x2 or more
    goblin.conditions["sleeping"] = Condition("sleeping")
    assert plan_attack(attack_context(fight.state, backstab)).damage.dice_multiplier == 1


def test_helpless_and_prone_conflicts() -> None:
    # conflicts `helpless_targets` and `prone`: a prone, defenceless goblin. odd (ODD-SIT-DEFENCELESS): +10
    # to a rolled attack: d20 3 + 5 + 10 = 18, damage rolled 2 + 1. hr (`prone = hr_helpless`,
    # HR-HELPLESS-1/2): no roll, maximum 8 + 1 = 9.
    odd = helpless("odd", ["prone", "defenceless"])
    events = attack(odd.state, [3, 2], "Angthar", "Goblin")
    assert of(events, EventType.ATTACK)[0].total == 18
    assert of(events, EventType.DAMAGE)[0].damage == 3
    hr = helpless("hr", ["prone", "defenceless"])
    assert of(attack(hr.state, [], "Angthar", "Goblin"), EventType.DAMAGE)[0].damage == 9


# --- HR-ARMDMG-1..5 -----------------------------------------------------------------------------------------


def critical_on_angthar(fight: Fight) -> list[Event]:
    # the goblin rolls a natural 20, confirms with 16, scimitar 2d8 (GAP-CRIT-002) = 1 + 1
    return fight.push(attack(fight.state, [20, 16, 1, 1], "Goblin", "Angthar"))


def test_critical_worsens_leather_then_destroys_it_tv_002_01() -> None:
    # rule: HR-ARMDMG-1 (TV-002-01: leather DAC 8 → 9, ascending 12 → 11), HR-ARMDMG-3 (a second critical:
    # DAC 10, destroyed)
    fight = started(angthar_data(ruleset="hr"), [7, 4])
    first = of(critical_on_angthar(fight), EventType.ARMOUR)[0]
    assert (first.rule, first.data["dac_before"], first.data["dac_after"]) == ("HR-ARMDMG-1", 8, 9)
    ac = plan_attack(attack_context(fight.state, Attack("Goblin", target="Angthar"))).armour_class.value
    assert ac == 11
    second = of(critical_on_angthar(fight), EventType.ARMOUR)[0]
    assert (second.rule, second.data["dac_after"], second.data["armour_destroyed"]) == (
        "HR-ARMDMG-3",
        10,
        True,
    )
    assert fight.state["Angthar"].armour_destroyed
    assert armour_recovery(2, 5, magical=False) == 2  # HR-ARMDMG-2: kept until repaired


def test_shield_sacrificed_instead_hr_armdmg_4() -> None:
    # rule: HR-ARMDMG-4: the owner's choice (`sacrifice_shield: true`): the shield is destroyed, armour intact
    fight = started(angthar_data(ruleset="hr"), [7, 4])
    data = angthar_data(ruleset="hr")
    data["sides"][0]["combatants"][0].update(shield="small shield", sacrifice_shield=True)
    fight = started(data, [7, 4])
    armour = of(critical_on_angthar(fight), EventType.ARMOUR)[0]
    assert armour.rule == "HR-ARMDMG-4"
    assert fight.state["Angthar"].shield_destroyed and fight.state["Angthar"].armour_loss == 0


def test_enchanted_plate_heals_a_point_a_day_tv_002_02() -> None:
    # rule: HR-ARMDMG-5 (TV-002-02): magical plate (DAC 3) reduced to AC 4; 24 hours later AC 3
    data = angthar_data(ruleset="hr")
    data["sides"][0]["combatants"][0]["armour"] = {"name": "plate mail", "magical": True}
    fight = started(data, [7, 4])
    first = of(critical_on_angthar(fight), EventType.ARMOUR)[0]
    assert first.data["dac_after"] == 4
    healed = fight.push(rest_events(fight.state, days=1))
    assert healed[0].rule == "HR-ARMDMG-5"
    assert fight.state["Angthar"].armour_loss == 0
    assert armour_recovery(3, 1, magical=True) == 2


def test_armour_damage_toggle_off_in_odd() -> None:
    # conflict `critical_hits` + toggle `armour_damage`: with odd there is no critical and no armour damage
    fight = started(angthar_data(ruleset="odd"), [7, 4])
    assert not of(fight.push(attack(fight.state, [20, 1], "Goblin", "Angthar")), EventType.ARMOUR)


def test_house_actions_travel_as_dicts() -> None:
    # rule: HR-WITHDRAW-1, HR-NET-2, HR-GARROTE-4: the new actions round-trip through the tracker's JSON
    from referee.engine.actions import action_from_dict

    for action in (Withdraw("Angthar", feet=15, position=(1, 2)), Escape("Angthar"), ResetGarrotte("A", "B")):
        assert action_from_dict(action.to_dict()) == action
    fight = started(angthar_data(ruleset="hr"), [7, 4])
    with pytest.raises(IllegalActionError, match="feet must be"):
        resolve(
            fight.state,
            action_from_dict({"kind": "withdraw", "actor": "Angthar", "feet": "far"}),
            ScriptedDice([]),
        )
    with pytest.raises(IllegalActionError, match="0 to 120 ft"):
        resolve(fight.state, Withdraw("Angthar", feet=200), ScriptedDice([]))
    with pytest.raises(IllegalActionError, match="neither netted nor garrotted"):
        resolve(fight.state, Escape("Angthar"), ScriptedDice([]))
