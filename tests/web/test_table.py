"""The referee's table through the JSON API: hit points by hand, latecomers, leaving, reveal, the referee's
own conditions, notes, free rolls, the engine's turn, the players' view by side and the dice habits."""

from __future__ import annotations

from typing import Any

from conftest import angthar_data
from referee.web import tracker as tracker_module

ATTACK = {"kind": "attack", "actor": "Angthar", "target": "Goblin 1", "weapon": "battle axe"}


def post(t: Any, eid: str, path: str, body: dict[str, Any]) -> Any:
    state = t.state(eid)
    full = {"version": state["version"], "revision": state["revision"], **body}
    return t.client.post(f"/api/encounters/{eid}/{path}", json=full, headers=t.auth)


def table(t: Any, eid: str, action: dict[str, Any], dice: str = "") -> dict[str, Any]:
    response = post(t, eid, "actions", {"action": action, "dice": dice})
    assert response.status_code == 200, response.text
    return dict(response.json())


def who(state: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in state["combatants"] if c["name"] == name)


def begun(t: Any, goblins: int = 2, **extra: Any) -> str:
    """Angthar (30 hp) against goblins of 4 hp each; begun and round 1 rolled (Angthar 7, goblins 4, 3)."""
    eid = t.create(angthar_data(goblins=goblins, **extra))
    t.step(eid, "begin")
    t.step(eid, "round", ", ".join(["7", *["4", "3"][:goblins]]))
    return eid


def test_adjust_hp_harms_and_heals_and_the_status_follows(tracker: Any) -> None:
    # rule: ODD-HP-1, GAP-HP-ZERO (a character at 0 falls unconscious; healed above 0 it wakes)
    eid = begun(tracker)
    state = table(tracker, eid, {"kind": "adjust_hp", "target": "Angthar", "amount": -30, "reason": "pit"})
    assert who(state, "Angthar")["hp"] == 0 and who(state, "Angthar")["status"] == "unconscious"
    damage = next(e for e in reversed(state["events"]) if e["type"] == "damage")
    assert damage["hp_left"] == 0 and "pit" in damage["text"]
    # the fight is over (no side but the goblins stands): undo it and heal instead
    assert state["needs"] == "over"
    tracker.client.post(
        f"/api/encounters/{eid}/undo", json={"version": state["version"]}, headers=tracker.auth
    )
    state = table(tracker, eid, {"kind": "adjust_hp", "target": "Angthar", "amount": -3})
    state = table(tracker, eid, {"kind": "adjust_hp", "target": "Angthar", "amount": 10, "reason": "potion"})
    assert who(state, "Angthar")["hp"] == 30  # never above the maximum
    assert state["current"] == "Angthar"  # in nobody's turn: the current actor is still to act


def test_a_healed_unconscious_character_wakes(tracker: Any) -> None:
    # rule: ODD-HP-1, GAP-HP-ZERO
    data = angthar_data(goblins=2)
    data["sides"][0]["combatants"].append({"name": "Bera", "level": 1, "hp": 5, "weapons": ["dagger"]})
    eid = tracker.create(data)
    tracker.step(eid, "begin")
    tracker.step(eid, "round", "7, 2, 4, 3")
    state = table(tracker, eid, {"kind": "adjust_hp", "target": "Bera", "amount": -7})
    assert who(state, "Bera")["status"] == "unconscious"
    state = table(tracker, eid, {"kind": "adjust_hp", "target": "Bera", "amount": 4})
    assert who(state, "Bera")["hp"] == 2 and who(state, "Bera")["status"] == "active"
    assert "wakes" in state["events"][-1]["text"]


def test_a_dead_combatant_loses_its_conditions(tracker: Any) -> None:
    # rule: ODD-HP-1 (monsters die at 0): conditions end with the combatant
    eid = begun(tracker)
    table(tracker, eid, {"kind": "apply_condition", "actor": "Goblin 1", "condition": "stunned", "rounds": 2})
    state = table(tracker, eid, {"kind": "adjust_hp", "target": "Goblin 1", "amount": -4})
    assert who(state, "Goblin 1")["status"] == "dead" and who(state, "Goblin 1")["conditions"] == []
    assert any(e["type"] == "condition" and "no longer stunned" in e["text"] for e in state["events"])


def test_undo_and_redo_a_table_action(tracker: Any) -> None:
    eid = begun(tracker)
    before = tracker.state(eid)
    state = table(tracker, eid, {"kind": "adjust_hp", "target": "Goblin 2", "amount": -2})
    assert who(state, "Goblin 2")["hp"] == 2
    undone = post(tracker, eid, "undo", {}).json()
    assert who(undone, "Goblin 2")["hp"] == 4 and undone["version"] == before["version"]
    redone = post(tracker, eid, "redo", {}).json()
    assert who(redone, "Goblin 2")["hp"] == 2


def test_add_combatant_rolls_hit_points_and_joins_next_round(tracker: Any) -> None:
    # rule: ODD-HD-1, ODD-HD-2 (hit dice rolled), ODD-INIT-1 (initiative from the next round)
    eid = begun(tracker)
    ogre = {"name": "Ogre", "hit_dice": "4+1", "ac": 5, "weapons": ["club"]}
    state = table(tracker, eid, {"kind": "add_combatant", "side": "Goblins", "combatant": ogre}, "3, 4, 5, 6")
    assert who(state, "Ogre")["hp"] == 3 + 4 + 5 + 6 + 1 == who(state, "Ogre")["max_hp"]
    assert all("Ogre" not in slot for slot in state["order"])
    for actor in ("Angthar", "Goblin 1", "Goblin 2"):
        table(tracker, eid, {"kind": "wait", "actor": actor})
    tracker.step(eid, "end_round")
    state = tracker.step(eid, "round", "1, 2, 3, 9")
    assert state["order"][0] == ["Ogre"]


def test_add_combatant_at_once_with_a_given_initiative(tracker: Any) -> None:
    # rule: ODD-INIT-1 (higher acts first): the newcomer's slot comes before every slot still to act below it
    eid = begun(tracker)
    late = {"name": "Wolf", "hp": 6, "ac": 13, "weapons": [{"name": "bite", "damage": "1d4"}]}
    state = table(
        tracker, eid, {"kind": "add_combatant", "side": "Goblins", "combatant": late, "initiative": 5}
    )
    assert state["order"] == [["Angthar"], ["Wolf"], ["Goblin 1"], ["Goblin 2"]]
    assert who(state, "Wolf")["hp"] == 6


def test_add_combatant_refuses_a_taken_name_and_an_unknown_side(tracker: Any) -> None:
    eid = begun(tracker)
    response = post(tracker, eid, "actions", {"action": {"kind": "add_combatant", "side": "Goblins",
                                                         "combatant": {"name": "Angthar", "hp": 3}}})  # fmt: skip
    assert response.status_code == 422 and "Angthar" in response.json()["error"]
    response = post(tracker, eid, "actions", {"action": {"kind": "add_combatant", "side": "Nobody",
                                                         "combatant": {"name": "X", "hp": 3}}})  # fmt: skip
    assert response.status_code == 422 and "no side" in response.json()["error"]


def test_remove_combatant_counts_as_gone_at_the_end_of_the_fight(tracker: Any) -> None:
    # rule: ODD-ROUND-1 (one side left wins)
    eid = begun(tracker)
    state = table(tracker, eid, {"kind": "remove_combatant", "target": "Goblin 1", "status": "fled"})
    assert who(state, "Goblin 1")["status"] == "fled" and state["needs"] == "action"
    state = table(tracker, eid, {"kind": "remove_combatant", "target": "Goblin 2", "status": "surrendered"})
    assert state["needs"] == "over" and state["winner"] == "Village"
    players = tracker.client.get(players_path(tracker, eid)).json()
    assert {c["name"]: c["health"] for c in players["combatants"] if "health" in c} == {
        "Goblin 1": "fled",
        "Goblin 2": "surrendered",
    }


def players_path(t: Any, eid: str) -> str:
    listing = t.client.get("/api/encounters", headers=t.auth).json()
    link = next(e["links"]["players"] for e in listing if e["id"] == eid)
    return "/api/players/" + link.split("/p/", 1)[1]


def test_reveal_and_hide_again(tracker: Any) -> None:
    data = angthar_data(goblins=2)
    data["sides"][1]["combatants"].append({"name": "Lurker", "hp": 9, "ac": 17, "hidden": True})
    eid = tracker.create(data)
    tracker.step(eid, "begin")
    path = players_path(tracker, eid)
    assert "Lurker" not in str(tracker.client.get(path).json())
    table(tracker, eid, {"kind": "remove_condition", "actor": "Lurker", "condition": "hidden"})  # = reveal
    seen = tracker.client.get(path).json()
    assert next(c for c in seen["combatants"] if c["name"] == "Lurker")["health"] == "unhurt"
    table(tracker, eid, {"kind": "hide", "target": "Lurker"})
    assert "Lurker" not in str(tracker.client.get(path).json())


def test_players_see_numbers_of_the_players_sides_only(tracker: Any) -> None:
    # a foe that is a character, or has only `hp:`, shows a word, never its numbers
    data = angthar_data(goblins=1)
    data["sides"][1]["combatants"].append({"name": "Black Knight", "level": 4, "hp": 22, "armour": "plate"})
    data["players"] = ["Village"]
    eid = tracker.create(data)
    tracker.step(eid, "begin")
    seen = tracker.client.get(players_path(tracker, eid)).json()
    knight = next(c for c in seen["combatants"] if c["name"] == "Black Knight")
    assert knight == {
        "name": "Black Knight",
        "side": "Goblins",
        "party": False,
        "conditions": [],
        "health": "unhurt",
    }
    assert "22" not in str(seen) and next(c for c in seen["combatants"] if c["name"] == "Angthar")["hp"] == 30


def test_players_names_a_side_of_the_encounter(tracker: Any) -> None:
    response = tracker.client.post(
        "/api/encounters", json={"data": angthar_data(players=["Elves"])}, headers=tracker.auth
    )
    assert response.status_code == 422 and "Elves" in response.json()["error"]


def test_referee_marks_named_conditions_and_notes(tracker: Any) -> None:
    eid = begun(tracker)
    state = table(tracker, eid, {"kind": "mark", "target": "Goblin 1", "name": "frightened", "rounds": 2,
                                 "note": "saw the dragon"})  # fmt: skip
    cond = who(state, "Goblin 1")["conditions"][0]
    assert cond["name"] == "frightened" and cond["rounds_left"] == 2 and cond["referee"] is True
    assert post(tracker, eid, "actions", {"action": {"kind": "mark", "target": "Goblin 1",
                                                     "name": "stunned"}}).status_code == 422  # fmt: skip
    state = table(tracker, eid, {"kind": "note", "text": "the bridge creaks"})
    state = table(tracker, eid, {"kind": "note", "target": "Angthar", "text": "owes Bera 5 gp"})
    assert state["notes"] == ["note: the bridge creaks", "note on Angthar: owes Bera 5 gp"]
    state = table(tracker, eid, {"kind": "unmark", "target": "Goblin 1", "name": "frightened"})
    assert who(state, "Goblin 1")["conditions"] == []


def test_free_dice_roller_is_logged(tracker: Any) -> None:
    eid = begun(tracker)
    state = table(tracker, eid, {"kind": "roll", "dice": "2d6+1", "reason": "reaction"}, "3, 4")
    last = state["events"][-1]
    assert last["total"] == 8 and [d["value"] for d in last["dice"]] == [3, 4] and "reaction" in last["text"]
    assert state["current"] == "Angthar"


def test_the_engine_decides_for_the_current_actor_and_suggests_its_target(tracker: Any) -> None:
    # the default tactics (engine/tactics.choose_action): the living enemy with the fewest hit points
    eid = begun(tracker, goblin_hp=None)
    state = tracker.state(eid)
    weakest = min((c for c in state["combatants"] if c["side"] == "Goblins"), key=lambda c: c["hp"])
    assert state["suggested"]["target"] == weakest["name"]
    state = post(tracker, eid, "engine", {"dice": "2"}).json()
    attack = next(e for e in reversed(state["events"]) if e["type"] == "attack")
    assert attack["actor"] == "Angthar" and attack["target"] == weakest["name"]
    assert state["current"] == "Goblin 1"


def test_run_the_foes_until_a_players_turn(tracker: Any) -> None:
    eid = begun(tracker)
    table(tracker, eid, {"kind": "wait", "actor": "Angthar"})
    state = post(tracker, eid, "engine", {"until": "players"}).json()
    assert state["needs"] in {"end_round", "over"}
    actors = [e["actor"] for e in state["events"] if e["type"] == "attack"]
    assert set(actors) <= {"Goblin 1", "Goblin 2"} and actors
    refused = post(tracker, eid, "engine", {"until": "players"})
    assert refused.status_code == 422


def test_damage_typed_ahead_for_a_miss_is_said_not_refused(tracker: Any) -> None:
    # the attack misses (natural 2): the damage die typed ahead is simply not used
    eid = begun(tracker)
    response = post(tracker, eid, "actions", {"action": ATTACK, "dice": "2, 6"})
    assert response.status_code == 200, response.text
    assert "not used (6)" in response.json()["notice"]
    too_many = post(tracker, eid, "actions", {"action": {**ATTACK, "actor": "Goblin 1", "target": "Angthar",
                                                         "weapon": None}, "dice": "2, 6, 1, 1, 1, 1, 1"})  # fmt: skip
    assert too_many.status_code == 422 and "at most" in too_many.json()["error"]


def test_a_refused_try_keeps_the_dice_it_rolled(tracker: Any) -> None:
    # no re-roll fishing: the `?` rolled before the refused die come back for the retry
    eid = tracker.create(angthar_data(goblins=2, goblin_hp=None))  # each goblin's hit points: 1d6
    response = post(tracker, eid, "steps", {"step": "begin", "dice": "?, 9"})
    body = response.json()
    assert response.status_code == 422 and "not a face" in body["error"]
    first, second = body["kept_dice"].split(", ")
    assert 1 <= int(first) <= 6 and second == "9"
    assert tracker.state(eid)["version"] == 0  # nothing stored


def test_typed_dice_in_any_grouping() -> None:
    assert tracker_module.parse_typed_dice("12 6") == [12, 6]
    assert tracker_module.parse_typed_dice("12, 6 3") == [12, 6, 3]
    assert tracker_module.parse_typed_dice(",4") == [None, 4]
    assert tracker_module.parse_typed_dice("? ; 4") == [None, 4]


def test_table_actions_between_rounds_but_not_before_begin(tracker: Any) -> None:
    eid = tracker.create(angthar_data(goblins=2))
    refused = post(
        tracker, eid, "actions", {"action": {"kind": "adjust_hp", "target": "Goblin 1", "amount": -1}}
    )
    assert refused.status_code == 422 and "begin" in refused.json()["error"]
    tracker.step(eid, "begin")  # the fight needs a round now: a table action still goes in
    state = table(tracker, eid, {"kind": "adjust_hp", "target": "Goblin 1", "amount": -1})
    assert who(state, "Goblin 1")["hp"] == 3 and state["needs"] == "round"


def test_an_ac_change_is_explained_in_the_state(tracker: Any) -> None:
    # rule: HR-ARMDMG-4 (the shield takes the critical and is destroyed), HR-CRIT-1, ODD-AC-SHIELD
    data = angthar_data(goblins=1, ruleset="hr")
    data["sides"][0]["combatants"][0].update(shield="shield", sacrifice_shield=True)
    eid = tracker.create(data)
    tracker.step(eid, "begin")
    state = tracker.step(eid, "round", "1, 7")  # the goblin first
    assert who(state, "Angthar")["ac"] == 13 and who(state, "Angthar")["ac_change"] is None
    goblin = {"kind": "attack", "actor": "Goblin", "target": "Angthar"}
    state = table(tracker, eid, goblin, "20, 20, 3, 3")  # a confirmed critical
    change = who(state, "Angthar")["ac_change"]
    assert who(state, "Angthar")["ac"] == 12 and change["was"] == 13
    assert change["why"][0] == "lost +1 shield [ODD-AC-SHIELD]"
    assert any("destroyed [HR-ARMDMG-4]" in why for why in change["why"])
    assert change["text"].startswith("was 13: lost +1 shield")
    page = tracker.client.get(f"/e/{eid}", headers=tracker.auth).text
    assert "(was 13: lost +1 shield [ODD-AC-SHIELD]" in page
    players = tracker.client.get(players_path(tracker, eid))
    assert "was 13" not in players.text and "ac" not in who(players.json(), "Angthar")


def test_before_begin_the_page_says_what_begin_gives_each_combatant(tracker: Any) -> None:
    # rule: ODD-HD-2 (hit dice rolled at Begin): no "0/0" that reads as dead
    eid = tracker.create(angthar_data(goblins=2, goblin_hp=None))
    state = tracker.state(eid)
    assert [c["hp_at_begin"] for c in state["combatants"]] == ["30", "rolls 1d6", "rolls 1d6"]
    page = tracker.client.get(f"/e/{eid}", headers=tracker.auth).text
    assert '<span class="hpnum">rolls 1d6 at Begin</span>' in page and "0/0" not in page


def test_the_picker_offers_every_condition_and_a_grapple_with_its_partner(tracker: Any) -> None:
    # rule: MOD-COND-GRAPPLED-2 (a grapple ties two: put on with the other grappler); a garrotte arises from
    # an attack only, so the picker offers it disabled
    eid = begun(tracker)
    state = tracker.state(eid)
    partners = {x["name"]: x["partner"] for x in state["condition_choices"]}
    assert partners["grappled"] == "by" and partners["garrotted"] == "attack" and partners["stunned"] is None
    for choice in state["condition_choices"]:
        if choice["partner"] == "attack":
            continue
        action = {"kind": "apply_condition", "actor": "Goblin 1", "condition": choice["name"], "rounds": 2}
        if choice["partner"] == "by":
            action["by"] = "Angthar"
        response = post(tracker, eid, "actions", {"action": action})
        assert response.status_code == 200, (choice["name"], response.text)
        names = [x["name"] for x in who(response.json(), "Goblin 1")["conditions"]]
        assert choice["name"] in names, choice["name"]
        assert post(tracker, eid, "undo", {}).status_code == 200
    page = tracker.client.get(f"/e/{eid}", headers=tracker.auth).text
    assert 'value="garrotted"' in page and 'data-partner="attack" disabled' in page
