"""What the pages and their JSON twins show: plain dicts built from a fight. The players' view hides things.

The referee sees everything. The players see the order, names and conditions of the combatants that are not
hidden (hidden in the file and not revealed since, or hidden again), the numbers of the players' own sides
(`players:` in the encounter, default the first side), and for everyone else only a word (unhurt / wounded /
badly wounded / down, or fled / surrendered / gone), whatever its kind: never a foe's hit points or armour
class. Nothing in their view tells that a hidden combatant exists: while one acts, `current` is the next
combatant they can see who is still to act this round (none when no such one is left, as at the end of every
round), and their `revision` is a digest of what they see, so it moves only when their view changes.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, fields
from typing import TYPE_CHECKING, Any

from referee.catalog.own import own_monster_names
from referee.engine import table_actions, tactics
from referee.engine.events import Event, EventType
from referee.engine.fight import Fight
from referee.engine.registry import ACTION_TYPES
from referee.engine.state import CombatantState, FightState
from referee.errors import RefereeError
from referee.rules.conditions import CONDITION_TABLE
from referee.rules.context import CONCEALMENT_DEGREES, COVER_DEGREES, AttackForm
from referee.rules.turns import winner_text
from referee.vocabulary import CONDITIONS, PAIRED
from referee.web import armour
from referee.web.answers import Encoded, encode
from referee.web.store import EncounterRow, StoredEvent

if TYPE_CHECKING:
    from referee.rules.armour_class import ArmourClass

HEALTH_WORDS = ("unhurt", "wounded", "badly wounded", "down")
# A change's answer carries the last LOG_PAGE lines of the log (and the lines it added), not the whole log:
# its cost must not grow with the fight. The whole log is `GET /api/encounters/{id}` or `/events`.
LOG_PAGE = 50


LEFT_WORDS = {"fled": "fled", "surrendered": "surrendered", "removed": "gone"}


def health_word(c: CombatantState) -> str:
    """A foe's state in one word, for the players (no numbers)."""
    if c.status in LEFT_WORDS:
        return LEFT_WORDS[c.status]
    left = c.hp - c.subdual
    if c.is_active() and c.max_hp == 0:
        return "unhurt"  # the fight has not begun: hit points are not fixed yet
    if not c.is_active() or left <= 0:
        return "down"
    if left >= c.max_hp:
        return "unhurt"
    if 2 * left > c.max_hp:
        return "wounded"
    return "badly wounded"


def display_ac(state: FightState, c: CombatantState) -> int | None:
    """The AC an ordinary melee blow from the first enemy would face now (None if it cannot be worked out)."""
    return ac_and_why(state, c)[0]


def ac_and_why(state: FightState, c: CombatantState) -> tuple[int | None, str]:
    """That AC and its breakdown (every component with its rule), so a change mid-round is explained."""
    found = _armour_class(state, c)
    return (None, "") if found is None else (found.value, found.breakdown())


def _armour_class(state: FightState, c: CombatantState) -> ArmourClass | None:
    return armour.armour_class_of(state, c)  # kept with what it read (web/armour.py)


def ac_change(fight: Fight, name: str, now: ArmourClass | None) -> dict[str, Any] | None:
    """How a combatant's AC now (`now`) differs from its AC at the start of the fight (the one on its sheet),
    and what changed it: `{"was": 13, "why": ["-4 charging this round [ODD-CHARGE-4]", ...], "text": ...}`, or
    None when it is the same. The reasons are the components that differ (each with its rule: ODD-CHARGE-4,
    ODD-AC-SHIELD, MOD-COND-PRONE and the other conditions) and the armour events of the log about it (a shield destroyed, HR-ARMDMG-1..4)."""
    was = _starting_armour_classes(fight).get(name)
    if was is None or now is None or was.value == now.value:
        return None
    why = _ac_differences(was, now)
    if fight.setup.ruleset.armour_damage:  # armour events exist only then (HR-ARMDMG-1..5): no scan without
        why += [
            f"{e.text} [{e.rule}]" if e.rule else e.text
            for e in fight.events
            if e.type == EventType.ARMOUR and e.target == name and e.text
        ]
    return {"was": was.value, "why": why, "text": f"was {was.value}: " + "; ".join(why)}


def ac_changes(fight: Fight) -> dict[str, dict[str, Any]]:
    """:func:`ac_change` of every combatant whose AC changed."""
    out = {}
    for name, c in fight.state.combatants.items():
        found = ac_change(fight, name, _armour_class(fight.state, c))
        if found is not None:
            out[name] = found
    return out


# The ACs of a setup's combatants before any event, kept for the last few setups (a kept fold's setup is the
# same object from request to request): they depend on the setup alone.
_STARTING: OrderedDict[int, tuple[object, dict[str, ArmourClass | None]]] = OrderedDict()
_STARTING_KEPT = 64
_STARTING_LOCK = threading.Lock()  # requests run in a thread pool


def _starting_armour_classes(fight: Fight) -> dict[str, ArmourClass | None]:
    key = id(fight.setup)
    with _STARTING_LOCK:
        kept = _STARTING.get(key)
        if kept is not None and kept[0] is fight.setup:
            _STARTING.move_to_end(key)
            return kept[1]
    start = Fight(fight.setup).state  # no events: every AC as the encounter file gives it
    found = {name: _armour_class(start, c) for name, c in start.combatants.items()}
    with _STARTING_LOCK:
        _STARTING[key] = (fight.setup, found)  # the setup is held, so its id is not reused while kept
        while len(_STARTING) > _STARTING_KEPT:
            _STARTING.popitem(last=False)
    return found


def _ac_differences(was: ArmourClass, now: ArmourClass) -> list[str]:
    """The components of `now` that `was` did not have (or had at another value), then those it lost."""
    old = {(m.reason, m.rule): m.value for m in was.components}
    new = {(m.reason, m.rule): m.value for m in now.components}
    gained = [
        f"{v:+d} {reason} [{rule}]" for (reason, rule), v in new.items() if old.get((reason, rule)) != v
    ]
    lost = [
        f"lost {v:+d} {reason} [{rule}]" for (reason, rule), v in old.items() if (reason, rule) not in new
    ]
    return gained + lost


def conditions(state: FightState, c: CombatantState) -> list[dict[str, Any]]:
    """Conditions with the rounds they have left (a condition ends at the end of round `until_round`); the
    dead have none (their conditions end with them); `referee` marks the referee's own (no mechanics)."""
    if c.status == "dead":
        return []
    out = []
    for cond in sorted(c.conditions.values(), key=lambda x: x.name):
        left = None if cond.until_round is None else max(0, cond.until_round - state.round + 1)
        entry: dict[str, Any] = {"name": cond.name, "until_round": cond.until_round, "rounds_left": left}
        if cond.data.get("referee"):
            entry.update(referee=True, note=str(cond.data.get("note", "")))
        out.append(entry)
    return out


def player_sides(fight: Fight) -> list[str]:
    """The sides whose numbers the players see: the encounter's `players`, else the first side."""
    named = fight.setup.source.get("players") if isinstance(fight.setup.source, dict) else None
    return [str(n) for n in named] if named else list(fight.setup.sides[:1])


def hidden_names(fight: Fight, tabled: Sequence[Event] | None = None) -> set[str]:
    """Who the players do not see now: hidden in the file, unless revealed since, or hidden again. `tabled`:
    the log's table actions alone (:attr:`Folded.tabled`), which say the same as the whole log."""
    toggled = table_actions.visibility(list(fight.events if tabled is None else tabled))
    return {n for n, c in fight.state.combatants.items() if toggled.get(n, c.spec.hidden)}


# Conditions that tie two combatants together: a grapple may be put on by hand with the other grappler
# (`by`, MOD-COND-GRAPPLED-2); a garrotte arises only from an attack (engine/conditions.resolve_apply).
NEEDS_PARTNER = {"grappled": "by", "grappling": "by", "garrotted": "attack", "garrotting": "attack"}


def condition_choices() -> list[dict[str, Any]]:
    """Every condition of the vocabulary for the picker: name, meaning, rule, and `partner`: "by" (put on
    with the other combatant it ties), "attack" (arises from an attack only) or None. Worked out once (the
    vocabulary and the table are fixed): every answer carries it."""
    return [dict(c) for c in _condition_choices()]


@functools.cache
def _condition_choices() -> tuple[dict[str, Any], ...]:
    return tuple(
        {
            "name": name,
            "meaning": meaning,
            "rule": row.rule if (row := CONDITION_TABLE.get(name)) else None,
            "partner": NEEDS_PARTNER.get(name) if name in PAIRED else None,
        }
        for name, meaning in sorted(CONDITIONS.items())
    )


def suggested_action(fight: Fight, current: str | None) -> dict[str, Any] | None:
    """What the engine would do for the current actor (the default tactics, as in `referee fight`)."""
    if current is None:
        return None
    try:
        return tactics.choose_action(fight.state, current).to_dict()
    except (RefereeError, LookupError, ValueError):
        return None


def hit_points_after(fight: Fight) -> dict[int, int]:
    """The target's hit points left after each damage and healing line of the log (by line number)."""
    replay = Fight(fight.setup)
    out: dict[int, int] = {}
    for i, e in enumerate(fight.events):
        replay.push([e])
        if e.type in (EventType.DAMAGE, EventType.HEAL) and e.target in replay.state.combatants:
            out[i] = replay.state.combatants[e.target].hp
    return out


def event_view(stored: StoredEvent) -> dict[str, Any]:
    return {"seq": stored.seq, "step": stored.step, **stored.event.to_dict()}


_KINDS: dict[tuple[tuple[str, type], ...], list[dict[str, Any]]] = {}


def action_kinds() -> list[dict[str, Any]]:
    """Every action kind the engine offers, with its fields, so the form sends only what a kind accepts
    (`table`: one of the referee's table actions, taken in nobody's turn). Worked out once per registry."""
    key = tuple(sorted(ACTION_TYPES.items()))
    if key not in _KINDS:
        _KINDS.clear()
        _KINDS[key] = _action_kinds()
    return [dict(k) for k in _KINDS[key]]


def fixed_blocks() -> dict[str, Any]:
    """What every referee state carries that depends on no fight: the condition picker's choices, the action
    kinds with their fields, the attack forms, the degrees of cover and concealment."""
    return {
        "condition_choices": condition_choices(),
        "action_kinds": action_kinds(),
        "forms": [f.value for f in AttackForm],
        "cover": list(COVER_DEGREES),
        "concealment": list(CONCEALMENT_DEGREES),
    }


_ENCODED_BLOCKS: dict[tuple[tuple[str, type], ...], dict[str, Encoded]] = {}


def encoded_fixed_blocks() -> dict[str, Encoded]:
    """:func:`fixed_blocks` as JSON, made once per registry (15 KB of every answer: half a change's)."""
    key = tuple(sorted(ACTION_TYPES.items()))
    found = _ENCODED_BLOCKS.get(key)
    if found is None:
        _ENCODED_BLOCKS.clear()
        found = _ENCODED_BLOCKS[key] = {k: Encoded(encode(v)) for k, v in fixed_blocks().items()}
    return found


def _action_kinds() -> list[dict[str, Any]]:
    kinds = []
    for kind, cls in sorted(ACTION_TYPES.items()):
        kinds.append(
            {
                "kind": kind,
                "table": kind in table_actions.TABLE_KINDS,
                "doc": (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else "",
                "fields": [
                    {"name": f.name, "default": None if f.default is MISSING else _jsonable(f.default)}
                    for f in fields(cls)
                ],
            }
        )
    return kinds


def _jsonable(value: Any) -> Any:
    return value if isinstance(value, str | int | float | bool) or value is None else str(value)


def log_page(first: int, version: int) -> dict[str, Any]:
    """Which lines of the log a change's `events` holds: `from` (`first`, its first line) to `to` (one past the
    last, the version), `complete` when that is the whole log."""
    return {"from": first, "to": version, "size": LOG_PAGE, "complete": first == 0}


def referee_view(
    row: EncounterRow,
    fight: Fight,
    stored: list[StoredEvent],
    lines: list[dict[str, Any]] | Encoded | None = None,
    tabled: Sequence[Event] | None = None,
    fixed: Mapping[str, Any] | None = None,
    suggested: Callable[[], dict[str, Any] | None] | None = None,
) -> dict[str, Any]:
    """The referee's state; `lines` (the log's lines already shown, :meth:`Folded.lines`) or, without it,
    every line of `stored` with its hit points left; `tabled` (the table actions of the log) or the log;
    `fixed` (:func:`encoded_fixed_blocks`, for a JSON answer) or :func:`fixed_blocks`; `suggested` (the
    kept fold's :meth:`Folded.suggested`) or :func:`suggested_action`."""
    state = fight.state
    current = fight.next_actor() if fight.needs() == "action" else None
    hidden = hidden_names(fight, tabled)
    players = player_sides(fight)
    combatants = []
    for c in state.combatants.values():
        combatants.append(
            {
                "name": c.name,
                "side": c.side,
                "kind": "monster" if c.spec.is_monster else "character",
                "players": c.side in players,
                "hidden": c.name in hidden,
                "hp": c.hp,
                "max_hp": c.max_hp,
                "subdual": c.subdual,
                # what Begin gives it: its fixed hit points, or the dice it rolls ("30", "rolls 4d8+1")
                "hp_at_begin": _hp_at_begin(c),
                "status": c.status,
                "ac": None if (found := _armour_class(state, c)) is None else found.value,
                "ac_why": "" if found is None else found.breakdown(),
                # AC not as on the sheet: was, why (said beside it on the page)
                "ac_change": ac_change(fight, c.name, found),
                "conditions": conditions(state, c),
                "weapons": [w.name for w in c.spec.weapons],
                "acted": c.name in state.acted,
                "current": c.name == current,
            }
        )
    return {
        "id": row.id,
        "name": row.name,
        "version": row.version,
        "revision": row.revision,
        "redo": row.redo_groups,
        "ruleset": fight.setup.ruleset.name,
        "armour_class": fight.setup.ruleset.armour_class.value,  # the convention of every AC shown (DAC-AC-1)
        "verdict": _verdict(fight, state.winner),
        "needs": fight.needs(),
        "round": state.round,
        "phase": state.phase,
        "winner": state.winner,
        "free_round": state.free_round,
        "current": current,
        "order": [list(slot) for slot in state.order],
        "sides": list(fight.setup.sides),
        "own_monsters": own_monster_names(fight.setup.source),  # the encounter's catalog (issue 15)
        "combatants": combatants,
        "events": _with_hit_points(fight, stored) if lines is None else lines,
        "players": players,
        "rolls": dict(state.rolls) if state.order else {},
        "first_strike": _first_strike(fight),
        "suggested": suggested_action(fight, current) if suggested is None else suggested(),
        "notes": [
            e.text for e in (fight.events if tabled is None else tabled) if e.data.get("table") == "note"
        ],
        **(fixed_blocks() if fixed is None else fixed),
        "rulings": list(fight.setup.rulings),  # the encounter's stored rulings (ODD-SIT-1)
    }


def _hp_at_begin(c: CombatantState) -> str:
    """Before Begin: "30" (fixed hit points) or "rolls 4d8+1" (ODD-HD-2), so nobody reads 0/0 as dead."""
    if c.spec.hp is not None:
        return str(c.spec.hp)
    return f"rolls {c.spec.hp_dice}" if c.spec.hp_dice else "rolled"


def _first_strike(fight: Fight) -> list[dict[str, str]]:
    """This round's first strikes, each with its reason and rule (ODD-INIT-5/6), from the round's initiative
    event: `{"actor", "before", "reason", "rule", "text": "Ogre acts before Angthar: larger size [ODD-INIT-5]"}`."""
    last = next((e for e in reversed(fight.events) if e.type == EventType.INITIATIVE), None)
    if last is None or last.round != fight.state.round or not fight.state.order:
        return []
    out = []
    for move in last.data.get("first_strike") or []:
        if not isinstance(move, dict):
            continue
        entry = {str(k): str(v) for k, v in move.items()}
        text = f"{entry.get('actor', '?')} acts before {entry.get('before', '?')}"
        if entry.get("reason"):
            text += f": {entry['reason']}"
        entry["text"] = text + (f" [{entry['rule']}]" if entry.get("rule") else "")
        out.append(entry)
    return out


def _with_hit_points(fight: Fight, stored: list[StoredEvent]) -> list[dict[str, Any]]:
    after = hit_points_after(fight)
    out = []
    for i, s in enumerate(stored):
        view = event_view(s)
        if i in after:
            view["hp_left"] = after[i]
        out.append(view)
    return out


def player_view(row: EncounterRow, fight: Fight, tabled: Sequence[Event] | None = None) -> dict[str, Any]:
    """The players' view: nothing a player's character could not see. Numbers only for the players' sides."""
    state = fight.state
    hidden = hidden_names(fight, tabled)
    shown = {c.name for c in state.combatants.values() if c.name not in hidden}
    players = player_sides(fight)
    current = fight.next_actor() if fight.needs() == "action" else None
    combatants = []
    for c in state.combatants.values():
        if c.name not in shown:
            continue
        entry: dict[str, Any] = {
            "name": c.name,
            "side": c.side,
            "party": c.side in players,
            "conditions": [
                {"name": x["name"], "rounds_left": x["rounds_left"]} for x in conditions(state, c)
            ],
        }
        if c.side in players:
            entry.update(hp=c.hp, max_hp=c.max_hp, status=c.status)
        else:
            entry["health"] = health_word(c)
        combatants.append(entry)
    order = [[n for n in slot if n in shown] for slot in state.order]
    view: dict[str, Any] = {
        "name": row.name,
        "round": state.round,
        "over": fight.is_over(),
        "winner": state.winner,
        "current": seen_current(state, current, shown),
        "order": [slot for slot in order if slot],
        "combatants": combatants,
    }
    view["revision"] = hashlib.sha256(json.dumps(view, sort_keys=True).encode()).hexdigest()[:16]
    return view


def seen_current(state: FightState, current: str | None, shown: set[str]) -> str | None:
    """Whose turn the players see: the actor if they can see it; while a hidden one acts, the next visible
    combatant in the order that is still to act this round, or nobody (what they see after everyone acted)."""
    if current is None or current in shown:
        return current
    names = [n for slot in state.order for n in slot]
    after = names[names.index(current) + 1 :] if current in names else []
    for name in after:
        c = state.combatants[name]
        if name in shown and name not in state.acted and c.is_active():
            return name
    return None


def _verdict(fight: Fight, winner: str | None) -> str | None:
    """ "Orcs win", "Lucas wins" (issue 15): the verb agrees with the winning side's name."""
    if winner is None:
        return None
    return winner_text(winner, [c.name for c in fight.setup.combatants if c.side == winner])
