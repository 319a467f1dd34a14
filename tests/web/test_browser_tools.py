"""The referee's table tools in a real headless Chromium at 1280×900 and 390×844, through the page only: reveal
and hide again (the players' page follows), a latecomer from the bestiary, surrendered and removed, a note on
the fight and on a combatant, the free dice roller, running the foes (key F) until a player's turn, and dice
typed ahead for a miss said, not refused."""

from __future__ import annotations

from typing import Any

import pytest
from tests.web.test_browser_changes import SIZES, begun, no_sideways_scroll, row
from tests.web.test_browser_table import open_fight, players_url, press_in_dice, wait_new_version

from conftest import angthar_data


def click_and_wait(page: Any, target: Any) -> None:
    version = page.locator("#version").inner_text()
    target.click()
    try:
        wait_new_version(page, version)
    except Exception:
        raise AssertionError(page.locator("#message").inner_text()) from None


def tools_open(page: Any) -> None:
    if not page.locator("#table-tools").evaluate("d => d.open"):
        page.click("#table-tools summary")


@SIZES
@pytest.mark.timeout(180)
def test_the_table_tools_through_the_page(live_server: Any, sized: Any, size: Any, browser: Any) -> None:
    # rule: ODD-HD-2 (the latecomer's hit dice rolled), ODD-ROUND-1 (who is left), ODD-ATK-1 (a miss)
    from playwright.sync_api import expect

    data = angthar_data(goblins=2)
    data["sides"][1]["combatants"].append({"name": "Lurker", "hp": 9, "ac": 17, "hidden": True})
    eid = begun(live_server, {**data, "players": ["Village"]}, "7, 4, 3, 1")  # the lurker last
    page = sized.new_page()
    open_fight(page, live_server, eid)
    # the players' page on a device of its own (its own window: a tab in the background is throttled)
    players = browser.new_context(viewport=size).new_page()
    players.goto(players_url(live_server, eid))
    expect(players.locator("main")).not_to_contain_text("Lurker")

    # dice typed ahead for the damage of an attack that misses: the step is taken and the page says so
    page.select_option("#target", "Goblin 1")
    press_in_dice(page, "2, 6")
    expect(page.locator("#notice")).to_contain_text("1 typed die was not used (6)")

    # reveal the lurker: the players' page follows by itself; hide it again: gone from their page. These take
    # no dice: the dice typed for the next attack stay in the field
    page.fill("#dice", "15, 8")
    lurker = row(page, "Lurker")
    lurker.locator("details.row-menu summary").click()
    click_and_wait(page, lurker.locator("button.visibility"))
    expect(players.locator("tr[data-name='Lurker'] .health")).to_have_text("unhurt")
    assert "9" not in players.locator("tr[data-name='Lurker']").inner_text()
    expect(lurker.locator(".tag", has_text="hidden")).to_have_count(0)
    lurker.locator("details.row-menu summary").click()
    click_and_wait(page, lurker.locator("button.visibility"))
    expect(players.locator("main")).not_to_contain_text("Lurker")
    assert page.input_value("#dice") == "15, 8"

    # a latecomer from the bestiary, on the goblins' side, its hit dice rolled from the dice field
    tools_open(page)
    page.select_option("#add-side", "Goblins")
    page.fill("#add-monster", "ogre")
    # the form shows what the monster brings: its stat line, its fields in the empty fields' places
    expect(page.locator("#add-monster-stat")).to_contain_text("Ogre: AC 5 [14], HD 4+1, Att 1 × club (1d10)")
    assert page.get_attribute("#add-hd", "placeholder") == "4+1"
    assert page.get_attribute("#add-weapons", "placeholder") == "club"
    page.fill("#dice", "1, 2, 3, 4")
    click_and_wait(page, page.locator("#add-combatant"))
    assert page.locator("#combatants tr[data-name='Ogre'] .hpnum").inner_text() == "11/11"  # 4+1 hit dice
    expect(page.locator("#log")).to_contain_text("Ogre")

    # a note on the fight, a note on a combatant, a free roll: each logged, the notes listed
    tools_open(page)
    page.fill("#fight-note", "the bridge creaks")
    click_and_wait(page, page.locator("#note-fight"))
    goblin = row(page, "Goblin 2")
    goblin.locator("details.row-menu summary").click()
    goblin.locator("input.note-text").fill("limps")
    click_and_wait(page, goblin.locator("button.note-add"))
    expect(page.locator("ul.notes")).to_contain_text("note: the bridge creaks")
    expect(page.locator("ul.notes")).to_contain_text("note on Goblin 2: limps")
    tools_open(page)
    page.fill("#roll-expr", "2d6+1")
    page.fill("#roll-reason", "reaction")
    page.fill("#dice", "3, 4")
    click_and_wait(page, page.locator("#roll"))
    expect(page.locator("#log tbody tr").first).to_contain_text("roll 2d6+1 (reaction): 8")

    # surrendered, removed: out of the fight, shown so, words on the players' page
    goblin.locator("details.row-menu summary").click()
    click_and_wait(page, goblin.locator("button.leave[data-status='surrendered']"))
    expect(goblin).to_have_class("monster out status-surrendered")
    expect(players.locator("tr[data-name='Goblin 2'] .health")).to_have_text("surrendered")
    lurker.locator("details.row-menu summary").click()
    click_and_wait(page, lurker.locator("button.leave[data-status='removed']"))
    expect(lurker.locator(".tag.down")).to_have_text("removed")

    # run the foes (key F): Goblin 1 acts, then it is nobody's turn of the foes left this round
    expect(page.locator("#current")).to_have_text("Goblin 1")
    page.locator("h1").click()
    version = page.locator("#version").inner_text()
    page.keyboard.press("f")
    wait_new_version(page, version)
    expect(page.locator("#status")).to_contain_text("everyone has acted")
    expect(page.locator("#log")).to_contain_text("Goblin 1 → Angthar")

    # a latecomer from a module's stat line as printed (GAP-STAT-LINE), its hit points given
    tools_open(page)
    page.select_option("#add-side", "Goblins")
    page.fill("#add-name", "Bugbear")
    page.fill("#add-stat", "AC 5, HD 3+1, hp 14, #AT 1, D 2-8, MV 90' (30'), Save F3, ML 9")
    click_and_wait(page, page.locator("#add-combatant"))
    assert page.locator("#combatants tr[data-name='Bugbear'] .hpnum").inner_text() == "14/14"
    expect(page.locator("#log tbody tr").first).to_contain_text("Bugbear")
    no_sideways_scroll(page)
    no_sideways_scroll(players)
    assert page.evaluate("window.__sameDocument === true")
    players.context.close()
