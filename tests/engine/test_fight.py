"""The fight loop: the first seed's worked examples, driven through scripted dice."""

from __future__ import annotations

import json

import pytest
from tests.conftest import angthar_data, make_setup

from referee.dice import RandomDice, ScriptedDice
from referee.engine.actions import Attack, Wait
from referee.engine.events import EventType
from referee.engine.fight import Fight, replay, run_fight
from referee.errors import IllegalActionError


def types(events: list) -> list[str]:  # type: ignore[type-arg]
    return [e.type.value for e in events]


def test_angthar_kills_the_goblin() -> None:
    # rule: ODD-INIT-1 (TV-000-01), ODD-ATK-1, ODD-MELEE-1 (TV-000-02), ODD-ATK-2, ODD-MELEE-2, ODD-HP-1 (TV-000-03)
    # dice: initiative Angthar 7, goblin 4; attack d20 12; battle axe d8 6
    fight = run_fight(make_setup(angthar_data()), ScriptedDice([7, 4, 12, 6]))
    init = next(e for e in fight.events if e.type is EventType.INITIATIVE)
    assert init.data["order"] == [["Angthar"], ["Goblin"]]
    attack = next(e for e in fight.events if e.type is EventType.ATTACK)
    assert (attack.total, attack.target_number, attack.hit) == (17, 12, True)
    assert [m.rule for m in attack.modifiers] == ["ODD-BTH-1", "ODD-MELEE-1"]
    damage = next(e for e in fight.events if e.type is EventType.DAMAGE)
    assert damage.damage == 7
    assert damage.data["hp_after"] == -3
    defeat = next(e for e in fight.events if e.type is EventType.DEFEAT)
    assert (defeat.target, defeat.data["status"]) == ("Goblin", "dead")
    assert fight.state.winner == "Village"
    assert fight.state.round == 1


def test_a_surviving_goblin_acts_and_a_new_round_rolls_initiative() -> None:
    # rule: ODD-ROUND-1, ODD-ROUND-4 (TV-000-04): 1 + 1 = 2 damage, the goblin lives with 2 hp and swings back
    dice = [7, 4, 12, 1, 15, 3, 9, 2, 14, 5]
    fight = run_fight(make_setup(angthar_data()), ScriptedDice(dice, then=RandomDice(0)))
    goblin_hp = [
        e.data["hp_after"] for e in fight.events if e.type is EventType.DAMAGE and e.target == "Goblin"
    ]
    assert goblin_hp[0] == 2
    round_one = [e for e in fight.events if e.round == 1 and e.type is EventType.ATTACK]
    assert [e.actor for e in round_one] == ["Angthar", "Goblin"]
    inits = [e for e in fight.events if e.type is EventType.INITIATIVE]
    assert len(inits) >= 2
    assert inits[1].round == 2  # ODD-ROUND-4: initiative afresh each round


def test_ties_break_by_dexterity_then_act_together() -> None:
    # rule: ODD-INIT-2 (higher Dex first), ODD-INIT-3 (equal Dex: simultaneous)
    data = angthar_data()
    fight = Fight(make_setup(data))
    fight.begin(ScriptedDice([]))
    fight.start_round(ScriptedDice([5, 5]))
    assert fight.state.order == [["Angthar"], ["Goblin"]]  # Dex 12 beats the goblin's 10
    data["sides"][0]["combatants"][0]["abilities"]["dex"] = 10
    fight = Fight(make_setup(data))
    fight.begin(ScriptedDice([]))
    fight.start_round(ScriptedDice([5, 5]))
    assert fight.state.order == [["Angthar", "Goblin"]]


def test_simultaneous_actions_both_happen() -> None:
    # rule: ODD-INIT-3: a combatant dropped in its own initiative slot still acts
    data = angthar_data()
    data["sides"][0]["combatants"][0]["abilities"]["dex"] = 10
    # same initiative; Angthar kills the goblin (12, 6) but the goblin still swings (15, 3)
    fight = run_fight(make_setup(data), ScriptedDice([5, 5, 12, 6, 15, 3]))
    attacks = [e for e in fight.events if e.type is EventType.ATTACK]
    assert [a.actor for a in attacks] == ["Angthar", "Goblin"]
    assert fight.state["Angthar"].hp == 27


def test_group_initiative() -> None:
    # rule: ODD-INIT-4: one d10 per side, the whole winning side first (GAP-INIT-GROUP-TIE for ties)
    data = angthar_data(goblins=2, options={"initiative": "d10_group"})
    fight = Fight(make_setup(data))
    fight.begin(ScriptedDice([]))
    fight.start_round(ScriptedDice([3, 8]))
    assert fight.state.order == [["Goblin 1", "Goblin 2"], ["Angthar"]]
    fight = Fight(make_setup(data))
    fight.begin(ScriptedDice([]))
    fight.start_round(ScriptedDice([6, 6]))
    assert fight.state.order == [["Angthar", "Goblin 1", "Goblin 2"]]


def hambone_data() -> dict:  # type: ignore[type-arg]
    return {
        "name": "Hambone and the stone giant",
        "sides": [
            {"name": "Hambone", "combatants": [{"name": "Hambone", "level": 3, "size": "small", "hp": 12,
                                                "weapons": ["short sword"]}]},
            {"name": "Giant", "combatants": [{"name": "Stone giant", "hit_dice": "9d8", "hp": 50, "size": "large",
                                              "ac": 15, "weapons": ["great club"]}]},
        ],
    }  # fmt: skip


def test_large_creature_strikes_first_in_round_one() -> None:
    # rule: ODD-INIT-5, ODD-INIT-6 (TV-000-08): Hambone rolls 9, the giant 3, yet the giant swings first
    fight = Fight(make_setup(hambone_data()))
    fight.begin(ScriptedDice([]))
    events = fight.start_round(ScriptedDice([9, 3]))
    init = events[-1]
    assert init.data["order"] == [["Stone giant"], ["Hambone"]]
    assert init.data["first_strike"][0]["rule"] == "ODD-INIT-5"
    assert fight.next_actor() == "Stone giant"


def test_first_strike_is_only_in_round_one() -> None:
    # rule: ODD-INIT-5 (first round only)
    fight = Fight(make_setup(hambone_data()))
    fight.begin(ScriptedDice([]))
    fight.start_round(ScriptedDice([9, 3]))
    fight.act(Wait("Stone giant"), ScriptedDice([]))
    fight.act(Wait("Hambone"), ScriptedDice([]))
    fight.end_round(ScriptedDice([]))
    fight.start_round(ScriptedDice([9, 3]))
    assert fight.state.order == [["Hambone"], ["Stone giant"]]


def test_first_strike_can_be_switched_off() -> None:
    data = hambone_data()
    data["options"] = {"first_strike_reach_size": "off"}
    fight = Fight(make_setup(data))
    fight.begin(ScriptedDice([]))
    fight.start_round(ScriptedDice([9, 3]))
    assert fight.state.order == [["Hambone"], ["Stone giant"]]


def test_hit_points_are_rolled_from_hit_dice_first() -> None:
    # rule: ODD-HD-2 (TV-000-15): 5d8 = sum of five d8; rolled before anything else
    data = angthar_data(goblin_hp=None)
    data["sides"][1]["combatants"][0]["hit_dice"] = "5d8"
    fight = Fight(make_setup(data))
    events = fight.begin(ScriptedDice([1, 2, 3, 4, 5]))
    assert events[0].type is EventType.SETUP
    assert events[0].data["hp"]["Goblin"] == 15
    assert [d.sides for d in events[0].dice] == [8] * 5


def test_character_hit_points_from_level_and_class_die() -> None:
    # rule: ODD-HD-1 (TV-000-15): a 5th-level fighter has rolled 5d10
    data = angthar_data()
    angthar = data["sides"][0]["combatants"][0]
    del angthar["hp"]
    angthar["hit_die"] = "d10"
    fight = Fight(make_setup(data))
    events = fight.begin(ScriptedDice([10, 1, 5, 5, 9]))
    assert events[0].data["hp"]["Angthar"] == 30
    assert [d.sides for d in events[0].dice] == [10] * 5


def test_monster_to_hit_is_its_hit_dice() -> None:
    # rule: ODD-BTH-2 (TV-000-14): 5 HD → +5; 3d8 → +3
    data = angthar_data()
    data["sides"][1]["combatants"][0]["hit_dice"] = "3d8"
    setup = make_setup(data)
    assert setup.combatant("Goblin").attack_bonus == 3
    data["sides"][1]["combatants"][0]["hit_dice"] = 5
    assert make_setup(data).combatant("Goblin").attack_bonus == 5


def test_surprise_failed_gives_a_free_round() -> None:
    # rule: ODD-SURP-2, ODD-SURP-4 (TV-000-05): the goblins fail their Wisdom check (d20 15 > Wis 10)
    data = angthar_data(goblins=2, surprise={"sides": ["Goblins"]})
    fight = Fight(make_setup(data))
    events = fight.begin(ScriptedDice([15]))
    check = next(e for e in events if e.type is EventType.CHECK)
    assert (check.total, check.target_number, check.hit) == (15, 10, False)
    assert fight.state.free_round and fight.state.round == 0
    assert fight.next_actor() == "Angthar"
    fight.act(Attack("Angthar", target="Goblin 1"), ScriptedDice([12, 6]))
    assert fight.next_actor() is None  # the surprised goblins do nothing in the free round


def test_surprised_defender_loses_dex() -> None:
    # rule: ODD-AC-DEX-2: surprised → no Dex to AC; Angthar (Dex 12 → 0) is unaffected, so give him Dex 16
    data = angthar_data(surprise={"sides": ["Village"]})
    data["sides"][0]["combatants"][0]["abilities"]["dex"] = 16
    fight = Fight(make_setup(data))
    fight.begin(ScriptedDice([20]))
    assert fight.state["Angthar"].surprised
    fight.act(Attack("Goblin", target="Angthar"), ScriptedDice([11, 1]))
    attack = next(e for e in fight.events if e.type is EventType.ATTACK)
    assert attack.data["ac"] == 12  # 10 + leather 2, Dex +2 lost
    assert "surprised" in attack.data["ac_breakdown"]


def test_surprise_passed_means_initiative() -> None:
    # rule: ODD-SURP-2 (TV-000-05, pass): d20 4 <= Wis 10 → no free round
    data = angthar_data(surprise={"sides": ["Goblins"]})
    fight = Fight(make_setup(data))
    fight.begin(ScriptedDice([4]))
    assert fight.needs() == "round"


def test_surprise_impossible_rolls_nothing() -> None:
    # rule: ODD-SURP-1 (TV-000-06): crackling leaves, the referee rules surprise out; no check is rolled
    data = angthar_data(surprise={"possible": False, "sides": ["Goblins"]})
    fight = Fight(make_setup(data))
    events = fight.begin(ScriptedDice([]))
    assert not [e for e in events if e.type is EventType.CHECK]
    assert events[-1].data["possible"] is False


def test_referee_modifier_on_the_surprise_check() -> None:
    # rule: ODD-SURP-3 (TV-000-07): unobservant orcs check at -4: d20 8 > Wis 10 - 4 → surprised
    data = angthar_data(surprise={"sides": ["Goblins"], "modifiers": {"Goblins": -4}})
    fight = Fight(make_setup(data))
    events = fight.begin(ScriptedDice([8]))
    check = next(e for e in events if e.type is EventType.CHECK)
    assert check.target_number == 6 and check.hit is False


def test_both_sides_surprised_stunned_silence() -> None:
    # rule: ODD-SURP-5: both fail → a free round with no actions, then initiative as normal
    data = angthar_data(surprise={"sides": ["Village", "Goblins"]})
    fight = Fight(make_setup(data))
    fight.begin(ScriptedDice([20, 20]))
    assert fight.state.free_round
    assert fight.next_actor() is None
    fight.end_round(ScriptedDice([]))
    fight.start_round(ScriptedDice([7, 4]))
    assert fight.state.round == 1 and fight.next_actor() == "Angthar"


def test_per_combatant_surprise_checks() -> None:
    # rule: ODD-SURP-2: one check per member when the referee says so
    data = angthar_data(goblins=2, surprise={"sides": ["Goblins"], "check": "per_combatant"})
    fight = Fight(make_setup(data))
    fight.begin(ScriptedDice([20, 1]))
    assert fight.state["Goblin 1"].surprised and not fight.state["Goblin 2"].surprised


def test_acting_out_of_turn_is_refused() -> None:
    # rule: ODD-INIT-1 (order of action)
    fight = Fight(make_setup(angthar_data()))
    fight.begin(ScriptedDice([]))
    fight.start_round(ScriptedDice([7, 4]))
    with pytest.raises(IllegalActionError, match="Angthar's turn"):
        fight.act(Attack("Goblin", target="Angthar"), ScriptedDice([10, 1]))


def test_one_action_per_round() -> None:
    # rule: ODD-ROUND-1, ODD-ATK-3: everyone acts once, then the round ends
    fight = Fight(make_setup(angthar_data(goblin_hp=20)))
    fight.begin(ScriptedDice([]))
    fight.start_round(ScriptedDice([7, 4]))
    fight.act(Attack("Angthar", target="Goblin"), ScriptedDice([2]))
    fight.act(Attack("Goblin", target="Angthar"), ScriptedDice([2]))
    assert fight.needs() == "end_round"


def test_replay_rebuilds_identical_state_and_undo_refolds() -> None:
    setup = make_setup(angthar_data(goblins=3, goblin_hp=None))
    fight = run_fight(setup, RandomDice(5))
    again = replay(setup, fight.events)
    assert again.state.snapshot() == fight.state.snapshot()
    before = Fight(setup, fight.events[:-3]).state.snapshot()
    fight.undo(3)
    assert fight.state.snapshot() == before


def test_same_seed_same_json() -> None:
    setup = make_setup(angthar_data(goblins=3, goblin_hp=None))
    a = json.dumps(run_fight(setup, RandomDice(11)).result().to_dict())
    b = json.dumps(run_fight(setup, RandomDice(11)).result().to_dict())
    c = json.dumps(run_fight(setup, RandomDice(12)).result().to_dict())
    assert a == b
    assert a != c


def test_round_limit_ends_the_fight() -> None:
    setup = make_setup(angthar_data(goblin_hp=500, max_rounds=2))
    fight = run_fight(setup, ScriptedDice([], then=RandomDice(1)))
    assert fight.state.round == 2
    end = fight.events[-1]
    assert end.type is EventType.FIGHT_END and end.data["reason"] == "round limit"


def test_characters_fall_unconscious_monsters_die() -> None:
    # rule: ODD-HP-1 (GAP-HP-ZERO): a character at 0 to -9 is unconscious, at -10 dead; monsters die at 0
    data = angthar_data()
    data["sides"][0]["combatants"][0]["hp"] = 3
    fight = Fight(make_setup(data))
    fight.begin(ScriptedDice([]))
    fight.start_round(ScriptedDice([4, 7]))
    fight.act(Attack("Goblin", target="Angthar"), ScriptedDice([15, 5]))
    assert fight.state["Angthar"].status == "unconscious"
    assert types(fight.events)[-1] == "fight_end"


def test_stealthy_attacker_surprise_under_mf() -> None:
    # rule: MF-VIS-7 (the referee rules a sneaking attacker may surprise: `surprise.sides`),
    # MF-SURP-1 (a bonus round), MF-SURP-2 (the ambusher's first attack with advantage)
    data = angthar_data(ruleset="mf", surprise={"sides": ["Goblins"]})
    fight = Fight(make_setup(data))
    fight.begin(ScriptedDice([18]))  # the goblin's Wisdom check fails: 18 > 10
    assert fight.state.free_round and fight.next_actor() == "Angthar"
    events = fight.act(Attack("Angthar", target="Goblin"), ScriptedDice([3, 15, 6]))
    attack = next(e for e in events if e.type is EventType.ATTACK)
    assert [d.value for d in attack.dice] == [3, 15]  # two d20, the higher kept
    assert attack.data["keep"] == "highest" and attack.data["natural"] == 15
