"""Browser sessions, CSRF tokens, the origin check and the log-in limit (src/referee/web/access.py, guard.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from conftest import angthar_data
from referee.web.app import Settings, create_app


def browser(tmp_path: Path, port: int = 8000, password: str | None = None) -> tuple[TestClient, str]:
    """A client that behaves as a browser on 127.0.0.1:`port` (cookies only), and the server's token."""
    app = create_app(Settings(db=tmp_path / "tracker.sqlite3", password=password))
    return TestClient(app, base_url=f"http://127.0.0.1:{port}"), app.state.store.admin_token()


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, "no CSRF token in the page"
    return found.group(1)


def logged_in(client: TestClient, token: str) -> str:
    """Open the referee's link; the session's CSRF token (from the page's forms)."""
    assert client.get(f"/?token={token}").status_code == 200
    return csrf_of(client.get("/").text)


def test_the_cookie_is_a_session_named_after_the_port_never_the_token(tmp_path: Path) -> None:
    client, token = browser(tmp_path, 8123)
    response = client.get(f"/?token={token}", follow_redirects=False)
    name, value = response.headers["set-cookie"].split(";")[0].split("=", 1)
    assert name == "referee_session_8123" and value != token and token not in response.headers["set-cookie"]
    flags = response.headers["set-cookie"].lower()
    assert "httponly" in flags and "samesite=strict" in flags
    # the database holds a digest of the session value, never the value itself
    assert value.encode() not in (tmp_path / "tracker.sqlite3").read_bytes()


def test_two_trackers_on_one_machine_keep_their_own_cookie(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, first_token = browser(tmp_path / "a", 8001)
    second, second_token = browser(tmp_path / "b", 8002)
    logged_in(first, first_token)
    logged_in(second, second_token)
    # one browser: the cookie jar of one tracker given to the other (cookies ignore ports)
    for name, value in first.cookies.items():
        second.cookies.set(name, value)
    assert first.get("/api/encounters").status_code == 200
    assert second.get("/api/encounters").status_code == 200  # its own cookie was not overwritten


def test_logging_out_revokes_the_session(tmp_path: Path) -> None:
    client, token = browser(tmp_path)
    csrf = logged_in(client, token)
    value = client.cookies["referee_session_8000"]
    assert client.post("/logout", data={"csrf": csrf}, follow_redirects=False).status_code == 303
    client.cookies.clear()
    client.cookies.set("referee_session_8000", value)  # the old value, kept by someone
    assert client.get("/api/encounters").status_code == 403


def test_a_log_in_rotates_the_session(tmp_path: Path) -> None:
    client, _ = browser(tmp_path, password="swordfish")
    client.post("/login", data={"password": "swordfish"}, follow_redirects=False)
    old = client.cookies["referee_session_8000"]
    client.post("/login", data={"password": "swordfish"}, follow_redirects=False)
    new = client.cookies["referee_session_8000"]
    assert new != old and client.get("/api/encounters").status_code == 200
    client.cookies.clear()
    client.cookies.set("referee_session_8000", old)
    assert client.get("/api/encounters").status_code == 403


def test_an_encounters_own_link_gives_a_session_for_that_encounter_only(tmp_path: Path) -> None:
    client, token = browser(tmp_path)
    auth = {"Authorization": f"Bearer {token}"}
    eid = client.post("/api/encounters", json={"data": angthar_data()}, headers=auth).json()["id"]
    other = client.post("/api/encounters", json={"data": angthar_data()}, headers=auth).json()["id"]
    own = client.app.state.store.get(eid).referee_token  # type: ignore[attr-defined]
    response = client.get(f"/e/{eid}?token={own}", follow_redirects=False)
    assert response.headers["set-cookie"].startswith(f"referee_session_8000_{eid}=")
    assert own not in response.headers["set-cookie"]
    assert client.get(f"/api/encounters/{eid}").status_code == 200
    assert client.get(f"/api/encounters/{other}").status_code == 403
    assert client.get("/api/encounters").status_code == 403


def test_a_change_by_cookie_needs_the_sessions_csrf_token(tmp_path: Path) -> None:
    client, token = browser(tmp_path)
    csrf = logged_in(client, token)
    made = client.post("/api/encounters", json={"data": angthar_data()}, headers={"X-CSRF-Token": csrf})
    assert made.status_code == 201
    eid = made.json()["id"]
    for headers in ({}, {"X-CSRF-Token": "forged"}):
        refused = client.post("/api/encounters", json={"data": angthar_data()}, headers=headers)
        assert refused.status_code == 403 and "reload the page" in refused.json()["error"]
    for data in ({"name": "renamed"}, {"name": "renamed", "csrf": "forged"}):
        assert client.post(f"/e/{eid}/rename", data=data, follow_redirects=False).status_code == 403
    for data in ({"confirm": "yes"}, {"confirm": "yes", "csrf": "forged"}):
        assert client.post(f"/e/{eid}/delete", data=data, follow_redirects=False).status_code == 403
    example = {"source": "paste", "text": "x"}
    assert client.post("/encounters", data=example, follow_redirects=False).status_code == 403
    renamed = client.post(f"/e/{eid}/rename", data={"name": "renamed", "csrf": csrf}, follow_redirects=False)
    assert renamed.status_code == 303
    assert [e["name"] for e in client.get("/api/encounters").json()] == ["renamed"]
    # the fight page hands its script the token (it sends it as X-CSRF-Token)
    assert f'"csrf": "{csrf}"' in client.get(f"/e/{eid}").text


def test_programs_with_the_token_header_need_no_csrf_token(tmp_path: Path) -> None:
    client, token = browser(tmp_path)
    auth = {"Authorization": f"Bearer {token}"}
    assert client.post("/api/encounters", json={"data": angthar_data()}, headers=auth).status_code == 201
    eid = client.get("/api/encounters", headers=auth).json()[0]["id"]
    renamed = client.post(f"/e/{eid}/rename", data={"name": "n"}, headers=auth, follow_redirects=False)
    assert renamed.status_code == 303


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://127.0.0.1:9999"},  # another port of the same host: another origin
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Origin": "null", "Sec-Fetch-Site": "same-site"},
        {"Sec-Fetch-Site": "same-site"},
        {"Sec-Fetch-Site": "cross-site"},
    ],
)
def test_a_change_from_another_origin_is_refused(tmp_path: Path, headers: dict[str, str]) -> None:
    client, token = browser(tmp_path)
    csrf = logged_in(client, token)
    for auth in ({"X-CSRF-Token": csrf}, {"Authorization": f"Bearer {token}"}):
        response = client.post("/api/encounters", json={"data": angthar_data()}, headers={**headers, **auth})
        assert response.status_code == 403 and response.json()["status"] == 403
    form = client.post("/encounters", data={"source": "paste", "text": "x", "csrf": csrf}, headers=headers)
    assert form.status_code == 403
    assert client.get("/api/encounters").json() == []
    same = {"Origin": "http://127.0.0.1:8000", "Sec-Fetch-Site": "same-origin", "X-CSRF-Token": csrf}
    assert client.post("/api/encounters", json={"data": angthar_data()}, headers=same).status_code == 201
    # the tracker's own pages send no referrer, so their forms say `Origin: null`: Sec-Fetch-Site decides
    form = {"source": "paste", "text": "x", "csrf": csrf}
    own_form = client.post(
        "/encounters", data=form, headers={"Origin": "null", "Sec-Fetch-Site": "same-origin"}
    )
    assert own_form.status_code == 422  # past the origin check: "x" is not an encounter


def test_wrong_passwords_are_limited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1000.0]
    monkeypatch.setattr("referee.web.access.time.monotonic", lambda: clock[0])
    client, _ = browser(tmp_path, password="swordfish")
    answers = [client.post("/login", data={"password": f"guess {i}"}).status_code for i in range(12)]
    assert answers == [403] * 10 + [429] * 2
    refused = client.post("/login", data={"password": "swordfish"}, headers={"Accept": "application/json"})
    assert refused.status_code == 429 and "try again in" in refused.json()["error"]
    clock[0] += 61
    assert client.post("/login", data={"password": "swordfish"}, follow_redirects=False).status_code == 303


def test_login_from_another_origin_is_refused(tmp_path: Path) -> None:
    client, _ = browser(tmp_path, password="swordfish")
    response = client.post("/login", data={"password": "swordfish"}, headers={"Origin": "http://127.0.0.1:1"})
    assert response.status_code == 403 and "referee_session" not in response.headers.get("set-cookie", "")


def forms_of(html: str) -> list[str]:
    return re.findall(r"<form[^>]*method=\"post\".*?</form>", html, flags=re.S)


def test_every_form_carries_the_csrf_token(tmp_path: Path) -> None:
    client, token = browser(tmp_path)
    csrf = logged_in(client, token)
    eid = client.post(
        "/api/encounters", json={"data": angthar_data()}, headers={"X-CSRF-Token": csrf}
    ).json()["id"]
    pages: list[Any] = [client.get("/").text, client.get(f"/e/{eid}").text]
    forms = [form for html in pages for form in forms_of(html)]
    assert len(forms) >= 6
    assert all(f'name="csrf" value="{csrf}"' in form for form in forms)
