"""Pages that follow the fight when its stream fails (static/follow.js), in a real headless Chromium: a stream
the server refuses (the browser closes an EventSource answered with an error for good) or one whose reopening
hangs (a phone's lost network) must not leave the players' page or a second referee tab showing an old fight.
Each stream here ends after a second (as the server's own do every minute), so the failure comes on the
reopening, as it would in play."""

from __future__ import annotations

from typing import Any

import pytest
from tests.web.test_browser_changes import WIDE, api, begun
from tests.web.test_browser_table import PHONE, open_fight, players_url

import referee.web.streams as streams
from conftest import angthar_data

STREAM = "**/stream"


def table_action(live: Any, eid: str, action: dict[str, Any]) -> None:
    state = api(live, "GET", f"/api/encounters/{eid}")
    body = {"version": state["version"], "revision": state["revision"], "action": action, "dice": ""}
    api(live, "POST", f"/api/encounters/{eid}/actions", body)


@pytest.fixture
def lurking(live_server: Any, monkeypatch: Any) -> str:
    """A begun fight with a hidden lurker, on a server whose streams end after a second."""
    monkeypatch.setattr(streams, "STREAM_SECONDS", 1.0)
    data = angthar_data(goblins=2)
    data["sides"][1]["combatants"].append({"name": "Lurker", "hp": 9, "ac": 17, "hidden": True})
    return begun(live_server, {**data, "players": ["Village"]}, "7, 4, 3, 1")


def wait_until(page: Any, what: str, holds: Any, seconds: float = 20) -> None:
    """Let the page run (its events reach this side while it waits) until `holds()`."""
    for _ in range(int(seconds * 10)):
        if holds():
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"not within {seconds} s: {what}")


def stream_requests(page: Any) -> list[int]:
    """The statuses of the page's stream requests as they are answered."""
    seen: list[int] = []
    page.on("response", lambda r: seen.append(r.status) if r.url.endswith("/stream") else None)
    return seen


@pytest.mark.parametrize("size", [PHONE], ids=["390x844"])
@pytest.mark.timeout(120)
def test_players_follow_while_their_stream_is_refused_then_it_reopens(
    live_server: Any, lurking: str, sized: Any
) -> None:
    # rule: ODD-ROUND-1 (the round shown to the players follows the fight)
    from playwright.sync_api import expect

    eid, context = lurking, sized
    players = context.new_page()
    statuses = stream_requests(players)
    players.goto(players_url(live_server, eid))
    expect(players.locator("main")).not_to_contain_text("Lurker")

    # the stream's reopenings refused: the browser gives up on it; the page still follows a reveal
    context.route(STREAM, lambda route: route.fulfill(status=503, body="restarting"))
    wait_until(players, "a stream refused", lambda: 503 in statuses)
    table_action(live_server, eid, {"kind": "reveal", "target": "Lurker"})
    expect(players.locator("tr[data-name='Lurker'] .health")).to_have_text("unhurt")
    expect(players.locator("#banner")).to_be_hidden()  # the tracker answers: the poll says so

    # the server takes streams again: the page opens one of its own accord, and follows the hide through it
    context.unroute(STREAM)
    answered = len(statuses)
    wait_until(players, "a stream opened again", lambda: 200 in statuses[answered:])
    table_action(live_server, eid, {"kind": "hide", "target": "Lurker"})
    expect(players.locator("main")).not_to_contain_text("Lurker")


@pytest.mark.parametrize("size", [WIDE], ids=["1280x900"])
@pytest.mark.timeout(120)
def test_a_second_referee_tab_follows_while_its_stream_hangs(
    live_server: Any, lurking: str, sized: Any
) -> None:
    # rule: ODD-ROUND-1 (the other tab shows the fight as it is now)
    from playwright.sync_api import expect

    eid, context = lurking, sized
    tab = context.new_page()
    open_fight(tab, live_server, eid)
    version = tab.locator("#version").inner_text()

    # every reopening of the stream hangs unanswered: the tab asks for the version itself (the server answers
    # those, so no banner stays) and follows a note made elsewhere
    hung: list[Any] = []
    context.route(STREAM, lambda route: hung.append(route))  # never answered
    wait_until(tab, "a stream hanging", lambda: len(hung) > 0)
    table_action(live_server, eid, {"kind": "note", "text": "the bridge creaks"})
    expect(tab.locator("#version")).not_to_have_text(version)
    expect(tab.locator("#log")).to_contain_text("the bridge creaks")
    expect(tab.locator("#banner")).to_be_hidden()
