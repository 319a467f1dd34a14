"""The tracker's event store: one SQLite file (WAL), one row per encounter, an append-only event log.

An encounter row holds its setup (the encounter data with the ruleset frozen in), a secret referee token and
an unguessable player token. Its `version` is the number of events in its log; its `revision` is a counter that
every change (a step, an undo, a redo, a rename) moves on by one and that never goes back, so it tells two
histories of the same length apart (undo one step, take another: same version, new revision). Every write names
the version and, when the caller knows it, the revision it was made on, and runs in one `BEGIN IMMEDIATE`
transaction, so two tabs can never duplicate, lose or overwrite an event: the second writer gets
:class:`StaleVersionError`. Undone events go to a per-encounter redo stack, which the next new step clears.
The fight itself is never stored: it is always ``Fight(setup, events)``.

The file is checked when the store opens (a regular file or none yet, in an existing folder; SQLite's
`quick_check`; this program's tables and schema version; a test write), so a bad database is refused in one
line at start, never halfway through a fight. Browser sessions live here too (`sessions`): only a digest of each
session value is stored, with what it opens and its CSRF token.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from referee.engine.events import Event
from referee.errors import StoreError
from referee.web.checkpoints import Checkpointer
from referee.web.commits import GroupCommit

T = TypeVar("T")

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS encounters (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    setup TEXT NOT NULL,
    referee_token TEXT NOT NULL,
    player_token TEXT NOT NULL,
    revision INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    encounter TEXT NOT NULL REFERENCES encounters(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    step INTEGER NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (encounter, seq)
);
CREATE TABLE IF NOT EXISTS sessions (
    digest TEXT PRIMARY KEY,
    scope TEXT NOT NULL,
    csrf TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS redo (
    encounter TEXT NOT NULL REFERENCES encounters(id) ON DELETE CASCADE,
    grp INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    step INTEGER NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (encounter, grp, seq)
);
"""


# 2: browser sessions (round 1's files, version 1, have no `schema` key and are upgraded on open)
SCHEMA_VERSION = 2
OUR_TABLES = {"meta", "encounters", "events", "redo"}
# The WAL is checkpointed after this many writes (a few hundred pages), on the checkpoints' own thread.
CHECKPOINT_EVERY = 64
# SQLite's own checkpoint, run by the commit that fills the WAL to this many pages while it holds the write
# lock: only the fallback, should the checkpoints' thread fall behind (SQLite's default is 1000, which the
# WAL reached between two checkpoints of ours under load).
FALLBACK_CHECKPOINT_PAGES = 10_000
# A browser session lasts a week at most (a revoked or expired one is refused; log in again).
SESSION_SECONDS = 7 * 24 * 3600


class DatabaseUnusableError(StoreError):
    """The tracker's database cannot be used (missing folder, not a file, corrupt, another program's, read-only)."""


class UnknownEncounterError(StoreError, LookupError):
    """No encounter with that id."""


class StaleVersionError(StoreError):
    """The change was made on an older version or revision of the fight than the stored one."""


@dataclass(frozen=True)
class EncounterRow:
    id: str
    name: str
    setup: dict[str, Any]
    referee_token: str
    player_token: str
    version: int
    revision: int
    redo_groups: int
    created: float
    updated: float


@dataclass(frozen=True)
class Session:
    """What a browser session opens: `scope` is ``*`` (the whole tracker) or one encounter's id."""

    scope: str
    csrf: str


@dataclass(frozen=True)
class StoredEvent:
    seq: int  # 0-based line of the log
    step: int  # seq of the first event of the step it belongs to (begin, a round, an action...)
    event: Event


def new_token() -> str:
    """32 random bytes, URL-safe: unguessable."""
    return secrets.token_urlsafe(32)


class Store:
    """All reads and writes of the tracker's SQLite file (thread-safe: each thread has its own connection,
    opened on its first call and kept, because opening and closing one cost more than a step's queries)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._admin_token: str | None = None
        # this process's writers take turns here rather than in SQLite's busy handler, which sleeps in steps
        # of up to 100 ms while the write lock is held (the tail of every step under load); another process
        # on the same file still waits in the busy handler
        self._writing = threading.Lock()
        # concurrent writes share one commit (and its fsync); every CHECKPOINT_EVERY-th checkpoints the WAL
        self._commits = GroupCommit(self._writing, CHECKPOINT_EVERY)
        # and the checkpoints run on a thread of their own, never in a request's time (:mod:`.checkpoints`;
        # started when the first is due, so a file refused below leaves no thread behind)
        self.checkpoints = Checkpointer(lambda: self._configured(self._open()), self._writing)
        self._local = threading.local()  # this thread's kept connection and the generation it was opened in
        self._generation = 0
        _check_path(self.path)
        try:
            db = self._configured(self._open())  # its own: a file refused here leaves no kept connection
            try:
                _check_contents(db)
                db.execute("PRAGMA journal_mode=WAL")
                db.executescript(SCHEMA)
                db.execute("BEGIN IMMEDIATE")
                if db.execute("SELECT 1 FROM meta WHERE key='admin_token'").fetchone() is None:
                    db.execute("INSERT INTO meta VALUES ('admin_token', ?)", (new_token(),))
                # a real write: a read-only file or folder is refused now, not at the first step
                db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
                db.execute("COMMIT")
            finally:
                db.close()
        except sqlite3.Error as exc:
            raise DatabaseUnusableError(f"cannot use {self.path} as the tracker's database: {exc}") from None
        # One idle connection held open for the store's life: otherwise a connection closed when its thread
        # ends may be the last one, and SQLite then checkpoints the whole WAL into the file (and syncs it) on
        # the close. The WAL is checkpointed as it grows instead (every CHECKPOINT_EVERY writes, :meth:`_write`).
        self._keeper = self._open()

    def _open(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30, isolation_level=None)

    def reconnect(self) -> None:
        """Let every thread open a fresh connection at its next call (e.g. once the file's permissions or
        limits changed): a kept connection is closed by its own thread, which alone may use it."""
        self._generation += 1

    def _kept(self) -> sqlite3.Connection:
        local = self._local
        db: sqlite3.Connection | None = getattr(local, "db", None)
        if db is None or local.generation != self._generation:
            if db is not None:
                local.db = None
                db.close()
            db = self._configured(self._open())
            local.db, local.generation = db, self._generation
        return db

    @staticmethod
    def _configured(db: sqlite3.Connection) -> sqlite3.Connection:
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA synchronous=FULL")  # a SIGKILL right after a 200 must not lose the step
        db.execute(f"PRAGMA wal_autocheckpoint={FALLBACK_CHECKPOINT_PAGES}")
        return db

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """This thread's kept connection, outside any transaction. After a failure of SQLite's (disk full,
        I/O error) it is closed, so that the next call starts on a fresh one."""
        db = self._kept()
        if db.in_transaction:  # called inside another call's transaction (none is): a connection of its own
            with closing(self._configured(self._open())) as own:
                yield own
            return
        try:
            yield db
        except sqlite3.Error:
            self._local.db = None
            db.close()
            raise

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """One read transaction: every SELECT in it sees the same moment (WAL), so a row's version, revision
        and log never come from two different writes."""
        with self._connect() as db:
            db.execute("BEGIN")
            try:
                yield db
            finally:
                if db.in_transaction:
                    db.execute("COMMIT")

    def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work` in a write transaction (the version checks and the writes of one change are atomic),
        committed together with the writes other threads are waiting to make (:mod:`.commits`): one fsync for
        all of them, each rolled back alone if it fails. Returns once its commit is on disk."""
        write, led, due = self._commits.run(self._kept, work)
        if any(isinstance(w.error, sqlite3.Error) for w in led):  # this thread's connection failed: not kept
            self._drop_connection()
        if due:
            # the WAL's committed pages copied into the file soon, by the checkpoints' thread: not in this
            # request's time, and not under the write lock (left to SQLite, the commit that fills the WAL
            # does it and every other writer waits); each commit is on disk in the WAL already
            self.checkpoints.request()
        return write.outcome()

    def stop_checkpoints(self) -> None:
        """End the checkpoints' thread after the checkpoint already asked for (the app's shutdown); the next
        one due starts it again."""
        self.checkpoints.stop()

    def _drop_connection(self) -> None:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        self._local.db = None
        if db is not None:
            with suppress(sqlite3.Error):
                db.close()

    # --- server ------------------------------------------------------------------------------------

    def admin_token(self) -> str:
        # made once when the file is first opened and never changed: read once (every request checks it)
        if self._admin_token is None:
            with self._connect() as db:
                self._admin_token = str(
                    db.execute("SELECT value FROM meta WHERE key='admin_token'").fetchone()[0]
                )
        return self._admin_token

    # --- browser sessions (docs/tracker.md, "Security model") -------------------------------------

    def new_session(self, scope: str) -> tuple[str, Session]:
        """A fresh session value for one browser (never the server's token) and what it opens."""
        value, session = new_token(), Session(scope, new_token())
        now = time.time()

        def work(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM sessions WHERE created < ?", (now - SESSION_SECONDS,))
            db.execute("INSERT INTO sessions VALUES (?, ?, ?, ?)", (_digest(value), scope, session.csrf, now))

        self._write(work)
        return value, session

    def session(self, value: str) -> Session | None:
        """The live session with this value, or None (unknown, revoked or expired)."""
        with self._connect() as db:
            found = db.execute(
                "SELECT scope, csrf FROM sessions WHERE digest=? AND created >= ?",
                (_digest(value), time.time() - SESSION_SECONDS),
            ).fetchone()
        return None if found is None else Session(found[0], found[1])

    def revoke_session(self, value: str) -> None:
        self._write(lambda db: db.execute("DELETE FROM sessions WHERE digest=?", (_digest(value),)))

    # --- encounters --------------------------------------------------------------------------------

    def create(
        self, name: str, setup: dict[str, Any], events: Sequence[tuple[int, Event]] = ()
    ) -> EncounterRow:
        """A new encounter (revision 0); `events` (step, event) pairs come from an imported export, which
        counts as the encounter's first change (revision 1)."""
        now = time.time()
        encounter_id = secrets.token_hex(6)
        revision = 1 if events else 0

        def work(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT INTO encounters VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (encounter_id, name, json.dumps(setup), new_token(), new_token(), revision, now, now),
            )
            _insert_events(db, encounter_id, 0, events)

        self._write(work)
        return self.get(encounter_id)

    def encounters(self) -> list[EncounterRow]:
        with self._read() as db:
            ids = [r[0] for r in db.execute("SELECT id FROM encounters ORDER BY updated DESC")]
            return [_row(db, i) for i in ids]

    def get(self, encounter_id: str) -> EncounterRow:
        # One statement reads one moment by itself: no BEGIN and COMMIT around it. Every request's access
        # check runs this on the event loop, and each call into SQLite lets go of the GIL and waits to take
        # it back behind the threads computing steps (under load: reads of 5-60 ms, about 0.9 s of a 10 s run).
        with self._connect() as db:
            return _row(db, encounter_id)

    def rename(self, encounter_id: str, name: str) -> EncounterRow:
        def work(db: sqlite3.Connection) -> None:
            _row(db, encounter_id)
            db.execute(
                "UPDATE encounters SET name=?, revision=revision+1, updated=? WHERE id=?",
                (name, time.time(), encounter_id),
            )

        self._write(work)
        return self.get(encounter_id)

    def delete(self, encounter_id: str) -> None:
        def work(db: sqlite3.Connection) -> None:
            _row(db, encounter_id)
            db.execute("DELETE FROM encounters WHERE id=?", (encounter_id,))

        self._write(work)

    # --- the log -----------------------------------------------------------------------------------

    def events(self, encounter_id: str) -> list[StoredEvent]:
        with self._read() as db:
            _row(db, encounter_id)
            return _events(db, encounter_id)

    def snapshot(self, encounter_id: str) -> tuple[EncounterRow, list[StoredEvent]]:
        """The row and its log read in one transaction, so they belong together (same version and revision)."""
        with self._read() as db:
            return _row(db, encounter_id), _events(db, encounter_id)

    def append(
        self,
        encounter_id: str,
        version: int,
        events: Sequence[Event],
        *,
        revision: int | None = None,
        texts: Sequence[str] | None = None,
    ) -> EncounterRow:
        """Add one step's events on top of `version` (and `revision`, if given); a new step clears the redo
        stack. The setup never changes after creation: what a step decides is in its events. `texts`: the
        events' :func:`stored_texts`, when the caller has made them already."""
        if texts is None:
            texts = stored_texts(events)
        rows = [(encounter_id, version + i, version, text) for i, text in enumerate(texts)]

        def work(db: sqlite3.Connection) -> EncounterRow:
            _check_seen(db, encounter_id, version, revision)
            db.executemany("INSERT INTO events VALUES (?, ?, ?, ?)", rows)
            db.execute("DELETE FROM redo WHERE encounter=?", (encounter_id,))
            return _touch(db, encounter_id)

        return self._write(work)

    def truncate(
        self, encounter_id: str, version: int, keep: int, *, revision: int | None = None
    ) -> EncounterRow:
        """Keep the first `keep` events; the rest go onto the redo stack as one group."""

        def work(db: sqlite3.Connection) -> EncounterRow:
            _check_seen(db, encounter_id, version, revision)
            if not 0 <= keep < version:
                raise StoreError(f"cannot undo back to line {keep}: the log has lines 0 to {version - 1}")
            grp = db.execute(
                "SELECT COALESCE(MAX(grp), -1) + 1 FROM redo WHERE encounter=?", (encounter_id,)
            ).fetchone()[0]
            db.execute(
                "INSERT INTO redo SELECT encounter, ?, seq, step, event FROM events WHERE encounter=? AND seq>=?",
                (grp, encounter_id, keep),
            )
            db.execute("DELETE FROM events WHERE encounter=? AND seq>=?", (encounter_id, keep))
            return _touch(db, encounter_id)

        return self._write(work)

    def redo(self, encounter_id: str, version: int, *, revision: int | None = None) -> EncounterRow:
        """Put back the last undone group of events."""
        return self.redo_lines(encounter_id, version, revision=revision)[0]

    def redo_lines(
        self, encounter_id: str, version: int, *, revision: int | None = None
    ) -> tuple[EncounterRow, list[tuple[int, int, str]]]:
        """:meth:`redo`, and the lines it put back (seq, step, stored JSON), read in its transaction."""

        def work(db: sqlite3.Connection) -> tuple[EncounterRow, list[tuple[int, int, str]]]:
            _check_seen(db, encounter_id, version, revision)
            grp = db.execute("SELECT MAX(grp) FROM redo WHERE encounter=?", (encounter_id,)).fetchone()[0]
            if grp is None:
                raise StoreError("nothing to redo")
            lines = db.execute(
                "SELECT seq, step, event FROM redo WHERE encounter=? AND grp=? ORDER BY seq",
                (encounter_id, grp),
            ).fetchall()
            db.execute(
                "INSERT INTO events SELECT encounter, seq, step, event FROM redo WHERE encounter=? AND grp=?",
                (encounter_id, grp),
            )
            db.execute("DELETE FROM redo WHERE encounter=? AND grp=?", (encounter_id, grp))
            return _touch(db, encounter_id), lines

        return self._write(work)


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def _check_path(path: Path) -> None:
    """A regular file, or none yet in an existing folder (not a directory, a device, a FIFO)."""
    if path.exists() and not path.is_file():
        raise DatabaseUnusableError(f"{path} is not a regular file; give --db the path of a database file")
    if not path.exists() and not path.parent.is_dir():
        raise DatabaseUnusableError(f"the folder {path.parent} of the database {path.name} does not exist")
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        raise DatabaseUnusableError(f"{path} cannot be read and written by this user")


def _check_contents(db: sqlite3.Connection) -> None:
    """SQLite's own check, then: empty, or this program's tables with a schema version it knows."""
    verdict = db.execute("PRAGMA quick_check").fetchone()[0]
    if verdict != "ok":
        raise DatabaseUnusableError(
            f"the database is damaged (quick_check: {' '.join(str(verdict).split())})"
        )
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if not tables:
        return
    if not tables >= OUR_TABLES:
        others = ", ".join(sorted(tables - OUR_TABLES - {"sessions"})) or "none of its own"
        raise DatabaseUnusableError(f"not a tracker database (its tables: {others}); give another --db")
    found = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
    version = int(found[0]) if found is not None and str(found[0]).isdigit() else 1
    if version > SCHEMA_VERSION:
        raise DatabaseUnusableError(
            f"the database has schema version {version}; this referee knows {SCHEMA_VERSION} (upgrade it)"
        )


# The version is the number of events; the log's lines are always 0 .. version-1 with no gap (a step
# appends at the version, an undo cuts a tail, a redo puts back the tail it cut), so it is the last line + 1,
# which the primary key's index gives at once where a COUNT would walk the whole log of the encounter.
VERSION_OF = "(SELECT COALESCE(MAX(seq), -1) + 1 FROM events WHERE encounter = encounters.id)"
ROW = (
    "SELECT id, name, setup, referee_token, player_token, revision, created, updated, "
    f"{VERSION_OF}, (SELECT COUNT(DISTINCT grp) FROM redo WHERE encounter = encounters.id) "
    "FROM encounters WHERE id=?"
)
HEAD = f"SELECT {VERSION_OF}, revision FROM encounters WHERE id=?"


def _row(db: sqlite3.Connection, encounter_id: str) -> EncounterRow:
    """The encounter's row with its version and redo groups, in one query."""
    found = db.execute(ROW, (encounter_id,)).fetchone()
    if found is None:
        raise UnknownEncounterError(f"no encounter {encounter_id!r}")
    i, name, setup, ref, player, revision, created, updated, version, groups = found
    return EncounterRow(i, name, json.loads(setup), ref, player, version, revision, groups, created, updated)


def _events(db: sqlite3.Connection, encounter_id: str) -> list[StoredEvent]:
    rows = db.execute("SELECT seq, step, event FROM events WHERE encounter=? ORDER BY seq", (encounter_id,))
    return [StoredEvent(seq, step, Event.from_dict(json.loads(text))) for seq, step, text in rows]


def _check_seen(db: sqlite3.Connection, encounter_id: str, version: int, revision: int | None) -> None:
    """The write's own check, in its transaction: only the version and revision are read (no setup)."""
    found = db.execute(HEAD, (encounter_id,)).fetchone()
    if found is None:
        raise UnknownEncounterError(f"no encounter {encounter_id!r}")
    check_version(version, found[0])
    if revision is not None and revision != found[1]:
        check_seen(_row(db, encounter_id), version, revision)  # the refusal names the row's numbers


def check_version(given: int, current: int) -> None:
    """Refuse a change made on another version than the stored one (two tabs: the second one loses)."""
    if given != current:
        raise StaleVersionError(
            f"this page shows version {given} of the fight but it is now at version {current}"
            " (changed in another tab?); reload and try again"
        )


def check_seen(row: EncounterRow, version: int, revision: int | None) -> None:
    """Refuse a change made on anything but what is stored now: another version, or (when the caller names
    the revision it saw) the same version reached by another history, e.g. another tab undid a step and took
    a new one. Without a revision only the version is compared (older API clients)."""
    check_version(version, row.version)
    if revision is not None and revision != row.revision:
        raise StaleVersionError(
            f"this page shows version {version} of the fight (revision {revision}) but the fight has changed"
            f" since (now version {row.version}, revision {row.revision}; changed in another tab?);"
            " reload and try again"
        )


def _insert_events(
    db: sqlite3.Connection, encounter_id: str, start: int, events: Sequence[tuple[int, Event]]
) -> None:
    db.executemany("INSERT INTO events VALUES (?, ?, ?, ?)", _event_rows(encounter_id, start, events))


def _event_rows(
    encounter_id: str, start: int, events: Sequence[tuple[int, Event]]
) -> list[tuple[str, int, int, str]]:
    """The rows of the events table for (step, event) pairs stored from line `start` on."""
    texts = stored_texts([e for _, e in events])
    return [
        (encounter_id, start + i, step, text)
        for i, ((step, _), text) in enumerate(zip(events, texts, strict=True))
    ]


def stored_texts(events: Sequence[Event]) -> list[str]:
    """Each event as the events table holds it (its JSON)."""
    return [json.dumps(e.to_dict()) for e in events]


def from_stored(text: str) -> Event:
    """An event as the store gives it back from its stored JSON."""
    return Event.from_dict(json.loads(text))


def _touch(db: sqlite3.Connection, encounter_id: str) -> EncounterRow:
    """Move the revision on; the row as this write leaves it (read in its own transaction, so it names exactly
    the log the write made, whatever another writer does next: what the tracker's kept folds key on)."""
    db.execute("UPDATE encounters SET revision=revision+1, updated=? WHERE id=?", (time.time(), encounter_id))
    return _row(db, encounter_id)


def as_stored(e: Event) -> Event:
    """The event as the store gives it back (through JSON, as :func:`stored_texts` writes it)."""
    return from_stored(stored_texts([e])[0])
