"""The tracker's JSON API and pages, in-process (TestClient): every route, the access and conflict rules.

Dice are typed in (the referee's physical dice), so every number is known; the vectors are RULES.md's
TV-000-01..05 played through the web API.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from conftest import angthar_data
from referee.web import tracker as tracker_module
from referee.web.views import health_word

ATTACK = {"kind": "attack", "actor": "Angthar", "target": "Goblin", "weapon": "battle axe"}


def to_first_action(t: Any, eid: str) -> dict[str, Any]:
    """Begin (fixed hit points: no dice) and roll round 1's initiative: Angthar 7, goblin 4 (TV-000-01)."""
    t.step(eid, "begin")
    return t.step(eid, "round", "7, 4")


def act(t: Any, eid: str, dice: str, action: dict[str, Any] | None = None, version: int | None = None) -> Any:
    body = {"version": t.state(eid)["version"] if version is None else version, "action": action or ATTACK}
    return t.client.post(f"/api/encounters/{eid}/actions", json={**body, "dice": dice}, headers=t.auth)


# --- the fight through the API ---------------------------------------------------------------------------


def test_initiative_typed_dice_angthar_first(tracker: Any) -> None:
    # rule: ODD-INIT-1 (TV-000-01: Angthar d10 = 7, goblin d10 = 4 -> Angthar acts first)
    eid = tracker.create()
    state = to_first_action(tracker, eid)
    assert state["needs"] == "action"
    assert state["order"] == [["Angthar"], ["Goblin"]]
    assert state["current"] == "Angthar"
    initiative = next(e for e in state["events"] if e["type"] == "initiative")
    assert [d["value"] for d in initiative["dice"]] == [7, 4]
    assert initiative["rule"] == "ODD-INIT-1"


def test_attack_hits_and_drops_the_goblin(tracker: Any) -> None:
    # rule: ODD-ATK-1, ODD-MELEE-1, ODD-BTH-1, ODD-ATK-2, ODD-MELEE-2, ODD-HP-1 (TV-000-02, TV-000-03)
    eid = tracker.create()
    version = to_first_action(tracker, eid)["version"]
    response = act(tracker, eid, "12, 6")
    assert response.status_code == 200, response.text
    state = response.json()
    new = state["events"][version:]
    attack = next(e for e in new if e["type"] == "attack")
    assert attack["total"] == 17 and attack["target_number"] == 12 and attack["hit"] is True
    assert {(m["value"], m["rule"]) for m in attack["modifiers"]} == {(4, "ODD-BTH-1"), (1, "ODD-MELEE-1")}
    damage = next(e for e in new if e["type"] == "damage")
    assert damage["damage"] == 7 and damage["dice"][0]["value"] == 6
    goblin = next(c for c in state["combatants"] if c["name"] == "Goblin")
    assert goblin["hp"] == -3 and goblin["status"] != "active"
    assert state["needs"] == "over" and state["winner"] == "Village"


def test_goblin_survives_then_next_round(tracker: Any) -> None:
    # rule: ODD-ROUND-1, ODD-ROUND-4 (TV-000-04: d8 = 1 + 1 = 2 damage, goblin left with 2 HP, acts, new round)
    eid = tracker.create()
    to_first_action(tracker, eid)
    state = act(tracker, eid, "12, 1").json()
    goblin = next(c for c in state["combatants"] if c["name"] == "Goblin")
    assert goblin["hp"] == 2 and state["current"] == "Goblin"
    goblin_attack = {"kind": "attack", "actor": "Goblin", "target": "Angthar"}
    state = act(tracker, eid, "2", goblin_attack).json()  # a natural 2 misses Angthar
    assert state["needs"] == "end_round"
    state = tracker.step(eid, "end_round")
    assert state["needs"] == "round"
    state = tracker.step(eid, "round", "3, 8")
    assert state["round"] == 2 and state["current"] == "Goblin"


def test_begin_with_surprise_gives_a_free_round(tracker: Any) -> None:
    # rule: ODD-SURP-1, ODD-SURP-2, ODD-SURP-4 (TV-000-05: the goblins' Wisdom check fails -> free round)
    eid = tracker.create()
    state = tracker.step(eid, "begin", "15", surprise={"sides": ["Goblins"], "check": "per_side"})
    check = next(e for e in state["events"] if e["type"] == "check")
    assert check["dice"][0]["value"] == 15 and check["hit"] is False
    assert state["free_round"] is True and state["order"] == [["Angthar"]] and state["current"] == "Angthar"
    export = tracker.client.get(f"/api/encounters/{eid}/export", headers=tracker.auth).json()
    ruled = next(e for e in export["events"] if e["type"] == "surprise")
    assert ruled["data"]["ruling"]["sides"] == ["Goblins"]  # the ruling belongs to the Begin step's events
    assert "surprise" not in export["setup"]


def test_undoing_a_begin_undoes_its_surprise_ruling(tracker: Any) -> None:
    # rule: ODD-SURP-1 (the referee's surprise ruling is part of that Begin, not of the encounter)
    eid = tracker.create()
    created = tracker.client.get(f"/api/encounters/{eid}/export", headers=tracker.auth).json()["setup"]
    tracker.step(eid, "begin", "15", surprise={"sides": ["Goblins"], "check": "per_side"})
    state = post(tracker, eid, "undo", {"version": tracker.state(eid)["version"], "keep": 0}).json()
    assert state["version"] == 0
    export = tracker.client.get(f"/api/encounters/{eid}/export", headers=tracker.auth).json()
    assert export["setup"] == created
    begun = tracker.step(eid, "begin")  # a plain Begin: no surprise checks, no free round
    assert [e["type"] for e in begun["events"]] == ["setup"] and begun["free_round"] is False


def test_rolled_dice_when_nothing_is_typed(tracker: Any) -> None:
    eid = tracker.create()
    to_first_action(tracker, eid)
    response = act(tracker, eid, "")
    assert response.status_code == 200
    attack = next(e for e in response.json()["events"] if e["type"] == "attack")
    assert 1 <= attack["dice"][0]["value"] <= 20


def test_mixed_typed_and_rolled_dice(tracker: Any) -> None:
    # rule: ODD-ATK-2 (the typed d20 is used, the `?` damage die is rolled)
    eid = tracker.create(angthar_data(goblin_hp=20))
    to_first_action(tracker, eid)
    state = act(tracker, eid, "12, ?").json()
    damage = next(e for e in state["events"] if e["type"] == "damage")
    assert damage["dice"][0]["sides"] == 8 and 2 <= damage["damage"] <= 9


@pytest.mark.parametrize("dice", ["25", "0", "12, 9", "x", "12, 6, 3"])
def test_bad_typed_dice_are_refused_and_nothing_is_stored(tracker: Any, dice: str) -> None:
    # "12, 9": 9 is not a face of the d8; "12, 6, 3": the step used only 2 of 3 typed dice
    eid = tracker.create()
    before = to_first_action(tracker, eid)["version"]
    response = act(tracker, eid, dice)
    assert response.status_code == 422
    assert response.json()["error"] and "\n" not in response.json()["error"]
    assert tracker.state(eid)["version"] == before


def test_die_outside_faces_message(tracker: Any) -> None:
    eid = tracker.create()
    to_first_action(tracker, eid)
    response = act(tracker, eid, "21")
    assert response.status_code == 422
    assert "not a face of a d20" in response.json()["error"]


def test_illegal_action_is_refused(tracker: Any) -> None:
    eid = tracker.create()
    to_first_action(tracker, eid)
    response = act(tracker, eid, "", {"kind": "attack", "actor": "Goblin", "target": "Angthar"})
    assert response.status_code == 422 and "Angthar's turn" in response.json()["error"]
    response = act(tracker, eid, "", {"kind": "fly", "actor": "Angthar"})
    assert response.status_code == 422 and "unknown action kind" in response.json()["error"]


def test_wait_action_and_situational_modifier(tracker: Any) -> None:
    # rule: ODD-ACT-FREE-1 (wait), ODD-SIT-1 (a referee modifier with its reason)
    eid = tracker.create()
    to_first_action(tracker, eid)
    action = {**ATTACK, "situation": {"modifiers": [{"value": -10, "reason": "swinging on a rope"}]}}
    state = act(tracker, eid, "12", action).json()
    attack = next(e for e in state["events"] if e["type"] == "attack")
    assert attack["total"] == 7 and attack["hit"] is False
    assert {"value": -10, "rule": "ODD-SIT-1", "reason": "swinging on a rope"} in attack["modifiers"]
    state = act(tracker, eid, "", {"kind": "wait", "actor": "Goblin"}).json()
    assert state["events"][-1]["rule"] == "ODD-ACT-FREE-1"


def test_a_stored_ruling_through_the_api(tracker: Any) -> None:
    # rule: ODD-SIT-1 (a ruling stored in the encounter, named by the action's situation)
    rope = {"modifiers": [{"value": -10, "reason": "swinging on a rope", "band": "difficult"}]}
    eid = tracker.create(angthar_data(rulings={"rope": rope}))
    assert to_first_action(tracker, eid)["rulings"] == ["rope"]
    page = tracker.client.get(f"/e/{eid}", headers=tracker.auth).text
    assert '<select id="ruling">' in page and "<option>rope</option>" in page
    assert 'rulings: $("ruling")' in tracker.client.get("/static/tracker.js").text
    unknown = act(tracker, eid, "12", {**ATTACK, "situation": {"rulings": ["ropes"]}})
    assert unknown.status_code == 422 and unknown.json()["error"] == "unknown ruling 'ropes'; rulings: rope"
    odds = post(tracker, eid, "odds", {"action": {**ATTACK, "situation": {"rulings": ["rope"]}}})
    assert odds.status_code == 200, odds.text
    state = act(tracker, eid, "12", {**ATTACK, "situation": {"rulings": ["rope"]}}).json()
    attack = next(e for e in state["events"] if e["type"] == "attack")
    assert attack["total"] == 7 and attack["hit"] is False
    assert {"value": -10, "rule": "ODD-SIT-1", "reason": "swinging on a rope (ruling: rope)"} in attack[
        "modifiers"
    ]


def test_stale_version_is_a_conflict(tracker: Any) -> None:
    eid = tracker.create()
    version = to_first_action(tracker, eid)["version"]
    first = act(tracker, eid, "12, 1", version=version)
    assert first.status_code == 200
    second = act(tracker, eid, "12, 1", version=version)  # the second tab, still on the old version
    assert second.status_code == 409
    assert "version" in second.json()["error"] and "reload" in second.json()["error"]
    assert tracker.state(eid)["version"] == first.json()["version"]  # nothing duplicated
    seen = tracker.client.get(f"/api/encounters/{eid}/version", headers=tracker.auth).json()
    assert seen == {"version": first.json()["version"], "revision": first.json()["revision"]}
    undo = tracker.client.post(f"/api/encounters/{eid}/undo", json={"version": version}, headers=tracker.auth)
    assert undo.status_code == 409


def seen(state: dict[str, Any]) -> dict[str, int]:
    """What a tab sends with a change: the version and revision it last saw."""
    return {"version": state["version"], "revision": state["revision"]}


def test_undo_and_new_step_in_another_tab_is_a_conflict_at_the_same_version(tracker: Any) -> None:
    # the ABA case: tab B undoes a step and takes another, so the log is back at tab A's version with
    # another history; tab A's stale step must be refused, not computed on tab B's fight
    eid = tracker.create()
    tab_a = to_first_action(tracker, eid)  # round 1: Angthar 7, goblin 4 -> Angthar acts
    undone = tracker.client.post(f"/api/encounters/{eid}/undo", json=seen(tab_a), headers=tracker.auth)
    assert undone.status_code == 200, undone.text
    body = {"step": "round", "dice": "1, 9", **seen(undone.json())}
    tab_b = tracker.client.post(f"/api/encounters/{eid}/steps", json=body, headers=tracker.auth).json()
    assert tab_b["version"] == tab_a["version"] and tab_b["current"] == "Goblin"  # same count, new history
    assert tab_b["revision"] > tab_a["revision"]

    stale = post(tracker, eid, "actions", {**seen(tab_a), "action": ATTACK, "dice": "12, 6"})
    assert stale.status_code == 409, stale.text
    error = stale.json()["error"]
    assert "another tab" in error and "reload" in error and f"revision {tab_a['revision']}" in error
    others: list[tuple[str, dict[str, Any]]] = [
        ("steps", {"step": "end_round"}),
        ("undo", {}),
        ("undo", {"keep": 1}),
        ("redo", {}),
    ]
    for path, extra in others:
        response = post(tracker, eid, path, {**seen(tab_a), **extra})
        assert response.status_code == 409 and "reload" in response.json()["error"], (path, response.text)
    now = tracker.state(eid)
    assert now["events"] == tab_b["events"] and seen(now) == seen(tab_b)  # nothing stored, nothing undone
    assert now["current"] == "Goblin" and now["redo"] == 0

    # tab B, up to date, goes on; so does tab A once reloaded
    fresh = post(tracker, eid, "actions", {**seen(now), "action": {"kind": "wait", "actor": "Goblin"}})
    assert fresh.status_code == 200, fresh.text


def test_revision_moves_on_with_every_change_and_never_goes_back(tracker: Any) -> None:
    eid = tracker.create()
    revisions = [tracker.state(eid)["revision"]]
    state = to_first_action(tracker, eid)
    revisions.append(state["revision"])
    state = post(tracker, eid, "undo", seen(state)).json()
    revisions.append(state["revision"])
    state = post(tracker, eid, "redo", seen(state)).json()
    revisions.append(state["revision"])
    renamed = tracker.client.patch(f"/api/encounters/{eid}", json={"name": "Deck"}, headers=tracker.auth)
    revisions.append(renamed.json()["revision"])
    assert revisions == sorted(set(revisions)) and revisions[0] == 0
    # an undo followed by a redo rebuilds the same log, but the page that saw neither is still stale
    assert post(tracker, eid, "actions", {**seen(state), "action": ATTACK}).status_code == 409
    version = tracker.client.get(f"/api/encounters/{eid}/version", headers=tracker.auth).json()
    assert version == {"version": 3, "revision": revisions[-1]}
    listed = tracker.client.get("/api/encounters", headers=tracker.auth).json()
    assert listed[0]["revision"] == revisions[-1]
    exported = tracker.client.get(f"/api/encounters/{eid}/export", headers=tracker.auth).json()
    imported = tracker.client.post("/api/encounters/import", json=exported, headers=tracker.auth).json()
    assert imported["version"] == 3 and imported["revision"] == 1  # the import is its first change


def test_a_step_is_stored_only_on_the_history_it_was_computed_on(tracker: Any, monkeypatch: Any) -> None:
    # another tab changes the fight between this request's read and its write: the store's own check in the
    # write transaction refuses it, even for a client that sends no revision (older API clients)
    eid = tracker.create()
    state = to_first_action(tracker, eid)
    store = tracker.app.state.store
    real_append = store.append

    def other_tab_first(*args: Any, **kwargs: Any) -> Any:
        monkeypatch.setattr(store, "append", real_append)
        row = store.truncate(eid, 3, 1)
        tracker_module.take_step(store, row, "round", version=1, dice="1, 9")  # version 3, another history
        return real_append(*args, **kwargs)

    monkeypatch.setattr(store, "append", other_tab_first)
    raced = post(tracker, eid, "actions", {"version": state["version"], "action": ATTACK, "dice": "12, 6"})
    assert raced.status_code == 409, raced.text
    now = tracker.state(eid)
    assert now["version"] == 3 and now["current"] == "Goblin" and now["events"][-1]["type"] == "initiative"


def test_the_fight_page_sends_what_it_saw(tracker: Any) -> None:
    eid = tracker.create()
    state = to_first_action(tracker, eid)
    page = tracker.client.get(f"/e/{eid}", headers=tracker.auth)
    meta = json.loads(page.text.split('<script type="application/json" id="meta">')[1].split("</script>")[0])
    assert seen(meta) == seen(state)
    script = tracker.client.get("/static/tracker.js").text
    assert "revision: meta.revision" in script


# --- undo and redo ---------------------------------------------------------------------------------------


def post(t: Any, eid: str, path: str, body: dict[str, Any]) -> Any:
    return t.client.post(f"/api/encounters/{eid}/{path}", json=body, headers=t.auth)


def test_undo_last_step_then_redo(tracker: Any) -> None:
    eid = tracker.create()
    version = to_first_action(tracker, eid)["version"]
    after = act(tracker, eid, "12, 6").json()
    undone = post(tracker, eid, "undo", {"version": after["version"]}).json()
    assert undone["version"] == version and undone["needs"] == "action" and undone["redo"] == 1
    goblin = next(c for c in undone["combatants"] if c["name"] == "Goblin")
    assert goblin["hp"] == 4 and goblin["status"] == "active"
    redone = post(tracker, eid, "redo", {"version": version}).json()
    assert redone["events"] == after["events"] and redone["needs"] == "over" and redone["redo"] == 0
    nothing = post(tracker, eid, "redo", {"version": redone["version"]})
    assert nothing.status_code == 409 and nothing.json()["error"] == "nothing to redo"


def test_undo_back_to_a_line_and_by_count(tracker: Any) -> None:
    eid = tracker.create()
    state = to_first_action(tracker, eid)
    assert [e["type"] for e in state["events"]] == ["setup", "round_start", "initiative"]
    back = post(tracker, eid, "undo", {"version": 3, "keep": 1}).json()
    assert back["version"] == 1 and back["needs"] == "round"
    back = post(tracker, eid, "undo", {"version": 1, "count": 1}).json()
    assert back["version"] == 0 and back["needs"] == "begin" and back["redo"] == 2
    bad = post(tracker, eid, "undo", {"version": 0})
    assert bad.status_code == 422 and bad.json()["error"] == "nothing to undo"


def test_redo_restores_in_order_and_a_new_step_clears_it(tracker: Any) -> None:
    eid = tracker.create()
    full = to_first_action(tracker, eid)
    post(tracker, eid, "undo", {"version": 3, "keep": 2})
    post(tracker, eid, "undo", {"version": 2, "keep": 1})
    post(tracker, eid, "redo", {"version": 1})
    again = post(tracker, eid, "redo", {"version": 2}).json()
    assert again["events"] == full["events"]
    post(tracker, eid, "undo", {"version": 3})
    tracker.step(eid, "round", "1, 9")  # a new step: the undone ones are gone for good
    assert tracker.state(eid)["redo"] == 0 and tracker.state(eid)["current"] == "Goblin"


def test_events_route(tracker: Any) -> None:
    eid = tracker.create()
    to_first_action(tracker, eid)
    events = tracker.client.get(f"/api/encounters/{eid}/events", headers=tracker.auth).json()
    assert [(e["seq"], e["step"], e["type"]) for e in events] == [
        (0, 0, "setup"),
        (1, 1, "round_start"),
        (2, 1, "initiative"),
    ]


# --- encounters ---------------------------------------------------------------------------------------


def test_create_from_text_example_and_data(tracker: Any) -> None:
    examples = tracker.client.get("/api/examples", headers=tracker.auth).json()
    assert "angthar_and_the_goblins.yaml" in examples
    made = tracker.client.post("/api/encounters", json={"example": examples[0]}, headers=tracker.auth).json()
    text = "name: Duel\nsides:\n- name: A\n  combatants: [{name: Al, hp: 5}]\n- name: B\n  combatants: [{name: Bo, hp: 5}]\n"
    pasted = tracker.client.post("/api/encounters", json={"text": text}, headers=tracker.auth).json()
    assert pasted["name"] == "Duel"
    listed = tracker.client.get("/api/encounters", headers=tracker.auth).json()
    assert {e["id"] for e in listed} == {made["id"], pasted["id"]}
    state = tracker.state(made["id"])
    assert [c["name"] for c in state["combatants"]] == ["Angthar", "Goblin 1", "Goblin 2", "Goblin 3"]


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"text": "sides: [1"}, 422, "bad YAML"),
        ({"data": {"sides": []}}, 422, "sides"),
        ({"example": "../secrets.yaml"}, 404, "no example"),
        ({"text": "a: 1", "example": "x"}, 400, "exactly one"),
        ({"data": {"name": "x", "ruleset": "nonsense", "sides": angthar_data()["sides"]}}, 422, "nonsense"),
    ],
)
def test_bad_encounters_are_refused(tracker: Any, body: dict[str, Any], status: int, words: str) -> None:
    response = tracker.client.post("/api/encounters", json=body, headers=tracker.auth)
    assert response.status_code == status
    assert words in response.json()["error"]
    assert tracker.client.get("/api/encounters", headers=tracker.auth).json() == []


def test_upload_size_is_capped(tracker: Any) -> None:
    huge = "#" * (tracker_module.MAX_FILE_BYTES + 10)
    response = tracker.client.post("/api/encounters", json={"text": huge}, headers=tracker.auth)
    assert response.status_code in {413, 422}
    files = {"file": ("big.yaml", b"#" * (tracker_module.MAX_FILE_BYTES + 10), "application/yaml")}
    page = tracker.client.post("/encounters", data={"source": "upload"}, files=files, headers=tracker.auth)
    assert page.status_code in {413, 422}


def test_oversized_body_is_refused_before_parsing(tracker: Any) -> None:
    body = b'{"text": "' + b"#" * (tracker_module.MAX_FILE_BYTES + 100_000) + b'"}'
    headers = {**tracker.auth, "content-type": "application/json"}
    response = tracker.client.post("/api/encounters", content=body, headers=headers)
    assert response.status_code == 413 and "request body over" in response.json()["error"]


def test_rename_and_delete(tracker: Any) -> None:
    eid = tracker.create()
    renamed = tracker.client.patch(f"/api/encounters/{eid}", json={"name": "Ambush"}, headers=tracker.auth)
    assert renamed.status_code == 200 and renamed.json()["name"] == "Ambush"
    assert (
        tracker.client.patch(f"/api/encounters/{eid}", json={"name": ""}, headers=tracker.auth).status_code
        == 422
    )
    assert tracker.client.delete(f"/api/encounters/{eid}", headers=tracker.auth).json() == {"deleted": eid}
    assert tracker.client.get(f"/api/encounters/{eid}", headers=tracker.auth).status_code == 404
    assert tracker.client.delete(f"/api/encounters/{eid}", headers=tracker.auth).status_code == 404


def test_export_and_import_round_trip(tracker: Any) -> None:
    eid = tracker.create()
    to_first_action(tracker, eid)
    act(tracker, eid, "12, 1")
    exported = tracker.client.get(f"/api/encounters/{eid}/export", headers=tracker.auth)
    assert "attachment" in exported.headers["content-disposition"]
    data = exported.json()
    response = tracker.client.post("/api/encounters/import", json=data, headers=tracker.auth)
    assert response.status_code == 201
    copy_state = tracker.state(response.json()["id"])
    original = tracker.state(eid)
    for key in ("version", "combatants", "order", "current", "needs", "round"):
        assert copy_state[key] == original[key]
    assert [e["step"] for e in copy_state["events"]] == [e["step"] for e in original["events"]]
    # undo in the copy removes the whole last step, as in the original
    assert (
        post(tracker, response.json()["id"], "undo", {"version": original["version"]}).json()["version"] == 3
    )


def test_import_refuses_a_broken_export(tracker: Any) -> None:
    eid = tracker.create()
    to_first_action(tracker, eid)
    data = tracker.client.get(f"/api/encounters/{eid}/export", headers=tracker.auth).json()
    broken = copy.deepcopy(data)
    broken["events"][0]["data"]["hp"] = {"Nobody": 3}
    for bad in (broken, {"format": "other"}, {**data, "events": "x"}):
        response = tracker.client.post("/api/encounters/import", json=bad, headers=tracker.auth)
        assert response.status_code == 422, bad
    assert len(tracker.client.get("/api/encounters", headers=tracker.auth).json()) == 1


def test_odds_route(tracker: Any) -> None:
    eid = tracker.create()
    to_first_action(tracker, eid)
    response = post(tracker, eid, "odds", {"action": ATTACK})
    assert response.status_code == 200
    result = response.json()
    if result["available"]:  # the odds module is installed: d20 + 5 >= 12 hits on 7..20
        assert abs(result["odds"]["hit"] - 0.7) < 1e-6
    else:
        assert result["odds"] is None
    bad = post(tracker, eid, "odds", {"action": {"kind": "attack", "actor": "Nobody", "target": "Goblin"}})
    assert bad.status_code == 422


# --- the players' view ---------------------------------------------------------------------------------


def hidden_data() -> dict[str, Any]:
    data = angthar_data(goblins=2, goblin_hp=6)
    data["sides"][1]["combatants"].append(
        {"name": "Lurker", "hp": 9, "ac": 17, "hit_dice": "2d8", "hidden": True}
    )
    return data


def test_players_view_hides_monster_numbers_and_hidden_combatants(tracker: Any) -> None:
    eid = tracker.create(hidden_data())
    tracker.step(eid, "begin")
    tracker.step(eid, "round", "9, 2, 3, 4")
    act(tracker, eid, "12, 2", {**ATTACK, "target": "Goblin 1"})  # 3 damage: Goblin 1 at 3/6
    row = tracker.app.state.store.get(eid)
    players = tracker.client.get(f"/api/players/{eid}/{row.player_token}").json()
    names = [c["name"] for c in players["combatants"]]
    assert names == ["Angthar", "Goblin 1", "Goblin 2"]
    assert all("Lurker" not in slot for slot in players["order"])
    angthar, goblin1, goblin2 = players["combatants"]
    assert angthar["hp"] == 30 and angthar["max_hp"] == 30
    assert goblin1 == {
        "name": "Goblin 1",
        "side": "Goblins",
        "party": False,
        "conditions": [],
        "health": "badly wounded",
    }
    assert goblin2["health"] == "unhurt"
    text = json.dumps(players)
    assert "Lurker" not in text and '"ac"' not in text
    assert not {"hp", "max_hp", "ac", "status"} & (set(goblin1) | set(goblin2))
    page = tracker.client.get(f"/p/{eid}/{row.player_token}")
    assert page.status_code == 200
    assert "Lurker" not in page.text and "3/6" not in page.text and "badly wounded" in page.text


def test_players_view_does_not_tell_that_a_hidden_combatant_acts(tracker: Any) -> None:
    # rule: ODD-INIT-1 (order Angthar 9, Lurker 4, Goblin 2 3, Goblin 1 2)
    eid = tracker.create(hidden_data())
    tracker.step(eid, "begin")
    tracker.step(eid, "round", "9, 2, 3, 4")
    player = tracker.app.state.store.get(eid).player_token

    def players() -> dict[str, Any]:
        return dict(tracker.client.get(f"/api/players/{eid}/{player}").json())

    act(tracker, eid, "1", ATTACK | {"target": "Goblin 1"})  # Angthar misses
    assert tracker.state(eid)["current"] == "Lurker"
    while_hidden = players()
    assert while_hidden["current"] == "Goblin 2"  # the next one they can see, never null mid-round
    act(tracker, eid, "1", {"kind": "attack", "actor": "Lurker", "target": "Angthar"})  # misses
    assert tracker.state(eid)["current"] == "Goblin 2"
    assert players() == while_hidden  # nothing they see moved: not even the revision


def test_players_see_nobody_acting_when_the_hidden_one_acts_last(tracker: Any) -> None:
    eid = tracker.create(hidden_data())
    tracker.step(eid, "begin")
    tracker.step(eid, "round", "9, 4, 3, 2")  # Angthar, Goblin 1, Goblin 2, Lurker
    player = tracker.app.state.store.get(eid).player_token
    act(tracker, eid, "1", ATTACK | {"target": "Goblin 1"})
    for goblin in ("Goblin 1", "Goblin 2"):
        act(tracker, eid, "1", {"kind": "attack", "actor": goblin, "target": "Angthar"})
    assert tracker.state(eid)["current"] == "Lurker"
    while_hidden = tracker.client.get(f"/api/players/{eid}/{player}").json()
    act(tracker, eid, "1", {"kind": "attack", "actor": "Lurker", "target": "Angthar"})
    assert tracker.state(eid)["needs"] == "end_round"
    after_everyone = tracker.client.get(f"/api/players/{eid}/{player}").json()
    assert while_hidden["current"] is None and while_hidden == after_everyone


def test_typed_dice_stop_at_the_command_lines_limit(tracker: Any) -> None:
    from referee.dice import LIMITS

    eid = tracker.create()
    tracker.step(eid, "begin")
    for dice in (", ".join(["3"] * 150_000), [3] * (LIMITS.max_script + 1)):
        body = {"step": "round", "version": 1, "dice": dice}
        response = post(tracker, eid, "steps", body)
        assert response.status_code == 422 and f"the limit is {LIMITS.max_script}" in response.json()["error"]
    assert tracker.state(eid)["version"] == 1


HUGE = "9" * 5000  # over Python's 4,300-digit limit for turning text into an integer


def test_a_huge_integer_in_a_pasted_or_uploaded_file_is_refused(tracker: Any) -> None:
    text = json.dumps(angthar_data()).replace('"hp": 30', f'"hp": {HUGE}')
    yaml_text = f"name: x\nsides:\n  - name: A\n    combatants: [{{name: a, hp: {HUGE}}}]\n"
    for given in (text, yaml_text):
        assert post_create(tracker, {"text": given}).status_code == 422
        for form in (
            {"data": {"source": "paste", "text": given}},
            {"data": {"source": "upload"}, "files": {"file": ("e.yaml", given.encode())}},
        ):
            response = tracker.client.post(
                "/encounters", headers=tracker.auth, follow_redirects=False, **form
            )
            assert response.status_code == 422, response.text
    assert (
        tracker.client.post(
            "/api/encounters",
            content=f'{{"data": {{"n": {HUGE}}}}}',
            headers={**tracker.auth, "content-type": "application/json"},
        ).status_code
        == 400
    )
    assert tracker.client.get("/api/encounters", headers=tracker.auth).json() == []


def post_create(t: Any, body: dict[str, Any]) -> Any:
    return t.client.post("/api/encounters", json=body, headers=t.auth)


def export_with_a_fight(tracker: Any) -> dict[str, Any]:
    eid = tracker.create(angthar_data(goblin_hp=9))
    to_first_action(tracker, eid)
    act(tracker, eid, "12, 1")
    return dict(tracker.client.get(f"/api/encounters/{eid}/export", headers=tracker.auth).json())


def unshowable_imports(good: dict[str, Any]) -> list[tuple[str, str]]:
    """Exports that round 1 accepted (201) and then could not show: (why, the JSON text)."""
    out = []
    soon = copy.deepcopy(good)
    soon["setup"]["sides"][1]["combatants"][0]["condition_rounds"] = {"prone": "soon"}
    out.append(("until_round soon in the setup", json.dumps(soon)))
    lasting = copy.deepcopy(good)
    lasting["events"][0].setdefault("data", {})["condition_rounds"] = {"Goblin": {"prone": "soon"}}
    lasting["events"][0]["data"]["conditions"] = {"Goblin": ["prone"]}
    out.append(("until_round soon in an event", json.dumps(lasting)))
    no_data = copy.deepcopy(good)
    attack = next(e for e in no_data["events"] if e["type"] == "attack")
    attack.pop("data", None)
    out.append(("an attack without data", json.dumps(no_data)))
    damage = next(i for i, e in enumerate(good["events"]) if e["type"] == "damage")
    for why, number in (("NaN damage", "NaN"), ("1e400 damage", "1e400"), ("Infinity", "Infinity")):
        text = json.dumps(good).replace(
            f'"damage": {good["events"][damage]["damage"]}', f'"damage": {number}', 1
        )
        out.append((why, text))
    out.append(
        ("a lone surrogate in event text", json.dumps(good).replace('"text": "', '"text": "\\ud800', 1))
    )
    huge = copy.deepcopy(good)
    huge["events"][-1]["step"] = 2**63
    out.append(("a step of 2**63", json.dumps(huge)))
    out.append(("a deeply nested body", "[" * 100_000 + "]" * 100_000))
    return out


def test_an_import_the_server_could_not_show_is_refused(tracker: Any) -> None:
    good = export_with_a_fight(tracker)
    before = tracker.client.get("/api/encounters", headers=tracker.auth).json()
    json_headers = {**tracker.auth, "content-type": "application/json"}
    for why, text in unshowable_imports(good):
        response = tracker.client.post("/api/encounters/import", content=text, headers=json_headers)
        assert response.status_code in {400, 422}, (why, response.status_code, response.text)
        assert "\n" not in response.json()["error"]
        upload = tracker.client.post(
            "/encounters", data={"source": "upload"}, files={"file": ("x.json", text.encode())},
            headers=tracker.auth, follow_redirects=False,
        )  # fmt: skip
        assert upload.status_code in {400, 422}, (why, upload.status_code, upload.text)
    assert tracker.client.get("/api/encounters", headers=tracker.auth).json() == before
    assert tracker.client.post("/api/encounters/import", json=good, headers=tracker.auth).status_code == 201


def test_a_state_is_never_torn(tracker: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # another tab's step lands between the access check (which reads the row) and the state's read of the log
    store = tracker.app.state.store
    eid = tracker.create()
    to_first_action(tracker, eid)
    real_get = type(store).get

    def get_then_another_tab_acts(self: Any, encounter_id: str) -> Any:
        row = real_get(self, encounter_id)
        monkeypatch.setattr(type(store), "get", real_get)
        tracker_module.take_step(store, row, "action", version=row.version, dice="12, 1", action=ATTACK)
        return row

    monkeypatch.setattr(type(store), "get", get_then_another_tab_acts)
    state = tracker.client.get(f"/api/encounters/{eid}", headers=tracker.auth).json()
    assert state["version"] == len(state["events"]) == 6


def test_health_words() -> None:
    from referee.engine.fight import Fight
    from referee.files import setup_from_data

    fight = Fight(setup_from_data(angthar_data(goblin_hp=8)))
    fight.begin(tracker_module.TypedDice([]))
    goblin = fight.state["Goblin"]
    words = []
    for hp in (8, 5, 4, 1, 0):
        goblin.hp = hp
        words.append(health_word(goblin))
    assert words == ["unhurt", "wounded", "badly wounded", "badly wounded", "down"]


# --- access ----------------------------------------------------------------------------------------------

REFEREE_ROUTES = [
    ("get", "/"),
    ("get", "/api/encounters"),
    ("get", "/api/examples"),
    ("post", "/api/encounters"),
    ("post", "/api/encounters/import"),
    ("post", "/encounters"),
    ("get", "/e/{eid}"),
    ("post", "/e/{eid}/rename"),
    ("post", "/e/{eid}/delete"),
    ("get", "/api/encounters/{eid}"),
    ("patch", "/api/encounters/{eid}"),
    ("delete", "/api/encounters/{eid}"),
    ("get", "/api/encounters/{eid}/events"),
    ("get", "/api/encounters/{eid}/version"),
    ("get", "/api/encounters/{eid}/export"),
    ("post", "/api/encounters/{eid}/steps"),
    ("post", "/api/encounters/{eid}/actions"),
    ("post", "/api/encounters/{eid}/undo"),
    ("post", "/api/encounters/{eid}/redo"),
    ("post", "/api/encounters/{eid}/odds"),
]


@pytest.mark.parametrize(("method", "path"), REFEREE_ROUTES)
def test_no_token_or_a_players_token_is_forbidden(tracker: Any, method: str, path: str) -> None:
    eid = tracker.create()
    player = tracker.app.state.store.get(eid).player_token
    url = path.format(eid=eid)
    for headers in ({}, {"Authorization": f"Bearer {player}"}, {"Authorization": "Bearer wrong"}):
        response = tracker.client.request(method, url, headers=headers, json={"version": 0, "step": "begin"})
        assert response.status_code == 403, (method, url, headers)
    response = tracker.client.request(method, url + f"?token={player}", json={"version": 0})
    assert response.status_code == 403
    assert tracker.state(eid)["version"] == 0  # nothing happened


def test_unknown_players_link_is_forbidden(tracker: Any) -> None:
    eid = tracker.create()
    assert tracker.client.get(f"/api/players/{eid}/wrong").status_code == 403
    assert tracker.client.get(f"/p/{eid}/wrong").status_code == 403
    assert tracker.client.get("/p/nothing/wrong").status_code == 403


def test_encounter_referee_token_opens_only_its_encounter(tracker: Any) -> None:
    eid = tracker.create()
    other = tracker.create()
    own = {"Authorization": f"Bearer {tracker.app.state.store.get(eid).referee_token}"}
    assert tracker.client.get(f"/api/encounters/{eid}", headers=own).status_code == 200
    assert tracker.client.get(f"/api/encounters/{other}", headers=own).status_code == 403
    assert tracker.client.get("/api/encounters", headers=own).status_code == 403


def test_token_in_link_becomes_a_session_cookie(tracker: Any) -> None:
    response = tracker.client.get(f"/?token={tracker.token}", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/"
    cookie = response.headers["set-cookie"]
    assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()
    assert cookie.startswith("referee_session_80=")  # the port is in the name (TestClient: port 80)
    assert tracker.token not in cookie  # a session value, never the server's token
    assert tracker.client.get("/api/encounters").status_code == 200  # the cookie now carries it


def test_password_login(tmp_path: Any) -> None:
    from fastapi.testclient import TestClient

    from referee.web.app import Settings, create_app

    client = TestClient(create_app(Settings(db=tmp_path / "pw.sqlite3", password="swordfish")))
    assert client.get("/api/encounters").status_code == 403
    assert client.get("/api/encounters", headers={"Authorization": "Bearer swordfish"}).status_code == 200
    assert client.post("/login", data={"password": "nope"}).status_code == 403
    assert client.get("/login").status_code == 200
    logged_in = client.post("/login", data={"password": "swordfish"}, follow_redirects=False)
    assert logged_in.status_code == 303 and "swordfish" not in logged_in.headers["set-cookie"]
    assert client.get("/api/encounters").status_code == 200


# --- pages -------------------------------------------------------------------------------------------


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, "no CSRF token in the page"
    return found.group(1)


def test_pages_and_forms(tracker: Any) -> None:
    assert tracker.client.get(f"/?token={tracker.token}").status_code == 200  # a session, as a browser
    csrf = csrf_of(tracker.client.get("/").text)
    made = tracker.client.post(
        "/encounters", data={"source": "example", "example": "angthar_and_the_goblins.yaml", "csrf": csrf}
    )
    assert made.status_code == 200 and "Begin the fight" in made.text  # followed the 303 to the fight page
    eid = made.url.path.rsplit("/", 1)[-1]
    index = tracker.client.get("/")
    assert index.status_code == 200 and "Angthar and the goblins" in index.text
    upload = tracker.client.post(
        "/encounters",
        data={"source": "upload", "csrf": csrf},
        files={"file": ("e.yaml", json.dumps(angthar_data()).encode())},
    )
    assert upload.status_code == 200
    pasted = tracker.client.post(
        "/encounters", data={"source": "paste", "text": json.dumps(angthar_data()), "csrf": csrf}
    )
    assert pasted.status_code == 200
    export = tracker.client.get(f"/api/encounters/{eid}/export").content
    imported = tracker.client.post(
        "/encounters", data={"source": "upload", "csrf": csrf}, files={"file": ("x.json", export)}
    )
    assert imported.status_code == 200
    renamed = tracker.client.post(f"/e/{eid}/rename", data={"name": "At the bridge", "csrf": csrf})
    assert "At the bridge" in renamed.text
    refused = tracker.client.post(f"/e/{eid}/delete", data={"csrf": csrf})
    assert refused.status_code == 400 and "confirm" in refused.text
    assert tracker.client.post(f"/e/{eid}/delete", data={"confirm": "yes", "csrf": csrf}).status_code == 200
    assert len(tracker.client.get("/api/encounters").json()) == 3
    bad = tracker.client.post("/encounters", data={"source": "paste", "text": "sides: [", "csrf": csrf})
    assert bad.status_code == 422 and "bad YAML" in bad.text and "<html" not in bad.text.lower()[:5]


def test_openapi_lists_the_api(tracker: Any) -> None:
    paths = tracker.client.get("/openapi.json").json()["paths"]
    for path in ("/api/encounters", "/api/encounters/{eid}/actions", "/api/encounters/{eid}/undo"):
        assert path in paths
    assert "/e/{eid}" not in paths


def test_odds_are_shown_when_the_odds_module_answers(tracker: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # the web layer only carries the odds module's numbers: Fractions become decimals
    import sys
    import types
    from dataclasses import dataclass
    from fractions import Fraction

    @dataclass
    class FakeOdds:
        hit: Fraction
        damage: dict[int, Fraction]
        drop: Fraction

    seen: list[Any] = []

    def action_odds(state: Any, action: Any) -> FakeOdds:
        seen.append((state.round, action.actor, action.target))
        return FakeOdds(Fraction(7, 10), {2: Fraction(1, 8), 9: Fraction(1, 8)}, Fraction(1, 3))

    monkeypatch.setitem(sys.modules, "referee.odds", types.SimpleNamespace(action_odds=action_odds))
    eid = tracker.create()
    to_first_action(tracker, eid)
    result = post(tracker, eid, "odds", {"action": ATTACK}).json()
    assert result["available"] is True
    assert result["odds"] == {"hit": 0.7, "damage": {"2": 0.125, "9": 0.125}, "drop": 0.333333}
    assert seen == [(1, "Angthar", "Goblin")]

    def broken(state: Any, action: Any) -> None:
        raise ZeroDivisionError

    monkeypatch.setitem(sys.modules, "referee.odds", types.SimpleNamespace(action_odds=broken))
    result = post(tracker, eid, "odds", {"action": ATTACK}).json()
    assert result["available"] is False and result["odds"] is None


def test_each_step_says_which_dice_it_asks_for(tracker: Any) -> None:
    # rule: ODD-HD-2 (hit dice at set-up), ODD-INIT-1 (a d10 per combatant in file order), ODD-ATK-2 (damage)
    eid = tracker.create(angthar_data(goblins=2, goblin_hp=None))
    assert tracker.state(eid)["dice_asked"] == [
        {"sides": 6, "purpose": "hit points Goblin 1"},
        {"sides": 6, "purpose": "hit points Goblin 2"},
    ]
    tracker.step(eid, "begin", "3, 4")
    assert [d["purpose"] for d in tracker.state(eid)["dice_asked"]] == [
        "initiative Angthar",
        "initiative Goblin 1",
        "initiative Goblin 2",
    ]
    state = tracker.step(eid, "round", "9, 2, 1")
    assert state["dice_asked"] == [] and state["version"] == 3  # the dry runs stored nothing
    result = post(tracker, eid, "odds", {"action": {**ATTACK, "target": "Goblin 1"}}).json()
    assert result["dice_asked"] == [{"sides": 20, "purpose": "attack"}, {"sides": 8, "purpose": "damage"}]
    assert tracker.state(eid)["version"] == 3


def test_every_example_creates_and_begins(tracker: Any) -> None:
    names = tracker.client.get("/api/examples", headers=tracker.auth).json()
    assert "angthar_and_the_goblins.yaml" in names
    for name in names:
        made = tracker.client.post("/api/encounters", json={"example": name}, headers=tracker.auth)
        assert made.status_code == 201, (name, made.text)
        eid = made.json()["id"]
        begun = post(tracker, eid, "steps", {"step": "begin", "version": 0, "seed": 1})
        assert begun.status_code == 200, (name, begun.text)
        setup = tracker.client.get(f"/api/encounters/{eid}/export", headers=tracker.auth).json()["setup"]
        # the ruleset is frozen: a preset name plus the options it overrides, never a house-rules file
        assert setup["ruleset"] in {"odd", "mod", "hr", "mf", "dac", "full"}, (name, setup["ruleset"])
