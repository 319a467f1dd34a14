"""Group commit (referee/web/commits.py): writes waiting together share one transaction and one fsync, and each
gets its own result or error, as if it had been a transaction of its own."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import angthar_data
from referee.web.commits import GroupCommit, Write
from referee.web.store import StaleVersionError, Store


class Traced(sqlite3.Connection):
    """A connection that keeps the statements it ran."""

    statements: list[str]


def _database(path: Path) -> Callable[[], Traced]:
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, factory=Traced)
    db.execute("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)")
    db.statements = []
    db.set_trace_callback(db.statements.append)
    return lambda: db


def _one_group(
    commits: GroupCommit, connect: Callable[[], sqlite3.Connection], works: list[Any]
) -> list[Write[Any]]:
    """Run every work in one group: the lock is held until all of them wait, so the first one's thread leads
    a group of them all."""
    writes: list[Write[Any] | None] = [None] * len(works)

    def writer(i: int) -> None:
        writes[i] = commits.run(connect, works[i])[0]

    with commits.lock:
        threads = [threading.Thread(target=writer, args=(i,)) for i in range(len(works))]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 10
        while len(commits._queue) < len(works) and time.monotonic() < deadline:
            time.sleep(0.001)
        assert len(commits._queue) == len(works)
    for t in threads:
        t.join(10)
    assert all(w is not None and w.done for w in writes)
    return [w for w in writes if w is not None]


def _insert(key: str) -> Callable[[sqlite3.Connection], str]:
    def work(db: sqlite3.Connection) -> str:
        db.execute("INSERT INTO t VALUES (?, 1)", (key,))
        return key

    return work


def _keys(connect: Callable[[], sqlite3.Connection]) -> list[str]:
    return sorted(r[0] for r in connect().execute("SELECT k FROM t"))


def test_waiting_writes_share_one_commit(tmp_path: Path) -> None:
    connect = _database(tmp_path / "t.sqlite3")
    commits = GroupCommit(threading.Lock(), every=1000)
    writes = _one_group(commits, connect, [_insert(f"k{i}") for i in range(6)])
    assert sorted(w.outcome() for w in writes) == [f"k{i}" for i in range(6)]
    assert _keys(connect) == [f"k{i}" for i in range(6)]
    assert connect().statements.count("COMMIT") == 1


def test_a_write_that_fails_is_rolled_back_alone(tmp_path: Path) -> None:
    connect = _database(tmp_path / "t.sqlite3")
    commits = GroupCommit(threading.Lock(), every=1000)

    def half_then_fail(db: sqlite3.Connection) -> None:
        db.execute("INSERT INTO t VALUES ('half', 1)")
        raise StaleVersionError("stale")

    writes = _one_group(commits, connect, [_insert("a"), half_then_fail, _insert("b")])
    errors = [w.error for w in writes]
    assert sum(isinstance(e, StaleVersionError) for e in errors) == 1
    assert _keys(connect) == ["a", "b"]  # nothing of the failed write is stored
    for w in writes:
        if w.error is not None:
            with pytest.raises(StaleVersionError):
                w.outcome()


def test_a_write_that_ends_the_transaction_takes_the_earlier_ones_with_it(tmp_path: Path) -> None:
    # SQLite rolls a transaction back by itself after e.g. "database or disk is full": the writes run before it
    # in the group are not stored and say so; the writes after it are stored in a new transaction
    connect = _database(tmp_path / "t.sqlite3")
    commits = GroupCommit(threading.Lock(), every=1000)
    ran: list[str] = []

    def noted(key: str) -> Callable[[sqlite3.Connection], str]:
        def work(db: sqlite3.Connection) -> str:
            ran.append(key)
            return _insert(key)(db)

        return work

    def disk_full(db: sqlite3.Connection) -> None:
        ran.append("full")
        db.execute("ROLLBACK")
        raise sqlite3.OperationalError("database or disk is full")

    writes = _one_group(commits, connect, [noted("a"), disk_full, noted("b")])
    order = ran.index("full")
    before, after = ran[:order], ran[order + 1 :]
    assert _keys(connect) == sorted(after)
    for w in writes:
        if w.error is None:
            assert w.outcome() in after
        else:
            assert isinstance(w.error, sqlite3.OperationalError) and "full" in str(w.error)
    assert sum(w.error is not None for w in writes) == 1 + len(before)


def test_a_leader_without_a_connection_fails_every_write_and_leaves_nobody_waiting(tmp_path: Path) -> None:
    commits = GroupCommit(threading.Lock(), every=1000)

    def no_database() -> sqlite3.Connection:
        raise sqlite3.OperationalError("unable to open database file")

    writes = _one_group(commits, no_database, [_insert("a"), _insert("b"), _insert("c")])
    assert all(isinstance(w.error, sqlite3.OperationalError) for w in writes)
    # the next write leads a group of its own
    connect = _database(tmp_path / "t.sqlite3")
    assert commits.run(connect, _insert("d"))[0].outcome() == "d"


def test_a_checkpoint_is_due_every_so_many_stored_writes(tmp_path: Path) -> None:
    connect = _database(tmp_path / "t.sqlite3")
    commits = GroupCommit(threading.Lock(), every=4)
    due = [commits.run(connect, _insert(f"k{i}"))[2] for i in range(9)]
    assert due == [False, False, False, True, False, False, False, True, False]
    writes = _one_group(commits, connect, [_insert(f"g{i}") for i in range(5)])  # 9 -> 14: crosses 12
    assert all(w.error is None for w in writes) and commits.stored == 14


def test_concurrent_steps_on_the_store_are_each_stored_once(tmp_path: Path) -> None:
    # eight threads appending to their own encounters and racing on a shared one: every acknowledged append is
    # in the log exactly once, every refused one is not, and the log has no gap
    from referee.engine.events import Event

    store = Store(tmp_path / "tracker.sqlite3")
    own = [store.create(f"own {i}", angthar_data()).id for i in range(8)]
    shared = store.create("shared", angthar_data()).id
    event = Event.from_dict({"type": "setup", "round": 0, "data": {"hp": {}}})
    acknowledged: list[int] = []
    guard = threading.Lock()

    def writer(i: int) -> None:
        for n in range(25):
            store.append(own[i], n, [event])
            row = store.get(shared)
            try:
                store.append(shared, row.version, [event, event], revision=row.revision)
            except StaleVersionError:
                continue
            with guard:
                acknowledged.append(row.version)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert all(store.get(e).version == 25 for e in own)
    assert sorted(acknowledged) == list(range(0, 2 * len(acknowledged), 2))
    assert [s.seq for s in store.events(shared)] == list(range(2 * len(acknowledged)))
    with sqlite3.connect(store.path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
