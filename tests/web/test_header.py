"""The tracker's header (issue 15): it names the AC convention in use (ODD-AC-1, DAC-AC-1) and its
verdict agrees with the winning side's name."""

from __future__ import annotations

from tests.web.conftest import Tracker

from conftest import angthar_data


def test_the_header_names_the_ac_convention(tracker: Tracker) -> None:
    # rule: ODD-AC-1 (ascending under odd), DAC-AC-1 (descending under dac)
    ascending = tracker.create()
    page = tracker.client.get(f"/e/{ascending}", headers=tracker.auth).text
    assert '<span id="ac-convention">ascending AC</span>' in page
    assert tracker.state(ascending)["armour_class"] == "ascending"
    descending = tracker.create({**angthar_data(), "ruleset": "dac"})
    assert tracker.state(descending)["armour_class"] == "descending"


def test_the_verdict_agrees_with_the_side(tracker: Tracker) -> None:
    # rule: ODD-ROUND-1 (one side left wins); TV-000-01..03: Angthar fells the goblin with one blow
    eid = tracker.create()
    tracker.step(eid, "begin")
    tracker.step(eid, "round", "7, 4")
    body = {"version": tracker.state(eid)["version"], "dice": "12, 6"}
    action = {"kind": "attack", "actor": "Angthar", "target": "Goblin", "weapon": "battle axe"}
    response = tracker.client.post(
        f"/api/encounters/{eid}/actions", json={**body, "action": action}, headers=tracker.auth
    )
    assert response.status_code == 200, response.text
    state = tracker.state(eid)
    assert state["needs"] == "over" and state["verdict"] == "Village wins"
    page = tracker.client.get(f"/e/{eid}", headers=tracker.auth).text
    assert "Village wins" in page
