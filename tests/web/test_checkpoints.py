"""The WAL's checkpoints run on a thread of their own (issue 12, item 5): it runs them, it stops with the app,
and a crash while it works loses no acknowledged write."""

from __future__ import annotations

import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from referee.engine.events import Event
from referee.web import checkpoints as checkpoints_module
from referee.web import store as store_module
from referee.web.app import Settings, create_app
from referee.web.checkpoints import Checkpointer
from referee.web.store import Store

EVENT = Event.from_dict({"type": "setup", "round": 0, "data": {"hp": {}, "note": "x" * 500}})


def wait_for(done: Callable[[], bool], seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def append_steps(store: Store, eid: str, count: int, start: int = 0) -> None:
    for version in range(start, start + count):
        store.append(eid, version, [EVENT])


def test_a_due_checkpoint_is_run_by_the_thread_and_copies_the_wal_into_the_file(tmp_path: Path) -> None:
    store = Store(tmp_path / "tracker.sqlite3")
    eid = store.create("wal", {"sides": []}).id
    assert not store.checkpoints.running  # started by the first checkpoint due, not before
    append_steps(store, eid, store_module.CHECKPOINT_EVERY - 1)  # the create was a write too
    wait_for(lambda: store.checkpoints.runs >= 1)
    assert store.checkpoints.running
    # the database file alone (no WAL) now holds every write
    alone = tmp_path / "alone.sqlite3"
    shutil.copyfile(store.path, alone)
    with sqlite3.connect(alone) as db:
        assert db.execute("SELECT COUNT(*) FROM events").fetchone()[0] == store_module.CHECKPOINT_EVERY - 1
    store.stop_checkpoints()
    assert not store.checkpoints.running


def test_the_wal_is_started_again_though_writers_never_stop(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # passive checkpoints alone never catch up with writers that keep writing, and the WAL then grew by every
    # write; once it holds RESTART_FRAMES frames the thread catches up under the write lock and restarts it
    monkeypatch.setattr(checkpoints_module, "RESTART_FRAMES", 60)
    store = Store(tmp_path / "tracker.sqlite3")
    eids = [store.create(f"wal {i}", {"sides": []}).id for i in range(4)]
    wal = Path(f"{store.path}-wal")

    def writer(eid: str) -> None:
        append_steps(store, eid, 250)

    threads = [threading.Thread(target=writer, args=(eid,)) for eid in eids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store.stop_checkpoints()
    with store._connect() as db:
        page = db.execute("PRAGMA page_size").fetchone()[0]
    # 1,000 writes of a page or two each: without restarts the WAL would hold them all (well over 1,000
    # pages); with them it is never much longer than RESTART_FRAMES and one cycle's writes
    assert wal.stat().st_size < 600 * (page + 24)
    assert all(len(store.events(eid)) == 250 for eid in eids)


def test_no_writer_checkpoints_unless_the_wal_grows_far(tmp_path: Path) -> None:
    # SQLite's own checkpoint runs inside the commit that fills the WAL: only a fallback, far above ours
    store = Store(tmp_path / "tracker.sqlite3")
    store.create("wal", {"sides": []})
    with store._connect() as db:
        pages = db.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
    assert pages == store_module.FALLBACK_CHECKPOINT_PAGES > 1000


def test_the_thread_stops_with_the_app(tmp_path: Path) -> None:
    app = create_app(Settings(db=tmp_path / "tracker.sqlite3"))
    store: Store = app.state.store
    eid = store.create("wal", {"sides": []}).id
    with TestClient(app) as client:
        auth = {"Authorization": f"Bearer {store.admin_token()}"}
        assert client.get("/api/encounters", headers=auth).status_code == 200
        append_steps(store, eid, store_module.CHECKPOINT_EVERY)
        wait_for(lambda: store.checkpoints.runs >= 1)
        assert store.checkpoints.running
    assert not store.checkpoints.running
    # a later write that makes one due starts the thread again
    append_steps(store, eid, store_module.CHECKPOINT_EVERY, start=store_module.CHECKPOINT_EVERY)
    wait_for(lambda: store.checkpoints.runs >= 2)
    store.stop_checkpoints()


def test_the_thread_ends_when_idle_and_after_a_failed_checkpoint_goes_on(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(checkpoints_module, "IDLE_SECONDS", 0.05)
    Store(tmp_path / "tracker.sqlite3")
    opened: list[int] = []

    def connect() -> sqlite3.Connection:
        opened.append(1)
        if len(opened) == 1:
            raise sqlite3.OperationalError("disk I/O error")
        return sqlite3.connect(tmp_path / "tracker.sqlite3", isolation_level=None)

    checkpoints = Checkpointer(connect, threading.Lock())
    checkpoints.request()
    wait_for(lambda: checkpoints.runs == 1)  # failed: no connection
    wait_for(lambda: not checkpoints.running)  # idle: the thread ended
    checkpoints.request()
    wait_for(lambda: checkpoints.runs == 2)
    assert len(opened) == 2  # a fresh connection, which worked
    checkpoints.stop()
    assert not checkpoints.running


CHILD = textwrap.dedent(
    """
    import sys
    from referee.engine.events import Event
    from referee.web import checkpoints, store as store_module

    store_module.CHECKPOINT_EVERY = 1  # a checkpoint asked for after every write: the thread always busy
    checkpoints.RESTART_FRAMES = 20  # and the WAL started again every few writes
    store = store_module.Store(sys.argv[1])
    eid = store.create("crash", {"sides": []}).id
    print(eid, flush=True)
    event = Event.from_dict({"type": "setup", "round": 0, "data": {"hp": {}, "note": "x" * 3000}})
    version = 0
    while True:
        store.append(eid, version, [event, event])
        version += 2
        print(version, store.checkpoints.runs, flush=True)  # acknowledged: committed and synced
    """
)


@pytest.mark.parametrize("acknowledged", [20, 150])
def test_a_crash_while_checkpoints_run_loses_no_acknowledged_write(tmp_path: Path, acknowledged: int) -> None:
    path = tmp_path / "tracker.sqlite3"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        eid = child.stdout.readline().strip()
        assert eid, child.stderr.read() if child.stderr else ""
        last = runs = count = 0
        while count < acknowledged or runs == 0:  # (and the thread has checkpointed at least once)
            last, runs = (int(x) for x in child.stdout.readline().split())
            count += 1
            assert count < 20_000, "the checkpoints' thread never ran"
        child.send_signal(signal.SIGKILL)  # mid-write, mid-checkpoint: no shutdown at all
        child.wait(10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert runs > 0  # the thread was checkpointing while the writes went on
    store = Store(path)  # opens (quick_check) and recovers from the WAL
    seqs = [e.seq for e in store.events(eid)]
    assert len(seqs) >= last  # every acknowledged write is there (and perhaps the one the kill cut short)
    assert seqs == list(range(len(seqs)))
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    store.stop_checkpoints()


def test_a_row_read_leaves_no_read_open_that_would_hold_checkpoints_back(tmp_path: Path) -> None:
    # the access check reads the row in one statement, without BEGIN and COMMIT: it must end its read at once
    store = Store(tmp_path / "tracker.sqlite3")
    eid = store.create("wal", {"sides": []}).id
    append_steps(store, eid, 5)
    assert store.get(eid).version == 5
    with sqlite3.connect(store.path) as db:
        busy, frames, copied = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    assert busy == 0 and frames == copied == 0  # nobody still reading: the whole WAL copied and emptied
    store.stop_checkpoints()


def test_a_thread_ended_by_another_error_is_started_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # not an SQLite error (e.g. out of memory): the thread ends, and the next checkpoint due starts another
    ended: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: ended.append(args.exc_value))
    calls: list[int] = []

    def connect() -> sqlite3.Connection:
        calls.append(1)
        if len(calls) == 1:
            raise MemoryError
        return sqlite3.connect(":memory:", isolation_level=None)

    checkpoints = Checkpointer(connect, threading.Lock())
    checkpoints.request()
    wait_for(lambda: not checkpoints.running)
    assert len(ended) == 1 and isinstance(ended[0], MemoryError)
    checkpoints.request()
    wait_for(lambda: checkpoints.runs == 1)
    checkpoints.stop()
    assert not checkpoints.running and len(calls) == 2
