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

from referee.web import folds, site, views
from referee.web import tracker as tracker_module
from referee.web.answers import encode
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
        for n, snapshot in kept.snapshots.items():  # each kept copy is the fight after its first n lines
            assert snapshot.state.snapshot() == Folded.fold(new.row, new.stored[:n]).fight.state.snapshot()
    if answer is not None:
        assert answer["version"] == new.row.version and answer["revision"] == new.row.revision
        expected = views.referee_view(new.row, new.fight, new.stored, new.lines(), new.tabled)
        for key in ("needs", "round", "current", "order", "combatants", "winner", "notes", "suggested"):
            assert answer[key] == expected[key], key
        if kept is not None and kept.row == new.row:  # the kept suggestion of this state: the tactics' own
            assert kept.suggested() == expected["suggested"]
        assert answer["dice_asked"] == tracker_module.dice_asked(new.fight, expected["needs"])
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


@pytest.mark.parametrize(("seed", "every"), [(1, 256), (2, 256), (3, 256), (4, 4), (5, 8)])
def test_kept_fold_equals_a_fresh_fold_after_random_steps_undos_and_redos(
    tracker: Any, seed: int, every: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # rule: ODD-ROUND-1, ODD-INIT-1, ODD-ATK-1, ODD-HP-1
    # (`every`: a copy of the fight kept every so many lines, which an undo folds on from)
    monkeypatch.setattr(folds, "SNAPSHOT_EVERY", every)
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


def test_a_step_s_lines_are_encoded_from_their_stored_text_as_from_their_events(tracker: Any) -> None:
    # rule: ODD-ATK-1 (attacks, damage, defeats: each line's JSON made once from the text the store holds is
    # the JSON of the event read back, byte for byte, and a page reads the same lines back)
    eid = tracker.create(ENCOUNTER)
    for seq in range(60):
        state = tracker.state(eid)
        if state["needs"] == "over":
            break
        if state["needs"] == "action":
            assert change(tracker, eid, "engine", {"seed": seq}) is not None
        else:
            assert change(tracker, eid, "steps", {"step": state["needs"], "seed": seq}) is not None
    kept = folds_of(tracker.app.state.store).kept()[eid]
    assert len(kept.stored) > 40
    for seq in range(len(kept.stored)):
        assert kept.encoded[seq] == encode(kept.view(seq)), seq
    assert kept.lines() == [kept.view(seq) for seq in range(len(kept.stored))]


def test_a_page_s_log_rows_are_made_once_and_are_the_template_s_rows_of_the_log(tracker: Any) -> None:
    # rule: ODD-ATK-1 (the page shows every line; rows kept with the fold, through steps and an undo)
    site = tracker.app.state.site
    eid = tracker.create(ENCOUNTER)

    def play(steps: int) -> None:
        for seq in range(steps):
            state = tracker.state(eid)
            if state["needs"] == "action":
                assert change(tracker, eid, "engine", {"seed": seq}) is not None
            else:
                assert change(tracker, eid, "steps", {"step": state["needs"], "seed": seq}) is not None

    def page_rows() -> list[str]:
        assert tracker.client.get(f"/e/{eid}", headers=tracker.auth).status_code == 200
        return list(site.page_state(tracker.app.state.store.get(eid))["log_rows"])

    play(12)
    first = page_rows()
    play(6)
    assert change(tracker, eid, "undo", {"keep": 5}) is not None
    play(3)
    rendered: list[int] = []
    original = site.log_row

    def counted(line: dict[str, Any]) -> str:
        rendered.append(line["seq"])
        row: str = original(line)
        return row

    site.log_row = counted
    try:
        rows = page_rows()
    finally:
        site.log_row = original
    fresh = Folded.fold(*tracker.app.state.store.snapshot(eid))
    assert rows == [original(line) for line in fresh.lines()]
    assert rows[:5] == first[:5] and rendered == list(range(5, len(rows)))  # the first five were kept


def test_a_line_with_an_integer_past_64_bits_is_shown_exactly_on_a_page() -> None:
    # rule: ODD-HP-1 (a note's data as stored: orjson would read such a number back as a float)
    from referee.engine.events import Event
    from referee.web.store import EncounterRow, StoredEvent

    huge = 2**70
    event = Event.from_dict({"type": "action", "round": 0, "data": {"table": "note", "n": huge}})
    row = EncounterRow("x", "x", ENCOUNTER, "", "", 1, 1, 0, 0.0, 0.0)
    folded = Folded.fold(row, [StoredEvent(0, 0, event)])
    assert folded.lines()[0]["data"]["n"] == huge and type(folded.lines()[0]["data"]["n"]) is int
    assert b"1180591620717411303424" in folded.encoded_lines().json


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


def mutable_ids(value: Any, shared: set[int], seen: set[int] | None = None) -> set[int]:
    """The ids of every mutable container and object reachable from `value` (not through `shared`)."""
    seen = set() if seen is None else seen
    if isinstance(value, deep_copy_atomic()) or id(value) in shared or id(value) in seen:
        return seen
    if not isinstance(value, tuple):
        seen.add(id(value))
    if isinstance(value, dict):
        for key, item in value.items():
            mutable_ids(key, shared, seen)
            mutable_ids(item, shared, seen)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            mutable_ids(item, shared, seen)
    elif hasattr(value, "__dict__"):
        mutable_ids(vars(value), shared, seen)
    return seen


def deep_copy_atomic() -> tuple[type, ...]:
    from referee.web.folds import ATOMIC

    return ATOMIC


def test_a_clone_is_deepcopy_s_copy_and_shares_nothing_mutable(tracker: Any) -> None:
    # rule: ODD-INIT-1, MOD-COND-STUN-1 (a fight mid-round: initiative order, acted, conditions, attackers)
    import copy as copy_module

    eid = tracker.create(ENCOUNTER)
    tracker.step(eid, "begin")
    tracker.step(eid, "round", seed=3)
    stun = {"kind": "apply_condition", "actor": "Ann", "condition": "stunned", "rounds": 2}
    for path, body in (("actions", {"action": stun}), ("engine", {})):
        version = tracker.state(eid)["version"]
        response = tracker.client.post(
            f"/api/encounters/{eid}/{path}", json={"version": version, **body}, headers=tracker.auth
        )
        assert response.status_code == 200, response.text
    store = tracker.app.state.store
    with folds_of(store).lock(eid):
        fight = folds_of(store).current(eid).fight
        clone = clone_fight(fight)
        state = fight.state
        shared = {id(state.setup)} | {id(c.spec) for c in state.combatants.values()}
        memo = {id(state.setup): state.setup, **{id(c.spec): c.spec for c in state.combatants.values()}}
        expected = copy_module.deepcopy(state, memo)
        assert state.combatants["Ann"].conditions and state.acted  # what the copy must not share
        assert clone.state == expected and clone.state.snapshot() == state.snapshot()
        assert mutable_ids(clone.state, shared).isdisjoint(mutable_ids(state, shared))
        assert all(c.fight is clone.state for c in clone.state.combatants.values())
        assert (
            clone.setup is fight.setup and clone.events == fight.events and clone.events is not fight.events
        )


def test_deep_copy_hands_other_objects_to_deepcopy() -> None:
    from dataclasses import dataclass, field

    from referee.web.folds import deep_copy

    class Hooked:
        def __init__(self) -> None:
            self.copies = 0

        def __deepcopy__(self, memo: dict[int, Any]) -> Hooked:
            new = Hooked()
            new.copies = self.copies + 1
            return new

    @dataclass(frozen=True)
    class Frozen:
        items: list[int] = field(default_factory=list)

    @dataclass
    class Holder:
        hooked: Hooked
        frozen: Frozen
        pair: tuple[list[int], int]
        same: tuple[int, str] = (1, "a")
        tags: set[str] = field(default_factory=set)

    inner = [1, 2]
    original = Holder(Hooked(), Frozen([3]), (inner, 4), tags={"x"})
    original_twice = [original, original]
    copied = deep_copy(original_twice, {})
    assert copied[0] is copied[1] and copied[0] is not original  # identity kept, as deepcopy keeps it
    new = copied[0]
    assert new.hooked.copies == 1  # its own __deepcopy__
    assert new.frozen == original.frozen and new.frozen.items is not original.frozen.items
    assert new.pair == original.pair and new.pair[0] is not inner
    assert new.same is original.same  # a tuple of atomic values is its own copy
    assert new.tags == {"x"} and new.tags is not original.tags


def test_a_change_answers_with_the_state_it_left_though_another_tab_steps_right_after(
    tracker: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # rule: ODD-ROUND-1 (two tabs: the second one's note lands right after the first one's; the first answer
    # is the state its own change left, so the version it gives is where that change ended)
    import threading
    import time

    from referee.web import tracker as tracker_module

    eid = tracker.create(ENCOUNTER)
    begun = tracker.step(eid, "begin")
    store = tracker.app.state.store
    real = tracker_module.take_step
    racing: list[threading.Thread] = []

    def step_then_another_tab(*args: Any, **kwargs: Any) -> Any:
        taken = real(*args, **kwargs)
        if not racing:
            note = {"kind": "note", "text": "from the other tab"}

            def other_tab() -> None:
                real(store, taken.row, "action", version=taken.row.version, action=note)

            racing.append(threading.Thread(target=other_tab))
            racing[0].start()
            time.sleep(0.3)  # the other tab's step would be stored by now, were it not kept waiting
        return taken

    monkeypatch.setattr(tracker_module, "take_step", step_then_another_tab)
    mine = {"kind": "note", "text": "mine"}
    response = tracker.client.post(
        f"/api/encounters/{eid}/actions",
        json={"version": begun["version"], "revision": begun["revision"], "action": mine},
        headers=tracker.auth,
    )
    racing[0].join(10)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["version"] == begun["version"] + 1
    assert [e["text"] for e in answer["events_since"]] == ["note: mine"]
    assert tracker.state(eid)["version"] == begun["version"] + 2  # the other tab's note came after
    same_as_fresh(store, eid, tracker.state(eid))


def test_a_tab_behind_the_kept_fold_is_refused_without_folding_the_log_again(
    tracker: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # rule: ODD-INIT-1 (two tabs on one fight: the one that read the fight before the other's step loses
    # the race with a 409; the kept fold is the fold of the stored log, used as it is)
    from referee.web import tracker as tracker_module
    from referee.web.store import StaleVersionError

    store = tracker.app.state.store
    eid = tracker.create(ENCOUNTER)
    begun = tracker.step(eid, "begin")
    behind = store.get(eid)  # what the losing tab's request read, before the winner's step
    tracker.step(eid, "round")
    folded: list[int] = []
    real = Folded.fold.__func__  # type: ignore[attr-defined]

    def counted(cls: type[Folded], *args: Any) -> Folded:
        folded.append(1)
        return real(cls, *args)  # type: ignore[no-any-return]

    monkeypatch.setattr(Folded, "fold", classmethod(counted))
    with pytest.raises(StaleVersionError):
        tracker_module.take_step(store, behind, "round", version=begun["version"])
    assert folded == []
    with folds_of(store).lock(eid):
        assert folds_of(store).at(behind).row == store.get(eid)
    same_as_fresh(store, eid, tracker.state(eid))
    # a change made by another writer since the kept fold is still folded afresh
    folded.clear()
    other = Store(store.path)
    other.truncate(eid, other.get(eid).version, 0)
    with folds_of(store).lock(eid):
        assert folds_of(store).at(behind).row.version == 0
    assert folded == [1]


def test_the_suggested_action_is_kept_once_per_state_and_handed_out_as_a_copy(tracker: Any) -> None:
    # rule: ODD-ATK-1 (the engine's choice for the current actor, as `referee fight` makes it)
    eid = tracker.create(ENCOUNTER)
    for seq in range(3):
        state = tracker.state(eid)
        assert change(tracker, eid, "steps", {"step": state["needs"], "seed": seq}) is not None
        if tracker.state(eid)["needs"] == "action":
            break
    kept = folds_of(tracker.app.state.store).kept()[eid]
    fresh_fold = fresh(tracker.app.state.store, eid)
    current = fresh_fold.fight.next_actor()
    expected = views.suggested_action(fresh_fold.fight, current)
    assert expected is not None
    first = kept.suggested()
    assert first == expected and kept.suggested_at is not None
    assert first["kind"] == "attack"
    first["situation"]["cover"] = "changed"  # a caller's copy: the kept one is untouched
    assert kept.suggested() == expected and kept.suggested() is not kept.suggested()
    assert tracker.state(eid)["suggested"] == expected


def test_the_dice_a_step_asks_for_are_kept_once_per_state_and_handed_out_as_a_copy(tracker: Any) -> None:
    # rule: ODD-INIT-1 (a round's initiative dice, asked for before the round is rolled)
    eid = tracker.create(ENCOUNTER)
    assert change(tracker, eid, "steps", {"step": "begin", "seed": 1}) is not None
    kept = folds_of(tracker.app.state.store).kept()[eid]
    expected = tracker_module.dice_asked(fresh(tracker.app.state.store, eid).fight, "round")
    assert expected
    first = site.kept_dice(kept, "round")
    assert first == expected and kept.dice_at is not None and kept.dice_at[1] == "round"
    first[0]["sides"] = 0
    first.append({"sides": 1, "purpose": "changed"})
    assert site.kept_dice(kept, "round") == expected
    assert tracker.state(eid)["dice_asked"] == expected
