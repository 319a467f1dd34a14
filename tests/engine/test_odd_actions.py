"""ODD actions and maneuver hooks in the fight (src/referee/engine/odd_actions.py, moves.py, odd_hooks.py,
odd_tactics.py), with scripted dice."""

from __future__ import annotations

from typing import Any

import pytest
from tests.conftest import angthar_data, make_setup
from tests.odd_helpers import encounter, fight_of, fighter, orc

from referee.dice import ScriptedDice
from referee.engine import tactics
from referee.engine.actions import Attack, action_from_dict
from referee.engine.events import Event, EventType
from referee.engine.fight import Fight
from referee.engine.moves import Charge, Move, MoveAttack, declare_charge
from referee.engine.odd_actions import (
    ODD_ACTION_KINDS,
    CastSpell,
    CheckedAttack,
    DefensiveManeuver,
    ExtraAction,
    QuickAct,
    UseAbility,
    UseItem,
)
from referee.errors import IllegalActionError
from referee.rules.context import AttackForm


def of(events: list[Event], kind: EventType) -> list[Event]:
    return [e for e in events if e.type is kind]


def conditions(fight: Fight, who: str) -> set[str]:
    return set(fight.state[who].conditions)


# --- charging -------------------------------------------------------------------------------------------


def test_angthar_declares_a_charge() -> None:
    # rule: ODD-CHARGE-1, ODD-CHARGE-3, ODD-CHARGE-4 (X-7: the same rolls as TV-000-02/03 with a declared
    # charge deal 6 + 1 + 2 = 9, and Angthar's AC 12 is 8 for the round)
    fight = fight_of(angthar_data(goblin_hp=20), initiative=[7, 4])
    fight.push(declare_charge(fight.state, "Angthar", "Goblin", distance=40))
    assert fight.state["Angthar"].conditions["charging"].until_round == 1
    events = fight.act(Charge("Angthar", target="Goblin", distance=40), ScriptedDice([12, 6]))
    attack = of(events, EventType.ATTACK)[0]
    assert (attack.total, attack.target_number, attack.hit) == (17, 12, True)
    damage = of(events, EventType.DAMAGE)[0]
    assert damage.damage == 9
    assert [m.rule for m in damage.modifiers] == ["ODD-MELEE-2", "ODD-CHARGE-3"]
    assert of(events, EventType.ACTION)[0].data["kind"] == "charge"
    swing = of(fight.act(Attack("Goblin", target="Angthar"), ScriptedDice([5, 3])), EventType.ATTACK)[0]
    assert swing.target_number == 8
    assert "ODD-CHARGE-4" in swing.data["ac_breakdown"]
    fight.end_round(ScriptedDice([]))
    assert "charging" not in conditions(fight, "Angthar")  # only for the round


def hambone_and_the_giant() -> dict[str, Any]:
    hambone = fighter("Hambone", size="small", move=20, hp=8, armour="leather", weapons=["short sword"])
    giant = {"name": "Stone giant", "size": "large", "hit_dice": 2, "attack_bonus": 0, "hp": 60, "ac": 14,
             "weapons": ["great club"]}  # fmt: skip
    return encounter([hambone], [giant])


def test_hambone_charges_the_stone_giant_who_strikes_first_and_misses() -> None:
    # rule: ODD-INIT-5, ODD-CHARGE-4 (TV-000-08, X-8: the club glances off = a miss; Hambone's AC 12 is 8
    # during the giant's first strike), ODD-CHARGE-3 (the charge stands: +2 damage)
    fight = fight_of(hambone_and_the_giant(), initiative=[9, 3])
    assert fight.state.order == [["Stone giant"], ["Hambone"]]
    fight.push(declare_charge(fight.state, "Hambone", "Stone giant", distance=30))
    swing = of(fight.act(Attack("Stone giant", target="Hambone"), ScriptedDice([5])), EventType.ATTACK)[0]
    assert (swing.total, swing.target_number, swing.hit) == (5, 8, False)
    events = fight.act(Charge("Hambone", target="Stone giant", distance=30), ScriptedDice([15, 4]))
    assert of(events, EventType.DAMAGE)[0].damage == 4 + 2


def test_a_hit_on_the_charger_first_negates_the_charge() -> None:
    # rule: ODD-CHARGE-5 (hit first: no +2, the move and attack still happen, the AC penalty stays)
    fight = fight_of(hambone_and_the_giant(), initiative=[9, 3])
    fight.push(declare_charge(fight.state, "Hambone", "Stone giant", distance=30))
    events = fight.act(Attack("Stone giant", target="Hambone"), ScriptedDice([10, 1, 1]))
    assert of(events, EventType.ATTACK)[0].hit  # 10 ≥ 8: would have missed AC 12
    negation = [e for e in of(events, EventType.CONDITION) if e.rule == "ODD-CHARGE-5"]
    assert len(negation) == 1
    events = fight.act(Charge("Hambone", target="Stone giant", distance=30), ScriptedDice([15, 4]))
    damage = of(events, EventType.DAMAGE)[0]
    assert damage.damage == 4
    assert [(m.value, m.rule) for m in damage.modifiers] == [(0, "ODD-CHARGE-5")]
    assert "charging" in conditions(fight, "Hambone")


def test_a_charge_on_the_grid_runs_straight_to_the_target() -> None:
    # rule: ODD-CHARGE-2 (straight line, base..jog), ODD-MOVE-4 (squares of 5 ft)
    data = encounter([fighter("Una", position=[0, 0])], [orc(position=[0, 8])])
    fight = fight_of(data, initiative=[9, 3])
    events = fight.act(Charge("Una", target="Orc"), ScriptedDice([1]))
    move = of(events, EventType.ACTION)[0]
    assert (move.data["moved"], move.data["position"]) == (35, [0, 7])
    assert fight.state["Una"].position == (0, 7)
    assert of(events, EventType.ATTACK)[0].data["charge"]
    close = fight_of(encounter([fighter("Una", position=[0, 0])], [orc(position=[0, 5])]), initiative=[9, 3])
    with pytest.raises(IllegalActionError, match="ODD-CHARGE-2"):
        close.act(Charge("Una", target="Orc"), ScriptedDice([]))


def test_a_scripted_charge_is_declared_before_the_round() -> None:
    # rule: ODD-CHARGE-1 (announced before moving: the encounter file's tactic declares it at the round's start)
    data = angthar_data(goblin_hp=20)
    data["sides"][0]["combatants"][0]["tactic"] = {"maneuver": "charge", "distance": 40, "rounds": [1]}
    fight = fight_of(data)
    events = fight.start_round(ScriptedDice([4, 7]))  # the goblin acts first
    assert [e.rule for e in of(events, EventType.CONDITION)] == ["ODD-CHARGE-4"]
    swing = of(fight.step(tactics.choose_action, ScriptedDice([5, 1])), EventType.ATTACK)[0]
    assert swing.target_number == 8
    charge = fight.step(tactics.choose_action, ScriptedDice([12, 6]))
    assert of(charge, EventType.DAMAGE)[0].damage == 9


# --- grapple, overbear, pummel ----------------------------------------------------------------------------


def troll_and_halfling() -> dict[str, Any]:
    troll = {"name": "Troll", "hit_dice": 6, "hp": 40, "ac": 16, "size": "large", "abilities": {"str": 18},
             "weapons": ["claw"], "tactic": {"maneuver": "grapple"}}  # fmt: skip
    hob = fighter("Hob", size="small", abilities={"str": 14, "dex": 14})
    return encounter([hob], [troll])


def test_a_hold_until_the_halfling_breaks_free() -> None:
    # rule: ODD-GRAP-3 (held: grappled, prone, defenceless; only breaking free), ODD-GRAP-4 (GAP-GRAPPLE-BREAK)
    fight = fight_of(troll_and_halfling(), initiative=[3, 8])
    events = fight.step(tactics.choose_action, ScriptedDice([10]))  # troll: 10 + 3 = 13 vs grapple AC 13
    assert of(events, EventType.ATTACK)[0].data["ac_kind"] == "grapple"
    assert conditions(fight, "Hob") >= {"grappled", "prone", "defenceless"}
    assert "grappling" in conditions(fight, "Troll")
    with pytest.raises(IllegalActionError, match="ODD-GRAP-3"):
        fight.act(Move("Hob", distance=10), ScriptedDice([]))
    escape = tactics.choose_action(fight.state, "Hob")
    assert isinstance(escape, Attack) and escape.form is AttackForm.GRAPPLE and escape.target == "Troll"
    failed = fight.act(escape, ScriptedDice([15]))  # 15 + 1 = 16 < 22
    assert not of(failed, EventType.ATTACK)[0].hit
    fight.end_round(ScriptedDice([]))
    assert "grappled" in conditions(fight, "Hob")  # a hold lasts until broken
    fight.start_round(ScriptedDice([8, 3]))
    events = fight.act(escape, ScriptedDice([20]))  # 21 < 22: still held
    assert not of(events, EventType.ATTACK)[0].hit
    claw = fight.act(Attack("Troll", target="Hob", weapon="claw"), ScriptedDice([1, 1]))
    assert of(claw, EventType.ATTACK)[0].total == 1 + 6 + 3 + 10  # held: +10 (ODD-SIT-DEFENCELESS)
    fight.end_round(ScriptedDice([]))
    fight.start_round(ScriptedDice([8, 3]))
    freed = fight.act(
        Attack("Hob", target="Troll", form=AttackForm.GRAPPLE, situation=_slip()), ScriptedDice([15])
    )
    assert of(freed, EventType.ATTACK)[0].total == 15 + 1 + 8  # 24 ≥ 22
    assert {e.rule for e in of(freed, EventType.CONDITION)} == {"ODD-GRAP-4"}
    assert not conditions(fight, "Hob") & {"grappled", "prone", "defenceless"}
    assert "grappling" not in conditions(fight, "Troll")


def _slip():  # type: ignore[no-untyped-def]
    from referee.checks import Modifier
    from referee.rules.context import Situation

    return Situation(modifiers=(Modifier(8, "ODD-SIT-1", "the troll slips on the wet bridge"),))


def test_a_hold_ends_when_the_holder_falls() -> None:
    # rule: ODD-GRAP-3 (the hold lasts while the holder holds: a fallen holder holds nobody)
    data = troll_and_halfling()
    data["sides"][0]["combatants"].append(fighter("Ann", attack_bonus=10))
    fight = fight_of(data, initiative=[3, 1, 8])
    fight.step(tactics.choose_action, ScriptedDice([10]))
    fight.act(Attack("Hob", target="Troll", form=AttackForm.GRAPPLE), ScriptedDice([1]))
    fight.push([Event(EventType.DEFEAT, 1, target="Troll", data={"status": "unconscious"})])
    events = fight.end_round(ScriptedDice([]))
    assert "grappled" not in conditions(fight, "Hob")
    assert any(e.rule == "ODD-GRAP-3" for e in of(events, EventType.CONDITION))


def test_overbear_prone_to_the_end_of_the_round() -> None:
    # rule: ODD-OVERB-3 (prone until the end of the round, 1d2 subdual), ODD-OVERB-5 (AC 2 worse for the round)
    data = encounter([fighter(abilities={"str": 14})], [orc(hp=10)])
    fight = fight_of(data, initiative=[9, 3])
    events = fight.act(Attack("Ann", target="Orc", form=AttackForm.OVERBEAR), ScriptedDice([14, 2]))
    assert of(events, EventType.ATTACK)[0].target_number == 15
    damage = of(events, EventType.DAMAGE)[0]
    assert (damage.damage, damage.data["subdual"]) == (2, True)
    assert "prone" in conditions(fight, "Orc") and "overbearing" in conditions(fight, "Ann")
    swing = of(fight.act(Attack("Orc", target="Ann"), ScriptedDice([1])), EventType.ATTACK)[0]
    assert swing.target_number == 8
    fight.end_round(ScriptedDice([]))
    assert "prone" not in conditions(fight, "Orc") and "overbearing" not in conditions(fight, "Ann")
    assert fight.state["Orc"].subdual == 2


def test_a_bare_handed_character_pummels_for_subdual_damage() -> None:
    # rule: ODD-PUMMEL-2, ODD-UNARMED-2 (the default choice of a weaponless character is a pummel)
    data = encounter([fighter(weapons=[], abilities={"str": 16})], [orc(hp=10)])
    fight = fight_of(data, initiative=[9, 3])
    events = fight.step(tactics.choose_action, ScriptedDice([12, 1]))
    assert of(events, EventType.ATTACK)[0].data["form"] == "pummel"
    damage = of(events, EventType.DAMAGE)[0]
    assert (damage.damage, damage.data["subdual"]) == (3, True)  # 1 + Str 16 (+2)


# --- moving -----------------------------------------------------------------------------------------------


def grid() -> dict[str, Any]:
    return encounter([fighter(position=[0, 0], move=30)], [orc(position=[0, 10])])


def test_move_walk_jog_run_on_the_grid() -> None:
    # rule: ODD-MOVE-2 (walk 30, jog 60, run 120), ODD-MOVE-5 (corners), ODD-MOVE-6 (terrain)
    fight = fight_of(grid(), initiative=[9, 3])
    with pytest.raises(IllegalActionError, match="ODD-MOVE-2"):
        fight.act(Move("Ann", to=(0, 7)), ScriptedDice([]))  # 35 ft walking
    with pytest.raises(IllegalActionError, match="ODD-MOVE-2"):
        fight.act(
            Move("Ann", pace="jog", to=(0, 7), reduction="1/2"), ScriptedDice([])
        )  # jog 60 halved: 30 < 35
    events = fight.act(Move("Ann", pace="jog", path=((0, 4), (3, 4))), ScriptedDice([]))
    assert of(events, EventType.ACTION)[0].data["moved"] == 35
    assert fight.state["Ann"].position == (3, 4)
    fight.act(Move("Orc", pace="run", toward="Ann"), ScriptedDice([]))
    orc_at = fight.state["Orc"].position
    assert orc_at is not None and max(abs(orc_at[0] - 3), abs(orc_at[1] - 4)) == 1  # stops next to Ann


def test_move_without_positions_states_the_distance() -> None:
    # rule: ODD-MOVE-2, ODD-MOVE-7 (at least 5 ft whatever the reductions)
    fight = fight_of(angthar_data(), initiative=[7, 4])
    with pytest.raises(IllegalActionError, match="needs a distance"):
        fight.act(Move("Angthar"), ScriptedDice([]))
    events = fight.act(Move("Angthar", pace="run", distance=120), ScriptedDice([]))
    assert of(events, EventType.ACTION)[0].data["allowance"] == 120
    events = fight.act(Move("Goblin", distance=5, reduction="3/4"), ScriptedDice([]))
    assert of(events, EventType.ACTION)[0].data["allowance"] == 7


def test_attack_after_half_a_move() -> None:
    # rule: ODD-ACT-ATK (half the rate, 15 ft, then attack; farther forbids the attack)
    fight = fight_of(encounter([fighter(position=[0, 0])], [orc(position=[0, 4])]), initiative=[9, 3])
    events = fight.act(MoveAttack("Ann", target="Orc"), ScriptedDice([10, 3]))
    assert of(events, EventType.ACTION)[0].data["moved"] == 15
    assert fight.state["Ann"].position == (0, 3)
    assert of(events, EventType.ATTACK)[0].total == 13
    far = fight_of(encounter([fighter(position=[0, 0])], [orc(position=[0, 6])]), initiative=[9, 3])
    with pytest.raises(IllegalActionError, match="ODD-ACT-ATK"):
        far.act(MoveAttack("Ann", target="Orc", to=(0, 5)), ScriptedDice([]))
    with pytest.raises(IllegalActionError, match="ODD-ACT-ATK"):
        far.act(MoveAttack("Ann", target="Orc"), ScriptedDice([]))  # 15 ft leaves it out of reach


def test_unsteered_combatants_close_in_on_the_grid() -> None:
    # rule: ODD-ACT-ATK (an attacker beyond half a move spends the round moving: jog toward the enemy)
    fight = fight_of(grid(), initiative=[9, 3])
    choice = tactics.choose_action(fight.state, "Ann")
    assert isinstance(choice, Move) and choice.pace == "jog"
    fight.act(choice, ScriptedDice([]))
    assert fight.state["Ann"].position == (0, 9)
    assert isinstance(tactics.choose_action(fight.state, "Orc"), Attack)


# --- stray missiles ------------------------------------------------------------------------------------


def archery(weapon: str, behind: int, **options: str) -> dict[str, Any]:
    archer = fighter("Archer", position=[0, 0], weapons=[weapon])
    return encounter([archer], [orc(position=[0, 4]), orc("Goblin", position=[0, behind])], options=options)


def test_a_missed_arrow_flies_on_at_the_creature_behind() -> None:
    # rule: ODD-RANGED-4 (GAP-STRAY: a new roll, -1 per full 10 ft past the missed target, within close range)
    fight = fight_of(archery("short bow", behind=7), initiative=[9, 3, 2])
    events = fight.act(Attack("Archer", target="Orc"), ScriptedDice([2, 18, 4]))
    attacks = of(events, EventType.ATTACK)
    assert [(a.target, a.hit) for a in attacks] == [("Orc", False), ("Goblin", True)]
    assert [(m.value, m.rule) for m in attacks[1].modifiers][-1] == (-1, "ODD-RANGED-4")  # 15 ft past
    assert attacks[1].total == 18 + 3 - 1
    assert of(events, EventType.DAMAGE)[0].target == "Goblin"
    assert [e.data.get("free", False) for e in of(events, EventType.ACTION)] == [False, True]


def test_strays_stop_at_close_range_except_crossbow_bolts() -> None:
    # rule: ODD-RANGED-4 (only within close range: short bow 50 ft), ODD-RANGED-5 (bolts fly on to long range
    # with the medium/long penalties: light crossbow 60 ft, the goblin at 100 ft is at medium range, -2)
    fight = fight_of(archery("short bow", behind=20), initiative=[9, 3, 2])
    assert len(of(fight.act(Attack("Archer", target="Orc"), ScriptedDice([2])), EventType.ATTACK)) == 1
    fight = fight_of(archery("light crossbow", behind=20), initiative=[9, 3, 2])
    attacks = of(fight.act(Attack("Archer", target="Orc"), ScriptedDice([2, 2])), EventType.ATTACK)
    assert sorted((m.value, m.rule) for m in attacks[1].modifiers) == [
        (-8, "ODD-RANGED-4"),
        (-2, "ODD-RANGED-3"),
        (3, "ODD-BTH-1"),
    ]


def test_no_strays_under_the_other_variant_or_without_positions() -> None:
    # rule: ODD-RANGED-4 only under missiles_into_melee=odd_stray
    fight = fight_of(
        archery("short bow", behind=7, missiles_into_melee="hr_cover_second_roll"), initiative=[9, 3, 2]
    )
    events = fight.act(Attack("Archer", target="Orc"), ScriptedDice([2]))
    assert [a.target for a in of(events, EventType.ATTACK)] == ["Orc"]


# --- casting, items, abilities, quick acts -------------------------------------------------------------


def caster() -> dict[str, Any]:
    return encounter([fighter("Mage", level=3, attack_bonus=1)], [orc(hp=10)])


def test_one_spell_a_round_and_its_stated_effect() -> None:
    # rule: ODD-ACT-CAST-1 (one spell, then the round is used), ODD-ATK-4 (the spell's damage is the referee's)
    fight = fight_of(caster(), initiative=[9, 3])
    events = fight.act(CastSpell("Mage", spell="magic missile", target="Orc", damage=4), ScriptedDice([]))
    assert [e.rule for e in events] == ["ODD-ACT-CAST-1", "ODD-ATK-4"]
    assert fight.state["Orc"].hp == 6
    with pytest.raises(IllegalActionError):
        fight.act(CastSpell("Mage", spell="sleep"), ScriptedDice([]))


def test_no_moving_in_a_round_of_casting() -> None:
    # rule: ODD-ACT-CAST-3 (move_and_cast=forbidden), unless the spell allows it
    fight = fight_of(caster(), initiative=[9, 3])
    with pytest.raises(IllegalActionError, match="ODD-ACT-CAST-3"):
        fight.act(CastSpell("Mage", spell="light", moved=5), ScriptedDice([]))
    fight.act(CastSpell("Mage", spell="fly", moved=5, spell_allows_move=True), ScriptedDice([]))


def test_a_two_round_spell_takes_effect_in_the_next_round() -> None:
    # rule: ODD-ACT-CAST-2 (casting time 2 rounds: begun in round 1, effect in round 2)
    fight = fight_of(caster(), initiative=[9, 3])
    fight.act(CastSpell("Mage", spell="fireball", rounds=2, target="Orc"), ScriptedDice([]))
    assert fight.state["Mage"].conditions["casting"].data["completes"] == 2
    fight.act(Attack("Orc", target="Mage"), ScriptedDice([1]))
    fight.end_round(ScriptedDice([]))
    fight.start_round(ScriptedDice([9, 3]))
    going_on = tactics.choose_action(fight.state, "Mage")
    assert isinstance(going_on, CastSpell)
    events = fight.act(CastSpell("Mage", spell="fireball", target="Orc", damage=7), ScriptedDice([]))
    assert "completes fireball" in events[0].text
    assert fight.state["Orc"].hp == 3
    assert "casting" not in conditions(fight, "Mage")


def test_items_readied_or_in_the_pack() -> None:
    # rule: ODD-ACT-ITEM-1 (a readied item is the action, no movement), ODD-ACT-ITEM-2 (from a backpack: the round)
    fight = fight_of(caster(), initiative=[9, 3])
    with pytest.raises(IllegalActionError, match="ODD-ACT-ITEM-1"):
        fight.act(UseItem("Mage", item="potion of healing", moved=10), ScriptedDice([]))
    events = fight.act(UseItem("Mage", item="potion of healing", readied=False), ScriptedDice([]))
    assert events[0].rule == "ODD-ACT-ITEM-2" and "Mage" in fight.state.acted
    events = fight.act(UseItem("Orc", item="wand of sparks", target="Mage", damage=2), ScriptedDice([]))
    assert [e.rule for e in events] == ["ODD-ACT-ITEM-1", "ODD-ATK-4"]


def test_abilities_one_a_round_within_the_normal_rate() -> None:
    # rule: ODD-ACT-ABIL-1 (one a round unless the entry allows more), ODD-ACT-ABIL-2 (movement up to the rate)
    fight = fight_of(caster(), initiative=[9, 3])
    with pytest.raises(IllegalActionError, match="ODD-ACT-ABIL-1"):
        fight.act(UseAbility("Mage", ability="turn undead", uses=2), ScriptedDice([]))
    with pytest.raises(IllegalActionError, match="ODD-ACT-ABIL-2"):
        fight.act(UseAbility("Mage", ability="climb", moved=35), ScriptedDice([]))
    fight.act(UseAbility("Mage", ability="climb", moved=30), ScriptedDice([]))
    events = fight.act(UseAbility("Orc", ability="two heads bite", uses=2, per_round=2), ScriptedDice([]))
    assert events[0].rule == "ODD-ACT-ABIL-1"


def test_a_quick_act_costs_two_points_of_initiative_not_the_round() -> None:
    # rule: ODD-ACT-FREE-2 (drawing a sword does not use the round), ODD-ACT-FREE-3 (GAP-READY: -2 initiative)
    fight = fight_of(angthar_data(goblin_hp=20), initiative=[7, 6])
    events = fight.act(QuickAct("Angthar", what="draws his battle axe"), ScriptedDice([]))
    assert [e.rule for e in events] == ["ODD-ACT-FREE-2", "ODD-ACT-FREE-3"]
    assert fight.state.order == [["Goblin"], ["Angthar"]]  # 7 - 2 = 5 < 6
    assert fight.next_actor() == "Goblin"
    fight.act(Attack("Goblin", target="Angthar"), ScriptedDice([1]))
    assert fight.next_actor() == "Angthar"
    fight.act(Attack("Angthar", target="Goblin"), ScriptedDice([1]))


def test_one_attack_a_round_unless_the_referee_allows_more() -> None:
    # rule: ODD-ATK-3 (one attack a round), ODD-ACT-MULTI (a hasted character gets another action)
    fight = fight_of(angthar_data(goblin_hp=30), initiative=[7, 4])
    fight.act(
        ExtraAction("Angthar", action={"kind": "attack", "target": "Goblin"}, reason="hasted"),
        ScriptedDice([12, 1]),
    )
    assert fight.next_actor() == "Angthar"
    fight.act(Attack("Angthar", target="Goblin"), ScriptedDice([12, 1]))
    assert fight.next_actor() == "Goblin"
    with pytest.raises(IllegalActionError):
        fight.act(Attack("Angthar", target="Goblin"), ScriptedDice([12, 1]))
    assert len([e for e in fight.events if e.type is EventType.ATTACK]) == 2


def test_a_defensive_maneuver_for_the_round() -> None:
    # rule: ODD-MANEUVER-1 (the referee sets the AC adjustment; it lasts the round)
    fight = fight_of(angthar_data(goblin_hp=20), initiative=[7, 4])
    fight.act(DefensiveManeuver("Angthar", ac=2, reason="fights defensively"), ScriptedDice([]))
    swing = of(fight.act(Attack("Goblin", target="Angthar"), ScriptedDice([1])), EventType.ATTACK)[0]
    assert swing.target_number == 12 + 2
    fight.end_round(ScriptedDice([]))
    assert "maneuvering" not in conditions(fight, "Angthar")


def test_five_kinds_of_action_round_trip_as_data() -> None:
    # rule: ODD-ACT-1 (attack, cast a spell, move, use an ability, use an item)
    assert sorted(ODD_ACTION_KINDS) == ["attack", "cast a spell", "move", "use an ability", "use an item"]
    for action in (Move("A", to=(1, 2)), Charge("A", target="B", distance=30), CastSpell("A", spell="sleep"),
                   UseItem("A", item="wand"), UseAbility("A", ability="hide"), QuickAct("A", what="draws"),
                   DefensiveManeuver("A", ac=2), MoveAttack("A", target="B", moved=10)):  # fmt: skip
        assert action_from_dict(action.to_dict()) == action


def test_hit_dice_by_level() -> None:
    # rule: ODD-HD-1 (TV-000-15: a 5th-level fighter has rolled 5d10; a wizard gains 1d4 a level)
    data = encounter(
        [
            fighter("Fighter", hp=None, level=5, hit_die="d10"),
            fighter("Wizard", hp=None, level=2, hit_die="d4"),
        ],
        [orc()],
    )
    setup = make_setup(data)
    assert [c.hp_dice for c in setup.combatants[:2]] == ["5d10", "2d4"]
    fight = Fight(setup)
    event = fight.begin(ScriptedDice([10, 1, 7, 3, 5, 4, 2]))[0]
    assert event.data["hp"] == {"Fighter": 26, "Wizard": 6, "Orc": 6}


def test_an_attack_the_referee_makes_depend_on_a_check() -> None:
    # rule: ODD-SIT-1 (an attribute check decides whether the attack can be made; GAP-ATTR-CHECK: d20 <= Dex + mod)
    data = angthar_data(goblin_hp=20)
    fight = fight_of(data, initiative=[7, 4])
    swing = CheckedAttack(
        "Angthar", target="Goblin", ability="dex", check_modifier=-4, reason="swinging on a rope"
    )
    events = fight.act(swing, ScriptedDice([9]))  # 9 > 12 - 4 = 8: no attack
    check = of(events, EventType.CHECK)[0]
    assert (check.total, check.target_number, check.hit) == (9, 8, False)
    assert not of(events, EventType.ATTACK)
    assert "Angthar" in fight.state.acted
    fight = fight_of(data, initiative=[7, 4])
    events = fight.act(swing, ScriptedDice([8, 12, 6]))
    assert of(events, EventType.CHECK)[0].hit
    assert of(events, EventType.ATTACK)[0].total == 17
    assert of(events, EventType.DAMAGE)[0].damage == 7


def test_grid_and_stated_distances_give_the_same_charge() -> None:
    # rule: ODD-CHARGE-2, ODD-CHARGE-3 (40 ft on the grid or stated by the referee: the same roll and damage)
    on_grid = fight_of(
        encounter([fighter("Una", position=[0, 0])], [orc(position=[0, 8], hp=20)]), initiative=[9, 3]
    )
    stated = fight_of(encounter([fighter("Una")], [orc(hp=20)]), initiative=[9, 3])
    a = on_grid.act(Charge("Una", target="Orc"), ScriptedDice([12, 5]))
    b = stated.act(Charge("Una", target="Orc", distance=40), ScriptedDice([12, 5]))
    for kind in (EventType.ATTACK, EventType.DAMAGE):
        x, y = of(a, kind)[0], of(b, kind)[0]
        assert (x.total, x.target_number, x.damage, x.modifiers) == (
            y.total,
            y.target_number,
            y.damage,
            y.modifiers,
        )
    assert of(a, EventType.DAMAGE)[0].damage == 5 + 2
