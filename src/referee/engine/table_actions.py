"""The referee's table actions: what a referee does by hand at any point after Begin, in nobody's turn.

Changing hit points (harm or heal, the status follows: ODD-HP-1, GAP-HP-ZERO), a latecomer joining
(hit points rolled as at set-up, ODD-HD-1/2; initiative from the next round, or at once with a given roll,
ODD-INIT-1), a combatant leaving (fled, surrendered, removed: the end of the fight counts it as gone), a
hidden combatant revealed or hidden again, the referee's own named conditions (no mechanics), notes, and
a free dice roll. Each is an ordinary action with ``out_of_turn``, so it is a step of its own that undoes
and redoes like any other, and its events are the whole record (state is still only their fold).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from referee.dice import DiceSource, DiceTape, roll
from referee.engine.actions import Action
from referee.engine.events import Event, EventType, event
from referee.engine.state import CombatantState, Condition, FightState
from referee.errors import EncounterFileError, IllegalActionError, RefereeError
from referee.model import Combatant
from referee.rules import hit_points
from referee.vocabulary import CONDITIONS

LEAVING = ("fled", "surrendered", "removed")
LEFT_TEXT = {"fled": "flees", "surrendered": "surrenders", "removed": "is removed from the fight"}
MAX_TEXT = 500  # a reason, note or condition name longer than this is refused


@dataclass(frozen=True)
class AdjustHp(Action):
    """The referee changes hit points by hand: `amount` < 0 harms, > 0 heals (ODD-HP-1)."""

    kind: ClassVar[str] = "adjust_hp"
    out_of_turn: ClassVar[bool] = True
    target: str = ""
    amount: int = 0
    reason: str = "referee"


@dataclass(frozen=True)
class AddCombatant(Action):
    """A combatant joins the fight (an encounter file's combatant, on one of its sides)."""

    kind: ClassVar[str] = "add_combatant"
    out_of_turn: ClassVar[bool] = True
    side: str = ""
    combatant: Mapping[str, Any] = field(default_factory=dict)
    initiative: int | None = None  # given: it joins this round's order at once with this roll


@dataclass(frozen=True)
class RemoveCombatant(Action):
    """A combatant leaves the fight: fled, surrendered or removed."""

    kind: ClassVar[str] = "remove_combatant"
    out_of_turn: ClassVar[bool] = True
    target: str = ""
    status: str = "removed"
    reason: str = "referee"


@dataclass(frozen=True)
class Reveal(Action):
    """A hidden combatant is revealed: from now on the players see it."""

    kind: ClassVar[str] = "reveal"
    out_of_turn: ClassVar[bool] = True
    target: str = ""


@dataclass(frozen=True)
class Hide(Action):
    """A combatant is hidden from the players' view again."""

    kind: ClassVar[str] = "hide"
    out_of_turn: ClassVar[bool] = True
    target: str = ""


@dataclass(frozen=True)
class Mark(Action):
    """The referee's own named condition (frightened, charmed...): shown with its rounds, no mechanics."""

    kind: ClassVar[str] = "mark"
    out_of_turn: ClassVar[bool] = True
    target: str = ""
    name: str = ""
    rounds: int | None = None  # counting this round; None = until removed
    note: str = ""


@dataclass(frozen=True)
class Unmark(Action):
    """The referee takes off one of its own named conditions."""

    kind: ClassVar[str] = "unmark"
    out_of_turn: ClassVar[bool] = True
    target: str = ""
    name: str = ""


@dataclass(frozen=True)
class Note(Action):
    """A note in the log, on one combatant (`target`) or on the whole fight."""

    kind: ClassVar[str] = "note"
    out_of_turn: ClassVar[bool] = True
    target: str = ""
    text: str = ""


@dataclass(frozen=True)
class FreeRoll(Action):
    """A free roll of dice in d20 notation (2d6+1), logged; it changes nothing."""

    kind: ClassVar[str] = "roll"
    out_of_turn: ClassVar[bool] = True
    dice: str = "d20"
    reason: str = ""


TABLE_KINDS = tuple(
    cls.kind for cls in (AdjustHp, AddCombatant, RemoveCombatant, Reveal, Hide, Mark, Unmark, Note, FreeRoll)
)


def normalise(data: Any) -> Any:
    """A table action as the API names it (``target``, the combatant's ``name``) with the ``actor`` every
    action carries; ``remove_condition hidden`` is a reveal. Anything else is returned as it is."""
    if not isinstance(data, dict):
        return data
    kind = data.get("kind")
    if kind == "remove_condition" and data.get("condition") == "hidden":
        return {"kind": "reveal", "actor": data.get("actor", ""), "target": data.get("actor", "")}
    if kind not in TABLE_KINDS or "actor" in data:
        return data
    if kind == "add_combatant":
        who = data.get("combatant")
        name = who.get("name") if isinstance(who, dict) else None
        return {**data, "actor": name if isinstance(name, str) else ""}
    target = data.get("target", "")
    return {**data, "actor": target if isinstance(target, str) else ""}


def _text(value: str, what: str) -> str:
    if len(value) > MAX_TEXT:
        raise IllegalActionError(f"{what} is {len(value)} characters; the limit is {MAX_TEXT}")
    return value


def _target(state: FightState, action: Action) -> CombatantState:
    name = getattr(action, "target", "") or action.actor
    return state[name]


def _table_event(type_: EventType, state: FightState, what: str, **fields: Any) -> Event:
    data = {"free": True, "table": what, **fields.pop("data", {})}
    return event(type_, state.round, data=data, **fields)


# --- hit points ----------------------------------------------------------------------------------------


def resolve_adjust_hp(state: FightState, action: AdjustHp, dice: DiceSource) -> list[Event]:
    """Harm (ODD-HP-1, GAP-HP-ZERO: the status follows the hit points left) or heal (a healed unconscious
    combatant wakes; never above the maximum; the dead are not raised)."""
    c = _target(state, action)
    reason = _text(action.reason or "referee", "the reason")
    if action.amount == 0:
        raise IllegalActionError("give a change of hit points: -3 harms, +5 heals")
    if c.status in LEAVING:
        raise IllegalActionError(f"{c.name} has left the fight ({c.status})")
    if c.status == hit_points.DEAD:
        raise IllegalActionError(f"{c.name} is dead: undo the blow instead")
    if action.amount < 0:
        return harm(state, c, -action.amount, reason)
    return heal(state, c, action.amount, reason)


def harm(state: FightState, c: CombatantState, amount: int, reason: str) -> list[Event]:
    left = c.hp - amount
    status = hit_points.status_after_damage(left, c.subdual, c.spec.is_monster, state.setup.ruleset)
    out = [
        _table_event(EventType.DAMAGE, state, "adjust_hp", target=c.name, damage=amount, rule="ODD-HP-1",
                     text=f"{c.name} loses {amount} hit points ({reason}): {left} left",
                     data={"reason": reason, "hp_left": left})
    ]  # fmt: skip
    if status != c.status:
        out.append(
            event(EventType.DEFEAT, state.round, target=c.name, rule="GAP-HP-ZERO",
                  text=f"{c.name} is {status}", data={"status": status, "hp": left})
        )  # fmt: skip
    if status == hit_points.DEAD:
        out += conditions_end(state, c)
    return out


def heal(state: FightState, c: CombatantState, amount: int, reason: str) -> list[Event]:
    after = hit_points.healed_hit_points(c.hp, c.max_hp, amount)
    gained = after - c.hp
    if gained <= 0:
        raise IllegalActionError(f"{c.name} has all its hit points ({c.hp}/{c.max_hp})")
    status = hit_points.status_after_healing(c.status, after, c.subdual)
    woke = f"; {c.name} wakes" if status != c.status else ""
    data: dict[str, Any] = {"reason": reason, "hp_left": after}
    if status != c.status:
        data["status"] = status
    return [
        _table_event(EventType.HEAL, state, "adjust_hp", target=c.name, damage=gained, rule="ODD-HP-1",
                     text=f"{c.name} regains {gained} hit points ({reason}): {after} left{woke}", data=data)
    ]  # fmt: skip


def conditions_end(state: FightState, c: CombatantState) -> list[Event]:
    """A dead combatant's conditions end with it (nothing is stunned or charmed any more)."""
    return [
        _table_event(EventType.CONDITION, state, "dead", target=c.name,
                     text=f"{c.name} is no longer {name} (dead)", data={"condition": name, "added": False})
        for name in sorted(c.conditions)
    ]  # fmt: skip


# --- joining and leaving ---------------------------------------------------------------------------------


def joined_combatants(state: FightState, side: str, raw: Mapping[str, Any]) -> list[Combatant]:
    """The combatants a file's combatant entry makes on `side`, checked as the encounter file would be (the
    same validation and catalog), with names no one in the fight has."""
    from referee.files import setup_from_data  # the file layer, only when someone joins

    if side not in state.setup.sides:
        raise IllegalActionError(f"no side {side!r}; sides: {', '.join(state.setup.sides)}")
    source = dict(state.setup.source)
    sides = [dict(s) for s in source.get("sides", [])]
    for s in sides:
        s["combatants"] = [raw] if s.get("name") == side else list(s.get("combatants", []))[:1]
    try:
        probe = setup_from_data({**source, "sides": sides, "surprise": None}, "add_combatant")
    except EncounterFileError as exc:
        raise IllegalActionError(str(exc)) from None
    new = [c for c in probe.combatants if c.side == side]
    taken = [c.name for c in new if c.name in state.combatants]
    if taken:
        raise IllegalActionError(f"{taken[0]!r} is already in the fight; give the newcomer another name")
    if not new:
        raise IllegalActionError("the combatant entry makes no combatant")
    return new


def resolve_add(state: FightState, action: AddCombatant, dice: DiceSource) -> list[Event]:
    """ODD-HD-1/2: the newcomer's hit points are its fixed number or a roll of its hit dice; it joins the
    initiative from the next round, or with a given `initiative` this round's order at once (ODD-INIT-1:
    before every slot that rolled lower)."""
    newcomers = joined_combatants(state, action.side, action.combatant)
    tape = DiceTape(dice)
    hp = {c.name: hit_points.roll_hit_points(c, tape) for c in newcomers}
    names = ", ".join(f"{n} ({v} hp)" for n, v in hp.items())
    when = (
        "joins this round" if action.initiative is not None and state.order else "joins from the next round"
    )
    out = [
        _table_event(EventType.ACTION, state, "add_combatant", actor=None, dice=tape.take(), rule="ODD-HD-2",
                     text=f"{names} {when} ({action.side})",
                     data={"joins": {"side": action.side, "combatant": dict(action.combatant), "hp": hp}})
    ]  # fmt: skip
    if action.initiative is not None and state.order:
        out.append(_joined_order(state, list(hp), action.initiative))
    return out


def _joined_order(state: FightState, names: list[str], given: int) -> Event:
    """This round's order with the newcomers in a slot of their own, before the first slot still to act that
    rolled lower (the slots that have acted stay where they are)."""
    if not 1 <= given <= 100:
        raise IllegalActionError(f"initiative {given} is not a roll")
    order = [list(slot) for slot in state.order]
    rolls = dict(state.rolls)

    def slot_roll(slot: list[str]) -> int:
        return max(rolls.get(n, rolls.get(state[n].side, 0)) for n in slot)

    at = len(order)
    for i in range(max(0, state.current_slot + 1), len(order)):
        if slot_roll(order[i]) < given:
            at = i
            break
    order.insert(at, names)
    rolls.update({n: given for n in names})
    text = (
        "initiative: "
        + " > ".join("=".join(slot) for slot in order)
        + f" ({', '.join(names)} rolled {given})"
    )
    return event(EventType.INITIATIVE, state.round, rule="ODD-INIT-1", text=text,
                 data={"order": order, "rolls": rolls, "table": "add_combatant"})  # fmt: skip


def fold_join(state: FightState, e: Event) -> None:
    """The state side of a join (called by the fold for an event with ``data.joins``): the newcomers get
    their hit points and become part of the fight's setup, so every rule that looks them up finds them."""
    from referee.bestiary import expand_combatant
    from referee.catalog.own import own_catalog_in
    from referee.files import resolve_combatant  # the file layer, only when someone joined
    from referee.model import CombatantSpec
    from referee.rules.options import ArmourClass

    joins = e.data["joins"]
    descending = state.setup.ruleset.armour_class is ArmourClass.DESCENDING
    own = own_catalog_in(state.setup.source)  # the encounter's own catalog, as its file had it (issue 15)
    # `monster: ogre`, `stat_block:` and `ac: "6 [13]"` spelled out as the encounter file's are (issue 15)
    spec = CombatantSpec.model_validate(
        expand_combatant(dict(joins["combatant"]), "add_combatant", descending, own.monsters if own else None)
    )
    newcomers = resolve_combatant(spec, str(joins["side"]), "add_combatant", own.catalog() if own else None)
    state.setup = replace(state.setup, combatants=(*state.setup.combatants, *newcomers))
    for c in newcomers:
        hp = int(joins["hp"][c.name])
        state.combatants[c.name] = CombatantState(spec=c, fight=state, hp=hp, max_hp=hp, position=c.position)
        for cond in c.conditions:
            state.combatants[c.name].conditions[cond] = Condition(cond, data={"since": max(1, state.round)})


def resolve_remove(state: FightState, action: RemoveCombatant, dice: DiceSource) -> list[Event]:
    """Out of the fight: the end of the fight counts it as gone (ODD-ROUND-1: one side left wins)."""
    c = _target(state, action)
    if action.status not in LEAVING:
        raise IllegalActionError(f"a combatant leaves as {', '.join(LEAVING)}, not {action.status!r}")
    if c.status in LEAVING:
        raise IllegalActionError(f"{c.name} has already left the fight ({c.status})")
    reason = _text(action.reason or "referee", "the reason")
    return [
        _table_event(EventType.DEFEAT, state, "remove_combatant", target=c.name,
                     text=f"{c.name} {LEFT_TEXT[action.status]} ({reason})",
                     data={"status": action.status, "left": True, "was": c.status, "reason": reason})
    ]  # fmt: skip


# --- what the players see, the referee's own conditions, notes and free rolls ---------------------------------


def resolve_reveal(state: FightState, action: Reveal | Hide, dice: DiceSource) -> list[Event]:
    """From now on the players see the combatant (reveal) or no longer do (hide); see :func:`visibility`."""
    c = _target(state, action)
    what = "revealed: the players see it" if isinstance(action, Reveal) else "hidden from the players"
    return [_table_event(EventType.ACTION, state, action.kind, target=c.name, text=f"{c.name} is {what}")]


def resolve_mark(state: FightState, action: Mark, dice: DiceSource) -> list[Event]:
    c = _target(state, action)
    name = _text(action.name.strip(), "the condition's name")
    if not name:
        raise IllegalActionError("name the condition (frightened, charmed...)")
    if name in CONDITIONS:
        raise IllegalActionError(f"{name!r} is a condition with rules: use apply_condition")
    if action.rounds is not None and action.rounds < 1:
        raise IllegalActionError(f"a condition lasts at least 1 round, not {action.rounds}")
    since = max(1, state.round if state.order or state.free_round else state.round + 1)
    until = None if action.rounds is None else since + action.rounds - 1
    note = _text(action.note, "the note")
    lasting = "until removed" if until is None else f"until the end of round {until}"
    return [
        _table_event(EventType.CONDITION, state, "mark", target=c.name,
                     text=f"{c.name} is {name} {lasting}" + (f" ({note})" if note else "") + " (no mechanics)",
                     data={"condition": name, "added": True, "until_round": until,
                           "extra": {"since": since, "referee": True, "note": note}})
    ]  # fmt: skip


def resolve_unmark(state: FightState, action: Unmark, dice: DiceSource) -> list[Event]:
    c = _target(state, action)
    cond = c.conditions.get(action.name)
    if cond is None or not cond.data.get("referee"):
        raise IllegalActionError(f"{c.name} has no referee's condition {action.name!r}")
    return [
        _table_event(EventType.CONDITION, state, "unmark", target=c.name,
                     text=f"{c.name} is no longer {action.name}", data={"condition": action.name, "added": False})
    ]  # fmt: skip


def resolve_note(state: FightState, action: Note, dice: DiceSource) -> list[Event]:
    text = _text(action.text.strip(), "the note")
    if not text:
        raise IllegalActionError("the note is empty")
    target = _target(state, action).name if (action.target or action.actor) else None
    return [
        _table_event(EventType.ACTION, state, "note", target=target,
                     text=(f"note on {target}: " if target else "note: ") + text, data={"note": text})
    ]  # fmt: skip


def resolve_roll(state: FightState, action: FreeRoll, dice: DiceSource) -> list[Event]:
    reason = _text(action.reason.strip(), "the reason")
    tape = DiceTape(dice)
    try:
        result = roll(action.dice, tape, reason or "free roll")
    except (RefereeError, ValueError) as exc:
        if isinstance(exc, IllegalActionError):
            raise
        raise IllegalActionError(f"cannot roll {action.dice!r}: {exc}") from None
    text = f"roll {action.dice}" + (f" ({reason})" if reason else "") + f": {result.total}"
    return [
        _table_event(EventType.ACTION, state, "roll", dice=tape.take(), total=result.total, text=text,
                     data={"expression": action.dice, "reason": reason})
    ]  # fmt: skip


def visibility(events: list[Event]) -> dict[str, bool]:
    """Who is hidden from the players after these events, for those a reveal or hide named (the rest:
    as the encounter file says)."""
    seen: dict[str, bool] = {}
    for e in events:
        what = e.data.get("table") if e.type == EventType.ACTION else None
        if what in {"reveal", "hide"} and e.target is not None:
            seen[e.target] = what == "hide"
    return seen
