"""Critical hits, fumbles, knock-outs, surprise advantage and positions (MF-*, HR-CRIT-1, HR-FUMBLE-1).

Every test drives the engine with scripted dice; the dice order is the engine's contract
(attack d20 — two under advantage —, confirmation d20, damage dice).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from tests.conftest import angthar_data, make_setup

from referee.checks import Keep, Modifier
from referee.dice import ScriptedDice
from referee.engine.actions import Attack
from referee.engine.events import Event, EventType
from referee.engine.fight import Fight
from referee.engine.fumbles import wake_events
from referee.engine.resolve import resolve
from referee.engine.state import FightState
from referee.errors import IllegalActionError
from referee.rules.attack import critical_bonus
from referee.rules.context import Situation
from referee.rules.criticals import confirmation_chance


def started(data: dict[str, Any], initiative: list[int] | None = None) -> Fight:
    """A fight in round 1 (fixed hit points, so no set-up dice)."""
    fight = Fight(make_setup(data))
    fight.begin(ScriptedDice([]))
    count = sum(1 for s in data["sides"] for c in s["combatants"] for _ in range(c.get("count", 1)))
    fight.start_round(ScriptedDice(initiative or [10 - i for i in range(count)]))
    return fight


def fighter(name: str, level: int, strength: int, weapon: str, **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "level": level,
        "hp": 40,
        "abilities": {"str": strength},
        "weapons": [weapon],
        **extra,
    }


def duel(
    ruleset: str, hero: dict[str, Any], foe: dict[str, Any] | None = None, **extra: Any
) -> dict[str, Any]:
    foe = foe or {"name": "Ogre", "hit_dice": 4, "hp": 60, "ac": 12, "weapons": [{"name": "club"}]}
    return {
        "name": "duel",
        "ruleset": ruleset,
        "sides": [{"name": "Heroes", "combatants": [hero]}, {"name": "Foes", "combatants": [foe]}],
        **extra,
    }


def of(events: list[Event], kind: EventType) -> list[Event]:
    return [e for e in events if e.type is kind]


def attack(state: FightState, dice: list[int], actor: str, target: str, **kw: Any) -> list[Event]:
    return resolve(state, Attack(actor, target=target, **kw), ScriptedDice(dice))


# --- MF-CRIT-1 / MF-CRIT-2 --------------------------------------------------------------------------


def test_mf_crit_greatsword_is_18_tv_003_02() -> None:
    # rule: MF-CRIT-1, MF-CRIT-2 (TV-003-02): 5th level, Str 17 (+3), greatsword 1d12: 12 + 3 + ceil(5/2) = 18
    fight = started(duel("mf", fighter("Fighter", 5, 17, "greatsword")))
    events = attack(fight.state, [20], "Fighter", "Ogre")
    hit = of(events, EventType.ATTACK)[0]
    assert hit.hit and hit.data["critical"]
    damage = of(events, EventType.DAMAGE)[0]
    assert damage.damage == 18
    assert damage.rule == "MF-CRIT-2"
    assert [m.value for m in damage.modifiers] == [3, 3]
    assert not damage.dice  # maximum damage, nothing rolled


def test_mf_crit_bastard_sword_is_15_not_12_x_1() -> None:
    # rule: MF-CRIT-2 (TV-003-03, erratum X-1): 9th level, Str 13 (+1), 1d8+1: 9 + 1 + ceil(9/2) = 15
    fight = started(duel("mf", fighter("Magic-user", 9, 13, "bastard sword")))
    events = attack(fight.state, [20], "Magic-user", "Ogre")
    assert of(events, EventType.DAMAGE)[0].damage == 15


@pytest.mark.parametrize(("level", "bonus"), [(1, 1), (2, 1), (3, 2), (9, 5)])
def test_critical_half_level_rounds_up_tv_der_06(level: int, bonus: int) -> None:
    # rule: MF-CRIT-2 (TV-DER-06): + ceil(level / 2)
    assert critical_bonus(level) == Modifier(bonus, "MF-CRIT-2", "critical: half level, rounded up")


def test_mf_natural_20_hits_whatever_the_ac() -> None:
    # rule: MF-CRIT-1 (a natural 20 is a critical and so a hit), MF-FUMBLE-1 (a natural 1 misses)
    foe = {"name": "Golem", "hit_dice": 4, "hp": 60, "ac": 40, "weapons": ["club"]}
    fight = started(duel("mf", fighter("Fighter", 1, 10, "long sword"), foe))
    assert of(attack(fight.state, [20], "Fighter", "Golem"), EventType.ATTACK)[0].hit


# --- HR-CRIT-1 / HR-FUMBLE-1 and GAP-CRIT-002 ---------------------------------------------------------


def test_hr_critical_needs_16_to_20_on_a_second_d20_and_doubles_dice() -> None:
    # rule: HR-NAT-1, HR-CRIT-1; GAP-CRIT-002: a confirmed critical rolls the damage dice twice
    fight = started(duel("hr", fighter("Fighter", 5, 17, "long sword")))
    confirmed = attack(fight.state, [20, 16, 5, 7], "Fighter", "Ogre")
    assert of(confirmed, EventType.ATTACK)[0].data["critical"] is True
    damage = of(confirmed, EventType.DAMAGE)[0]
    assert damage.damage == 5 + 7 + 2  # 2d8 + Str 17 (+2 on the ODD table)
    assert damage.rule == "HR-CRIT-1"
    assert [d.purpose for d in of(confirmed, EventType.ATTACK)[0].dice] == ["attack", "critical confirmation"]
    plain = attack(fight.state, [20, 15, 5], "Fighter", "Ogre")
    assert of(plain, EventType.ATTACK)[0].data["critical"] is False
    assert of(plain, EventType.DAMAGE)[0].damage == 5 + 2


def test_hr_fumble_needs_1_to_5_and_has_no_effect_gap_fumble_002() -> None:
    # rule: HR-NAT-1, HR-FUMBLE-1; GAP-FUMBLE-002: no effect beyond the miss
    fight = started(duel("hr", fighter("Fighter", 5, 17, "long sword")))
    events = attack(fight.state, [1, 5], "Fighter", "Ogre")
    assert of(events, EventType.ATTACK)[0].data["fumble"] is True
    assert len(of(events, EventType.ATTACK)) == 1  # no free attack under the 002 rule
    assert of(attack(fight.state, [1, 6], "Fighter", "Ogre"), EventType.ATTACK)[0].data["fumble"] is False


def test_critical_and_fumble_rates_are_one_in_eighty_tv_002_04() -> None:
    # rule: HR-CRIT-1, HR-FUMBLE-1 (TV-002-04): 1/20 × 5/20 = 0.0125, by enumeration of both dice
    assert confirmation_chance(20, 16, 20) == Fraction(1, 80)
    assert confirmation_chance(1, 1, 5) == Fraction(1, 80)
    # and the engine itself, over all 400 pairs of (attack d20, confirmation d20)
    fight = started(duel("hr", fighter("Fighter", 5, 10, "long sword")))
    crits = fumbles = 0
    for first in range(1, 21):
        for second in range(1, 21):
            dice = ScriptedDice([first, second if first in {1, 20} else 1], then=ScriptedDice([1] * 9))
            events = resolve(fight.state, Attack("Fighter", target="Ogre"), dice)
            roll = of(events, EventType.ATTACK)[0]
            crits += roll.data["critical"]
            fumbles += roll.data["fumble"]
    assert Fraction(crits, 400) == Fraction(fumbles, 400) == Fraction(1, 80)


def test_critical_hits_conflict_hr_doubles_dice_mf_maximises() -> None:
    # conflict `critical_hits`: the same natural 20 (then 18 to confirm) with a long sword, Str 13, level 5.
    # hr (HR-CRIT-1, GAP-CRIT-002): 2d8 rolled 3 + 4, + Str 1 = 8.
    # mf (MF-CRIT-2): 8 + Str (half_score_minus_10: 13 → +1) + ceil(5/2) = 12, no confirmation die.
    hr = started(duel("hr", fighter("Fighter", 5, 13, "long sword")))
    mf = started(duel("mf", fighter("Fighter", 5, 13, "long sword")))
    assert of(attack(hr.state, [20, 18, 3, 4], "Fighter", "Ogre"), EventType.DAMAGE)[0].damage == 8
    assert of(attack(mf.state, [20], "Fighter", "Ogre"), EventType.DAMAGE)[0].damage == 12


def test_full_preset_confirms_then_maximises() -> None:
    # rule: HR-CRIT-1 then MF-CRIT-2 (`confirm_16_20_max_plus_half_level`, the full preset)
    fight = started(duel("full", fighter("Fighter", 5, 13, "long sword")))
    assert of(attack(fight.state, [20, 16], "Fighter", "Ogre"), EventType.DAMAGE)[0].damage == 8 + 1 + 3
    assert of(attack(fight.state, [20, 2, 4], "Fighter", "Ogre"), EventType.DAMAGE)[0].damage == 4 + 1


def test_natural_rolls_conflict_odd_none_hr_automatic() -> None:
    # conflict `natural_rolls`: odd (ODD-ATK-1) gives a natural roll no meaning; hr (HR-NAT-1) makes 20 hit
    # and 1 miss. Against AC 30 a natural 20 +0 misses under odd and hits under hr; with +25 to hit, a
    # natural 1 hits AC 12 under odd and misses under hr.
    armoured = {"name": "Golem", "hit_dice": 4, "hp": 60, "ac": 30, "weapons": ["club"]}
    odd = started(duel("odd", fighter("Fighter", 1, 10, "long sword"), armoured))
    hr = started(duel("hr", fighter("Fighter", 1, 10, "long sword"), armoured))
    assert of(attack(odd.state, [20], "Fighter", "Golem"), EventType.ATTACK)[0].hit is False
    assert of(attack(hr.state, [20, 1, 3], "Fighter", "Golem"), EventType.ATTACK)[0].hit is True
    strong = fighter("Hero", 1, 10, "long sword", attack_bonus=25)
    odd = started(duel("odd", strong))
    hr = started(duel("hr", strong))
    assert of(attack(odd.state, [1, 3], "Hero", "Ogre"), EventType.ATTACK)[0].hit is True
    assert of(attack(hr.state, [1, 20], "Hero", "Ogre"), EventType.ATTACK)[0].hit is False


# --- MF-FUMBLE-2..4 ---------------------------------------------------------------------------------


def test_mf_fumble_gives_the_target_a_free_attack() -> None:
    # rule: MF-FUMBLE-1, MF-FUMBLE-2: the goblin in melee range strikes back at once, using no action
    fight = started(angthar_data(ruleset="mf"), [7, 4])
    events = attack(fight.state, [1, 15, 4], "Angthar", "Goblin")
    attacks = of(events, EventType.ATTACK)
    assert attacks[0].data["fumble"] is True and attacks[0].hit is False
    assert (attacks[1].actor, attacks[1].target, attacks[1].hit) == ("Goblin", "Angthar", True)
    assert of(events, EventType.DAMAGE)[0].damage == 4
    free = [e for e in of(events, EventType.ACTION) if e.data.get("free")]
    assert free[0].rule == "MF-FUMBLE-2"
    fight.push(events)
    assert "Goblin" not in fight.state.acted  # the free attack used no action


def test_fumbles_conflict_hr_confirms_mf_strikes_back() -> None:
    # conflict `fumbles`: the same natural 1. hr (HR-FUMBLE-1): a second d20 of 3 confirms it, nothing else
    # happens (GAP-FUMBLE-002). mf (MF-FUMBLE-2): no confirmation; the goblin gets a free attack.
    hr = started(angthar_data(ruleset="hr"), [7, 4])
    mf = started(angthar_data(ruleset="mf"), [7, 4])
    assert len(of(attack(hr.state, [1, 3], "Angthar", "Goblin"), EventType.ATTACK)) == 1
    assert len(of(attack(mf.state, [1, 3, 2], "Angthar", "Goblin"), EventType.ATTACK)) == 2


def test_mf_fumble_luck_save_avoids_the_free_attack() -> None:
    # rule: MF-FUMBLE-4 (referee allows a Luck (Dex) save: d20 <= Dex 12, GAP-SAVES)
    fight = started(angthar_data(ruleset="mf"), [7, 4])
    flags = Situation(flags=frozenset({"fumble_save"}))
    saved = attack(fight.state, [1, 12], "Angthar", "Goblin", situation=flags)
    assert of(saved, EventType.CHECK)[0].hit is True
    assert len(of(saved, EventType.ATTACK)) == 1
    failed = attack(fight.state, [1, 13, 10, 2], "Angthar", "Goblin", situation=flags)
    assert of(failed, EventType.CHECK)[0].hit is False
    assert len(of(failed, EventType.ATTACK)) == 2


def archery(allies: int) -> dict[str, Any]:
    heroes: list[dict[str, Any]] = [
        {"name": "Archer", "level": 1, "hp": 10, "abilities": {"dex": 10}, "weapons": ["short bow"],
         "position": [0, 0]},
    ]  # fmt: skip
    for i in range(allies):
        heroes.append({"name": f"Guard {i + 1}", "level": 1, "hp": 10, "ac": 10, "weapons": ["spear"],
                       "position": [6, i]})  # fmt: skip
    orc = {"name": "Orc", "hit_dice": 1, "hp": 8, "ac": 13, "weapons": ["scimitar"], "position": [7, 0]}
    return {"name": "archery", "ruleset": "mf", "sides": [{"name": "Heroes", "combatants": heroes},
                                                         {"name": "Orcs", "combatants": [orc]}]}  # fmt: skip


def test_mf_ranged_fumble_is_rerolled_against_the_ally_in_melee() -> None:
    # rule: MF-FUMBLE-3: the archer (35 ft away, in melee with nobody) fumbles; the roll is made again
    # against the guard in melee with the orc: d20 14 vs the guard's AC 10 → hit, short bow d6 = 3
    fight = started(archery(1))
    events = attack(fight.state, [1, 14, 3], "Archer", "Orc")
    attacks = of(events, EventType.ATTACK)
    assert [(a.target, a.hit) for a in attacks] == [("Orc", False), ("Guard 1", True)]
    assert of(events, EventType.DAMAGE)[0].target == "Guard 1"
    assert any(e.rule == "MF-FUMBLE-3" for e in events)


def test_mf_ranged_fumble_picks_one_of_several_allies_at_random() -> None:
    # rule: MF-FUMBLE-3 with GAP-FUMBLE-ALLY: two guards in melee with the orc; a d2 (recorded) picks Guard 2
    fight = started(archery(2))
    events = attack(fight.state, [1, 2, 5], "Archer", "Orc")
    note = next(e for e in events if e.rule == "MF-FUMBLE-3")
    assert [(d.sides, d.value) for d in note.dice] == [(2, 2)]
    assert of(events, EventType.ATTACK)[1].target == "Guard 2"


# --- MF-KO-1 / MF-KO-2 and the `nonlethal` conflict -----------------------------------------------------


def test_knockout_attempt_takes_minus_2_and_leaves_the_target_at_0() -> None:
    # rule: MF-KO-1: -2 to hit; 8 damage to a 4-hp goblin leaves it unconscious at 0 (interpretation)
    fight = started(angthar_data(ruleset="mf"), [7, 4])
    events = attack(fight.state, [12, 6], "Angthar", "Goblin", knockout=True)
    roll = of(events, EventType.ATTACK)[0]
    assert Modifier(-2, "MF-KO-1", "knock-out attempt") in roll.modifiers
    assert of(events, EventType.DAMAGE)[0].damage == 4
    defeat = of(events, EventType.DEFEAT)[0]
    assert (defeat.rule, defeat.data["status"], defeat.data["hp"]) == ("MF-KO-1", "unconscious", 0)


def test_knocked_out_creature_wakes_with_1_hp_after_1d6_x_10_minutes() -> None:
    # rule: MF-KO-2: d6 = 3 → 30 minutes, then 1 hit point
    fight = started(angthar_data(ruleset="mf"), [7, 4])
    fight.push(attack(fight.state, [12, 6], "Angthar", "Goblin", knockout=True))
    woken = wake_events(fight.state, "Goblin", ScriptedDice([3]))
    assert woken[0].data["minutes"] == 30
    fight.push(woken)
    goblin = fight.state["Goblin"]
    assert (goblin.hp, goblin.status) == (1, "active")


def test_nonlethal_conflict_odd_refuses_a_knockout_mf_allows_it() -> None:
    # conflict `nonlethal` (`knockout` toggle): under odd (ODD-PUMMEL-2 only) a weapon knock-out attempt is
    # refused with the option named; under mf (MF-KO-1) the same attempt knocks the goblin out.
    odd = started(angthar_data(ruleset="odd"), [7, 4])
    with pytest.raises(IllegalActionError, match="knockout: on"):
        attack(odd.state, [12, 6], "Angthar", "Goblin", knockout=True)
    mf = started(angthar_data(ruleset="mf"), [7, 4])
    assert (
        of(attack(mf.state, [12, 6], "Angthar", "Goblin", knockout=True), EventType.DEFEAT)[0].data["status"]
        == "unconscious"
    )


# --- MF-SURP-1 / MF-SURP-2: advantage (GAP-ADV) ------------------------------------------------------------


def ambush(ruleset: str) -> Fight:
    data = angthar_data(ruleset=ruleset, surprise={"sides": ["Goblins"]})
    fight = Fight(make_setup(data))
    fight.begin(ScriptedDice([20]))  # the goblins' Wisdom check: 20 > Wis 10, surprised
    return fight


def test_ambusher_first_attack_has_advantage_under_mf() -> None:
    # rule: MF-SURP-1 (bonus round = the free round, GAP-INIT-003), MF-SURP-2 (advantage, GAP-ADV: keep the
    # higher of 2d20): 5 and 15 → 15 + 4 + 2 (Str 14 under half_score_minus_10) = 21 vs AC 12
    fight = ambush("mf")
    assert fight.state.free_round
    events = fight.act(Attack("Angthar", target="Goblin"), ScriptedDice([5, 15, 6]))
    roll = of(events, EventType.ATTACK)[0]
    assert roll.data["keep"] == Keep.HIGHEST.value
    assert (roll.data["natural"], roll.total, roll.hit) == (15, 21, True)


def test_surprise_conflict_odd_has_no_advantage() -> None:
    # conflict `surprise`: under odd (ODD-SURP-4) the free round has no advantage: the 5 stands → 10, miss
    fight = ambush("odd")
    roll = of(fight.act(Attack("Angthar", target="Goblin"), ScriptedDice([5])), EventType.ATTACK)[0]
    assert (roll.data["keep"], roll.total, roll.hit) == ("all", 10, False)


# --- MF-POS-1..3 ---------------------------------------------------------------------------------------


def test_flanking_is_plus_1_under_mf_only() -> None:
    # rule: MF-POS-1 (`flank_and_rear = mf_plus_1`): +1 with an ally opposite
    flank = Situation(flags=frozenset({"flank"}))
    mf = started(angthar_data(ruleset="mf"), [7, 4])
    odd = started(angthar_data(ruleset="odd"), [7, 4])
    mods = of(attack(mf.state, [10, 1], "Angthar", "Goblin", situation=flank), EventType.ATTACK)[0].modifiers
    assert Modifier(1, "MF-POS-1", "flanking") in mods
    mods = of(attack(odd.state, [10, 1], "Angthar", "Goblin", situation=flank), EventType.ATTACK)[0].modifiers
    assert all(m.rule != "MF-POS-1" for m in mods)


def test_prone_target_plus_2_and_prone_attacker_minus_2() -> None:
    # rule: MF-POS-2 (+2 against a prone target), MF-POS-3 (-2 attacking while prone or kneeling)
    data = angthar_data(ruleset="mf")
    data["sides"][1]["combatants"][0]["conditions"] = ["prone"]
    fight = started(data, [7, 4])
    roll = of(attack(fight.state, [10, 1], "Angthar", "Goblin"), EventType.ATTACK)[0]
    assert Modifier(2, "MF-POS-2", "target prone") in roll.modifiers
    assert roll.total == 10 + 4 + 2 + 2
    data = angthar_data(ruleset="mf")
    data["sides"][0]["combatants"][0]["conditions"] = ["kneeling"]
    fight = started(data, [7, 4])
    roll = of(attack(fight.state, [10, 1], "Angthar", "Goblin"), EventType.ATTACK)[0]
    assert Modifier(-2, "MF-POS-3", "attacking from the ground") in roll.modifiers
    assert roll.total == 10 + 4 + 2 - 2


# --- MF-OTHER-1 / MF-OTHER-2: the referee's own modifiers --------------------------------------------------


def test_situational_scale_conflict_mf_allows_only_plus_minus_1() -> None:
    # conflict `situational_scale`: a "difficult" -6 (ODD-SIT-2) is fine under odd (total 12 + 5 - 6 = 11);
    # under mf (MF-OTHER-1) every factor is +1 or -1, so -6 is refused and -1 is accepted (12 + 6 - 1 = 17).
    rope = Situation(modifiers=(Modifier(-6, "ODD-SIT-1", "swinging on a rope"),))
    odd = started(angthar_data(ruleset="odd"), [7, 4])
    assert (
        of(attack(odd.state, [12, 1], "Angthar", "Goblin", situation=rope), EventType.ATTACK)[0].total == 11
    )
    mf = started(angthar_data(ruleset="mf"), [7, 4])
    with pytest.raises(IllegalActionError, match="MF-OTHER-1"):
        attack(mf.state, [12, 1], "Angthar", "Goblin", situation=rope)
    slip = Situation(modifiers=(Modifier(-1, "MF-OTHER-1", "slippery floor"),))
    assert of(attack(mf.state, [12, 1], "Angthar", "Goblin", situation=slip), EventType.ATTACK)[0].total == 17


def test_modifier_stacking_conflict_referee_decides() -> None:
    # conflict `modifier_stacking`: +1 high ground and +1 cramped foe. odd (ODD-SIT-3, cumulative): +2.
    # mf (MF-OTHER-2, referee_decides) with the referee ruling "no stacking": only +1 counts.
    mods = (Modifier(1, "MF-OTHER-1", "high ground"), Modifier(1, "MF-OTHER-1", "foe cramped"))
    ruling = Situation(modifiers=mods, flags=frozenset({"no_stacking"}))
    odd = started(angthar_data(ruleset="odd"), [7, 4])
    mf = started(angthar_data(ruleset="mf"), [7, 4])
    assert (
        of(attack(odd.state, [10, 1], "Angthar", "Goblin", situation=ruling), EventType.ATTACK)[0].total == 17
    )
    roll = of(attack(mf.state, [10, 1], "Angthar", "Goblin", situation=ruling), EventType.ATTACK)[0]
    assert roll.total == 10 + 4 + 2 + 1
    assert any(m.rule == "MF-OTHER-2" and m.value == -1 for m in roll.modifiers)
