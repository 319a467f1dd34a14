"""`referee fight` strings the rules together as the documents say (fight-level fidelity).

Each test runs the real command with typed dice (`--dice`) and reads its `--json` output; the expected
numbers are worked out from the documents' text in the comments, not from the library.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.conftest import angthar_data, referee


def fight(tmp_path: Path, data: dict[str, Any], *args: str) -> dict[str, Any]:
    """Run `referee fight FILE ARGS --json` on `data` and return the parsed result."""
    path = tmp_path / "encounter.yaml"
    path.write_text(yaml.safe_dump(data))
    out = referee("fight", str(path), *args, "--json")
    assert out.returncode == 0, out.stderr
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def events(result: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e for e in result["events"] if e["type"] == kind]


def combatant(data: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(c for side in data["sides"] for c in side["combatants"] if c["name"] == name)
    return found


# --- MOD-COND-FATIGUED / MOD-COND-EXHAUSTED: ability scores -2 ------------------------------------------


def test_fatigue_lowers_the_ability_scores_by_two(tmp_path: Path) -> None:
    # rule: MOD-COND-FATIGUED ("reduce a character's ability scores by 2 temporarily and incur a -2
    # penalty on to hit, damage"): Angthar's Str 14 (+1) becomes 12 (+0). d20 12 + 4 BTH + 0 Str - 2
    # = 14 against AC 12; damage d8 6 + 0 Str - 2 = 4, the goblin's 4 hit points.
    data = angthar_data(ruleset="mod")
    combatant(data, "Angthar")["conditions"] = ["fatigued"]
    result = fight(tmp_path, data, "--dice", "7,4,12,6")
    attack = events(result, "attack")[0]
    damage = events(result, "damage")[0]
    assert (attack["total"], attack["target_number"], damage["damage"]) == (14, 12, 4)
    strength = [m for m in attack["modifiers"] if m["rule"] == "ODD-MELEE-1"]
    assert strength[0]["value"] == 0 and "14 → 12" in strength[0]["reason"]
    assert result["winner"] == "Village"


def test_exhaustion_lowers_dex_to_armour_class_once(tmp_path: Path) -> None:
    # rule: MOD-COND-EXHAUSTED (exhaustion "is a more severe condition of fatigue", ability scores -2):
    # the goblin attacks an exhausted Dex 13 (+1) defender in leather (AC 12 + 1 Dex = 13): Dex 11 gives
    # +0, so AC 12, and a d20 11 + 1 HD = 12 hits.
    data = angthar_data(ruleset="mod")
    angthar = combatant(data, "Angthar")
    angthar["abilities"]["dex"] = 13
    angthar["conditions"] = ["exhausted"]
    result = fight(tmp_path, data, "--dice", "1,9,11,3")  # goblin first; its d20 11, d6 3
    attack = events(result, "attack")[0]
    assert attack["actor"] == "Goblin"
    assert (attack["total"], attack["target_number"], attack["hit"]) == (12, 12, True)


# --- ODD-ROUND-4 with the round limit: a side left alone at the end of the last round wins -----------


def test_a_side_left_alone_at_the_end_of_the_last_round_wins(tmp_path: Path) -> None:
    # rule: MF-DROWN-2 (fighting, breath lasts ceil(Con / 3) = 1 round for Con 3), MF-DROWN-3 (then a
    # Luck (Con) save at the end of each round, d20 <= 3, or die), ODD-ROUND-4: at the end of round 2,
    # the last one (`--max-rounds 2`), Pell has drowned and the Deep are the only side left: they win.
    data = {
        "name": "drowning at the round limit",
        "ruleset": "mod",
        "options": {"drowning_fight_extra_d4": "off"},
        "environment": {"underwater": True},
        "sides": [
            {"name": "Divers", "combatants": [
                {"name": "Pell", "level": 1, "abilities": {"con": 3}, "hp": 900, "weapons": ["dagger"]}]},
            {"name": "Deep", "combatants": [
                {"name": "Shark", "hit_dice": 1, "hp": 900, "ac": 14, "aquatic": True, "weapons": ["bite"]}]},
        ],
    }  # fmt: skip
    result = fight(tmp_path, data, "--seed", "0", "--max-rounds", "2")
    save = next(e for e in events(result, "check") if e["rule"] == "MF-DROWN-3")
    assert save["round"] == 2 and save["target_number"] == 3 and save["total"] > 3
    end = events(result, "fight_end")[0]
    assert (result["winner"], result["rounds"], end["data"]["reason"]) == ("Deep", 2, "one side left")


# --- ODD-CHARGE-5: only a hit before the charge lands negates it --------------------------------------


def una_charges(orc_weapon: str) -> dict[str, Any]:
    """examples/charge.yaml: Una (level 3, +2, Str 14, Dex 15, leather: AC 13) charges the orc 45 ft away."""
    data: dict[str, Any] = yaml.safe_load(
        (Path(__file__).parents[2] / "examples" / "charge.yaml").read_text()
    )
    combatant(data, "Orc")["weapons"] = [orc_weapon]
    return data


def test_a_hit_after_the_charge_landed_does_not_negate_it(tmp_path: Path) -> None:
    # rule: ODD-CHARGE-3 (+2 damage), ODD-CHARGE-4 (AC 13 - 4 = 9), ODD-CHARGE-5 ("If a defender scores a
    # successful hit upon a charging character, the charge is negated"): Una wins initiative (9 vs 2), her
    # charge lands first: d20 10 + 2 + 1 = 13 vs AC 12, d8 2 + 1 Str + 2 charge = 5. The orc then hits her
    # (d20 15 + 1 = 16 vs AC 9): the charge has already landed, nothing is negated.
    result = fight(tmp_path, una_charges("club"), "--dice", "8,9,2,10,2,15,3", "--max-rounds", "1")
    damage = events(result, "damage")
    assert [d["damage"] for d in damage] == [5, 3]
    assert not [e for e in result["events"] if e.get("rule") == "ODD-CHARGE-5"]


def test_a_hit_before_the_charge_lands_negates_it(tmp_path: Path) -> None:
    # rule: ODD-CHARGE-5 ("the attacker is still allowed their movement and attack, but a successful hit
    # does not deal any extra damage"), ODD-CHARGE-4 (the -4 also meets a ranged attack): the orc shoots
    # first (initiative 9 vs 2) with a short bow, d20 15 + 1 = 16 vs AC 9, d6 3; Una's charge then hits
    # (d20 10 + 3 = 13 vs 12) for d8 2 + 1 Str, no +2: 3.
    result = fight(tmp_path, una_charges("short bow"), "--dice", "8,2,9,15,3,10,2", "--max-rounds", "1")
    negated = [e for e in result["events"] if e.get("rule") == "ODD-CHARGE-5"]
    assert negated and negated[0]["actor"] == "Orc"
    una_hit = [d for d in events(result, "damage") if d["target"] == "Orc"]
    assert una_hit[0]["damage"] == 3
    assert [m["value"] for m in una_hit[0]["modifiers"] if m["rule"] == "ODD-CHARGE-5"] == [0]


# --- MF-FUMBLE-3 and ODD-RANGED-4: a fumbled missile is resolved once --------------------------------


def test_a_fumbled_missile_rerolled_at_an_ally_does_not_also_fly_on(tmp_path: Path) -> None:
    # rule: MF-FUMBLE-3 ("the fumbled ranged or thrown attack is automatically rerolled against an ally in
    # melee with the intended target"), ODD-RANGED-4: the archer (30 ft from the goblin, in melee with
    # nobody) rolls a natural 1; Bran stands next to the goblin, on the line beyond it. The arrow is
    # re-rolled once against Bran (d20 3 vs AC 12: a miss), and is not also a stray missile at him.
    data: dict[str, Any] = {
        "name": "a fumbled arrow",
        "ruleset": "mf",
        "sides": [
            {"name": "Party", "combatants": [
                {"name": "Archer", "level": 1, "hp": 9, "weapons": ["short bow"], "position": [0, 0],
                 "tactic": {"maneuver": "attack", "target": "Goblin"}},
                {"name": "Bran", "level": 1, "hp": 9, "ac": 12, "weapons": ["club"], "position": [0, 7],
                 "tactic": {"maneuver": "hold"}}]},
            {"name": "Goblins", "combatants": [
                {"name": "Goblin", "hit_dice": 1, "hp": 5, "ac": 12, "weapons": ["scimitar"],
                 "position": [0, 6], "tactic": {"maneuver": "hold"}}]},
        ],
    }  # fmt: skip
    result = fight(tmp_path, data, "--dice", "9,5,2,1,3,10", "--max-rounds", "1")
    archer = [e for e in events(result, "attack") if e["actor"] == "Archer"]
    assert [(e["target"], e["total"], e["data"]["fumble"]) for e in archer] == [
        ("Goblin", 1, True),
        ("Bran", 3, False),
    ]
    assert not [e for e in result["events"] if e.get("rule") in {"ODD-RANGED-4", "ODD-RANGED-5"}]


# --- HR-CHARGE-4 / MF-AIR-4: "double damage", option `double_damage` --------------------------------


def set_spear(options: dict[str, str] | None = None) -> dict[str, Any]:
    """Angthar (hr preset) charges a goblin 30 ft away that has set a spear (d6) against him."""
    data = angthar_data(ruleset="hr", goblin_hp=20, **({"options": options} if options else {}))
    combatant(data, "Angthar").update(position=[0, 0], tactic={"maneuver": "charge", "rounds": [1]})
    combatant(data, "Goblin").update(position=[0, 6], weapons=["spear"], tactic={"maneuver": "hold"})
    return data


def test_a_set_spear_deals_double_damage_to_the_charger(tmp_path: Path) -> None:
    # rule: HR-CHARGE-4 ("will do double damage on the charging character if they successfully hit"):
    # Angthar's charge misses (d20 2 + 4 + 1 + 2 = 9 vs 12); the goblin's set spear hits (d20 13 + 1 = 14
    # vs AC 12, HR-CHARGE-5: no Dex) for d6 3, doubled: 6. The damage event names HR-CHARGE-4.
    result = fight(tmp_path, set_spear(), "--dice", "7,4,2,13,3", "--max-rounds", "1")
    damage = events(result, "damage")[0]
    assert (damage["target"], damage["damage"], damage["rule"]) == ("Angthar", 6, "HR-CHARGE-4")
    assert "×2" in damage["text"]


def test_double_damage_read_as_double_dice(tmp_path: Path) -> None:
    # rule: HR-CHARGE-4 under `double_damage = dice` (the other reading): 2d6 = 3 + 4 = 7.
    data = set_spear({"double_damage": "dice"})
    result = fight(tmp_path, data, "--dice", "7,4,2,13,3,4", "--max-rounds", "1")
    damage = events(result, "damage")[0]
    assert (damage["damage"], damage["rule"]) == (7, "HR-CHARGE-4")
    assert [d["sides"] for d in damage["dice"]] == [6, 6]


# --- MOD-COND-GRAPPLED-1/2 under `grapple_state = mod_grappled_plus_4` ---------------------------------


def test_a_grapple_hit_establishes_the_mod_hold(tmp_path: Path) -> None:
    # rule: ODD-GRAP-2 (grapple AC 15 + Str 0 + Dex 0 = 15: d20 15 hits), MOD-COND-GRAPPLED-1 (once a hold
    # is established, the grapplers are +4 to be hit by others), MOD-COND-GRAPPLED-2 (an outsider hits one
    # grappler at random: d2 = 2 → the orc): the archer's d20 8 + 4 = 12 against the orc's AC 13.
    data: dict[str, Any] = {
        "name": "a hold in the mod rules",
        "ruleset": "mod",
        "sides": [
            {"name": "Party", "combatants": [
                {"name": "Wrestler", "level": 1, "hp": 10, "weapons": ["club"],
                 "tactic": {"maneuver": "grapple", "target": "Orc"}},
                {"name": "Archer", "level": 1, "hp": 9, "weapons": ["club"],
                 "tactic": {"maneuver": "attack", "target": "Orc"}}]},
            {"name": "Orcs", "combatants": [
                {"name": "Orc", "hit_dice": 1, "hp": 20, "ac": 13, "weapons": ["club"],
                 "tactic": {"maneuver": "hold"}}]},
        ],
    }  # fmt: skip
    result = fight(tmp_path, data, "--dice", "9,5,2,15,2,8,4", "--max-rounds", "1")
    held = [
        (e["target"], e["data"]["condition"]) for e in events(result, "condition") if e["data"].get("added")
    ]
    assert held == [("Orc", "grappled"), ("Wrestler", "grappling")]
    pick = next(e for e in events(result, "check") if e.get("rule") == "MOD-COND-GRAPPLED-2")
    assert (pick["total"], pick["target"], len(pick["data"]["group"])) == (2, "Orc", 2)
    archer = next(e for e in events(result, "attack") if e["actor"] == "Archer")
    assert {"value": 4, "rule": "MOD-COND-GRAPPLED-1"}.items() <= archer["modifiers"][0].items()
    assert (archer["total"], archer["target_number"]) == (12, 13)


# --- MF-COVER-3, ODD-SIT-4, ODD-COVER-NOATK: a refused tactic is recorded, never turned into another attack --


@pytest.mark.parametrize(
    ("ruleset", "situation", "rule"),
    [
        ("mf", {"cover": "full"}, "MF-COVER-3"),  # "cannot be directly attacked unless the cover is bypassed"
        ("odd", {"flags": ["undetected"]}, "ODD-SIT-4"),  # "attackers must know of a defender's presence"
        ("odd", {"flags": ["no_attack_from_cover"]}, "ODD-COVER-NOATK"),  # "may not attack"
    ],
)
def test_a_refused_tactic_is_recorded_with_its_rule(
    tmp_path: Path, ruleset: str, situation: dict[str, Any], rule: str
) -> None:
    # rule: MF-COVER-3, ODD-SIT-4, ODD-COVER-NOATK: Angthar's tactic is an attack the rules forbid; the
    # refusal is recorded with its rule, and with the same circumstances no other attack is legal, so he
    # waits (he never strikes the goblin at its plain AC 12).
    data = angthar_data(ruleset=ruleset)
    combatant(data, "Angthar")["tactic"] = {"maneuver": "attack", "target": "Goblin", "situation": situation}
    result = fight(tmp_path, data, "--dice", "7,4,5", "--max-rounds", "1")
    refused = [e for e in events(result, "action") if e["data"].get("kind") == "refused"]
    assert [e["rule"] for e in refused] == [rule]
    assert rule in refused[0]["text"] and refused[0]["data"]["instead"] == "wait"
    assert not [e for e in events(result, "attack") if e["actor"] == "Angthar"]


# --- ODD-ACT-ATK, ODD-MOVE-2: without a grid the encounter's distance is still closed ----------------


def far_apart(distance: int, grid: bool = False) -> dict[str, Any]:
    """Angthar (move 30) and a goblin with a club, `distance` feet apart, with or without positions."""
    data = angthar_data(distance=distance)
    goblin = combatant(data, "Goblin")
    goblin["weapons"] = [{"name": "club", "damage": "1d4"}]
    if grid:
        combatant(data, "Angthar")["position"] = [0, 0]
        goblin["position"] = [0, distance // 5]
    return data


@pytest.mark.parametrize("grid", [False, True])
def test_melee_waits_until_the_distance_is_closed(tmp_path: Path, grid: bool) -> None:
    # rule: ODD-ACT-ATK ("An attack allows a character to move up to one-half their movement rate. Moving
    # farther than one-half movement rate negates the ability to make an attack"), ODD-MOVE-2 (jogging: 2×
    # the rate): 100 ft apart, Angthar jogs 60 ft, the goblin jogs the 35 ft left to melee contact; nobody
    # strikes in round 1. In round 2 Angthar's d20 12 + 4 + 1 = 17 hits AC 12 for d8 6 + 1 = 7. With grid
    # positions 100 ft apart the fight is the same (docs/encounter-file.md).
    result = fight(tmp_path, far_apart(100, grid), "--dice", "7,4,7,4,12,6")
    round_one = [e for e in result["events"] if e["round"] == 1]
    assert not [e for e in round_one if e["type"] == "attack"]
    moves = [(e["actor"], e["data"]["moved"]) for e in round_one if e["type"] == "action"]
    assert moves == [("Angthar", 60), ("Goblin", 35)]
    attack = events(result, "attack")[0]
    assert (attack["round"], attack["total"], attack["data"]["distance"]) == (2, 17, 5)
    assert result["winner"] == "Village"


def test_half_a_move_and_an_attack_without_a_grid(tmp_path: Path) -> None:
    # rule: ODD-ACT-ATK: 20 ft apart, the 15 ft to melee contact is half Angthar's 30 ft rate: he moves and
    # strikes in round 1 (d20 12 + 5 = 17 vs AC 12, d8 6 + 1 = 7 kills the 4-hp goblin).
    result = fight(tmp_path, far_apart(20), "--dice", "7,4,12,6")
    move = events(result, "action")[0]
    assert (move["data"]["kind"], move["data"]["moved"], move["rule"]) == ("move_attack", 15, "ODD-ACT-ATK")
    attack = events(result, "attack")[0]
    assert (attack["round"], attack["total"], attack["data"]["distance"]) == (1, 17, 5)


# --- explanations that name the right rule -----------------------------------------------------------


def test_an_initiative_tie_broken_by_dex_names_odd_init_2(tmp_path: Path) -> None:
    # rule: ODD-INIT-2 ("In the case of a tie, the one with the highest dexterity goes first"): both roll 7;
    # Angthar's Dex 12 beats the goblin's 10, so he acts first; ODD-INIT-3 when the Dex is equal too.
    result = fight(tmp_path, angthar_data(), "--dice", "7,7,12,6")
    first = events(result, "initiative")[0]
    assert (first["rule"], first["data"]["order"]) == ("ODD-INIT-2", [["Angthar"], ["Goblin"]])
    assert "higher Dex first" in first["text"]
    same = angthar_data(goblin_hp=20)
    combatant(same, "Goblin")["abilities"] = {"dex": 12}
    result = fight(tmp_path, same, "--dice", "7,7,12,6,3", "--max-rounds", "1")
    first = events(result, "initiative")[0]
    assert (first["rule"], first["data"]["order"]) == ("ODD-INIT-3", [["Angthar", "Goblin"]])


def test_first_strike_is_in_the_account(tmp_path: Path) -> None:
    # rule: ODD-INIT-5, ODD-INIT-6 (TV-000-08): Hambone (Small) rolls 9, the stone giant (Large) 3; in the
    # first round the giant swings first (d20 1 + 9 = 10 vs AC 12: "glances off"), and the account says why.
    data: dict[str, Any] = {
        "name": "Hambone and the stone giant",
        "ruleset": "odd",
        "sides": [
            {"name": "Shire", "combatants": [
                {"name": "Hambone", "level": 1, "size": "small", "hp": 8, "armour": "leather",
                 "weapons": ["short sword"]}]},
            {"name": "Hills", "combatants": [
                {"name": "Stone giant", "size": "large", "hit_dice": 9, "hp": 50, "ac": 15,
                 "weapons": [{"name": "club", "damage": "2d8"}]}]},
        ],
    }  # fmt: skip
    path = tmp_path / "giant.yaml"
    path.write_text(yaml.safe_dump(data))
    out = referee("fight", str(path), "--dice", "9,3,1,10,3", "--max-rounds", "1")
    assert out.returncode == 0, out.stderr
    account = " ".join(out.stdout.split())  # the account wraps long lines
    assert (
        "first strike: Stone giant acts before Hambone (larger size, round 1) [ODD-INIT-5, ODD-INIT-6]"
        in account
    )


def test_a_natural_20_that_hits_only_by_hr_nat_1_says_so(tmp_path: Path) -> None:
    # rule: HR-NAT-1 ("A natural 20 is always a hit"): a d20 20 + 5 = 25 against AC 30 hits; the account
    # says the natural 20 decided, not "25 vs AC 30".
    data = angthar_data(ruleset="hr", options={"critical_hits": "none"})
    combatant(data, "Goblin")["ac"] = 30
    result = fight(tmp_path, data, "--dice", "7,4,20,6")
    attack = events(result, "attack")[0]
    assert attack["hit"] and (attack["total"], attack["target_number"]) == (25, 30)
    assert "25 < AC 30 → hit (natural 20 always hits [HR-NAT-1])" in attack["text"]
    assert " vs " not in attack["text"]


def test_the_miss_chance_die_is_shown_when_the_hit_stands(tmp_path: Path) -> None:
    # rule: MF-VIS-2, MF-VIS-5 (003's example: the attack roll succeeds, "The GM then rolls for the 66%
    # invisibility miss chance, scoring 77. It's a hit!"): the d100 77 is shown with the hit.
    data = angthar_data(ruleset="mf")
    combatant(data, "Goblin")["conditions"] = ["invisible"]
    combatant(data, "Angthar")["tactic"] = {"maneuver": "attack", "situation": {"flags": ["located"]}}
    result = fight(tmp_path, data, "--dice", "7,4,12,77,6")
    attack = events(result, "attack")[0]
    assert attack["hit"] and "66% miss chance [MF-VIS-2]: d100 77: the hit stands" in attack["text"]


def test_a_house_rule_charge_is_labelled_hr_charge_2(tmp_path: Path) -> None:
    # rule: HR-CHARGE-2 ("moving his/her full movement rate and attacking with a +2 bonus"), not ODD-CHARGE-1
    result = fight(tmp_path, set_spear(), "--dice", "7,4,2,13,3", "--max-rounds", "1")
    charge = next(e for e in events(result, "action") if e["data"].get("kind") == "charge")
    assert charge["rule"] == "HR-CHARGE-2"


@pytest.mark.parametrize(
    ("ruleset", "weapon", "extra", "rule"),
    [
        ("mod", "battle axe", {"environment": {"underwater": True}}, "MOD-UW-1"),  # only thrusting weapons
        ("mf", "club", {"environment": {"underwater": True}}, "MF-UW-1"),  # clubbing weapons are useless
        ("hr", "short bow", {}, "HR-MISSILE-1"),  # "only be fired at creatures further than five feet"
        (
            "mf",
            "battle axe",
            {"invisible": True},
            "MF-VIS-3",
        ),  # "no effective direct attack may be attempted"
    ],
)
def test_no_legal_attack_names_the_rule_that_forbids_it(
    tmp_path: Path, ruleset: str, weapon: str, extra: dict[str, Any], rule: str
) -> None:
    # rule: MOD-UW-1, MF-UW-1, HR-MISSILE-1, MF-VIS-3: Angthar, 5 ft from the goblin, has only a weapon the
    # rule forbids here; the account names that rule instead of "cannot reach an enemy", and he waits.
    invisible = extra.pop("invisible", False)
    data = angthar_data(ruleset=ruleset, **extra)
    combatant(data, "Angthar")["weapons"] = [weapon]
    if invisible:
        combatant(data, "Goblin")["conditions"] = ["invisible"]
    result = fight(tmp_path, data, "--dice", "7,4,5,1,1,1,1", "--max-rounds", "1")
    refused = [
        e for e in events(result, "action") if e["actor"] == "Angthar" and e["data"].get("kind") == "refused"
    ]
    assert [e["rule"] for e in refused] == [rule]
    assert not [e for e in events(result, "attack") if e["actor"] == "Angthar"]


def test_a_knockout_blow_s_damage_line_agrees_with_the_damage_taken(tmp_path: Path) -> None:
    # rule: MF-KO-1 ("if that attack reduces the target to zero hit points, the target is rendered senseless
    # but remains alive", -2 to hit): mf ability scale, Str 14 +2: d20 14 + 4 + 2 - 2 = 18; d8 6 + 2 = 8
    # against the goblin's 4 hit points: it takes 4 and is left at 0, unconscious; the line says so.
    data = angthar_data(ruleset="mf")
    combatant(data, "Angthar")["tactic"] = {"maneuver": "attack", "situation": {"flags": ["knockout"]}}
    result = fight(tmp_path, data, "--dice", "7,4,14,6")
    damage = events(result, "damage")[0]
    assert damage["damage"] == 4 and "= 8 damage" in damage["text"] and "4 taken (MF-KO-1)" in damage["text"]
    assert events(result, "defeat")[0]["data"]["status"] == "unconscious"


def test_a_two_round_spell_after_a_move_is_refused_in_words_that_fit() -> None:
    # rule: HR-CAST-MOVE ("Spell casters may also move 1/2 their movement rate and cast a single round
    # spell"): after a 10-ft move (within the 15 ft) a two-round spell is refused because it is not a
    # one-round spell, not because of the distance. (Casting is not a tactic of `referee fight`.)
    from tests.conftest import make_setup

    from referee.dice import ScriptedDice
    from referee.engine.fight import Fight
    from referee.engine.odd_actions import CastSpell
    from referee.errors import IllegalActionError

    fight_ = Fight(make_setup(angthar_data(ruleset="hr")))
    fight_.begin(ScriptedDice([]))
    fight_.start_round(ScriptedDice([7, 4]))
    with pytest.raises(IllegalActionError) as refused:
        fight_.act(CastSpell("Angthar", spell="sleep", moved=10, rounds=2), ScriptedDice([]))
    assert "only a one-round spell may follow a move, not a 2-round spell (HR-CAST-MOVE)" in str(
        refused.value
    )


def test_a_natural_sleeper_woken_by_a_wound_is_not_cited_as_magical_sleep(tmp_path: Path) -> None:
    # rule: MOD-COND-SLEEP-N-2 (melee on a natural sleeper "will automatically hit and normal damage will
    # occur": d8 6 + 1 = 7), MOD-COND-SLEEP-N-1 (it sleeps "until noise occurs"): it wakes; not MOD-COND-SLEEP-M.
    data = angthar_data(ruleset="mod", goblin_hp=20)
    combatant(data, "Goblin")["conditions"] = ["sleeping_natural"]
    result = fight(tmp_path, data, "--dice", "7,4,6,1", "--max-rounds", "1")
    assert events(result, "damage")[0]["damage"] == 7
    woken = [e for e in events(result, "condition") if e["data"]["condition"] == "sleeping_natural"]
    assert [(e["rule"], e["data"]["added"]) for e in woken] == [("MOD-COND-SLEEP-N-1", False)]


def test_a_kept_dex_penalty_names_the_rule_that_removed_the_dex(tmp_path: Path) -> None:
    # rule: MOD-REAR-1 ("the defender gains no AC bonus for Dexterity"; option dex_loss = bonus_only keeps a
    # penalty): the goblin's Dex 5 (-2) stays on its AC against Angthar's rear attack: 10 + 2 leather - 2 = 10.
    # The kept penalty is MOD-REAR-1's, not 004's DAC-DODGE-3.
    data = angthar_data(ruleset="mod", goblin_hp=20)
    goblin = combatant(data, "Goblin")
    goblin.pop("ac")
    goblin.update(abilities={"dex": 5}, armour="leather")
    situation = {"flags": ["rear", "surrounded"]}
    combatant(data, "Angthar")["tactic"] = {"maneuver": "attack", "situation": situation}
    result = fight(tmp_path, data, "--dice", "7,4,5,6,1", "--max-rounds", "1")
    attack = next(e for e in events(result, "attack") if e["actor"] == "Angthar")
    kept = [c for c in attack["data"]["ac_components"] if c["value"] == -2]
    assert attack["data"]["ac"] == 10 and [c["rule"] for c in kept] == ["MOD-REAR-1"]


def test_an_aerial_charge_on_a_surprised_target_deals_double_damage(tmp_path: Path) -> None:
    # rule: MF-AIR-4 ("a special charge attack causing double damage if the target is surprised"), MF-AIR-1
    # (+1 against a target on the ground), MF-SURP-2 (the ambusher's first attack with advantage), ODD-CHARGE-3:
    # the goblin fails its Wisdom check (d20 20 > Wis 3, ODD-SURP-2); in the free round the flying Angthar
    # charges 30 ft: 2d20 12,5 keep 12 + 4 + 2 Str (mf scale) + 1 = 19; (d8 6 + 2 Str + 2 charge) × 2 = 20.
    data = angthar_data(ruleset="mf", goblin_hp=30, distance=30, surprise={"sides": ["Goblins"]})
    combatant(data, "Angthar").update(conditions=["flying"], tactic={"maneuver": "charge"})
    combatant(data, "Goblin")["abilities"] = {"wis": 3}
    result = fight(tmp_path, data, "--dice", "20,12,5,6,1,1,1,1,1", "--max-rounds", "1")
    attack = events(result, "attack")[0]
    damage = events(result, "damage")[0]
    assert (attack["round"], attack["total"]) == (0, 19)
    assert (damage["damage"], damage["rule"]) == (20, "MF-AIR-4")


def test_dice_question_mark_rolls_that_die(tmp_path: Path) -> None:
    # `--dice 7,4,?,6`: initiative 7 and 4, the attack d20 rolled with the seed's dice, damage d8 6
    result = fight(tmp_path, angthar_data(), "--dice", "7,4,?,6", "--seed", "3")
    attack = events(result, "attack")[0]
    assert attack["actor"] == "Angthar" and 1 <= attack["dice"][0]["value"] <= 20
