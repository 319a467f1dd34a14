"""The tracker's event store: one SQLite file (WAL), one row per encounter, an append-only event log.

An encounter row holds its setup (the encounter data with the ruleset frozen in), a secret referee token and
an unguessable player token. Its `version` is the number of events in its log; every write names the version
it was made on and runs in one `BEGIN IMMEDIATE` transaction, so two tabs can never duplicate or lose an event:
the second writer gets :class:`StaleVersionError`. Undone events go to a per-encounter redo stack, which the
next new step clears. The fight itself is never stored: it is always ``Fight(setup, events)``.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.engine.events import Event
from referee.errors import StoreError

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
CREATE TABLE IF NOT EXISTS redo (
    encounter TEXT NOT NULL REFERENCES encounters(id) ON DELETE CASCADE,
    grp INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    step INTEGER NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (encounter, grp, seq)
);
"""


class UnknownEncounterError(StoreError, LookupError):
    """No encounter with that id."""


class StaleVersionError(StoreError):
    """The change was made on an older version of the fight than the stored one."""


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
class StoredEvent:
    seq: int  # 0-based line of the log
    step: int  # seq of the first event of the step it belongs to (begin, a round, an action...)
    event: Event


def new_token() -> str:
    """32 random bytes, URL-safe: unguessable."""
    return secrets.token_urlsafe(32)


class Store:
    """All reads and writes of the tracker's SQLite file. Each call opens its own connection (thread-safe)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(SCHEMA)
            if db.execute("SELECT 1 FROM meta WHERE key='admin_token'").fetchone() is None:
                db.execute("INSERT INTO meta VALUES ('admin_token', ?)", (new_token(),))

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            db.execute("PRAGMA foreign_keys=ON")
            db.execute("PRAGMA synchronous=FULL")  # a SIGKILL right after a 200 must not lose the step
            yield db
        finally:
            db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One transaction that takes the write lock first, so version checks and writes are atomic."""
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    # --- server ------------------------------------------------------------------------------------

    def admin_token(self) -> str:
        with self._connect() as db:
            return str(db.execute("SELECT value FROM meta WHERE key='admin_token'").fetchone()[0])

    # --- encounters --------------------------------------------------------------------------------

    def create(
        self, name: str, setup: dict[str, Any], events: Sequence[tuple[int, Event]] = ()
    ) -> EncounterRow:
        """A new encounter; `events` (step, event) pairs come from an imported export."""
        now = time.time()
        encounter_id = secrets.token_hex(6)
        with self._write() as db:
            db.execute(
                "INSERT INTO encounters VALUES (?, ?, ?, ?, ?, 0, ?, ?)",
                (encounter_id, name, json.dumps(setup), new_token(), new_token(), now, now),
            )
            _insert_events(db, encounter_id, 0, events)
        return self.get(encounter_id)

    def encounters(self) -> list[EncounterRow]:
        with self._connect() as db:
            ids = [r[0] for r in db.execute("SELECT id FROM encounters ORDER BY updated DESC")]
            return [_row(db, i) for i in ids]

    def get(self, encounter_id: str) -> EncounterRow:
        with self._connect() as db:
            return _row(db, encounter_id)

    def rename(self, encounter_id: str, name: str) -> EncounterRow:
        with self._write() as db:
            _row(db, encounter_id)
            db.execute(
                "UPDATE encounters SET name=?, revision=revision+1, updated=? WHERE id=?",
                (name, time.time(), encounter_id),
            )
        return self.get(encounter_id)

    def delete(self, encounter_id: str) -> None:
        with self._write() as db:
            _row(db, encounter_id)
            db.execute("DELETE FROM encounters WHERE id=?", (encounter_id,))

    # --- the log -----------------------------------------------------------------------------------

    def events(self, encounter_id: str) -> list[StoredEvent]:
        with self._connect() as db:
            _row(db, encounter_id)
            rows = db.execute(
                "SELECT seq, step, event FROM events WHERE encounter=? ORDER BY seq", (encounter_id,)
            )
            return [StoredEvent(seq, step, Event.from_dict(json.loads(text))) for seq, step, text in rows]

    def append(
        self, encounter_id: str, version: int, events: Sequence[Event], setup: dict[str, Any] | None = None
    ) -> EncounterRow:
        """Add one step's events on top of `version`; a new step clears the redo stack."""
        with self._write() as db:
            _check_version(db, encounter_id, version)
            if setup is not None:
                db.execute("UPDATE encounters SET setup=? WHERE id=?", (json.dumps(setup), encounter_id))
            _insert_events(db, encounter_id, version, [(version, e) for e in events])
            db.execute("DELETE FROM redo WHERE encounter=?", (encounter_id,))
            _touch(db, encounter_id)
        return self.get(encounter_id)

    def truncate(self, encounter_id: str, version: int, keep: int) -> EncounterRow:
        """Keep the first `keep` events; the rest go onto the redo stack as one group."""
        with self._write() as db:
            _check_version(db, encounter_id, version)
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
            _touch(db, encounter_id)
        return self.get(encounter_id)

    def redo(self, encounter_id: str, version: int) -> EncounterRow:
        """Put back the last undone group of events."""
        with self._write() as db:
            _check_version(db, encounter_id, version)
            grp = db.execute("SELECT MAX(grp) FROM redo WHERE encounter=?", (encounter_id,)).fetchone()[0]
            if grp is None:
                raise StoreError("nothing to redo")
            db.execute(
                "INSERT INTO events SELECT encounter, seq, step, event FROM redo WHERE encounter=? AND grp=?",
                (encounter_id, grp),
            )
            db.execute("DELETE FROM redo WHERE encounter=? AND grp=?", (encounter_id, grp))
            _touch(db, encounter_id)
        return self.get(encounter_id)


def _row(db: sqlite3.Connection, encounter_id: str) -> EncounterRow:
    found = db.execute(
        "SELECT id, name, setup, referee_token, player_token, revision, created, updated FROM encounters WHERE id=?",
        (encounter_id,),
    ).fetchone()
    if found is None:
        raise UnknownEncounterError(f"no encounter {encounter_id!r}")
    version = db.execute("SELECT COUNT(*) FROM events WHERE encounter=?", (encounter_id,)).fetchone()[0]
    groups = db.execute("SELECT COUNT(DISTINCT grp) FROM redo WHERE encounter=?", (encounter_id,)).fetchone()[
        0
    ]
    i, name, setup, ref, player, revision, created, updated = found
    return EncounterRow(i, name, json.loads(setup), ref, player, version, revision, groups, created, updated)


def _check_version(db: sqlite3.Connection, encounter_id: str, version: int) -> None:
    check_version(version, _row(db, encounter_id).version)


def check_version(given: int, current: int) -> None:
    """Refuse a change made on another version than the stored one (two tabs: the second one loses)."""
    if given != current:
        raise StaleVersionError(
            f"this page shows version {given} of the fight but it is now at version {current}"
            " (changed in another tab?); reload and try again"
        )


def _insert_events(
    db: sqlite3.Connection, encounter_id: str, start: int, events: Sequence[tuple[int, Event]]
) -> None:
    db.executemany(
        "INSERT INTO events VALUES (?, ?, ?, ?)",
        [(encounter_id, start + i, step, json.dumps(e.to_dict())) for i, (step, e) in enumerate(events)],
    )


def _touch(db: sqlite3.Connection, encounter_id: str) -> None:
    db.execute("UPDATE encounters SET revision=revision+1, updated=? WHERE id=?", (time.time(), encounter_id))
