"""What the tracker does with the engine: fold a fight from the store, take one step, undo, odds.

The page state is always ``Fight(setup, stored events)``, kept folded between requests (:mod:`.folds`). A
step is computed on a copy of the fold of one consistent read of the stored log and then appended on top of
the version and revision it was computed from (the store refuses a stale one), so nothing is ever
half-stored: a refused die, an illegal action or a stale tab store nothing. A client that names the revision it saw (the page does) gets a conflict whenever the fight
changed since, even if the event count came back to the same number (undo, then a new step).
"""

from __future__ import annotations

import importlib
import json
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, is_dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any, NamedTuple

from referee.dice import LIMITS, RandomDice, ScriptedDice
from referee.engine import table_actions
from referee.engine.actions import Attack, action_from_dict
from referee.engine.events import Event, EventType
from referee.engine.fight import Fight
from referee.engine.resolve import attack_context
from referee.errors import DiceError, EncounterFileError, IllegalActionError, RefereeError
from referee.files import MAX_FILE_BYTES, parse_yaml_bytes, setup_from_data
from referee.setup import Setup
from referee.web.folds import Folded, clone_fight, folds_of
from referee.web.guard import strict_json
from referee.web.store import EncounterRow, Store, StoredEvent, check_seen, stored_texts

log = logging.getLogger(__name__)

STEPS = ("begin", "round", "action", "end_round")
EXPORT_FORMAT = "referee-tracker/1"
# Words a typed-dice field may use for "roll this one for me".
ROLL_WORDS = {"", "?", "r", "roll", "-", "_"}
MAX_FLOW_NESTING = 64
MAX_ENGINE_TURNS = 200  # "run the foes": at most this many actions in one request
OPENERS = frozenset(b"[{")


def parse_typed_dice(typed: str | list[int | None] | None) -> list[int | None]:
    """`"12, ?, 5"` → `[12, None, 5]`: physical dice in the order the engine asks; blank or `?` = roll it."""
    if typed is None:
        return []
    if isinstance(typed, list):
        return _typed_list(typed)
    text = typed.strip()
    if not text:
        return []
    # any grouping: commas, semicolons, spaces; an empty place between commas rolls that die
    items: list[str] = []
    for part in re.split(r"[,;]", text):
        items.extend(part.split() or [""])
    return _typed_list(items)


def _typed_list(items: Sequence[Any]) -> list[int | None]:
    # the command line's limit (`--dice`): a longer list is refused before any of it is read
    if len(items) > LIMITS.max_script:
        raise DiceError(f"{len(items)} dice were typed; the limit is {LIMITS.max_script}")
    return [_typed_value(item, i) for i, item in enumerate(items, start=1)]


def _typed_value(item: Any, index: int) -> int | None:
    if item is None or (isinstance(item, str) and item.strip().lower() in ROLL_WORDS):
        return None
    if isinstance(item, bool):
        raise DiceError(f"typed die #{index} is {item!r}, not a whole number")
    if isinstance(item, int):
        value = item
    elif isinstance(item, str) and re.fullmatch(r"\s*-?\d{1,6}\s*", item):
        value = int(item)
    else:
        raise DiceError(f"typed die #{index} is {item!r}, not a whole number (use ? to roll it)")
    if value < 1:
        raise DiceError(f"typed die #{index} is {value}; a die shows 1 or more")
    return value


class TypedDice(ScriptedDice):
    """The referee's physical dice first (None = roll it), then random dice for the rest. Every die it gives
    is written down (`given`), so a refused try can hand back the dice it rolled (no re-roll fishing)."""

    def __init__(self, typed: list[int | None], seed: int | None = None) -> None:
        super().__init__(typed, then=RandomDice(seed))
        self.typed = len(typed)
        self.script = list(typed)
        self.given: list[int] = []

    def roll(self, sides: int, purpose: str) -> int:
        value = super().roll(sides, purpose)
        self.given.append(value)
        return value

    def unused(self) -> list[int | None]:
        """The typed dice this step never asked for (damage typed ahead for an attack that missed)."""
        return self.script[len(self.script) - self.remaining :] if self.remaining else []

    def check_all_used(self, most: int | None = None) -> str | None:
        """Dice typed ahead that this outcome did not need are said, not refused (damage for a miss); more
        dice than any outcome of the step asks for (`most`, from :func:`dice_asked`) mean the referee and the
        engine disagree on the order: refused."""
        if not self.remaining:
            return None
        used = self.typed - self.remaining
        if most is not None and self.typed > most:
            raise DiceError(
                f"{self.typed} dice were typed but this step asks for at most {most}; remove the extra ones"
            )
        shown = ", ".join("?" if v is None else str(v) for v in self.unused())
        return f"{self.remaining} typed {'die was' if self.remaining == 1 else 'dice were'} not used ({shown}): this step used {used}"

    def rolled_any(self) -> bool:
        """Whether a die was rolled rather than typed so far (a `?`, or past the typed ones)."""
        consumed = self.typed - self.remaining
        return any(v is None for v in self.script[:consumed]) or len(self.given) > consumed

    def kept(self) -> str:
        """The dice field for a retry after a refusal: the dice given so far (rolled ones included), then the
        typed ones not reached yet."""
        rest = self.script[len(self.given) :]
        return ", ".join([str(v) for v in self.given] + ["?" if v is None else str(v) for v in rest])


def load_setup(data: dict[str, Any], where: str = "encounter", base_dir: Path | None = None) -> Setup:
    """`base_dir` only for trusted files (the examples folder): it lets a file name a house-rules file."""
    return setup_from_data(data, where, base_dir=base_dir)


def fight_of(row: EncounterRow, stored: Sequence[StoredEvent]) -> Fight:
    """The fight of a row and the log read with it (:meth:`Store.snapshot`)."""
    return Fight(load_setup(row.setup, row.name), [s.event for s in stored])


def load_fight(store: Store, row: EncounterRow) -> Fight:
    """A copy of the fight as stored now (the kept fold's, so nothing is read or folded twice)."""
    folds = folds_of(store)
    with folds.lock(row.id):
        return clone_fight(folds.current(row.id).fight)


def utf8(text: str, where: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise EncounterFileError(f"{where}: the text holds a lone surrogate (not a character)") from None


def encounter_data_from_bytes(raw: bytes, where: str) -> dict[str, Any]:
    """An uploaded or pasted encounter file (YAML or JSON: JSON is YAML), size-capped and safely parsed."""
    _check_flow_nesting(raw, where)
    try:
        data = parse_yaml_bytes(raw, where)
    except ValueError as exc:  # e.g. an integer of more digits than Python converts (4,300)
        if isinstance(exc, EncounterFileError):
            raise
        raise EncounterFileError(f"{where}: {' '.join(str(exc).split())}") from None
    if not isinstance(data, dict):
        raise EncounterFileError(f"{where}: expected a mapping with `sides`, got {type(data).__name__}")
    return data


def _check_flow_nesting(raw: bytes, where: str) -> None:
    """Refuse brackets nested deeper than :data:`MAX_FLOW_NESTING` before the YAML parser, which takes seconds
    per few thousand levels, sees them (an encounter nests a few levels; brackets inside quotes count too)."""
    depth = 0
    for char in re.sub(rb"[^\[\]{}]", b"", raw[: MAX_FILE_BYTES + 1]):
        depth = depth + 1 if char in OPENERS else max(0, depth - 1)
        if depth > MAX_FLOW_NESTING:
            raise EncounterFileError(f"{where}: brackets nested deeper than {MAX_FLOW_NESTING} levels")


def frozen_setup(
    data: dict[str, Any], where: str, base_dir: Path | None = None
) -> tuple[str, dict[str, Any]]:
    """Validate encounter data; return its name and the data with the ruleset frozen in (preset + options),
    so the stored setup never depends on a house-rules file again."""
    setup = load_setup(data, where, base_dir)
    frozen = setup.to_dict()
    try:
        json.dumps(frozen, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except ValueError as exc:  # a number that cannot be stored (4,300+ digits, NaN) or a lone surrogate
        raise EncounterFileError(f"{where}: cannot be stored: {' '.join(str(exc).split())}") from None
    return setup.name, frozen


def take_step(
    store: Store,
    row: EncounterRow,
    step: str,
    *,
    version: int,
    revision: int | None = None,
    dice: str | list[int | None] | None = None,
    action: dict[str, Any] | None = None,
    surprise: dict[str, Any] | None = None,
    seed: int | None = None,
) -> Taken:
    """Run one step (begin, round, action, end_round) and store its events on top of `version` (and
    `revision`, when the client names the one it saw)."""
    if step not in STEPS:
        raise IllegalActionError(f"unknown step {step!r}; steps: {', '.join(STEPS)}")
    # before anything else: a stale tab gets the conflict, not a side error
    check_seen(row, version, revision)
    folds = folds_of(store)
    with folds.lock(row.id):
        # the kept fold when it is the one of `row`: had the log moved on since (another tab), the write's own
        # check refuses the step (409). Otherwise the fold of the log as stored now (row and log of one read),
        # checked again, so a stale step is a conflict (409), not an illegal action computed on a newer fight
        folded = folds.at(row)
        check_seen(folded.row, version, revision)
        return _step_on(store, folded, step, dice, action, surprise, seed)


def _step_on(
    store: Store,
    folded: Folded,
    step: str,
    dice: str | list[int | None] | None,
    action: dict[str, Any] | None,
    surprise: dict[str, Any] | None,
    seed: int | None,
) -> Taken:
    """Work the step out on a copy of the kept fold, store it on top of exactly that log, then push the
    stored events onto the kept fold (which is then the fold of the new log)."""
    row = folded.row
    source = TypedDice(parse_typed_dice(dice), seed)
    ruling: dict[str, Any] | None = None
    if step == "begin" and surprise is not None:
        # Begin with a surprise ruling (ODD-SURP-1): the checks are rolled under it and the ruling is kept in
        # the Begin step's own surprise event, never in the stored setup, so undoing the Begin undoes it too.
        setup = load_setup({**row.setup, "surprise": surprise}, row.name)
        ruling = setup.to_dict().get("surprise")
        fight = Fight(setup, folded.fight.events)
    else:
        fight = clone_fight(folded.fight)
    chosen = (
        action_from_dict(table_actions.normalise(action)) if step == "action" and action is not None else None
    )
    most = len(dice_asked(fight, step, action)) if source.remaining else None
    try:
        events = fight.take(step, source, chosen)
    except RefereeError as exc:
        if source.rolled_any():  # some `?` were rolled: keep them for the retry
            exc.kept_dice = source.kept()  # type: ignore[attr-defined]
        raise
    notice = source.check_all_used(most)
    if ruling is not None:
        events = [with_ruling(e, ruling) for e in events]
    # stored on top of exactly the log it was computed from: the fold's revision, not only the count
    texts = stored_texts(events)  # made once: what the store holds and what the kept fold reads back
    stored_row = store.append(row.id, row.version, events, revision=row.revision, texts=texts)
    try:
        folded.extend(stored_row, events, texts)
    except BaseException:  # a fold half brought up to date is never kept: the next read folds afresh
        folds_of(store).drop(row.id)
        raise
    return Taken(stored_row, events, notice, folded)


class Taken(NamedTuple):
    """A stored step: the row after it, its events, and what to tell the referee (typed dice not used)."""

    row: EncounterRow
    events: list[Event]
    notice: str | None = None
    folded: Folded | None = None  # the kept fold of the log the step left (its row is `row`)


def with_ruling(e: Event, ruling: dict[str, Any]) -> Event:
    """The surprise event of a Begin with the referee's ruling in its data (ODD-SURP-1)."""
    if e.type != EventType.SURPRISE:
        return e
    return replace(e, data={**e.data, "ruling": ruling})


class _DiceRecorder:
    """A dice source for a dry run: every die shows its highest face, and what was asked is written down."""

    def __init__(self) -> None:
        self.asked: list[dict[str, Any]] = []

    def roll(self, sides: int, purpose: str) -> int:
        self.asked.append({"sides": sides, "purpose": purpose})
        return sides


def dice_asked(fight: Fight, step: str, action: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The dice a step will ask for, in order, from a dry run on a copy (every die at its highest face, so an
    attack shows its damage dice too). Nothing is stored; a step that cannot be taken asks for nothing."""
    if step not in STEPS or (step == "action" and action is None):
        return []  # `take` refuses it at once: no copy of the fight to find that out (most answers)
    copy = clone_fight(fight)
    recorder = _DiceRecorder()
    try:
        chosen = action_from_dict(table_actions.normalise(action)) if action is not None else None
        copy.take(step, recorder, chosen)
    except RefereeError:
        return []
    return recorder.asked


def undo(
    store: Store,
    row: EncounterRow,
    *,
    version: int,
    revision: int | None = None,
    keep: int | None = None,
    count: int | None = None,
) -> EncounterRow:
    """Undo back to line `keep`, or the last `count` events, or (neither given) the last step."""
    check_seen(row, version, revision)
    folds = folds_of(store)
    with folds.lock(row.id):
        folded = folds.current(row.id)
        check_seen(folded.row, version, revision)
        stored = folded.stored
        if keep is None:
            if not stored:
                raise IllegalActionError("nothing to undo")
            keep = len(stored) - count if count is not None else stored[-1].step
        keep = max(0, keep)
        undone = store.truncate(row.id, version, keep, revision=folded.row.revision)
        # the log is now exactly the first `keep` lines of the one the fold was of: those, from the fold's last
        # copy of the fight before line `keep` (no read, no fold of the whole log)
        folds.keep(folded.truncated(undone, keep))
        return undone


def redo(store: Store, row: EncounterRow, *, version: int, revision: int | None = None) -> EncounterRow:
    """Put back the last undone events (until a new step is taken)."""
    check_seen(row, version, revision)
    folds = folds_of(store)
    with folds.lock(row.id):
        kept = folds.kept().get(row.id)
        redone, lines = store.redo_lines(row.id, version, revision=revision)
        # the kept fold, if it is of the log the redo was made on (the revision before the redo's own), gets
        # the lines put back; otherwise the next read folds the new log
        before = (redone.id, redone.version - len(lines), redone.revision - 1)
        if kept is None or (kept.row.id, kept.row.version, kept.row.revision) != before:
            folds.drop(row.id)
            return redone
        try:
            kept.put_back(redone, lines)
        except BaseException:  # a fold half brought up to date is never kept: the next read folds afresh
            folds.drop(row.id)
            raise
        return redone


def export(store: Store, row: EncounterRow) -> dict[str, Any]:
    """The setup and the event log, enough to rebuild the fight anywhere (`import_export` reads it back)."""
    return export_of(*store.snapshot(row.id))


def export_of(row: EncounterRow, stored: Sequence[StoredEvent]) -> dict[str, Any]:
    return {
        "format": EXPORT_FORMAT,
        "name": row.name,
        "setup": row.setup,
        "events": [{"step": s.step, **s.event.to_dict()} for s in stored],
    }


# What the app checks before an import is stored: that every page and answer can show it.
ShowCheck = Callable[[EncounterRow, Fight, list[StoredEvent]], None]


def import_export(store: Store, data: Any, check: ShowCheck | None = None) -> EncounterRow:
    """Create a new encounter from an export. Before anything is stored, the log is read back exactly as
    the store will give it (each event through JSON), replayed through the engine, and `check` is run on the
    result (the app renders every page and answer of it), so a broken or unshowable export is refused."""
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise EncounterFileError(f"not a tracker export: expected an object with format {EXPORT_FORMAT!r}")
    setup_data = data.get("setup")
    raw_events = data.get("events", [])
    if not isinstance(setup_data, dict) or not isinstance(raw_events, list):
        raise EncounterFileError("a tracker export has `setup` (an object) and `events` (a list)")
    name = str(data.get("name") or setup_data.get("name") or "Imported encounter")[:120]
    _, frozen = frozen_setup(setup_data, "import")
    try:
        stored = _stored_events(raw_events)
        pairs = [(s.step, s.event) for s in stored]
        row = EncounterRow(
            "import", utf8(name, "import").decode(), frozen, "", "", len(stored), 1, 0, 0.0, 0.0
        )
        fight = fight_of(row, stored)
        fight.needs(), fight.next_actor()
        if check is not None:
            check(row, fight, stored)
    except Exception as exc:  # untrusted data: whatever fails while folding or showing it, it is refused
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise EncounterFileError(f"import: the event log does not replay: {reason}") from None
    return store.create(name, frozen, pairs)


def _stored_events(raw_events: list[Any]) -> list[StoredEvent]:
    """The export's events as the store will hold them: each through JSON and back, and each `step` the
    first line of its own step (the line itself or its predecessor's step), as the store writes them."""
    out: list[StoredEvent] = []
    for i, raw in enumerate(raw_events):
        if not isinstance(raw, dict):
            raise EncounterFileError(f"event {i} is not an object")
        step = raw.get("step", i)
        previous = out[-1].step if out else 0
        if isinstance(step, bool) or not isinstance(step, int) or step not in {i, previous}:
            raise EncounterFileError(f"event {i} has step {step!r}; it is {i} or its predecessor's step")
        event = Event.from_dict(raw)
        text = json.dumps(event.to_dict(), ensure_ascii=False, allow_nan=False)
        out.append(StoredEvent(i, step, Event.from_dict(json.loads(text))))
    return out


def read_json_upload(raw: bytes, where: str) -> Any:
    if len(raw) > MAX_FILE_BYTES:
        raise EncounterFileError(f"{where}: file is {len(raw)} bytes; the limit is {MAX_FILE_BYTES}")
    return strict_json(raw, where)


def action_odds_for(fight: Fight, action: dict[str, Any]) -> dict[str, Any] | None:
    """Exact odds of an action from `referee.odds` when that module is installed; None when it is not.

    The action is checked first either way, so a wrong name or an impossible attack is reported at once.
    """
    parsed = action_from_dict(table_actions.normalise(action))
    if isinstance(parsed, Attack):
        attack_context(fight.state, parsed)
    else:
        fight.state[parsed.actor]
    try:
        module = importlib.import_module("referee.odds")
    except ImportError:
        return None
    action_odds = getattr(module, "action_odds", None)
    if action_odds is None:
        return None
    try:
        result = action_odds(fight.state, parsed)
    except RefereeError:
        raise
    except Exception:  # the odds are a help, never a reason to break the page: log it and go on without
        log.warning("no odds for %r", action, exc_info=True)
        return None
    plain = _plain(result)
    return plain if isinstance(plain, dict) else {"value": plain}


def _plain(value: Any) -> Any:
    """Odds as JSON: Fractions become floats, dataclasses and mappings become objects."""
    if hasattr(value, "to_dict"):
        return _plain(value.to_dict())
    if is_dataclass(value) and not isinstance(value, type):
        return _plain(asdict(value))
    if isinstance(value, Fraction):
        return round(float(value), 6)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def find_examples(configured: str | Path | None = None) -> Path | None:
    """The examples folder: the configured one, or the repository's next to the package; None if absent."""
    candidates = [Path(configured)] if configured else []
    candidates.append(Path(__file__).resolve().parents[3] / "examples")
    for path in candidates:
        if path.is_dir():
            return path
    return None


def list_examples(folder: Path | None) -> list[str]:
    """The encounter files of the examples folder (files with `sides`; house-rules files are left out)."""
    if folder is None:
        return []
    names = []
    for path in sorted(folder.iterdir()):
        if path.suffix not in {".yaml", ".yml", ".json"} or not path.is_file():
            continue
        try:
            data = parse_yaml_bytes(path.read_bytes(), path.name)
        except (EncounterFileError, OSError):
            continue
        if isinstance(data, dict) and "sides" in data:
            names.append(path.name)
    return names


def engine_turns(
    store: Store,
    row: EncounterRow,
    *,
    version: int,
    revision: int | None = None,
    dice: str | list[int | None] | None = None,
    seed: int | None = None,
    until: str = "actor",
) -> Taken:
    """Let the engine decide (the default tactics of `referee fight`, :func:`engine.tactics.choose_action`):
    the current actor's action (`until="actor"`), or every foe's in turn until a combatant of the players'
    sides is to act or the round is done (`until="players"`). Each action is a step of its own (undo takes
    back one); typed dice go to the first."""
    from referee.engine import tactics
    from referee.web.views import player_sides

    check_seen(row, version, revision)
    taken: Taken | None = None
    notices: list[str] = []
    folds = folds_of(store)
    for _ in range(MAX_ENGINE_TURNS):
        with folds.lock(row.id):
            folded = folds.current(row.id)
            row, fight = folded.row, folded.fight
            actor = fight.next_actor() if fight.needs() == "action" else None
            if actor is None or (until == "players" and fight.state[actor].side in player_sides(fight)):
                if taken is None:
                    who = (
                        f"it is {actor}'s turn (a player's side)"
                        if actor
                        else f"the fight needs: {fight.needs()}"
                    )
                    raise IllegalActionError(f"no foe is to act now: {who}")
                break
            # the view's suggestion of this very state when it has one (the same question, asked once)
            choice = folded.suggested() or tactics.choose_action(clone_fight(fight).state, actor).to_dict()
        first = taken is None
        taken = take_step(
            store, row, "action", version=version if first else row.version,
            revision=revision if first else row.revision, dice=dice if first else None, action=choice,
            seed=seed if first else None,
        )  # fmt: skip
        notices += [taken.notice] if taken.notice else []
        if until == "actor":
            break
    assert taken is not None
    return taken._replace(notice="; ".join(notices) or None)
