"""The tracker's "Paste stat blocks": an encounter from a module's stat blocks, through the page, the API and a
real browser (issue 15, item 2; GAP-STAT-LINE, ODD-ATK-3)."""

from __future__ import annotations

import html
from typing import Any

import pytest
from tests.web.conftest import Tracker

B2 = """Goblins (4)
(AC 6, HD 1-1, hp 3 each, #AT 1, D 1-6, MV 60' (20'), Save NM, ML 7)

Bugbear
AC 5, HD 3+1, hp 14, #AT 1, D 2-8, MV 90' (30'), Save F3, ML 9
"""


def combatants(tracker: Tracker, eid: str) -> dict[str, dict[str, Any]]:
    state = tracker.client.get(f"/api/encounters/{eid}", headers=tracker.auth).json()
    return {c["name"]: c for c in state["combatants"]}


def test_pasted_stat_blocks_make_an_encounter_against_a_placeholder_fighter(tracker: Tracker) -> None:
    # rule: GAP-STAT-LINE (D 2-8 is 2d4; AC 6 descending is 13 ascending)
    page = tracker.client.post(
        "/encounters", data={"source": "blocks", "text": B2, "ruleset": "odd"}, headers=tracker.auth,
        follow_redirects=False,
    )  # fmt: skip
    assert page.status_code == 303, page.text
    eid = page.headers["location"].rsplit("/", 1)[-1]
    found = combatants(tracker, eid)
    assert sorted(found) == ["Bugbear", "Fighter", "Goblins 1", "Goblins 2", "Goblins 3", "Goblins 4"]
    assert found["Goblins 2"]["ac"] == 13 and found["Bugbear"]["hp_at_begin"] == "14"
    assert found["Bugbear"]["weapons"] == ["attack"]


def test_refused_blocks_keep_the_text_and_name_each_blocks_problem(tracker: Tracker) -> None:
    bad = B2.replace("D 2-8", "D by weapon") + "\nKobolds\nAC 7, HD 1/2, hp 3, 2, 4, #AT 1, D 1-4\n"
    page = tracker.client.post(
        "/encounters", data={"source": "blocks", "text": bad, "ruleset": "dac"}, headers=tracker.auth,
        follow_redirects=False,
    )  # fmt: skip
    assert page.status_code == 422
    text = html.unescape(page.text)
    assert bad in text  # the textarea holds the pasted text again
    assert "block 2 (Bugbear): stat block part 'D by weapon'" in text
    assert "block 3 (Kobolds): stat block part 'hp 3, 2, 4': one hit-point total per block" in text
    assert "<option selected>dac</option>" in page.text  # and the rules chosen
    assert tracker.client.get("/api/encounters", headers=tracker.auth).json() == []  # nothing made


def test_the_api_takes_blocks_and_the_rules_they_are_read_under(tracker: Tracker) -> None:
    made = tracker.client.post("/api/encounters", json={"blocks": B2, "ruleset": "dac"}, headers=tracker.auth)
    assert made.status_code == 201, made.text
    state = tracker.client.get(f"/api/encounters/{made.json()['id']}", headers=tracker.auth).json()
    assert state["armour_class"] == "descending"
    assert {c["name"]: c["ac"] for c in state["combatants"]}["Goblins 1"] == 6  # as printed, descending
    both = tracker.client.post(
        "/api/encounters", json={"blocks": B2, "example": "duel.yaml"}, headers=tracker.auth
    )
    assert both.status_code == 400 and "exactly one of" in both.json()["error"]
    unknown = tracker.client.post(
        "/api/encounters", json={"blocks": B2, "ruleset": "gygax"}, headers=tracker.auth
    )
    assert unknown.status_code == 422 and "ruleset 'gygax' is not a preset" in unknown.json()["error"]


@pytest.mark.timeout(120)
def test_stat_blocks_pasted_in_the_browser_begin_a_fight(live_server: Any, page: Any) -> None:
    from playwright.sync_api import expect

    page.goto(f"{live_server.url}/?token={live_server.token}")
    page.fill("#from-blocks textarea", B2.replace("D 2-8", "D by weapon"))
    page.click("#from-blocks button")
    expect(page.locator("#blocks-problems")).to_contain_text("block 2 (Bugbear)")
    page.fill("#from-blocks textarea", B2)
    page.click("#from-blocks button")
    expect(page.locator("#begin")).to_be_visible()
    expect(page.locator("#combatants tr[data-name='Bugbear']")).to_contain_text("14 at Begin")
    expect(page.locator("#combatants tr[data-name='Goblins 4']")).to_be_visible()
