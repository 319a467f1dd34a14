"""The tracker's kept folds (src/referee/web/folds.py) never serve a state a fresh fold would not give.

Random steps (the engine's turn, begin, rounds, round ends), undos (last step, back to a line), redos,
renames and table actions, through the API; after each, the kept fold and the answer are compared with
``Fight(setup, stored events)`` rebuilt from the database alone (rules: ODD-ROUND-1, ODD-INIT-1, ODD-ATK-1,
ODD-HP-1: whatever the fight does, the state is the fold of its log).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from referee.web import views
from referee.web.folds import Folded, clone_fight, folds_of
from referee.web.store import Store

ENCOUNTER: dict[str, Any] = {
    "name": "folds",
    "max_rounds": 40,
    "sides": [
        {"name": "A", "combatants": [{"name": "Ann", "hp": 60, "weapons": ["long sword"]}]},
        {"name": "B", "combatants": [{"name": "Orc", "count": 2, "hp": 30, "weapons": ["spear"]}]},
    ],
}


def fresh(store: Store, eid: str) -> Folded:
    """The fold of the stored log, read and folded anew (no kept fold involved)."""
    return Folded.fold(*store.snapshot(eid))


def same_as_fresh(store: Store, eid: str, answer: dict[str, Any] | None = None) -> None:
    new = fresh(store, eid)
    kept = folds_of(store).kept().get(eid)
    if kept is not None and kept.row == new.row:
        assert kept.fight.state.snapshot() == new.fight.state.snapshot()
        assert kept.fight.events == new.fight.events
        assert kept.lines() == new.lines() and kept.tabled == new.tabled
    if answer is not None:
        assert answer["version"] == new.row.version and answer["revision"] == new.row.revision
        expected = views.referee_view(new.row, new.fight, new.stored, new.lines(), new.tabled)
        for key in ("needs", "round", "current", "order", "combatants", "winner", "notes", "suggested"):
            assert answer[key] == expected[key], key
        page = new.lines(new.row.version - views.LOG_PAGE)
        assert answer["events"] in (page, new.lines())


def change(tracker: Any, eid: str, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
    now = tracker.state(eid)
    seen = {"version": now["version"], "revision": now["revision"]}
    response = tracker.client.post(
        f"/api/encounters/{eid}/{path}", json={**seen, **body}, headers=tracker.auth
    )
    assert response.status_code in (200, 409, 422), response.text
    return dict(response.json()) if response.status_code == 200 else None


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kept_fold_equals_a_fresh_fold_after_random_steps_undos_and_redos(tracker: Any, seed: int) -> None:
    # rule: ODD-ROUND-1, ODD-INIT-1, ODD-ATK-1, ODD-HP-1
    rng = random.Random(seed)
    store = tracker.app.state.store
    eid = tracker.create(ENCOUNTER)
    for i in range(70):
        state = tracker.state(eid)
        same_as_fresh(store, eid, state)
        roll = rng.random()
        needs = state["needs"]
        if roll < 0.12 and state["version"]:
            keep = rng.randrange(state["version"]) if rng.random() < 0.5 else None
            answer = change(tracker, eid, "undo", {} if keep is None else {"keep": keep})
        elif roll < 0.22:
            answer = change(tracker, eid, "redo", {}) if state["redo"] else None
        elif roll < 0.26:
            tracker.client.patch(f"/api/encounters/{eid}", json={"name": f"fight {i}"}, headers=tracker.auth)
            answer = None
        elif roll < 0.32 and needs not in ("begin", "over"):
            table = {"kind": "note", "text": f"note {i}"}
            if rng.random() < 0.5:
                table = {
                    "kind": "adjust_hp",
                    "target": "Ann",
                    "amount": rng.choice([-3, 2]),
                    "reason": "test",
                }
            answer = change(tracker, eid, "actions", {"action": table, "seed": i})
        elif needs == "action":
            answer = change(tracker, eid, "engine", {"until": rng.choice(["actor", "players"]), "seed": i})
        elif needs == "over":
            answer = change(tracker, eid, "undo", {})
        else:
            answer = change(tracker, eid, "steps", {"step": needs, "seed": i})
        if answer is not None:
            same_as_fresh(store, eid, answer)
            assert answer["log_page"]["to"] == answer["version"]
            assert len(answer["events"]) <= views.LOG_PAGE
    same_as_fresh(store, eid, tracker.state(eid))


def test_a_step_answers_with_what_changed_and_a_bounded_page(tracker: Any) -> None:
    # rule: ODD-ROUND-1 (a long fight: the answer does not carry the whole log)
    eid = tracker.create(ENCOUNTER)
    answer: dict[str, Any] = {}
    while tracker.state(eid)["version"] <= views.LOG_PAGE + 10:
        state = tracker.state(eid)
        body = {"step": state["needs"], "seed": state["version"]}
        if state["needs"] == "action":
            answer = change(tracker, eid, "engine", {"seed": state["version"]}) or {}
        else:
            answer = change(tracker, eid, "steps", body) or {}
        assert answer, state["needs"]
        assert answer["events_since"] == tracker.state(eid)["events"][state["version"] :]
    assert len(answer["events"]) == views.LOG_PAGE and answer["log_page"]["complete"] is False
    assert answer["events"] == tracker.state(eid)["events"][-views.LOG_PAGE :]
    assert answer["log_page"] == {
        "from": answer["version"] - views.LOG_PAGE,
        "to": answer["version"],
        "size": views.LOG_PAGE,
        "complete": False,
    }


def test_a_change_by_another_writer_is_never_served_from_the_kept_fold(tracker: Any) -> None:
    # rule: ODD-INIT-1 (another process on the same file: the revision moved, the kept fold is not used)
    store = tracker.app.state.store
    eid = tracker.create(ENCOUNTER)
    tracker.step(eid, "begin")
    other = Store(store.path)  # a second server on the same database: a kept fold of its own
    row = other.get(eid)
    other.truncate(eid, row.version, 0)
    assert tracker.state(eid)["version"] == 0 and tracker.state(eid)["needs"] == "begin"
    same_as_fresh(store, eid, tracker.state(eid))


def test_a_clone_is_independent_of_the_kept_fight(tracker: Any) -> None:
    eid = tracker.create(ENCOUNTER)
    tracker.step(eid, "begin")
    store = tracker.app.state.store
    with folds_of(store).lock(eid):
        kept = folds_of(store).current(eid)
        copy = clone_fight(kept.fight)
        copy.state.combatants["Ann"].hp = -99
        copy.state.combatants["Ann"].conditions.clear()
        assert kept.fight.state.combatants["Ann"].hp == 60
        assert copy.state.combatants["Ann"].fight is copy.state
    same_as_fresh(store, eid, tracker.state(eid))
