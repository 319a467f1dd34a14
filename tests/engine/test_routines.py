"""Attack routines (ODD-ATK-3, ODD-ACT-ATK, HR-MOVE-2, MF-FUMBLE-2, ODD-ACT-MULTI) through `referee fight`,
`referee odds` and `referee sim`.

The owlbear here has 5 hit dice (ODD-BTH-2: +5 to hit), claws of 1d6 and a bite of 2d6, and the routine
claw, claw, bite. Angthar wears leather: AC 10 + 2 = 12 (ODD-AC-1, ODD-AC-ARMOR). The numbers in the
comments are worked from the documents; the dice are typed in with `--dice` in the order the engine asks.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml
from tests.conftest import EXAMPLES, referee

from referee import chance
from referee.dice import ScriptedDice
from referee.engine import outcomes, tactics
from referee.engine.actions import action_from_dict
from referee.engine.fight import Fight
from referee.files import load_encounter


def owlbear_data(**extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "Owlbear",
        "ruleset": "odd",
        "sides": [
            {"name": "Village", "combatants": [
                {"name": "Angthar", "level": 5, "attack_bonus": 4, "hp": 30, "armour": "leather",
                 "weapons": ["battle axe"]},
            ]},
            {"name": "Wood", "combatants": [
                {"name": "Owlbear", "hit_dice": 5, "hp": 30, "ac": 14,
                 "weapons": [{"name": "claw", "damage": "1d6"}, {"name": "bite", "damage": "2d6"}],
                 "attacks": ["claw", "claw", "bite"]},
            ]},
        ],
    }  # fmt: skip
    data.update(extra)
    return data


def run(tmp_path: Path, data: dict[str, Any], *args: str) -> dict[str, Any]:
    path = tmp_path / "encounter.yaml"
    path.write_text(yaml.safe_dump(data))
    out = referee("fight", str(path), *args, "--json")
    assert out.returncode == 0, out.stderr
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def attacks_by(result: dict[str, Any], actor: str) -> list[dict[str, Any]]:
    return [e for e in result["events"] if e["type"] == "attack" and e["actor"] == actor]


def damage_to(result: dict[str, Any], target: str) -> list[int]:
    return [e["damage"] for e in result["events"] if e["type"] == "damage" and e["target"] == target]


# --- ODD-ATK-3: one attack action, every attack of the routine, each its own roll ----------------------


def test_one_attack_action_makes_claw_claw_bite_each_its_own_roll(tmp_path: Path) -> None:
    # rule: ODD-ATK-3 ("one attack each round unless they possess a special ability allowing them to
    # exceed the limitation"), ODD-ACT-ATK. Initiative d10: Angthar 1, Owlbear 10. Claw: d20 12 + 5 = 17
    # >= 12, 1d6 = 4; claw: 3 + 5 = 8 < 12; bite: 15 + 5 = 20 >= 12, 2d6 3 + 5 = 8. Angthar: 30 - 12 = 18.
    result = run(tmp_path, owlbear_data(), "--dice", "1,10,12,4,3,15,3,5", "--max-rounds", "1")
    own = attacks_by(result, "Owlbear")
    assert [(a["data"]["weapon"], a["total"], a["hit"]) for a in own] == [
        ("claw", 17, True),
        ("claw", 8, False),
        ("bite", 20, True),
    ]
    assert [a["data"]["routine_attack"] for a in own] == [1, 2, 3]
    assert [[d["value"] for d in a["dice"]] for a in own] == [[12], [3], [15]]
    assert damage_to(result, "Angthar") == [4, 8]
    actions = [e for e in result["events"] if e["type"] == "action" and e["actor"] == "Owlbear"]
    assert len(actions) == 1 and actions[0]["rule"] == "ODD-ATK-3"
    assert actions[0]["data"]["routine"] == ["claw", "claw", "bite"]
    angthar = next(c for c in result["combatants"] if c["name"] == "Angthar")
    assert angthar["hp"] == 18


def test_without_attacks_a_combatant_makes_one_attack_with_its_first_weapon(tmp_path: Path) -> None:
    # rule: ODD-ATK-3: no routine, one attack (today's behaviour): claw 17 hits for 4, then Angthar acts.
    data = owlbear_data()
    del data["sides"][1]["combatants"][0]["attacks"]
    result = run(tmp_path, data, "--dice", "1,10,12,4,3,7", "--max-rounds", "1")
    assert [a["data"]["weapon"] for a in attacks_by(result, "Owlbear")] == ["claw"]
    assert "routine_attack" not in attacks_by(result, "Owlbear")[0]["data"]


def test_a_target_that_falls_mid_routine_leaves_the_rest_to_the_next_target(tmp_path: Path) -> None:
    # rule: ODD-ATK-3 with the default tactics (rules/targeting.py: fewest hit points first): Bran (3 hp)
    # takes the first claw (17 >= 12, 1d6 = 4: 3 - 4 = -1, unconscious, ODD-HP-1); the second claw and the
    # bite go to Angthar, the one enemy left standing: claw 14 + 5 = 19 hits for 2, bite 2 + 5 = 7 misses.
    data = owlbear_data()
    data["sides"][0]["combatants"].append(
        {"name": "Bran", "level": 1, "hp": 3, "armour": "leather", "weapons": ["spear"]}
    )
    result = run(tmp_path, data, "--dice", "1,1,10,12,4,14,2,2", "--max-rounds", "1")
    own = attacks_by(result, "Owlbear")
    assert [(a["target"], a["data"]["weapon"], a["total"]) for a in own] == [
        ("Bran", "claw", 17),
        ("Angthar", "claw", 19),
        ("Angthar", "bite", 7),
    ]
    assert damage_to(result, "Bran") == [4] and damage_to(result, "Angthar")[0] == 2


# --- HR-MOVE-2: any movement leaves one attack ----------------------------------------------------------


def test_half_move_and_attack_keeps_the_routine_under_odd_but_not_under_hr_move_2(tmp_path: Path) -> None:
    # rule: ODD-ACT-ATK (half the 30 ft move, 15 ft, closes the 20 ft to melee contact and still attacks;
    # `half_move`: extra attacks from abilities unaffected by moving, ODD-ATK-3) and HR-MOVE-2 ("weapons or
    # skills providing multiple attacks are degraded due to movement down to a single attack", option
    # move_and_attack = half_move_single_attack): the same dice give three attacks, then one.
    dice = ["--dice", "1,10,12,4,3,15,3,5", "--max-rounds", "1"]
    odd = run(tmp_path, owlbear_data(distance=20), *dice)
    assert [a["data"]["weapon"] for a in attacks_by(odd, "Owlbear")] == ["claw", "claw", "bite"]
    house = run(
        tmp_path, owlbear_data(distance=20, options={"move_and_attack": "half_move_single_attack"}), *dice
    )
    own = attacks_by(house, "Owlbear")
    assert [(a["data"]["weapon"], a["total"]) for a in own] == [("claw", 17)]
    move = next(e for e in house["events"] if e["type"] == "action" and e["actor"] == "Owlbear")
    assert move["data"]["moved"] == 15 and move["data"]["limited_by"] == "HR-MOVE-2"
    assert "HR-MOVE-2" in move["text"]


# --- MF-FUMBLE-2: the free attack back is one attack ------------------------------------------------------


def test_a_fumbles_free_attack_back_is_one_attack_of_the_routine(tmp_path: Path) -> None:
    # rule: MF-FUMBLE-2 ("the target makes an immediate free attack against the fumbler (choose just one
    # attack, if the target normally has multiple attacks)"): Angthar (initiative 10) rolls a natural 1;
    # the owlbear strikes back once (its first melee attack, claw: 12 + 5 = 17, 1d6 = 4), then makes its
    # own routine on its turn (claw 3 + 5 = 8 misses, claw 15 + 5 = 20 hits for 3, bite 5 + 5 = 10 misses).
    data = owlbear_data(options={"fumbles": "free_attack_or_ally_reroll"})
    result = run(tmp_path, data, "--dice", "10,1,1,12,4,3,15,3,5", "--max-rounds", "1")
    own = attacks_by(result, "Owlbear")
    assert [(a["data"]["weapon"], a["data"].get("routine_attack")) for a in own] == [
        ("claw", None),
        ("claw", 1),
        ("claw", 2),
        ("bite", 3),
    ]
    free = next(e for e in result["events"] if e["type"] == "action" and e.get("rule") == "MF-FUMBLE-2")
    assert free["actor"] == "Owlbear"
    assert damage_to(result, "Angthar") == [4, 3]


# --- the JSON API: chosen targets and the referee's extra attacks ---------------------------------------


def test_an_attack_action_from_json_names_a_target_per_attack(tmp_path: Path) -> None:
    # rule: ODD-ATK-3: `targets` names each attack's target in turn (the tracker / JSON API form).
    data = owlbear_data()
    data["sides"][0]["combatants"].append({"name": "Bran", "level": 1, "hp": 9, "weapons": ["spear"]})
    path = tmp_path / "encounter.yaml"
    path.write_text(yaml.safe_dump(data))
    fight = Fight(load_encounter(path))
    fight.begin(ScriptedDice([]))
    fight.start_round(ScriptedDice([1, 1, 10]))
    action = action_from_dict(
        {"kind": "attack", "actor": "Owlbear", "targets": ["Bran", "Angthar", "Angthar"]}
    )
    added = fight.act(action, ScriptedDice([12, 4, 3, 15, 3, 5]))
    assert [(e.target, e.data["weapon"]) for e in added if e.type.value == "attack"] == [
        ("Bran", "claw"),
        ("Angthar", "claw"),
        ("Angthar", "bite"),
    ]
    assert action_from_dict(action.to_dict()) == action


def test_extra_attacks_the_referee_grants_repeat_the_routine(tmp_path: Path) -> None:
    # rule: ODD-ACT-MULTI ("the Referee may allow more than one action per round ... haste"): Angthar,
    # hasted, makes two battle-axe attacks in one action: d20 13 + 4 = 17 >= 14 hits for 1d8 7, then
    # d20 2 + 4 = 6 misses.
    path = tmp_path / "encounter.yaml"
    path.write_text(yaml.safe_dump(owlbear_data()))
    fight = Fight(load_encounter(path))
    fight.begin(ScriptedDice([]))
    fight.start_round(ScriptedDice([10, 1]))
    action = action_from_dict(
        {
            "kind": "attack",
            "actor": "Angthar",
            "target": "Owlbear",
            "extra_attacks": 1,
            "extra_reason": "haste",
        }
    )
    added = fight.act(action, ScriptedDice([13, 7, 2]))
    attacks = [e for e in added if e.type.value == "attack"]
    assert [(e.total, e.hit) for e in attacks] == [(17, True), (6, False)]
    head = next(e for e in added if e.type.value == "action")
    assert "ODD-ACT-MULTI" in head.text and "haste" in head.text


# --- the exact odds and the simulator ---------------------------------------------------------------------


CUB = {
    "name": "Owlbear cub and a goblin",
    "ruleset": "odd",
    "max_rounds": 3,
    "sides": [
        {"name": "Goblins", "combatants": [
            {"name": "Goblin", "hit_dice": 1, "hp": 5, "ac": 17, "weapons": [{"name": "scimitar", "damage": "1d6"}]},
        ]},
        {"name": "Owlbear", "combatants": [
            {"name": "Cub", "hit_dice": 1, "hp": 6, "ac": 12,
             "weapons": [{"name": "claw", "damage": "1d2"}, {"name": "bite", "damage": "1d3"}],
             "attacks": ["claw", "claw", "bite"]},
        ]},
    ],
}  # fmt: skip


def test_a_routines_outcome_is_the_engine_enumerated_over_every_die(tmp_path: Path) -> None:
    # rule: ODD-ATK-3, ODD-ACT-ATK: the exact odds' and the simulator's table of the routine (its steps
    # composed state by state) equals the engine's whole resolution enumerated over every die
    # (claw and bite here; 1 HD gives +1, ODD-BTH-2, so a d20 of 16 or more hits AC 17: 5 in 20).
    data = json.loads(json.dumps(CUB))
    data["sides"][1]["combatants"][0]["attacks"] = ["claw", "bite"]
    path = tmp_path / "cub.yaml"
    path.write_text(yaml.safe_dump(data))
    setup = load_encounter(path)
    state = outcomes.probe_state(setup, {"Goblin": 1})
    action = tactics.choose_action(state, "Cub")
    composed = outcomes.attack_outcome_distribution(state, action)
    standing = outcomes.probe_state(setup)  # the goblin stands through the routine
    brute = chance.distribution(lambda dice: outcomes.attack_outcome(standing, action, dice))
    assert composed == brute
    # both miss: 3/4 · 3/4; both hit for the most, 2 + 3: 1/4 · 1/2 · 1/4 · 1/3
    assert composed[(0, 0, 0)] == Fraction(9, 16)
    assert composed[(5, 0, 0)] == Fraction(1, 96)


def test_exact_odds_and_simulator_take_a_claw_claw_bite_fight(tmp_path: Path) -> None:
    # rule: ODD-ATK-3 (one target: the routine's summed damage), ODD-INIT-3 (a cub dropped in its own
    # slot still makes its whole routine): `referee odds --fight` and the fast simulator agree.
    path = tmp_path / "cub.yaml"
    path.write_text(yaml.safe_dump(CUB))
    out = referee("odds", str(path), "--fight", "--json")
    assert out.returncode == 0, out.stderr
    exact = json.loads(out.stdout)
    out = referee("sim", str(path), "-n", "40000", "--json")
    assert out.returncode == 0, out.stderr
    sim = json.loads(out.stdout)
    assert sim["path"] == "vectorised", sim["fallback_reason"]
    for side in sim["sides"]:
        p = exact["wins"][side["side"]]
        se = (p * (1 - p) / sim["fights"]) ** 0.5
        assert abs(side["win_rate"] - p) < 4.5 * se, (side, p)


def test_odds_refuse_a_routine_that_can_move_on_to_another_target() -> None:
    # rule: ODD-ATK-3: the owlbear faces two woodcutters; when its target falls mid-routine the rest goes
    # to the other, which one damage per action cannot say: the exact odds refuse with the reason; the
    # simulator plays the routine one attack at a time (sim/routine_steps.py), on its fast path.
    out = referee("odds", str(EXAMPLES / "owlbear.yaml"), "--fight", "--json")
    assert out.returncode != 0
    assert "attack routine" in out.stderr and "several targets" in out.stderr
    out = referee("sim", str(EXAMPLES / "owlbear.yaml"), "-n", "200", "--json")
    assert out.returncode == 0, out.stderr
    sim = json.loads(out.stdout)
    assert sim["path"] == "vectorised", sim["fallback_reason"]


def test_an_attack_that_is_not_one_of_the_weapons_is_refused_on_load(tmp_path: Path) -> None:
    # rule: ODD-ATK-3: the routine names the creature's weapons; a typo is a one-line error, not a fight.
    data = owlbear_data()
    data["sides"][1]["combatants"][0]["attacks"] = ["claw", "talon"]
    path = tmp_path / "encounter.yaml"
    path.write_text(yaml.safe_dump(data))
    out = referee("fight", str(path))
    assert out.returncode != 0
    assert "attack 'talon' is not one of its weapons (claw, bite)" in out.stderr
