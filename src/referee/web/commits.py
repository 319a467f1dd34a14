"""Group commit: the writes that threads of one process wait to make go into one transaction and one fsync.

With ``synchronous=FULL`` every commit syncs the WAL to disk before it returns (1-2 ms on the development
machine, more when the disk is shared), and a writer holds the write lock while it does: eight clients
stepping at once queued behind each other's fsyncs. Here a writer that finds another one committing leaves
its write in a queue and waits; the next one to lead takes every queued write, runs each in a savepoint of
one ``BEGIN IMMEDIATE`` transaction (so one that fails, e.g. on a stale version, is rolled back alone and the
others are kept), commits them with one fsync, and hands each writer its own result or error. Nothing is
weakened: a writer gets its answer only after the commit that holds its write is on disk, and what a write
reads in its transaction (a version check, the row it leaves) sees exactly the writes before it, as if each
had been a transaction of its own.
"""

from __future__ import annotations

import copy
import sqlite3
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Write(Generic[T]):
    """One writer's part of a group: its work, and once the group is done, its result or its error."""

    __slots__ = ("done", "error", "result", "work")

    def __init__(self, work: Callable[[sqlite3.Connection], T]) -> None:
        self.work = work
        self.done = False
        self.result: T | None = None
        self.error: BaseException | None = None

    def outcome(self) -> T:
        if self.error is not None:
            raise self.error
        return self.result  # type: ignore[return-value]


class GroupCommit:
    """The queue of one store's writes. `lock` is held while a group runs; every `every`-th write stored
    makes the leader's :meth:`run` report that a checkpoint is due (to be run after the lock is released)."""

    def __init__(self, lock: threading.Lock, every: int) -> None:
        self.lock = lock
        self.every = every
        self.stored = 0  # writes committed so far
        self._queue: list[Write[Any]] = []
        self._turn = threading.Condition(threading.Lock())
        self._leading = False

    def run(
        self, connect: Callable[[], sqlite3.Connection], work: Callable[[sqlite3.Connection], T]
    ) -> tuple[Write[T], list[Write[Any]], bool]:
        """Queue `work` and wait until a group has committed it, leading that group if no one else leads.
        Returns the write (its :meth:`Write.outcome`), the group this thread led (empty when another
        thread's group carried the write) and whether a checkpoint is due; `connect()` gives the leader its
        connection."""
        write = Write(work)
        with self._turn:
            self._queue.append(write)
            while self._leading and not write.done:
                self._turn.wait()
            if write.done:
                return write, [], False
            self._leading = True
        group: list[Write[Any]] = []
        due = False
        try:
            with self.lock:
                with self._turn:
                    group, self._queue = self._queue, []
                try:
                    db = connect()
                except BaseException as exc:
                    _fail(group, exc)
                else:
                    run_group(db, group)
                before, self.stored = self.stored, self.stored + sum(w.error is None for w in group)
                due = before // self.every != self.stored // self.every
        finally:
            with self._turn:
                _fail([w for w in group if not w.done], None)  # never leave a writer waiting
                self._leading = False
                self._turn.notify_all()
        return write, group, due


def run_group(db: sqlite3.Connection, group: list[Write[Any]]) -> None:
    """Run the writes of `group` in one transaction, one savepoint each (none for a write alone), and commit
    them together. A write whose error ended the whole transaction (SQLite rolls back by itself after e.g.
    "database or disk is full") takes the writes before it down with it, none of them stored; those after
    it start a new transaction."""
    pending = list(group)
    alone = len(group) == 1
    while pending:
        try:
            db.execute("BEGIN IMMEDIATE")
        except BaseException as exc:
            _fail(pending, exc)
            return
        ran: list[Write[Any]] = []
        lost = False
        while pending and not lost:
            write = pending.pop(0)
            if _run_one(db, write, alone=alone):
                ran.append(write)
            elif not db.in_transaction:  # the transaction is gone, and the writes before this one with it
                _fail(ran, write.error)
                lost = True
        if lost:
            continue
        try:
            db.execute("COMMIT")
        except BaseException as exc:
            if db.in_transaction:
                db.execute("ROLLBACK")
            _fail(ran, exc)
        for w in ran:
            w.done = True


def _run_one(db: sqlite3.Connection, write: Write[Any], *, alone: bool) -> bool:
    """Run one write in its savepoint; True if it ran, False if it failed (then it is done, with its error,
    and whatever it did is rolled back)."""
    if not alone:
        db.execute("SAVEPOINT one_write")
    try:
        write.result = write.work(db)
    except BaseException as exc:
        write.error, write.done = exc, True
        if db.in_transaction:
            db.execute("ROLLBACK" if alone else "ROLLBACK TO one_write")
            if not alone:
                db.execute("RELEASE one_write")
        return False
    if not alone:
        db.execute("RELEASE one_write")
    return True


def _fail(writes: list[Write[Any]], exc: BaseException | None) -> None:
    """Each write gets the error that kept it from being stored (a copy of its own, raised in its thread)."""
    for w in writes:
        w.result, w.error, w.done = None, _copy_of(exc), True


def _copy_of(exc: BaseException | None) -> BaseException:
    if exc is None:
        return sqlite3.OperationalError("the write was not stored")
    try:
        return copy.copy(exc)
    except Exception:  # an exception that cannot be copied: the same object
        return exc
