"""The folded fights the tracker keeps between requests, so a step does not rebuild the fight from its log.

A fight is always the fold of its stored log (``Fight(setup, stored events)``). Folding a long fight and
reading its whole log back from SQLite on every request made a step cost time in proportion to the fight's
length, so the tracker keeps, per encounter, the fight folded from the log as it is stored: a
:class:`Folded`, keyed by the encounter row it was read with (id, version, revision and the time of the
last change). An encounter's revision moves on with every change and never goes back, so a key names one
log and one log only; a row read now that does not match the kept fold (another tab, another server
process on the same file, an undo, a rename, a restart) means a fresh fold from one consistent read.

What is kept is exactly what a fresh fold gives: a new step is worked out on a copy (:func:`clone_fight`)
and its events are then pushed onto the kept fight as the store gives them back (through JSON,
:func:`referee.web.store.as_stored`), only after the write that stored them on top of that same revision
committed. Anything that fails on the way drops the kept fold. ``tests/web/test_folds.py`` plays random
steps, undos, redos and renames and compares every answer with a fresh fold.

One lock per encounter (re-entrant: "run the foes" and the tests' racing tabs nest steps) guards its fold;
requests on different encounters never wait for each other.
"""

from __future__ import annotations

import bisect
import copy
import dataclasses
import json
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import orjson

from referee.engine.events import Event, EventType
from referee.engine.fight import Fight
from referee.files import setup_from_data
from referee.web.answers import Encoded, encode_read_back
from referee.web.store import EncounterRow, Store, StoredEvent, as_stored, from_stored
from referee.web.views import suggested_action

# Kept folds per store: a few dozen open fights is a busy evening at the table; the rest fold again when asked.
KEPT_FOLDS = 64
# A copy of the fight's state is kept every this many lines, so an undo folds at most this many lines again
# from the last copy before the line it goes back to, not the whole log (a copy is ~0.05 ms, ~256 pushes 5).
SNAPSHOT_EVERY = 256
HIT_POINT_LINES = (EventType.DAMAGE, EventType.HEAL)


def row_key(row: EncounterRow) -> tuple[str, int, int, float]:
    """What names one stored log: the revision never repeats; the count and the change time make sure."""
    return (row.id, row.version, row.revision, row.updated)


@dataclass
class Folded:
    """One encounter's fight folded from its stored log, with what the pages read of every line."""

    row: EncounterRow
    fight: Fight
    stored: list[StoredEvent]
    hp_left: dict[int, int] = field(default_factory=dict)  # line -> the target's hit points after it
    # each line's JSON as the API shows it, made once (bytes: nothing for the cycle collector to walk)
    encoded: list[bytes | None] = field(default_factory=list)
    tabled: list[Event] = field(default_factory=list)  # the table actions (notes, reveals...): rare lines
    tabled_lines: list[int] = field(default_factory=list)  # the line of each of them
    wide: set[int] = field(default_factory=set)  # lines whose JSON orjson cannot read back as it was
    # each line's row of the page's log (HTML), made once when a page first shows it (text: not walked either)
    html: list[str | None] = field(default_factory=list)
    # line count -> the fight as it was after that many lines (its log left empty: it is `stored`'s prefix)
    snapshots: dict[int, Fight] = field(default_factory=dict)
    # (line count, the engine's suggested action then): the fight only moves on by lines pushed
    suggested_at: tuple[int, dict[str, Any] | None] | None = field(default=None, repr=False, compare=False)
    # (line count, step, the dice that step asks for then: site.kept_dice)
    dice_at: tuple[int, str, list[dict[str, Any]]] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def fold(cls, row: EncounterRow, stored: Sequence[StoredEvent]) -> Folded:
        """A fresh fold: the setup, then every stored event pushed one by one (as ``Fight`` does)."""
        folded = cls(row, Fight(setup_from_data(row.setup, row.name)), [])
        folded._push(stored)
        return folded

    def _push(self, stored: Iterable[StoredEvent]) -> None:
        state = self.fight.state
        for s in stored:
            self.fight.push([s.event])
            self.stored.append(s)
            self.encoded.append(None)
            self.html.append(None)
            e = s.event
            if "table" in e.data:
                self.tabled.append(e)
                self.tabled_lines.append(s.seq)
            if e.type in HIT_POINT_LINES and e.target in state.combatants:
                self.hp_left[s.seq] = state.combatants[e.target].hp
            if len(self.stored) % SNAPSHOT_EVERY == 0:
                self._snapshot()

    def _snapshot(self) -> None:
        snapshot = clone_fight(self.fight)
        snapshot.events = []
        self.snapshots[len(self.stored)] = snapshot

    def truncated(self, row: EncounterRow, keep: int) -> Folded:
        """The fold of this log's first `keep` lines (an undo, stored as `row`): the last kept copy of the
        fight at or before line `keep`, then the lines after it pushed again; the lines' JSON kept."""
        if (row.name, row.setup) != (self.row.name, self.row.setup):
            return Folded.fold(row, self.stored[:keep])  # (an undo never changes them: a fresh fold anyway)
        base = max((n for n in self.snapshots if n <= keep), default=0)
        fight = clone_fight(self.snapshots[base]) if base else Fight(self.fight.setup)
        fight.events = [s.event for s in self.stored[:base]]
        tabled = bisect.bisect_left(self.tabled_lines, base)
        new = Folded(
            row, fight, self.stored[:base],
            hp_left={n: hp for n, hp in self.hp_left.items() if n < base},
            encoded=self.encoded[:base],
            html=self.html[:base],
            tabled=self.tabled[:tabled],
            tabled_lines=self.tabled_lines[:tabled],
            snapshots={n: f for n, f in self.snapshots.items() if n <= base},
        )  # fmt: skip
        new._push(self.stored[base:keep])
        # the same lines, the same hit points after them
        new.encoded[base:keep], new.html[base:keep] = self.encoded[base:keep], self.html[base:keep]
        new.wide = {n for n in self.wide if n < keep}
        return new

    def put_back(self, row: EncounterRow, lines: Sequence[tuple[int, int, str]]) -> None:
        """The lines a redo put back at the end of this fold's log (seq, step, stored JSON), stored as `row`."""
        if lines and lines[0][0] != len(self.stored):
            raise ValueError(f"a redo from line {lines[0][0]} onto a fold of {len(self.stored)} lines")
        self._push(StoredEvent(seq, step, from_stored(text)) for seq, step, text in lines)
        self.row = row

    def extend(self, row: EncounterRow, events: Sequence[Event], texts: Sequence[str] | None = None) -> None:
        """The events of one stored step (on top of this fold's version), as the store gives them back (from
        `texts`, their stored JSON, when given: then each new line's JSON is made at once from its parsed
        text, which is what ``to_dict`` of the event read back gives, and the step's answer shows them)."""
        start = len(self.stored)
        if texts is None:
            self._push(StoredEvent(start + i, start, as_stored(e)) for i, e in enumerate(events))
        else:
            # `texts` were written by `stored_texts` (``to_dict`` of each event): parsed, each is a fixed point
            # of ``to_dict(Event.from_dict(...))``, so its line needs no second ``to_dict``
            plain = [json.loads(t) for t in texts]
            self._push(StoredEvent(start + i, start, Event.from_dict(p)) for i, p in enumerate(plain))
            for i, p in enumerate(plain):
                self._encoded(start + i, p)
        self.row = row

    def suggested(self) -> dict[str, Any] | None:
        """``views.suggested_action`` of this fold's fight now, worked out once per state of it (its answer,
        every tab's reload, the page and the engine's turn ask the tactics the same question); a copy."""
        count = len(self.stored)
        if self.suggested_at is None or self.suggested_at[0] != count:
            fight = self.fight
            current = fight.next_actor() if fight.needs() == "action" else None
            self.suggested_at = (count, suggested_action(fight, current))
        found = self.suggested_at[1]
        return None if found is None else deep_copy(found, {})

    def view(self, seq: int, plain: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Line `seq` as the API shows it (``views.event_view`` plus `hp_left`; `plain`: its event's
        ``to_dict()``, when known)."""
        s = self.stored[seq]
        found = {"seq": s.seq, "step": s.step, **(s.event.to_dict() if plain is None else plain)}
        if seq in self.hp_left:
            found["hp_left"] = self.hp_left[seq]
        return found

    def lines(self, start: int = 0) -> list[dict[str, Any]]:
        """The log's lines from `start` on, as dicts (for a page): each read back from its kept JSON when made
        (what the API shows of it, a few times cheaper than building it from the event again)."""
        return [self._plain(i) for i in range(max(0, start), len(self.stored))]

    def rows(self, render: Callable[[dict[str, Any]], str]) -> list[str]:
        """Every line's row of the page's log, `render` (the page's template for one line) of each line once,
        then kept: a page of a long fight was most of its time rendering the same rows again."""
        html = self.html
        for i, found in enumerate(html):
            if found is None:
                html[i] = render(self._plain(i))
        return html  # type: ignore[return-value]  # (every line's row is made now)

    def encoded_lines(self, start: int = 0) -> Encoded:
        """:meth:`lines` as JSON (a list), each line encoded once and kept (a change's answer repeats the last
        ones)."""
        return Encoded(
            b"[" + b",".join(self._encoded(i) for i in range(max(0, start), len(self.stored))) + b"]"
        )

    def _encoded(self, seq: int, plain: Mapping[str, Any] | None = None) -> bytes:
        found = self.encoded[seq]
        if found is None:
            found, exact = encode_read_back(self.view(seq, plain))
            self.encoded[seq] = found
            if not exact:
                self.wide.add(seq)
        return found

    def _plain(self, seq: int) -> dict[str, Any]:
        found = self._encoded(seq)
        # an integer past 64 bits would come back a float: that line is built again
        if seq in self.wide:
            return self.view(seq)
        loaded: dict[str, Any] = orjson.loads(found)
        return loaded


def clone_fight(fight: Fight) -> Fight:
    """A copy to work a step out on (or dry-run it) without touching the kept fold: the state deep-copied,
    the log's list copied; the setup, the combatants' specs and the events are frozen and shared."""
    state = fight.state
    memo: dict[int, Any] = {id(fight.setup): fight.setup, id(state.setup): state.setup}
    for c in state.combatants.values():
        memo[id(c.spec)] = c.spec
    new = copy.copy(fight)
    for name, value in vars(fight).items():
        if name == "events":
            new.events = list(value)
        elif name != "setup":
            setattr(new, name, deep_copy(value, memo))
    return new


# Values that are their own copy (what `copy.deepcopy` gives back unchanged); the exact types of most of them,
# tested first and inline for a container's items (most of a state's leaves), without a call each.
ATOMIC = (int, float, str, bool, type(None), bytes, complex, range, Enum)
_ATOMIC_TYPES = frozenset({int, float, str, bool, type(None), bytes, complex, range})


def deep_copy(value: Any, memo: dict[int, Any]) -> Any:
    """``copy.deepcopy(value, memo)``, the same copy three times faster for what a fight's state is made of
    (plain dataclasses, lists, dicts, sets, tuples and atomic values): a step copies the state once and the
    dry run of the next step's dice once more, and deepcopy's general machinery was a tenth of a step. Any
    other object (slots, its own ``__deepcopy__`` or pickling hooks) goes to ``copy.deepcopy``."""
    kind = type(value)
    if kind in _ATOMIC_TYPES:
        return value
    found = memo.get(id(value))
    if found is not None:
        return found
    atomic = _ATOMIC_TYPES
    if kind is dict:
        new_dict: dict[Any, Any] = {}
        memo[id(value)] = new_dict
        for key, item in value.items():
            new_dict[key if type(key) in atomic else deep_copy(key, memo)] = (
                item if type(item) in atomic else deep_copy(item, memo)
            )
        return new_dict
    if kind is list:
        new_list: list[Any] = []
        memo[id(value)] = new_list
        new_list.extend(item if type(item) in atomic else deep_copy(item, memo) for item in value)
        return new_list
    if kind is tuple:
        items = tuple(item if type(item) in atomic else deep_copy(item, memo) for item in value)
        same = all(a is b for a, b in zip(items, value, strict=True))
        return value if same else memo.setdefault(id(value), items)
    if kind is set:
        return memo.setdefault(id(value), {deep_copy(item, memo) for item in value})
    if isinstance(value, ATOMIC):  # an enum member, a subclass of str or int...
        return value
    if _plain_object(kind):
        new = object.__new__(kind)
        memo[id(value)] = new
        # as deepcopy restores an object's state (its __dict__, bypassing a frozen dataclass's __setattr__)
        new.__dict__.update(
            {
                name: item if type(item) in atomic else deep_copy(item, memo)
                for name, item in vars(value).items()
            }
        )
        return new
    return copy.deepcopy(value, memo)


_PLAIN: dict[type, bool] = {}


def _plain_object(kind: type) -> bool:
    """A dataclass that deepcopy would copy field by field: a __dict__, no copy or pickling hooks of its own."""
    found = _PLAIN.get(kind)
    if found is None:
        found = _PLAIN[kind] = (
            dataclasses.is_dataclass(kind)
            and "__dict__" in dir(kind)
            and "__slots__" not in vars(kind)
            and getattr(kind, "__deepcopy__", None) is None
            and getattr(kind, "__setstate__", None) is None
            and kind.__reduce_ex__ is object.__reduce_ex__
            and kind.__reduce__ is object.__reduce__
            and kind.__getstate__ is object.__getstate__
        )
    return found


class Folds:
    """The kept folds of one store, newest used last; one re-entrant lock per encounter."""

    def __init__(self, store: Store, size: int = KEPT_FOLDS) -> None:
        self.store = store
        self.size = size
        self._kept: OrderedDict[str, Folded] = OrderedDict()
        self._locks: dict[str, threading.RLock] = {}
        self._guard = threading.Lock()

    def lock(self, encounter_id: str) -> threading.RLock:
        """Hold it while reading or changing this encounter's fold (and while storing a step made on it)."""
        with self._guard:
            found = self._locks.get(encounter_id)
            if found is None:
                found = self._locks[encounter_id] = threading.RLock()
            return found

    def current(self, encounter_id: str) -> Folded:
        """The fold of the log as stored now (call with the encounter's lock held)."""
        return self.at(self.store.get(encounter_id))

    def at(self, row: EncounterRow) -> Folded:
        """The kept fold if it is the one of `row`, else a fresh fold of one consistent read (whose row may be
        newer than `row`: the caller checks what the client saw against the fold's own row)."""
        with self._guard:
            kept = self._kept.get(row.id)
            if kept is not None and row_key(kept.row) == row_key(row):
                self._kept.move_to_end(row.id)
                return kept
        if kept is not None:
            # `row` was read before a change made here since (another tab's step, a lost race): the kept fold
            # is still the fold of the log as stored now if the stored row says so. Folding the whole log
            # again gives the same fight at a cost that grows with it (up to 40 ms a time at 150 lines, 700
            # times in 10 s with 4 clients racing on each encounter).
            now = self.store.get(row.id)
            with self._guard:
                kept = self._kept.get(row.id)
                if kept is not None and row_key(kept.row) == row_key(now):
                    self._kept.move_to_end(row.id)
                    return kept
        fresh = Folded.fold(*self.store.snapshot(row.id))
        self.keep(fresh)
        return fresh

    def keep(self, folded: Folded) -> None:
        with self._guard:
            self._kept[folded.row.id] = folded
            self._kept.move_to_end(folded.row.id)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)

    def drop(self, encounter_id: str) -> None:
        with self._guard:
            self._kept.pop(encounter_id, None)

    def kept(self) -> Mapping[str, Folded]:
        """The kept folds (a redo extends the one it was made on; tests read them)."""
        with self._guard:
            return dict(self._kept)


_FOLDS: weakref.WeakKeyDictionary[Store, Folds] = weakref.WeakKeyDictionary()
_FOLDS_GUARD = threading.Lock()


def folds_of(store: Store) -> Folds:
    """The kept folds of this store (one set per store object, made on first use)."""
    with _FOLDS_GUARD:
        found = _FOLDS.get(store)
        if found is None:
            found = _FOLDS[store] = Folds(store)
        return found
