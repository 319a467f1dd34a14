"""The tracker's log shows what decided an attack and a defeat (issue 13, item 12)."""

from __future__ import annotations

from typing import Any

ATTACK = {"kind": "attack", "actor": "Angthar", "target": "Goblin"}


def test_the_log_names_what_decided_the_hit_and_the_defeat(tracker: Any) -> None:
    # rule: ODD-BTH-1, ODD-MELEE-1, ODD-MELEE-2: initiative 7 and 4; d20 7 + 4 + 1 = 12 against AC 12 hits
    # (without the +4: 8, without the +1: 11); d8 3 + 1 = 4 drops the 4-hp goblin (3 would leave 1 hp)
    eid = tracker.create()
    tracker.step(eid, "begin")
    tracker.step(eid, "round", "7, 4")
    body = {"version": tracker.state(eid)["version"], "action": ATTACK, "dice": "7, 3"}
    response = tracker.client.post(f"/api/encounters/{eid}/actions", json=body, headers=tracker.auth)
    assert response.status_code == 200, response.text
    page = tracker.client.get(f"/e/{eid}", headers=tracker.auth).text
    assert "decided it: +4 basic to-hit [ODD-BTH-1], +1 Str [ODD-MELEE-1]</strong>" in page
    assert "decided it: +1 Str [ODD-MELEE-2]</strong>" in page
