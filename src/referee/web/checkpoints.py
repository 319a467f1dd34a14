"""The WAL's checkpoints, run on a thread of their own rather than by a request (issue 12, item 5).

A checkpoint copies the pages committed to the WAL into the database file and syncs that file: 5-100 ms on
the development machine, more when the disk is shared. Run by the request whose write made one due (every
:data:`referee.web.store.CHECKPOINT_EVERY`-th write), it was in the answer time of one step in seventy, which
is where the slowest hundredth of the steps is measured; left to SQLite, the commit that fills the WAL
runs it while holding the write lock, and every writer waits. Here a write that makes one due only wakes
:class:`Checkpointer`'s thread, which runs a passive checkpoint on its own connection: it waits for no
writer and no writer waits for it.

A passive checkpoint never catches up with writers that keep writing (the frames they add while it copies
are left for the next one), and SQLite starts the WAL again from its beginning only once every frame has
been copied: left alone, the WAL grew by every write (10 MB in 1,200 steps), each commit then made the
file longer (a slower fsync) and the one that reached SQLite's own limit copied all of it under the write
lock. So once the WAL holds :data:`RESTART_FRAMES` frames, the thread copies what the writers added
meanwhile while holding the store's write lock (a few frames; no writer of this process waits longer than
that) in a ``RESTART`` checkpoint, which lets the next write start the WAL again; readers still reading it
are waited for at most :data:`RESTART_WAIT_MS` (then it is tried again next time).

Nothing is weakened: every commit is on disk in the WAL before its writer answers (``synchronous=FULL``);
a checkpoint only copies committed pages, and a crash during one is recovered from the WAL when the file
is opened next. SQLite's own checkpoint stays on, at a size the thread keeps the WAL well under, so the WAL
stays bounded even if the thread falls behind.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from contextlib import suppress

IDLE_SECONDS = 30.0  # no checkpoint asked for this long: the thread ends (the next one due starts another)
STOP_SECONDS = 10.0  # how long stopping waits for a checkpoint under way
RESTART_FRAMES = 1000  # a WAL this long (4 MB) is started again (SQLite's own default limit)
RESTART_WAIT_MS = 20  # how long a restart waits for readers still reading the WAL, holding the write lock


def checkpoint(db: sqlite3.Connection, mode: str = "PASSIVE") -> int:
    """A checkpoint of the WAL (passive: waits for nobody); the frames in the WAL, or 0 when it could not run
    now (another is running: the writes before it are committed, and the next checkpoint copies them)."""
    try:
        found = db.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
    except sqlite3.OperationalError:
        return 0
    return int(found[1]) if found is not None and found[1] is not None else 0


class Checkpointer:
    """Runs the checkpoints that :meth:`request` asks for on one thread with its own connection (made by
    `connect`), started when the first is asked for and ended by :meth:`stop` or after :data:`IDLE_SECONDS`
    with nothing to do. Requests that come while one runs make one more checkpoint, not one each."""

    def __init__(self, connect: Callable[[], sqlite3.Connection], writing: threading.Lock) -> None:
        self._connect = connect
        self._writing = writing  # the store's write lock: held for the catch-up before a restart
        self._turn = threading.Condition(threading.Lock())
        self._asked = False
        self._stopping = False
        self._thread: threading.Thread | None = None
        self.runs = 0  # checkpoints run so far (what the tests watch)

    @property
    def running(self) -> bool:
        with self._turn:
            return self._thread is not None

    def request(self) -> None:
        """Ask for a checkpoint soon; returns at once."""
        with self._turn:
            self._asked = True
            if self._thread is None:
                self._stopping = False
                self._thread = threading.Thread(target=self._run, name="referee-checkpoints", daemon=True)
                self._thread.start()
            self._turn.notify()

    def stop(self, timeout: float = STOP_SECONDS) -> None:
        """End the thread, after the checkpoint already asked for (if any); a later :meth:`request` starts
        another. Called when the app stops."""
        with self._turn:
            thread = self._thread
            self._stopping = True
            self._turn.notify()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def _run(self) -> None:
        db: sqlite3.Connection | None = None
        try:
            while self._next():
                try:
                    if db is None:
                        db = self._connect()
                        db.execute(f"PRAGMA busy_timeout={RESTART_WAIT_MS}")
                    if checkpoint(db) >= RESTART_FRAMES:
                        with self._writing:  # the few frames written meanwhile, then the WAL starts again
                            checkpoint(db, "RESTART")
                except sqlite3.Error:  # e.g. the disk failed: a fresh connection for the next one
                    if db is not None:
                        with suppress(sqlite3.Error):
                            db.close()
                    db = None
                self.runs += 1
        finally:
            if db is not None:
                with suppress(sqlite3.Error):
                    db.close()
            with self._turn:  # ended by an error of another kind: the next request starts a new thread
                if self._thread is threading.current_thread():
                    self._thread = None

    def _next(self) -> bool:
        """Wait until a checkpoint is asked for (True) or the thread is to end (False, and it is forgotten,
        so that the next request starts a new one)."""
        with self._turn:
            while not self._asked and not self._stopping:
                if not self._turn.wait(IDLE_SECONDS) and not self._asked:
                    break
            if self._asked:
                self._asked = False
                return True
            self._thread = None
            return False
