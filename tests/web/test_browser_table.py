"""The referee's table in a real headless Chromium (the system browser) at 1280×900 and 390×844: hit points by
hand, leaving, a latecomer, the engine's turn, keys, no reload per step, the phone layout, the players' page
never showing a foe's numbers, and the banner of a tracker that does not answer.

Set REFEREE_SCREENSHOTS=1 to (re)write docs/screenshots/referee-phone.png and players-phone.png.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from tests.web.test_browser import hp_cell

from conftest import angthar_data

ROOT = Path(__file__).resolve().parents[2]
PHONE = {"width": 390, "height": 844}


def shots_dir(tmp_path: Path) -> Path:
    return ROOT / "docs" / "screenshots" if os.environ.get("REFEREE_SCREENSHOTS") else tmp_path


def party_and_foes() -> dict[str, Any]:
    """Angthar and Bera (the players' side) against two goblins and a hidden character foe (a knight)."""
    data = angthar_data(goblins=2)
    data["sides"][0]["combatants"].append({"name": "Bera", "level": 1, "hp": 6, "weapons": ["dagger"]})
    data["sides"][1]["combatants"].append(
        {"name": "Black Knight", "level": 4, "hp": 22, "armour": "plate", "weapons": ["long sword"]}
    )
    data["players"] = ["Village"]
    return data


def create(live: Any, data: dict[str, Any]) -> str:
    request = urllib.request.Request(
        f"{live.url}/api/encounters",
        data=json.dumps({"data": data}).encode(),
        headers={"Authorization": f"Bearer {live.token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request) as response:
        return str(json.load(response)["id"])


def players_url(live: Any, eid: str) -> str:
    request = urllib.request.Request(
        f"{live.url}/api/encounters", headers={"Authorization": f"Bearer {live.token}"}
    )
    with urllib.request.urlopen(request) as response:
        return str(next(e["links"]["players"] for e in json.load(response) if e["id"] == eid))


def wait_new_version(page: Any, version: str) -> None:
    page.wait_for_function(
        "v => document.getElementById('version') && document.getElementById('version').textContent !== v",
        arg=version,
    )


def press_in_dice(page: Any, dice: str) -> None:
    """Type the dice and press Enter in the dice field (it resolves the step); wait for the new state."""
    version = page.locator("#version").inner_text()
    page.fill("#dice", dice)
    page.press("#dice", "Enter")
    wait_new_version(page, version)


def open_fight(page: Any, live: Any, eid: str) -> None:
    page.goto(f"{live.url}/e/{eid}?token={live.token}")
    page.evaluate("window.__sameDocument = true")  # gone after any full reload


def foe_numbers_hidden(players: Any) -> None:
    text = players.locator("main").inner_text()
    assert "22" not in text and "/4" not in text  # the knight's and the goblins' hit points
    assert "plate" not in text


@pytest.mark.timeout(120)
def test_table_actions_through_the_page(live_server: Any, page: Any, browser: Any, tmp_path: Path) -> None:
    # rule: ODD-HP-1, GAP-HP-ZERO (hit points by hand, the status follows), ODD-INIT-1 (a latecomer)
    eid = create(live_server, party_and_foes())
    open_fight(page, live_server, eid)
    press_in_dice(page, "")  # Begin: Enter in the dice field takes the step
    press_in_dice(page, "7, 6, 4, 3, 2")  # round 1: Angthar, Bera, goblins, knight
    from playwright.sync_api import expect

    expect(page.locator("#current")).to_have_text("Angthar")
    # the preselected target is the engine's own choice (the goblin with the fewest hit points: the first)
    assert page.locator("#target").input_value() == "Goblin 1"

    # click the hit points, type -3, Enter: no reload, the state follows
    version = page.locator("#version").inner_text()
    page.click("#combatants tr[data-name='Bera'] button.hp-edit")
    page.keyboard.type("-7")
    page.keyboard.press("Enter")
    wait_new_version(page, version)
    assert hp_cell(page, "Bera") == "-1/6"
    expect(page.locator("#combatants tr[data-name='Bera'] .tag.down")).to_have_text("unconscious")
    version = page.locator("#version").inner_text()
    page.click("#combatants tr[data-name='Bera'] button.hp-edit")
    page.keyboard.type("+3")
    page.keyboard.press("Enter")
    wait_new_version(page, version)
    assert hp_cell(page, "Bera") == "2/6"
    expect(page.locator("#combatants tr[data-name='Bera'] .tag.down")).to_have_count(0)

    # keys: U undoes (Bera unconscious again), Y redoes
    page.locator("h1").click()
    version = page.locator("#version").inner_text()
    page.keyboard.press("u")
    wait_new_version(page, version)
    assert hp_cell(page, "Bera") == "-1/6"
    version = page.locator("#version").inner_text()
    page.keyboard.press("y")
    wait_new_version(page, version)
    assert hp_cell(page, "Bera") == "2/6"

    # a goblin flees (the row menu)
    version = page.locator("#version").inner_text()
    page.click("#combatants tr[data-name='Goblin 2'] details.row-menu summary")
    page.click("#combatants tr[data-name='Goblin 2'] button.leave[data-status='fled']")
    wait_new_version(page, version)
    expect(page.locator("#combatants tr[data-name='Goblin 2']")).to_have_class("monster out status-fled")

    # a latecomer joins at once with initiative 5 (between Bera's 6 and the goblins' 4)
    page.click("#table-tools summary")
    page.fill("#add-name", "Wolf")
    page.fill("#add-hp", "6")
    page.fill("#add-ac", "13")
    page.fill("#add-init", "5")
    version = page.locator("#version").inner_text()
    page.click("#add-combatant")
    wait_new_version(page, version)
    expect(page.locator("#order li").nth(2)).to_contain_text("Wolf (5)")

    # the engine decides for Angthar (a d20 of 1 misses); Enter resolves with the dice typed
    page.fill("#dice", "1")
    version = page.locator("#version").inner_text()
    page.click("#engine")
    wait_new_version(page, version)
    expect(page.locator("#log")).to_contain_text("Angthar → Goblin 1")
    assert page.evaluate("window.__sameDocument === true")  # no step reloaded the page

    # the players' page, by side: the knight (a character foe) shows a word, never its numbers
    players = browser.new_page(viewport={"width": 1280, "height": 900})
    players.goto(players_url(live_server, eid))
    expect(players.locator("tr[data-name='Black Knight'] .health")).to_have_text("unhurt")
    expect(players.locator("tr[data-name='Bera'] .hp")).to_contain_text("2/6")
    foe_numbers_hidden(players)
    players.close()


@pytest.mark.timeout(120)
def test_phone_layout_no_sideways_scroll(live_server: Any, browser: Any, tmp_path: Path) -> None:
    eid = create(live_server, party_and_foes())
    context = browser.new_context(viewport=PHONE, device_scale_factor=1)
    context.set_default_timeout(10_000)
    page = context.new_page()
    open_fight(page, live_server, eid)
    press_in_dice(page, "")
    press_in_dice(page, "7, 6, 4, 3, 2")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide"
    # the dice field and Resolve come first, within the first screen
    assert page.locator("#dice").bounding_box()["y"] < 400
    assert page.locator("#act").bounding_box()["y"] < 400
    assert not page.locator("#log-fold").evaluate("d => d.open")  # the log is folded away
    page.screenshot(path=str(shots_dir(tmp_path) / "referee-phone.png"), full_page=False)
    # the row menu (conditions, notes) and the table tools open: still nothing wider than the screen
    menu = "#combatants tr[data-name='Goblin 1'] details.row-menu summary"
    for opened in (menu, menu, "#table-tools summary"):  # the row menu opened, closed; the tools opened
        page.click(opened)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"with {opened} clicked the page is {width} px wide"
    players = context.new_page()
    players.goto(players_url(live_server, eid))
    assert players.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # every column shown has its heading over it (the side column is left out, heading and cells alike)
    shown = (
        "els => els.filter(e => getComputedStyle(e).display !== 'none').map(e => e.getBoundingClientRect().x)"
    )
    headings = players.locator("table.combatants thead th").evaluate_all(shown)
    cells = players.locator("table.combatants tbody tr").first.locator("td").evaluate_all(shown)
    assert headings == cells
    foe_numbers_hidden(players)
    players.screenshot(path=str(shots_dir(tmp_path) / "players-phone.png"), full_page=True)
    context.close()


@pytest.mark.timeout(60)
def test_a_tracker_that_does_not_answer_gets_a_banner(live_server: Any, page: Any) -> None:
    from playwright.sync_api import expect

    eid = create(live_server, party_and_foes())
    open_fight(page, live_server, eid)
    # neither the page's stream nor its asking for the version (while the stream is down) reaches the tracker
    page.route("**/api/**", lambda route: route.abort())
    page.reload()  # the banner says so and the page keeps trying
    expect(page.locator("#banner")).to_be_visible(timeout=10_000)
    expect(page.locator("#banner")).to_contain_text("not answering")
    page.unroute("**/api/**")
    expect(page.locator("#banner")).to_be_hidden(timeout=10_000)


def first_event(url: str, token: str | None = None) -> dict[str, Any]:
    """The first `data:` line of a server-sent event stream, then the connection is closed."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        for raw in response:
            line = raw.decode().strip()
            if line.startswith("data: "):
                return dict(json.loads(line[len("data: ") :]))
    raise AssertionError("no event")


def test_the_streams_push_the_revision_and_tell_players_nothing_else(live_server: Any) -> None:
    eid = create(live_server, party_and_foes())
    pushed = first_event(f"{live_server.url}/api/encounters/{eid}/stream", live_server.token)
    assert pushed == {"version": 0, "revision": pushed["revision"]}
    players = players_url(live_server, eid).replace("/p/", "/api/players/") + "/stream"
    assert set(first_event(players)) == {"revision"}
    with pytest.raises(urllib.error.HTTPError) as refused:  # no credential: no stream
        first_event(f"{live_server.url}/api/encounters/{eid}/stream")
    assert refused.value.code == 403
