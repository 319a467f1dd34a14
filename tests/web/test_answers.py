"""The busiest routes' JSON answers (src/referee/web/answers.py): the same JSON as before, sent as it is."""

from __future__ import annotations

import json
from typing import Any

from referee.web.answers import JSONAnswer


def test_an_answer_is_the_json_of_its_content() -> None:
    content: dict[Any, Any] = {"a": [1, 2.5, None, True], "b": {"c": "Ännchen ⚔"}, 3: (4, 5)}
    answer = JSONAnswer(content)
    assert answer.media_type == "application/json"
    assert json.loads(answer.body) == {"a": [1, 2.5, None, True], "b": {"c": "Ännchen ⚔"}, "3": [4, 5]}
    assert answer.body.decode("utf-8").count("Ännchen") == 1  # UTF-8, not \\u escapes


def test_what_orjson_refuses_goes_through_pydantic() -> None:
    huge = 10**30  # past 64 bits: orjson refuses it, pydantic's encoder writes it
    assert json.loads(JSONAnswer({"hp": huge}).body) == {"hp": huge}


def test_a_step_answers_through_it(tracker: Any) -> None:
    # rule: ODD-ROUND-1 (begin, then the round's initiative: the answer is the state, as JSON)
    eid = tracker.create()
    begun = tracker.step(eid, "begin")
    response = tracker.client.post(
        f"/api/encounters/{eid}/steps",
        json={"step": "round", "version": begun["version"], "dice": "6, 3"},
        headers=tracker.auth,
    )
    assert response.status_code == 200 and response.headers["content-type"] == "application/json"
    assert response.json() == json.loads(response.content) and response.json()["needs"] == "action"
    assert response.json()["events_since"] == tracker.state(eid)["events"][begun["version"] :]
