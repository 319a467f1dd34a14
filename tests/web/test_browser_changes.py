"""The referee's page in a real headless Chromium at 1280×900 and 390×844: what the table sees change. A stale
tab's try is refused (409) with a clear message and a refreshed page, nothing lost; an AC change is said
beside the AC; the dead are greyed with no lingering conditions; the condition picker says what a condition
means; a row menu closes once its change is stored; focus and scroll stay where they were."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from tests.web.test_browser import hp_cell
from tests.web.test_browser_table import (
    PHONE,
    create,
    open_fight,
    players_url,
    press_in_dice,
    wait_new_version,
)

from conftest import angthar_data

WIDE = {"width": 1280, "height": 900}
# each test at both sizes; the `sized` fixture (tests/web/conftest.py) opens a browser context at `size`
SIZES = pytest.mark.parametrize("size", [WIDE, PHONE], ids=["1280x900", "390x844"])


def api(live: Any, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    request = urllib.request.Request(
        f"{live.url}{path}",
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {live.token}", "Content-Type": "application/json"},
        method=method,
    )
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def step(live: Any, eid: str, name: str, dice: str = "") -> dict[str, Any]:
    state = api(live, "GET", f"/api/encounters/{eid}")
    body = {"step": name, "version": state["version"], "revision": state["revision"], "dice": dice}
    return dict(api(live, "POST", f"/api/encounters/{eid}/steps", body))


def shielded() -> dict[str, Any]:
    """Angthar (leather and shield: AC 13) against two goblins of 4 hp."""
    data = angthar_data(goblins=2)
    data["sides"][0]["combatants"][0]["shield"] = "shield"
    return data


def begun(live: Any, data: dict[str, Any], initiative: str = "7, 4, 3") -> str:
    """Begun, round 1 rolled: Angthar 7, the goblins 4 and 3 (and the rest as typed)."""
    eid = create(live, data)
    step(live, eid, "begin")
    step(live, eid, "round", initiative)
    return eid


def no_sideways_scroll(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"the page is {width} px wide"


def row(page: Any, name: str) -> Any:
    return page.locator(f"#combatants tr[data-name='{name}']")


@SIZES
@pytest.mark.timeout(120)
def test_a_stale_tab_is_told_and_catches_up_nothing_lost(live_server: Any, sized: Any, size: Any) -> None:
    # rule: ODD-INIT-1 (Angthar acts, then the goblins): the second tab's try goes on a fight that moved on
    from playwright.sync_api import expect

    eid = begun(live_server, angthar_data(goblins=2))
    first = sized.new_page()
    open_fight(first, live_server, eid)
    late = sized.new_page()
    late.route(
        "**/stream", lambda route: None
    )  # this tab hears nothing of the other's change: it stays stale
    late.goto(f"{live_server.url}/e/{eid}")  # a second tab of the same session (the cookie, no token)
    late.evaluate("window.__sameDocument = true")
    late.select_option("#target", "Goblin 2")
    late.fill("#dice", "15, 8")

    press_in_dice(first, "1")  # the first tab acts: Angthar misses Goblin 1
    expect(first.locator("#current")).to_have_text("Goblin 1")
    version = late.locator("#version").inner_text()
    late.press("#dice", "Enter")  # the late tab tries Angthar's attack again, on the version it shows
    wait_new_version(late, version)
    message = late.locator("#message")
    expect(message).to_be_visible()
    expect(message).to_contain_text("Another tab changed the fight first")
    expect(message).to_contain_text("not stored")
    # refreshed: the same version, whose turn it is, and the dice typed are still in the field
    assert late.locator("#version").inner_text() == first.locator("#version").inner_text()
    expect(late.locator("#current")).to_have_text("Goblin 1")
    assert late.input_value("#dice") == "15, 8"
    assert hp_cell(late, "Goblin 2") == "4/4"
    # nothing lost, nothing doubled: one attack by Angthar in the log
    events = api(live_server, "GET", f"/api/encounters/{eid}/events")
    assert [e["actor"] for e in events if e["type"] == "attack"] == ["Angthar"]
    # the late tab goes on from there: Goblin 1 acts (a natural 1 misses)
    press_in_dice(late, "1")
    expect(late.locator("#current")).to_have_text("Goblin 2")
    expect(late.locator("#message")).to_be_hidden()
    no_sideways_scroll(late)


@SIZES
@pytest.mark.timeout(120)
def test_an_ac_change_is_said_beside_the_ac(live_server: Any, sized: Any, size: Any) -> None:
    # rule: ODD-CHARGE-4 (a charger is easier to hit this round), ODD-AC-SHIELD, ODD-AC-1
    from playwright.sync_api import expect

    eid = begun(live_server, shielded())
    page = sized.new_page()
    open_fight(page, live_server, eid)
    expect(row(page, "Angthar").locator("td.ac")).to_have_text("13")
    page.click("#more-options summary")
    page.check("#charge")
    page.fill("#distance", "40")
    page.select_option("#target", "Goblin 1")
    press_in_dice(page, "2")  # Angthar charges and misses
    cell = row(page, "Angthar").locator("td.ac")
    expect(cell).to_contain_text("9")
    expect(cell.locator(".ac-change")).to_be_visible()
    expect(cell.locator(".ac-change")).to_have_text("(was 13: -4 charging this round [ODD-CHARGE-4])")
    no_sideways_scroll(page)
    state = api(live_server, "GET", f"/api/encounters/{eid}")
    angthar = next(c for c in state["combatants"] if c["name"] == "Angthar")
    assert angthar["ac"] == 9 and angthar["ac_change"]["was"] == 13
    assert angthar["ac_change"]["why"] == ["-4 charging this round [ODD-CHARGE-4]"]
    assert next(c for c in state["combatants"] if c["name"] == "Goblin 1")["ac_change"] is None
    # the players never see an AC, changed or not
    players = sized.new_page()
    players.goto(players_url(live_server, eid))
    text = players.locator("main").inner_text()
    assert "was 13" not in text and "AC" not in text and "CHARGE" not in text
    seen = api(
        live_server, "GET", players_url(live_server, eid).replace(live_server.url + "/p/", "/api/players/")
    )
    assert all(not {"ac", "ac_change", "ac_why"} & set(c) for c in seen["combatants"])
    assert "was 13" not in json.dumps(seen)
    # the next round the charge is over: the AC is 13 again and nothing is said
    for actor in ("Goblin 1", "Goblin 2"):
        state = api(live_server, "GET", f"/api/encounters/{eid}")
        body = {
            "version": state["version"],
            "revision": state["revision"],
            "action": {"kind": "wait", "actor": actor},
        }
        api(live_server, "POST", f"/api/encounters/{eid}/actions", body)
    step(live_server, eid, "end_round")
    expect(row(page, "Angthar").locator("td.ac")).to_have_text("13")


@SIZES
@pytest.mark.timeout(120)
def test_the_dead_are_greyed_with_no_lingering_conditions(live_server: Any, sized: Any, size: Any) -> None:
    # rule: ODD-HP-1 (a monster dies at 0), MOD-COND-STUN-1 (stunned: the picker's rule): conditions end with it
    from playwright.sync_api import expect

    eid = begun(live_server, angthar_data(goblins=2))
    page = sized.new_page()
    open_fight(page, live_server, eid)
    goblin = row(page, "Goblin 2")
    goblin.locator("details.row-menu summary").click()
    goblin.locator("select.cond-name").select_option("stunned")
    # the picker says what it means, its rule and how long it lasts
    expect(goblin.locator(".cond-meaning")).to_contain_text("MOD-COND-STUN-1")
    expect(goblin.locator(".cond-meaning")).to_contain_text("lasts the rounds given")
    goblin.locator("input.cond-rounds").fill("2")
    version = page.locator("#version").inner_text()
    goblin.locator("button.cond-apply").click()
    wait_new_version(page, version)
    expect(goblin.locator("td").nth(4)).to_contain_text("stunned (2 rd)")
    assert not goblin.locator("details.row-menu").evaluate("d => d.open")  # its menu closed once stored

    version = page.locator("#version").inner_text()
    goblin.locator("button.hp-edit").click()
    page.keyboard.type("-4")
    page.keyboard.press("Enter")
    wait_new_version(page, version)
    expect(goblin).to_have_class("monster out status-dead")
    expect(goblin.locator(".tag.down")).to_have_text("dead")
    assert "stunned" not in goblin.inner_text()
    assert float(goblin.evaluate("r => getComputedStyle(r).opacity")) < 1  # greyed
    name_cell = goblin.locator("td").first
    assert "line-through" in name_cell.evaluate("c => getComputedStyle(c).textDecorationLine")
    expect(page.locator("#log")).to_contain_text("Goblin 2 is no longer stunned (dead)")
    players = sized.new_page()
    players.goto(players_url(live_server, eid))
    expect(players.locator("tr[data-name='Goblin 2'] .health")).to_have_text("down")
    assert "stunned" not in players.locator("tr[data-name='Goblin 2']").inner_text()
    no_sideways_scroll(page)


@SIZES
@pytest.mark.timeout(120)
def test_focus_and_scroll_stay_and_one_row_menu_at_a_time(live_server: Any, sized: Any, size: Any) -> None:
    # rule: ODD-HP-1 (hit points by hand)
    eid = begun(live_server, angthar_data(goblins=6))
    page = sized.new_page()
    open_fight(page, live_server, eid)
    page.wait_for_function("document.getElementById('dice-asked').textContent.includes('d20')")
    target = row(page, "Goblin 6")
    target.locator("button.hp-edit").click()
    scroll, y = page.evaluate("window.scrollY"), target.bounding_box()["y"]
    version = page.locator("#version").inner_text()
    page.keyboard.type("-1")
    page.keyboard.press("Enter")
    wait_new_version(page, version)
    page.wait_for_timeout(500)  # the odds and the dice asked come back after the swap: no jump then either
    assert hp_cell(page, "Goblin 6") == "3/4"
    assert page.evaluate("window.scrollY") == scroll and target.bounding_box()["y"] == y
    # the focus is back on that row's hit points: Enter opens them again
    assert page.evaluate("document.activeElement.dataset.name") == "Goblin 6"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.className") == "hp-input"
    page.keyboard.press("Escape")
    # one row menu open at a time (a menu floats over the rows below it); Escape or a click elsewhere closes it
    row(page, "Goblin 6").locator("details.row-menu summary").click()
    row(page, "Goblin 1").locator("details.row-menu summary").click()
    assert page.locator("#combatants details.row-menu[open]").count() == 1
    assert row(page, "Goblin 1").locator("details.row-menu").evaluate("d => d.open")
    no_sideways_scroll(page)
    page.keyboard.press("Escape")
    assert page.locator("#combatants details.row-menu[open]").count() == 0
    row(page, "Goblin 1").locator("details.row-menu summary").click()
    page.locator("h1").click()
    assert page.locator("#combatants details.row-menu[open]").count() == 0
    assert page.evaluate("window.__sameDocument === true")  # no full reload


@SIZES
@pytest.mark.timeout(120)
def test_the_initiative_shows_the_rolls_and_a_first_strike_with_its_reason(
    live_server: Any, sized: Any, size: Any
) -> None:
    # rule: ODD-INIT-1 (the rolls), ODD-INIT-5 (a Large ogre strikes first in round 1)
    from playwright.sync_api import expect

    data = angthar_data(goblins=1)
    ogre = {
        "name": "Ogre",
        "hp": 20,
        "ac": 14,
        "size": "large",
        "weapons": [{"name": "club", "damage": "1d10"}],
    }
    data["sides"][1]["combatants"].append(ogre)
    eid = create(live_server, data)
    step(live_server, eid, "begin")
    step(live_server, eid, "round", "9, 5, 2")  # Angthar 9, the goblin 5, the ogre 2: the ogre moves first
    page = sized.new_page()
    open_fight(page, live_server, eid)
    order = page.locator("#order li")
    expect(order.nth(0)).to_contain_text("Ogre")
    expect(order.nth(0)).to_contain_text("(2)")
    expect(order.nth(0).locator(".tag")).to_have_text("first strike")
    expect(order.nth(1)).to_contain_text("Angthar (9)")
    expect(page.locator(".first-strike")).to_have_text(
        "first strike: Ogre acts before Angthar: larger size [ODD-INIT-5]"
    )
    no_sideways_scroll(page)
    state = api(live_server, "GET", f"/api/encounters/{eid}")
    assert state["rolls"] == {"Angthar": 9, "Goblin": 5, "Ogre": 2}
    assert state["first_strike"][0]["actor"] == "Ogre" and state["first_strike"][0]["rule"] == "ODD-INIT-5"


@SIZES
@pytest.mark.timeout(120)
def test_a_refused_try_keeps_its_rolled_dice_no_fishing(live_server: Any, sized: Any, size: Any) -> None:
    # rule: ODD-HD-2 (the goblins' hit dice, 1d6 each): the `?` rolled before the refused die come back
    from playwright.sync_api import expect

    eid = create(live_server, angthar_data(goblins=2, goblin_hp=None))
    page = sized.new_page()
    open_fight(page, live_server, eid)
    page.fill("#dice", "?, 9")
    page.press("#dice", "Enter")
    expect(page.locator("#message")).to_contain_text("not a face of a d6")
    expect(page.locator("#message")).to_contain_text("kept in the field")
    kept = page.input_value("#dice")
    first, second = kept.split(", ")
    assert 1 <= int(first) <= 6 and second == "9"
    assert page.locator("#version").inner_text() == "0"  # nothing stored
    press_in_dice(page, f"{first}, 3")  # the wrong die fixed; the rolled one is the same
    assert hp_cell(page, "Goblin 1") == f"{first}/{first}" and hp_cell(page, "Goblin 2") == "3/3"
    assert page.input_value("#dice") == ""  # stored: the field is clear for the next step
    no_sideways_scroll(page)


@SIZES
@pytest.mark.timeout(60)
def test_the_players_page_says_when_the_tracker_does_not_answer(
    live_server: Any, sized: Any, size: Any
) -> None:
    from playwright.sync_api import expect

    eid = create(live_server, angthar_data(goblins=2))
    players = sized.new_page()
    # neither the stream nor the page's own asking (static/follow.js polls while the stream is down) answers
    players.route("**/api/**", lambda route: route.abort())
    players.goto(players_url(live_server, eid))
    expect(players.locator("#banner")).to_be_visible(timeout=10_000)
    expect(players.locator("#banner")).to_contain_text("not answering; retrying")
    no_sideways_scroll(players)
    players.unroute("**/api/**")
    expect(players.locator("#banner")).to_be_hidden(timeout=10_000)


@pytest.mark.timeout(60)
def test_a_stream_the_server_ends_and_the_browser_reopens_shows_no_banner(
    live_server: Any, page: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # every stream ends after STREAM_SECONDS (a minute; here a second) and the browser reopens it at once:
    # that is no reason to tell the table the tracker is not answering
    from referee.web import streams

    monkeypatch.setattr(streams, "STREAM_SECONDS", 1.0)
    eid = create(live_server, angthar_data(goblins=2))
    open_fight(page, live_server, eid)
    shown = []
    for _ in range(25):  # five seconds: four or five reconnections
        shown.append(page.locator("#banner").is_visible())
        page.wait_for_timeout(200)
    assert not any(shown)
    step(live_server, eid, "begin")  # and the page still follows a change made elsewhere
    from playwright.sync_api import expect

    expect(page.locator("#notice")).to_contain_text("changed in another tab")


@pytest.mark.timeout(60)
def test_the_players_page_tries_a_failed_swap_again(live_server: Any, browser: Any) -> None:
    # the stream tells a revision once: a swap whose page fetch fails is tried again until it works
    from playwright.sync_api import expect

    eid = create(live_server, angthar_data(goblins=2))
    link = players_url(live_server, eid)
    players = browser.new_page()
    players.goto(link)
    failed: list[str] = []

    def fail_once(route: Any) -> None:
        if not failed:
            failed.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    players.route(link, fail_once)
    step(live_server, eid, "begin")  # Angthar's hit points come: the players' view changes once
    expect(players.locator("tr[data-name='Angthar'] .hp")).to_contain_text("30/30", timeout=10_000)
    assert failed  # the first swap's fetch did fail
    expect(players.locator("#banner")).to_be_hidden()
    players.close()


@pytest.mark.timeout(60)
def test_a_tab_whose_session_was_renewed_catches_up_and_acts(live_server: Any, browser: Any) -> None:
    # the referee's link opened again in the same browser starts a new session (the old one is revoked): the
    # first tab's next try is refused, nothing is stored, and the tab takes the new session's form token
    from playwright.sync_api import expect

    eid = begun(live_server, angthar_data(goblins=2))
    context = browser.new_context(viewport=WIDE)
    first = context.new_page()
    open_fight(first, live_server, eid)
    again = context.new_page()
    open_fight(again, live_server, eid)
    again.close()
    first.fill("#dice", "1")
    first.press("#dice", "Enter")
    expect(first.locator("#message")).to_contain_text("session was renewed")
    assert api(live_server, "GET", f"/api/encounters/{eid}/version")["version"] == 3  # nothing stored
    assert first.input_value("#dice") == "1"
    press_in_dice(first, "1")  # the retry goes in
    expect(first.locator("#current")).to_have_text("Goblin 1")
    context.close()


@pytest.mark.timeout(60)
def test_the_start_page_on_a_phone_breaks_no_word(live_server: Any, browser: Any) -> None:
    create(live_server, angthar_data(goblins=2))
    context = browser.new_context(viewport=PHONE, device_scale_factor=1)
    page = context.new_page()
    page.goto(f"{live_server.url}/?token={live_server.token}")
    no_sideways_scroll(page)
    lines_of_text = "e => { const r = document.createRange(); r.selectNodeContents(e); return r.getClientRects().length; }"
    for cell in ("#encounters th:nth-child(2)", "#encounters button.danger"):
        assert page.locator(cell).first.evaluate(lines_of_text) == 1, (
            cell
        )  # "events", "Delete": one line each
    context.close()


@pytest.mark.timeout(60)
def test_ending_a_round_before_everyone_acted_asks_first(live_server: Any, page: Any) -> None:
    # rule: ODD-ROUND-1: the referee may end a round early, but a stray N is not that call
    eid = begun(live_server, angthar_data(goblins=2))
    open_fight(page, live_server, eid)
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.locator("h1").click()
    page.keyboard.press("n")
    page.wait_for_timeout(500)
    assert asked and "Angthar is to act" in asked[0]
    assert page.locator("#version").inner_text() == "3"  # nothing stored
    page.once("dialog", lambda dialog: dialog.accept())
    version = page.locator("#version").inner_text()
    page.keyboard.press("n")
    wait_new_version(page, version)
    assert page.locator("#round").is_visible()  # the round is over: next comes a new one


@SIZES
@pytest.mark.timeout(120)
def test_a_grapple_is_put_on_with_its_partner(live_server: Any, sized: Any, size: Any) -> None:
    # rule: MOD-COND-GRAPPLED-2 (a grapple ties two combatants: the picker asks for the other one)
    from playwright.sync_api import expect

    eid = begun(live_server, angthar_data(goblins=2))
    page = sized.new_page()
    open_fight(page, live_server, eid)
    goblin = row(page, "Goblin 1")
    goblin.locator("details.row-menu summary").click()
    assert goblin.locator("select.cond-name option[value='garrotted']").is_disabled()  # from an attack only
    expect(goblin.locator("select.cond-by")).to_be_hidden()
    goblin.locator("select.cond-name").select_option("grappled")
    expect(goblin.locator("select.cond-by")).to_be_visible()
    no_sideways_scroll(page)
    goblin.locator("button.cond-apply").click()  # no partner chosen: said, nothing sent
    expect(page.locator("#message")).to_contain_text("choose who Goblin 1 is grappled with")
    goblin.locator("select.cond-by").select_option("Angthar")
    version = page.locator("#version").inner_text()
    goblin.locator("button.cond-apply").click()
    wait_new_version(page, version)
    expect(goblin.locator("td").nth(4)).to_contain_text("grappled")


@pytest.mark.timeout(60)
def test_a_change_the_tracker_did_not_answer_is_said_and_the_banner_goes_when_it_answers(
    live_server: Any, page: Any
) -> None:
    # rule: ODD-ATK-1 (the retried attack goes in once)
    from playwright.sync_api import expect

    eid = begun(live_server, angthar_data(goblins=2))
    open_fight(page, live_server, eid)
    page.route("**/api/**", lambda route: route.abort())  # the tracker stopped answering
    page.fill("#dice", "1")
    page.press("#dice", "Enter")
    expect(page.locator("#message")).to_contain_text("not answering")
    expect(page.locator("#message")).to_contain_text("nothing was stored")
    expect(page.locator("#banner")).to_be_visible()
    page.unroute("**/api/**")  # it answers again: the banner goes by itself
    expect(page.locator("#banner")).to_be_hidden(timeout=10_000)
    assert page.input_value("#dice") == "1"
    press_in_dice(page, "1")
    events = api(live_server, "GET", f"/api/encounters/{eid}/events")
    assert [e["actor"] for e in events if e["type"] == "attack"] == ["Angthar"]
