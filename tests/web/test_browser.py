"""The tracker in a real headless Chromium (Playwright, the system browser): a referee runs a whole fight.

Set REFEREE_SCREENSHOTS=1 to (re)write docs/screenshots/referee.png and players.png from this test.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def shots_dir(tmp_path: Path) -> Path:
    return ROOT / "docs" / "screenshots" if os.environ.get("REFEREE_SCREENSHOTS") else tmp_path


def hp_cell(page: Any, name: str) -> str:
    return str(page.locator(f"#combatants tr[data-name='{name}'] .hpnum").inner_text())


def click_and_wait(page: Any, selector: str, dice: str = "") -> None:
    """Type the dice, press the button and wait for the page to come back with a new version."""
    version = page.locator("#version").inner_text()
    page.fill("#dice", dice)
    page.click(selector)
    page.wait_for_function(
        "v => document.getElementById('version') && document.getElementById('version').textContent !== v",
        arg=version,
    )


def act(page: Any, dice: str, target: str | None = None) -> None:
    if target is not None:
        page.select_option("#target", target)
    click_and_wait(page, "#act", dice)


@pytest.mark.timeout(120)
def test_referee_runs_a_fight_players_follow(
    live_server: Any, page: Any, browser: Any, tmp_path: Path
) -> None:
    # rule: ODD-HD-2 (typed hit dice), ODD-INIT-1, ODD-ATK-1, ODD-ATK-2, ODD-HP-1 (the example from the first seed)
    from playwright.sync_api import expect

    page.goto(f"{live_server.url}/?token={live_server.token}")
    expect(page).to_have_url(f"{live_server.url}/")  # the token left the address bar for a cookie
    page.select_option("#from-example select", "angthar_and_the_goblins.yaml")
    page.click("#from-example button")
    expect(page.locator("#begin")).to_be_visible()
    # before Begin each row says what Begin gives it (no "0/0" that reads as dead)
    assert hp_cell(page, "Angthar") == "30 at Begin" and hp_cell(page, "Goblin 1") == "rolls 1d6 at Begin"

    # begin: the goblins' hit dice (1d6 each) are typed; round 1: Angthar 10, goblins 1, 2, 3
    click_and_wait(page, "#begin", "3, 4, 5")
    assert [hp_cell(page, f"Goblin {i}") for i in (1, 2, 3)] == ["3/3", "4/4", "5/5"]
    click_and_wait(page, "#round", "10, 1, 2, 3")
    expect(page.locator("#current")).to_have_text("Angthar")

    # the exact odds before committing (when the odds module is there): d20 + 5 >= 12 hits 70% (ODD-ATK-1)
    page.select_option("#target", "Goblin 1")
    if importlib.util.find_spec("referee.odds") is not None:
        expect(page.locator("#odds")).to_contain_text("hit 70.0%")
        expect(page.locator("#odds")).to_contain_text("damage 2–9")
    expect(page.locator("#dice-asked")).to_contain_text("d20 attack · d8 damage")

    # a die that is not a face of a d20 is refused with its message; nothing is stored
    version = page.locator("#version").inner_text()
    page.fill("#dice", "25")
    page.click("#act")
    expect(page.locator("#message")).to_contain_text("not a face of a d20")
    assert page.locator("#version").inner_text() == version

    # Angthar hits Goblin 1 (d20 15 + 5 >= 12) for d8 8 + 1 = 9: down
    act(page, "15, 8", "Goblin 1")
    expect(page.locator("#combatants tr[data-name='Goblin 1'] .tag.down")).to_be_visible()
    # undo brings Goblin 1 back; redo puts the blow back
    click_and_wait(page, "#undo")
    assert hp_cell(page, "Goblin 1") == "3/3"
    click_and_wait(page, "#redo")
    assert hp_cell(page, "Goblin 1") == "-6/3"
    # Goblin 3 hits Angthar (18 + 1 >= 12) for a rolled d6; Goblin 2 misses (natural 1)
    expect(page.locator("#current")).to_have_text("Goblin 3")
    act(page, "18, ?", "Angthar")
    wounded = int(hp_cell(page, "Angthar").split("/")[0])
    assert 24 <= wounded <= 29

    # the players' view, in its own tab: the party's hit points, monsters only in words
    players_url = page.locator("#players-link").get_attribute("href")
    players = page.context.browser.new_context().new_page()
    players.goto(players_url)
    expect(players.locator("tr[data-name='Goblin 1'] .health")).to_have_text("down")
    expect(players.locator("tr[data-name='Goblin 2'] .health")).to_have_text("unhurt")
    expect(players.locator("tr[data-name='Angthar'] .hp")).to_contain_text(f"{wounded}/30")
    text = players.locator("main").inner_text()
    assert "3/3" not in text and "4/4" not in text and "5/5" not in text and "AC" not in text
    # screenshots for the docs, mid-fight
    page.screenshot(path=str(shots_dir(tmp_path) / "referee.png"), full_page=True)
    players.screenshot(path=str(shots_dir(tmp_path) / "players.png"), full_page=True)

    act(page, "1", "Angthar")
    # the players' page follows by itself (it polls its JSON twin)
    expect(players.locator("tr.current")).to_have_count(0, timeout=10_000)

    # undo back to a line of the log: the goblins' two attacks go, Goblin 3 is to act again
    page.once("dialog", lambda dialog: dialog.accept())
    line = page.locator("#log tr.ev-action").nth(1)  # the log is newest first: Goblin 3's attack line
    version = page.locator("#version").inner_text()
    line.locator("button.back").click()
    page.wait_for_function("v => document.getElementById('version').textContent !== v", arg=version)
    expect(page.locator("#current")).to_have_text("Goblin 3")
    assert hp_cell(page, "Angthar") == "30/30"

    # a second referee tab acts (Goblin 3 misses): the first tab follows by itself and says so (a stale
    # change is still refused with 409: tests/web/test_api.py)
    other = page.context.new_page()
    other.goto(page.url)
    act(other, "1", "Angthar")
    expect(page.locator("#notice")).to_contain_text("changed in another tab", timeout=10_000)
    expect(page.locator("#current")).to_have_text("Goblin 2")
    other.close()

    # finish the fight: Goblin 2 misses, Angthar fells the other two over two more rounds
    act(page, "1", "Angthar")
    click_and_wait(page, "#end-round")
    click_and_wait(page, "#round", "10, 1, 2")
    act(page, "15, 8", "Goblin 2")
    act(page, "1", "Angthar")
    click_and_wait(page, "#end-round")
    click_and_wait(page, "#round", "10, 1")
    act(page, "15, 8", "Goblin 3")
    expect(page.locator("#status")).to_contain_text("Village wins")
    expect(players.locator(".status")).to_contain_text("Village won", timeout=10_000)
    players.context.close()


ATTACK_PAGE = """<!doctype html><meta charset=utf-8><title>cat pictures</title>
<iframe name=sink></iframe><iframe name=sink2></iframe><iframe name=sink3></iframe>
<form id=rename method=post action="@TRACKER@/e/@EID@/rename" target=sink>
  <input name=name value=pwned></form>
<form id=delete method=post action="@TRACKER@/e/@EID@/delete" target=sink2>
  <input name=confirm value=yes></form>
<form id=create method=post action="@TRACKER@/encounters" target=sink3>
  <input name=source value=paste><input name=text id=text></form>
<script>
  const encounter = @ENCOUNTER@;
  document.getElementById("text").value = JSON.stringify(encounter);
  document.getElementById("rename").submit();
  document.getElementById("delete").submit();
  document.getElementById("create").submit();
  const plain = (path, body) => fetch("@TRACKER@" + path, {
    method: "POST", mode: "no-cors", credentials: "include", headers: {"Content-Type": "text/plain"}, body: body,
  }).catch(() => null);
  Promise.all([
    plain("/api/encounters/import", JSON.stringify(@EXPORT@)),
    plain("/api/encounters", JSON.stringify({data: encounter})),
    plain("/api/encounters/@EID@/steps", JSON.stringify({step: "begin", version: 0})),
  ]).then(() => setTimeout(() => { document.title = "done"; }, 1500));
</script>"""


class Hostile:
    """Another web server on 127.0.0.1 (another port) that the referee's browser visits: it serves a page that
    tries to act on the tracker, and writes down every cookie the browser sends it."""

    def __init__(self, page: str) -> None:
        import http.server
        import threading

        self.cookies: list[str] = []
        seen = self.cookies

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                seen.append(self.headers.get("Cookie", ""))
                body = page.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.timeout(120)
def test_a_page_on_another_port_gets_no_credential_and_cannot_act(live_server: Any, page: Any) -> None:
    import json

    import httpx

    from conftest import angthar_data

    auth = {"Authorization": f"Bearer {live_server.token}"}
    api = httpx.Client(base_url=live_server.url, headers=auth, trust_env=False)
    eid = api.post("/api/encounters", json={"data": angthar_data()}).json()["id"]
    before = api.get(f"/api/encounters/{eid}/export").json()
    own_token = api.get("/api/encounters").json()[0]["links"]["referee"].split("token=")[1]
    # the referee's browser holds a session for the tracker: the whole tracker's and this encounter's own
    page.goto(f"{live_server.url}/?token={live_server.token}")
    page.goto(f"{live_server.url}/e/{eid}?token={own_token}")
    assert page.locator("#begin").is_visible()
    attack = ATTACK_PAGE.replace("@TRACKER@", live_server.url).replace("@EID@", eid)
    attack = attack.replace("@ENCOUNTER@", json.dumps(angthar_data())).replace("@EXPORT@", json.dumps(before))
    hostile = Hostile(attack)
    try:
        page.goto(hostile.url)
        page.wait_for_function("document.title === 'done'", timeout=20_000)
    finally:
        hostile.close()
    # the browser sent the other port its cookies (cookies ignore ports) but no credential was among them
    assert hostile.cookies and all(live_server.token not in c and own_token not in c for c in hostile.cookies)
    # and nothing changed: not renamed, not deleted, nothing created or imported, not begun
    assert [e["id"] for e in api.get("/api/encounters").json()] == [eid]
    assert api.get(f"/api/encounters/{eid}/export").json() == before
    # the same browser on the tracker's own page still acts (its session and CSRF token work)
    page.goto(f"{live_server.url}/e/{eid}")
    page.click("#begin")
    page.wait_for_function("document.getElementById('version').textContent !== '0'")
    assert api.get(f"/api/encounters/{eid}/version").json()["version"] >= 1
    api.close()
