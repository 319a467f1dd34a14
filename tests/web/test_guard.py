"""What every request passes first (src/referee/web/guard.py): size, content type, JSON that can be shown."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from conftest import angthar_data


def as_json(t: Any) -> dict[str, str]:
    return {**t.auth, "Content-Type": "application/json"}


@pytest.mark.parametrize(
    "kind", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", ""]
)
def test_a_json_body_must_say_it_is_json(tracker: Any, kind: str) -> None:
    eid = tracker.create()
    export = tracker.client.get(f"/api/encounters/{eid}/export", headers=tracker.auth).text
    headers = {**tracker.auth, "Content-Type": kind} if kind else tracker.auth
    create = json.dumps({"data": angthar_data()})
    for path, body in (("/api/encounters", create), ("/api/encounters/import", export)):
        response = tracker.client.post(path, content=body, headers=headers)
        assert response.status_code == 415 and response.json()["status"] == 415, (path, response.text)
    step = json.dumps({"step": "begin", "version": 0})
    assert (
        tracker.client.post(f"/api/encounters/{eid}/steps", content=step, headers=headers).status_code == 415
    )
    assert len(tracker.client.get("/api/encounters", headers=tracker.auth).json()) == 1
    assert tracker.state(eid)["version"] == 0


def test_json_with_a_charset_is_json(tracker: Any) -> None:
    body = json.dumps({"data": angthar_data()})
    headers = {**tracker.auth, "Content-Type": "application/json; charset=utf-8"}
    assert tracker.client.post("/api/encounters", content=body, headers=headers).status_code == 201


@pytest.mark.parametrize(
    ("why", "text"),
    [
        ("a lone surrogate", '{"name": "\\ud800"}'),
        ("a lone surrogate in a key", '{"\\udfff": 1}'),
        ("NaN", '{"name": NaN}'),
        ("Infinity", '{"name": -Infinity}'),
        ("1e400", '{"name": 1e400}'),
        ("5,000 digits", '{"name": ' + "9" * 5000 + "}"),
        ("deep nesting", '{"name": ' + "[" * 50_000 + "]" * 50_000 + "}"),
        ("40 levels", '{"name": ' + "[" * 40 + "]" * 40 + "}"),
        ("not UTF-8", b'{"name": "\xff"}'),
    ],
)
def test_json_that_could_not_be_written_back_is_refused(tracker: Any, why: str, text: str | bytes) -> None:
    eid = tracker.create()
    for method, path in (("PATCH", f"/api/encounters/{eid}"), ("POST", "/api/encounters/import")):
        response = tracker.client.request(method, path, content=text, headers=as_json(tracker))
        assert response.status_code == 400, (why, response.text)
        message = response.json()["error"]
        assert "\n" not in message and message.startswith("request body:")
    assert tracker.state(eid)["name"] == "Angthar and the goblin"


def chunks(total: int, size: int = 64_000) -> Iterator[bytes]:
    sent = 0
    while sent < total:
        yield b" " * size
        sent += size


def test_an_oversized_chunked_body_is_413(tracker: Any) -> None:
    from referee.web.app import MAX_BODY_BYTES

    for path in ("/api/encounters", "/encounters"):
        response = tracker.client.post(
            path, content=chunks(MAX_BODY_BYTES + 100_000), headers=as_json(tracker)
        )
        assert response.status_code == 413, (path, response.status_code, response.text)
        assert response.json()["status"] == 413
    assert tracker.client.get("/api/encounters", headers=tracker.auth).json() == []


def test_a_chunked_body_under_the_limit_is_read(tracker: Any) -> None:
    body = json.dumps({"data": angthar_data()}).encode()
    response = tracker.client.post(
        "/api/encounters", content=iter([body[:50], body[50:]]), headers=as_json(tracker)
    )
    assert response.status_code == 201, response.text


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("steps", {"step": "begin", "version": 2**63}),
        ("steps", {"step": "begin", "version": 0, "revision": 2**64}),
        ("steps", {"step": "begin", "version": 0, "seed": 2**70}),
        ("undo", {"version": 0, "keep": 2**63}),
        ("undo", {"version": 2**63, "count": 2**63}),
        ("redo", {"version": -(2**63) - 1}),
    ],
)
def test_numbers_past_sqlites_integers_are_never_a_500(tracker: Any, path: str, body: dict[str, Any]) -> None:
    eid = tracker.create()
    response = tracker.client.post(f"/api/encounters/{eid}/{path}", json=body, headers=tracker.auth)
    assert response.status_code in {200, 409, 422}, response.text
