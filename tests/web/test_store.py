"""The tracker's database: a bad one is refused in one line at start; one that fails later is a JSON error."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from conftest import angthar_data
from referee.web.app import Settings, create_app
from referee.web.store import DatabaseUnusableError, Store, from_stored


def corrupt(path: Path) -> Path:
    Store(path).new_session("*")
    raw = bytearray(path.read_bytes())
    raw[100:4000] = b"\xa5" * 3900  # the header survives, the first pages do not
    path.write_bytes(bytes(raw))
    for extra in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        extra.unlink(missing_ok=True)
    return path


def text_file(path: Path) -> Path:
    path.write_text("name: not a database\n" * 50)
    return path


def directory(path: Path) -> Path:
    path.mkdir()
    return path


def other_programs(path: Path) -> Path:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    return path


def newer(path: Path) -> Path:
    Store(path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value='99' WHERE key='schema'")
    return path


BAD = {
    "corrupt": (corrupt, "damaged|not a database|malformed"),
    "a text file": (text_file, "not a database"),
    "a directory": (directory, "not a regular file"),
    "a missing folder": (lambda p: p.parent / "nowhere" / "tracker.sqlite3", "does not exist"),
    "/dev/null": (lambda p: Path("/dev/null"), "not a regular file"),
    "another program's schema": (other_programs, "not a tracker database .*invoices"),
    "a newer schema": (newer, "schema version 99"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_database_is_refused_at_start(tmp_path: Path, case: str) -> None:
    make, message = BAD[case]
    path = make(tmp_path / "tracker.sqlite3")
    with pytest.raises(DatabaseUnusableError, match=message) as info:
        Store(path)
    assert "\n" not in str(info.value)


def read_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Open every connection read-only (as for a file the user may only read: root may write any file)."""

    def open_read_only(self: Store) -> sqlite3.Connection:
        return sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=30, isolation_level=None)

    monkeypatch.setattr(Store, "_open", open_read_only)


def test_a_read_only_database_is_refused_at_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "tracker.sqlite3"
    Store(path)
    read_only(monkeypatch)
    with pytest.raises(DatabaseUnusableError, match="readonly"):
        Store(path)


@pytest.mark.parametrize(
    "case", ["a text file", "a directory", "a missing folder", "another program's schema"]
)
def test_serve_refuses_a_bad_database_in_one_line(tmp_path: Path, case: str) -> None:
    make, message = BAD[case]
    path = make(tmp_path / "tracker.sqlite3")
    command = [sys.executable, "-c", "from referee.cli import main; main()", "serve", "--db", str(path)]
    done = subprocess.run([*command, "--port", "1"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert re.search(message, lines[0]), lines[0]
    assert "Traceback" not in done.stderr + done.stdout


def big_encounter() -> dict[str, Any]:
    """Its setup and its first step's events take more than one page of the file."""
    data = angthar_data()
    goblin = data["sides"][1]["combatants"][0]
    data["sides"][1]["combatants"] = [
        {**goblin, "name": f"Goblin of the far western marches {i:03}"} for i in range(150)
    ]
    return data


def started(tmp_path: Path) -> tuple[TestClient, dict[str, str], str]:
    app = create_app(Settings(db=tmp_path / "tracker.sqlite3"))
    client = TestClient(app)
    auth = {"Authorization": f"Bearer {app.state.store.admin_token()}"}
    eid = client.post("/api/encounters", json={"data": big_encounter()}, headers=auth).json()["id"]
    return client, auth, eid


def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every connection may not grow the file by one page: SQLite's own "database or disk is full"."""
    real = Store._open

    def open_full(self: Store) -> sqlite3.Connection:
        db = real(self)
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages}")
        return db

    monkeypatch.setattr(Store, "_open", open_full)


@pytest.mark.parametrize(("fail", "message"), [(full_disk, "full"), (read_only, "readonly")])
def test_a_database_that_fails_while_running_is_a_json_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail: Any, message: str
) -> None:
    client, auth, eid = started(tmp_path)
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    fail(monkeypatch)
    store.reconnect()  # the kept connections were opened before: every thread opens a failing one
    big = {"data": big_encounter()}
    for response in (
        client.post("/api/encounters", json=big, headers=auth),
        client.post(f"/api/encounters/{eid}/steps", json={"step": "begin", "version": 0}, headers=auth),
    ):
        assert response.status_code == 503, response.text
        error = response.json()["error"]
        assert message in error and "nothing was stored" in error and "\n" not in error
    page = client.post("/encounters", data={"source": "paste", "text": "x" * 10}, headers=auth)
    assert page.status_code in {422, 503}
    monkeypatch.undo()
    store.reconnect()
    assert client.get(f"/api/encounters/{eid}", headers=auth).json()["version"] == 0


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv to run as nobody"
)
@pytest.mark.parametrize("mode", [0o644, 0o666])  # a read-only file; a writable file in a read-only folder
def test_serve_as_a_user_who_cannot_write_the_database_refuses_to_start(mode: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="referee-ro-"))
    try:
        folder.chmod(0o755)
        path = folder / "tracker.sqlite3"
        Store(path)
        path.chmod(mode)
        command = [sys.executable, "-c", "from referee.cli import main; main()", "serve", "--db", str(path)]
        nobody = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
        done = subprocess.run([*nobody, *command, "--port", "1"], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
        assert re.search("cannot be read and written|readonly|unable to open", lines[0]), lines[0]
    finally:
        shutil.rmtree(folder)


def test_a_row_is_read_at_one_moment(tmp_path: Path) -> None:
    # every change below is one event and one revision: a row whose version and revision differ was read
    # half before and half after a write
    import threading

    from referee.engine.events import Event

    store = Store(tmp_path / "tracker.sqlite3")
    eid = store.create("torn", angthar_data()).id
    event = Event.from_dict({"type": "setup", "round": 0, "data": {"hp": {}}})
    done = threading.Event()

    def writer() -> None:
        for version in range(150):
            store.append(eid, version, [event])
        done.set()

    thread = threading.Thread(target=writer)
    thread.start()
    torn = []
    while not done.is_set():
        row = store.get(eid)
        if row.version != row.revision:
            torn.append((row.version, row.revision))
    thread.join()
    assert torn == []


def test_each_thread_keeps_its_own_connection(tmp_path: Path) -> None:
    # opening and closing a connection per call cost more than a step's queries (issue 12, item 5)
    import threading

    store = Store(tmp_path / "tracker.sqlite3")
    eid = store.create("kept", angthar_data()).id
    opened: list[sqlite3.Connection] = []
    real = Store._open

    def counting(self: Store) -> sqlite3.Connection:
        opened.append(real(self))
        return opened[-1]

    Store._open = counting  # type: ignore[method-assign]
    try:
        store.reconnect()
        for _ in range(5):
            store.get(eid)
        assert len(opened) == 1
        thread = threading.Thread(target=lambda: [store.get(eid) for _ in range(5)])
        thread.start()
        thread.join()
        assert len(opened) == 2 and opened[0] is not opened[1]
        store.reconnect()  # every thread opens afresh at its next call
        store.get(eid)
        assert len(opened) == 3
    finally:
        Store._open = real  # type: ignore[method-assign]


def test_a_connection_that_failed_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.engine.events import Event

    path = tmp_path / "tracker.sqlite3"
    store = Store(path)
    eid = store.create("full", angthar_data()).id
    event = Event.from_dict({"type": "setup", "round": 0, "data": {"hp": {}, "note": "x" * 20_000}})
    full_disk(monkeypatch)
    store.reconnect()
    with pytest.raises(sqlite3.OperationalError, match="full"):
        store.append(eid, 0, [event])
    monkeypatch.undo()  # the disk has room again: the failed connection was dropped, a fresh one is used
    assert store.append(eid, 0, [event]).version == 1
    assert store.get(eid).version == 1 and store.events(eid)[0].event == event


def test_the_version_is_the_count_of_the_log(tmp_path: Path) -> None:
    # the version is read as the last line + 1 (the primary key's index): the same as counting the lines
    from referee.engine.events import Event

    store = Store(tmp_path / "tracker.sqlite3")
    eid = store.create("count", angthar_data()).id
    event = Event.from_dict({"type": "setup", "round": 0, "data": {"hp": {}}})
    for version in range(6):
        store.append(eid, 2 * version, [event, event])
    store.truncate(eid, 12, 5)
    store.truncate(eid, 5, 2)
    store.redo(eid, 2)
    with sqlite3.connect(store.path) as db:
        counted = db.execute("SELECT COUNT(*) FROM events WHERE encounter=?", (eid,)).fetchone()[0]
    assert store.get(eid).version == counted == 5
    assert [s.seq for s in store.events(eid)] == list(range(5))


def test_a_redo_gives_back_the_lines_it_put_back(tmp_path: Path) -> None:
    # what a kept fold pushes after a redo: the lines as stored, in order, with their steps
    from referee.engine.events import Event

    store = Store(tmp_path / "tracker.sqlite3")
    eid = store.create("redo", angthar_data()).id
    events = [Event.from_dict({"type": "setup", "round": 0, "data": {"n": n}}) for n in range(6)]
    for version in range(3):
        store.append(eid, 2 * version, events[2 * version : 2 * version + 2])
    stored = store.events(eid)
    store.truncate(eid, 6, 3)  # back to the middle of the second step
    row, lines = store.redo_lines(eid, 3)
    assert row.version == 6 and row == store.get(eid)
    assert (
        [(seq, step) for seq, step, _ in lines]
        == [(s.seq, s.step) for s in stored[3:]]
        == [(3, 2), (4, 4), (5, 4)]
    )
    assert [from_stored(text) for _, _, text in lines] == [s.event for s in stored[3:]]


def test_the_wal_is_checkpointed_after_the_write_lock_is_released(tmp_path: Path) -> None:
    # a checkpoint inside a commit made every other writer wait for it, and one run by the request whose
    # write made it due was in that step's answer time (issue 12, item 5): the checkpoints' thread runs them
    import threading

    from referee.engine.events import Event
    from referee.web import store as store_module

    store = Store(tmp_path / "tracker.sqlite3")
    eid = store.create("wal", angthar_data()).id
    seen: list[tuple[str, bool, str]] = []
    real = Store._open

    def traced(self: Store) -> sqlite3.Connection:
        db = real(self)
        db.set_trace_callback(
            lambda sql: seen.append((sql, store._writing.locked(), threading.current_thread().name))
        )
        return db

    Store._open = traced  # type: ignore[method-assign]
    try:
        store.reconnect()
        event = Event.from_dict({"type": "setup", "round": 0, "data": {"hp": {}}})
        for version in range(2 * store_module.CHECKPOINT_EVERY):
            store.append(eid, version, [event])
        store.stop_checkpoints()  # after the checkpoint already asked for
    finally:
        Store._open = real  # type: ignore[method-assign]
    checkpoints = [thread for sql, _, thread in seen if "wal_checkpoint" in sql]
    # every CHECKPOINT_EVERY writes (two asked for while one runs make one), always on the checkpoints'
    # thread: never by a writer (which holds the write lock while it commits) nor in a request's time
    assert checkpoints in (["referee-checkpoints"], ["referee-checkpoints"] * 2)
    assert not store.checkpoints.running
    assert sum(sql == "COMMIT" for sql, _, _ in seen) == 2 * store_module.CHECKPOINT_EVERY
    with sqlite3.connect(store.path) as db:
        assert db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[0] == 0
    assert store.get(eid).version == 2 * store_module.CHECKPOINT_EVERY
