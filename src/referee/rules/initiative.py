"""Initiative (ODD-INIT-1..6) and the order of action in a round.

The order is a list of *slots*; the combatants in one slot act simultaneously (ODD-INIT-3).

The procedure is written once here and composed from small steps, so every path (the event engine,
the exact odds, the simulator) rolls and sorts the same way:

- :func:`initiative_units`: who rolls (each combatant, or each side under group initiative);
- :func:`roll_unit`: the *only* place the initiative d10 is rolled (with any segment delays);
- :func:`order_from_rolls`: the slots from the rolls (pure);
- :func:`roll_initiative`: all of it, with first strike in the first round.

Callers outside this module call ``initiative.roll_unit(...)`` through the module, so a house rule that
replaces it (d10 + Dex modifier) reaches every path.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial

from referee.deferred import defer, deferrable
from referee.dice import DiceSource
from referee.model import Combatant, Size
from referee.rules import memo
from referee.rules.options import Initiative as InitiativeOption  # not this module's Initiative
from referee.rules.ruleset import Ruleset

# Rules that delay a combatant by some segments (segment initiative, option `initiative`) register here;
# each returns (segments, rule, why) for a combatant in a round, rolling any dice it needs.
DELAY_RULES: list[Callable[[Combatant, int, DiceSource], list[tuple[int, str, str]]]] = []

GROUP = InitiativeOption.D10_GROUP  # option `initiative`: one roll per side (ODD-INIT-4)


def is_group(ruleset: Ruleset) -> bool:
    """ODD-INIT-4: under group initiative each side rolls once."""
    return ruleset.initiative is GROUP


@dataclass(frozen=True)
class UnitRoll:
    """One unit's initiative: the d10 face, its sort key (higher acts first; equal keys act together)
    and the segment delays that lowered it."""

    unit: str
    face: int
    key: tuple[int, ...]
    delays: tuple[tuple[int, str, str], ...] = ()


@dataclass(frozen=True)
class Initiative:
    """A round's order of action: slots, each unit's d10 face, first-strike moves, the rule applied."""

    order: list[list[str]]
    rolls: dict[str, int]
    first_strike: list[dict[str, str]] = field(default_factory=list)
    rule: str = "ODD-INIT-1"
    notes: tuple[str, ...] = ()  # for the account: ties broken by Dex, simultaneous slots, first strikes


# the rule and the notes of a rolled order are worked out when first read (:func:`_ordered`): a simulator
# never reads them
deferrable(Initiative, ("rule", "notes"))


def initiative_units(ruleset: Ruleset, active: Sequence[Combatant], sides: Sequence[str]) -> list[str]:
    """Who rolls: every active combatant in file order (ODD-INIT-1), or under group initiative each
    side that has an active member, in the encounter's side order (ODD-INIT-4)."""
    if is_group(ruleset):
        return [s for s in sides if any(c.side == s for c in active)]
    return [c.name for c in active]


def members_of_units(
    ruleset: Ruleset, active: Sequence[Combatant], sides: Sequence[str]
) -> dict[str, list[str]]:
    """The combatants each unit stands for: itself, or a side's active members (ODD-INIT-4)."""
    if is_group(ruleset):
        return {s: [c.name for c in active if c.side == s] for s in sides}
    return {c.name: [c.name] for c in active}


def roll_unit(
    ruleset: Ruleset, unit: str, members: Sequence[Combatant], number: int, dice: DiceSource
) -> UnitRoll:
    """Roll one unit's initiative in round `number`: the one place the initiative d10 is rolled.

    Individual (ODD-INIT-1/2/3): d10, then that combatant's segment delays (DELAY_RULES); key
    (d10 - delay, Dex) so ties go to the higher Dex and equal Dex act together. Group (ODD-INIT-4):
    d10 for the side; key (d10,), ties act together (GAP-INIT-GROUP-TIE).
    """
    if ruleset.initiative is GROUP:  # is_group (ODD-INIT-4), asked without a call: once per unit and round
        face = dice.roll(10, die_label(unit))
        return UnitRoll(unit, face, (face,))
    c = members[0]
    face = dice.roll(10, die_label(c.name))
    if not DELAY_RULES:
        return _kept_unit_roll(unit, face, c.abilities.dexterity)
    delays = tuple(d for hook in DELAY_RULES for d in hook(c, number, dice))
    delay = sum(d[0] for d in delays) if delays else 0
    return UnitRoll(unit, face, (face - delay, c.abilities.dexterity), delays)


def die_label(name: str) -> str:
    """What an initiative d10 is asked as (the unit's or the combatant's name): its label in the log."""
    return f"initiative {name}"


def _kept_unit_roll(unit: str, face: int, dex: int) -> UnitRoll:
    """An individual roll without segment delays: key (d10, Dex); frozen and the same for the same unit, face
    and Dex, so made once (with the caches on)."""
    if not memo.ENABLED:
        return _unit_roll(unit, face, (face, dex))
    faces = _faces_of(unit, dex)
    found = faces.get(face)
    if found is None:
        found = faces[face] = _unit_roll(unit, face, (face, dex))
    return found


def _faces_of(unit: str, dex: int) -> dict[int, UnitRoll]:
    """The kept rolls of `unit` with this Dex, by d10 face (:func:`_kept_unit_roll`)."""
    found = _UNIT_ROLLS.get((unit, dex))
    if found is None:
        if len(_UNIT_ROLLS) >= _ORDERS_LIMIT:
            _UNIT_ROLLS.clear()
        found = _UNIT_ROLLS[unit, dex] = {}
    return found


def _unit_roll(unit: str, face: int, key: tuple[int, ...]) -> UnitRoll:
    """``UnitRoll(unit, face, key)`` without a frozen dataclass's per-field ``__setattr__`` (one per
    combatant and round)."""
    made = _new(UnitRoll)
    values = made.__dict__
    values["unit"], values["face"], values["key"], values["delays"] = unit, face, key, ()
    return made


def _plain_rolls(plain: _Plain, dice: DiceSource) -> list[UnitRoll]:
    """:func:`roll_unit` for each unit in turn under individual initiative with no segment delays (ODD-INIT-1,
    ODD-INIT-2): its d10 with its label, the roll kept for the unit, face and Dex (the same records)."""
    draw = dice.roll
    rolls = []
    for unit, label, dex, faces in plain:
        face = draw(10, label)
        found = faces.get(face)  # _kept_unit_roll's, its unit's kept rolls at hand
        rolls.append(found if found is not None else _kept_unit_roll(unit, face, dex))
    return rolls


_new = object.__new__
# (unit, Dex) -> its rolls by d10 face
_UNIT_ROLLS: dict[tuple[str, int], dict[int, UnitRoll]] = {}


def order_from_rolls(
    ruleset: Ruleset, rolls: Sequence[UnitRoll], members_of: Mapping[str, Sequence[str]]
) -> list[list[str]]:
    """The slots from the rolls: higher key first (ODD-INIT-1/2), equal keys share a slot (ODD-INIT-3,
    GAP-INIT-GROUP-TIE), a unit's members in file order; empty units leave no slot. Pure."""
    return _order(rolls, members_of)


def roll_initiative(
    ruleset: Ruleset, active: Sequence[Combatant], sides: Sequence[str], number: int, dice: DiceSource
) -> Initiative:
    """Round `number`'s order for the active combatants (ODD-INIT-1..6): one :func:`roll_unit` per unit
    in file (or side) order, the slots, then first strike in the first round (ODD-INIT-5/6)."""
    ids = tuple(map(id, active))
    units, members, by_name, sheets, plain = _units(ruleset, active, sides, ids)
    if plain is not None and roll_unit is _ROLL_UNIT and not DELAY_RULES and memo.ENABLED:
        rolls = _plain_rolls(plain, dice)  # roll_unit's own answers, asked without a call per unit
    else:
        rolls = [roll_unit(ruleset, unit, sheets[unit], number, dice) for unit in units]
    first = number == 1 and bool(ruleset.first_strike_reach_size)
    if not memo.ENABLED or len(rolls) > _FEW_UNITS:
        return _ordered(ruleset, rolls, members, by_name, first)
    # the rest is a pure function of the rolls, the sheets and the procedures: worked out once for the
    # same rolls of the same sheets (a duel's hundred pairs of faces come up again and again; with more
    # units the same faces seldom come up twice, and asking would only cost)
    # the rolls by id: a roll is kept per unit, face and Dex (roll_unit), and the entry keeps them (compared
    # below), so an id in the key stays theirs; a roll made afresh (segment delays) only misses
    key = (
        id(ruleset), tuple(map(id, rolls)), ids, first,
        order_from_rolls, apply_first_strike, explain_order,
    )  # fmt: skip
    found = _ORDERS.get(key)
    if found is None or found[0] is not ruleset or found[1] != active or found[3] != rolls:
        if len(_ORDERS) >= _ORDERS_LIMIT:
            _ORDERS.clear()
        made = _ordered(ruleset, rolls, members, by_name, first)
        found = _ORDERS[key] = (ruleset, list(active), made, rolls)
    return found[2]


# who rolls, whom each stands for, the sheets by name and each unit's sheets; under individual
# initiative also each unit's name, die label and Dex (what roll_unit reads) and its kept rolls by face,
# else None
_Plain = tuple[tuple[str, str, int, dict[int, UnitRoll]], ...]
_Units = tuple[
    list[str], dict[str, list[str]], dict[str, Combatant], dict[str, list[Combatant]], _Plain | None
]


def _units(
    ruleset: Ruleset, active: Sequence[Combatant], sides: Sequence[str], ids: tuple[int, ...]
) -> _Units:
    """Who rolls, whom each unit stands for (names and sheets) and the sheets by name: the same every round
    while the same combatants stand (`ids`: theirs), so worked out once for them (unless the engine's
    caches are off)."""
    key = (id(ruleset), ids, tuple(sides))
    found = _UNITS.get(key) if memo.ENABLED else None
    if found is not None and found[0] is ruleset and found[1] == active:
        return found[2]
    units = initiative_units(ruleset, active, sides)
    members = members_of_units(ruleset, active, sides)
    by_name = {c.name: c for c in active}
    sheets = {u: [by_name[n] for n in members[u]] for u in units}
    plain = None
    if not is_group(ruleset):  # roll_unit's label and key for one combatant (ODD-INIT-1/2)
        plain = tuple(
            (u, die_label(sheets[u][0].name), dex, _faces_of(u, dex))
            for u, dex in ((u, sheets[u][0].abilities.dexterity) for u in units)
        )
    made = (units, members, by_name, sheets, plain)
    if memo.ENABLED:
        if len(_UNITS) >= _ORDERS_LIMIT:
            _UNITS.clear()
        _UNITS[key] = (ruleset, list(active), made)
    return made


# (id(ruleset), the active sheets' ids, the sides) -> (the ruleset, the sheets, the answer)
_UNITS: dict[tuple[object, ...], tuple[Ruleset, list[Combatant], _Units]] = {}


# the key above -> (the ruleset, the sheets, the answer, the rolls): kept so that their ids stay theirs
_ORDERS: dict[tuple[object, ...], tuple[Ruleset, list[Combatant], Initiative, list[UnitRoll]]] = {}
_ORDERS_LIMIT = 4096
_FEW_UNITS = 3
_ROLL_UNIT = roll_unit  # the procedure as imported: _plain_rolls answers as it does


def _ordered(
    ruleset: Ruleset,
    rolls: Sequence[UnitRoll],
    members: Mapping[str, Sequence[str]],
    by_name: Mapping[str, Combatant],
    first_round: bool,
) -> Initiative:
    """The slots from the rolls, first strike in the first round; the rule and the account's notes
    (:func:`explain_order`) worked out when first read (:mod:`referee.deferred`)."""
    order = order_from_rolls(ruleset, rolls, members)
    moves: list[dict[str, str]] = []
    if first_round:
        order, moves = apply_first_strike(order, by_name)
    made = _new(Initiative)  # Initiative(...) field for field, without the frozen per-field __setattr__
    values = made.__dict__
    values["order"], values["rolls"], values["first_strike"] = order, {r.unit: r.face for r in rolls}, moves
    # the account's rule and notes (explain_order, a pure function of these) when first read: the
    # procedure as it is now, so that one replaced later does not change an order already rolled
    defer(made, EXPLAINED, partial(explain_order, ruleset, tuple(rolls), tuple(moves)))
    return made


EXPLAINED = ("rule", "notes")  # an Initiative's fields worked out when first read


def explain_order(
    ruleset: Ruleset, rolls: Sequence[UnitRoll], moves: Sequence[Mapping[str, str]]
) -> tuple[str, tuple[str, ...]]:
    """The rule that decided the order and the account's notes: a tie broken by Dex (ODD-INIT-2), equal
    rolls and Dex acting together (ODD-INIT-3; sides: GAP-INIT-GROUP-TIE), first strikes (ODD-INIT-5/6)."""
    grouped = is_group(ruleset)
    rule = "ODD-INIT-4" if grouped else "ODD-INIT-1"
    notes: list[str] = []
    by_roll: dict[int, list[UnitRoll]] = {}
    firsts = [r.key[0] for r in rolls]
    for r in rolls if len(set(firsts)) < len(firsts) else ():  # every roll its own: no tie to tell
        group = by_roll.get(r.key[0])
        if group is None:
            by_roll[r.key[0]] = [r]  # a list only for a roll not seen yet (setdefault makes one each time)
        else:
            group.append(r)
    for tied in (group for group in by_roll.values() if len(group) > 1):
        by_dex, same, told = _tie(grouped, tied)
        notes += told
        if by_dex:
            rule = "ODD-INIT-2"
        if same is not None:
            rule = rule if rule == "ODD-INIT-2" else same
    for m in moves:
        notes.append(
            f"first strike: {m['actor']} acts before {m['before']} ({m['reason']}, round 1) [ODD-INIT-5, ODD-INIT-6]"
        )
    return rule, tuple(notes)


def _tie(grouped: bool, tied: Sequence[UnitRoll]) -> tuple[bool, str | None, tuple[str, ...]]:
    """One roll shared by several units: whether Dex broke it (ODD-INIT-2), the rule of those left acting
    together (ODD-INIT-3, GAP-INIT-GROUP-TIE) and the notes; a pure function of the units and their keys,
    told once for them (seven combatants' d10s tie most rounds, the same few ways)."""
    key = (grouped, tuple([(r.unit, r.key) for r in tied]))
    found = _TIES.get(key) if memo.ENABLED else None
    if found is None:
        found = _told_tie(grouped, tied)
        if memo.ENABLED:
            if len(_TIES) >= _ORDERS_LIMIT:
                _TIES.clear()
            _TIES[key] = found
    return found


def _told_tie(grouped: bool, tied: Sequence[UnitRoll]) -> tuple[bool, str | None, tuple[str, ...]]:
    """A tie worked out: higher Dex first (ODD-INIT-2), equal keys act together (ODD-INIT-3; sides:
    GAP-INIT-GROUP-TIE)."""
    notes = []
    names = " = ".join(r.unit for r in tied)
    by_dex = len(tied[0].key) > 1 and len({r.key for r in tied}) > 1
    if by_dex:
        best_first = sorted(tied, key=lambda r: r.key, reverse=True)
        dex = ", ".join(f"{r.unit} Dex {r.key[1]}" for r in best_first)
        notes.append(f"tie {names} at {tied[0].key[0]}: higher Dex first ({dex}) [ODD-INIT-2]")
    same = None
    if len({r.key for r in tied}) < len(tied):
        same = "GAP-INIT-GROUP-TIE" if grouped else "ODD-INIT-3"
        what = "the sides act" if grouped else "equal rolls and Dex act"
        notes.append(f"tie {names} at {tied[0].key[0]}: {what} simultaneously [{same}]")
    return by_dex, same, tuple(notes)


# (group initiative?, the tied units and their keys) -> what the tie decided and its notes
_TIES: dict[
    tuple[bool, tuple[tuple[str, tuple[int, ...]], ...]], tuple[bool, str | None, tuple[str, ...]]
] = {}


# --- the older building blocks (kept for their callers) ------------------------------------------------


@dataclass(frozen=True)
class Roll:
    name: str
    roll: int
    dex: int
    delay: int = 0

    @property
    def key(self) -> tuple[int, int]:
        """Sort key: higher effective roll first, then higher Dex (ODD-INIT-2)."""
        return (self.roll - self.delay, self.dex)


def order_individual(rolls: Sequence[Roll]) -> list[list[str]]:
    """ODD-INIT-1: highest roll first; ODD-INIT-2: ties by higher Dex; ODD-INIT-3: equal Dex act together."""
    units = [UnitRoll(r.name, r.roll, r.key) for r in rolls]
    return _order(units, {r.name: [r.name] for r in rolls})


def order_groups(side_rolls: Sequence[tuple[str, int]], members: dict[str, list[str]]) -> list[list[str]]:
    """ODD-INIT-4: one d10 per side; the whole winning side acts first; ties act together (GAP-INIT-GROUP-TIE)."""
    return _order([UnitRoll(s, face, (face,)) for s, face in side_rolls], members)


def _order(rolls: Sequence[UnitRoll], members_of: Mapping[str, Sequence[str]]) -> list[list[str]]:
    # the ruleset-free sort behind order_from_rolls (a house rule may replace that one)
    slots: list[list[str]] = []
    last: tuple[int, ...] | None = None
    for r in sorted(rolls, key=_KEY, reverse=True):  # stable: ties keep the rolling order
        if r.key == last and slots:
            slots[-1].extend(members_of[r.unit])
        else:
            slots.append(list(members_of[r.unit]))
        last = r.key
    return [s for s in slots if s]


_KEY = operator.attrgetter("key")


def longest_reach(c: Combatant) -> int:
    return max((w.reach for w in c.weapons if not w.is_ranged), default=5)


def has_first_strike(big: Combatant, small: Combatant) -> str | None:
    """ODD-INIT-5: reach over 10 ft against reach under 6 ft, or Large-or-bigger against Medium-or-smaller.
    A pure function of two frozen sheets: answered once per pair (asked for every pair in round 1)."""
    key = (id(big), id(small))
    found = _FIRST_STRIKES.get(key)
    if found is None or found[0] is not big or found[1] is not small:
        if len(_FIRST_STRIKES) >= 4096:
            _FIRST_STRIKES.clear()
        found = _FIRST_STRIKES[key] = (big, small, _first_strike(big, small))
    return found[2]


# (id(big), id(small)) -> (big, small, the answer): the sheets are kept so that their ids stay theirs
_FIRST_STRIKES: dict[tuple[int, int], tuple[Combatant, Combatant, str | None]] = {}


def _may_strike_first(big: Combatant) -> bool:
    """Whether `big` could have first strike over anyone (:func:`has_first_strike` asks one of these)."""
    found = _FIRST_STRIKERS.get(id(big))
    if found is None or found[0] is not big:
        if len(_FIRST_STRIKERS) >= 4096:
            _FIRST_STRIKERS.clear()
        found = _FIRST_STRIKERS[id(big)] = (big, longest_reach(big) > 10 or big.size >= Size.LARGE)
    return found[1]


# id(sheet) -> (the sheet, whether it may strike first): the sheet is kept so that its id stays its own
_FIRST_STRIKERS: dict[int, tuple[Combatant, bool]] = {}


def _first_strike(big: Combatant, small: Combatant) -> str | None:
    if longest_reach(big) > 10 and longest_reach(small) < 6:
        return "longer reach"
    if big.size >= Size.LARGE and small.size <= Size.MEDIUM:
        return "larger size"
    return None


def _any_first_striker(combatants: Mapping[str, Combatant]) -> bool:
    """Whether any of `combatants` could have first strike over anyone (:func:`_may_strike_first`): asked
    once for the same sheets."""
    key = tuple(map(id, combatants.values()))
    found = _ANY_STRIKER.get(key)
    if found is None:
        if len(_ANY_STRIKER) >= 4096:
            _ANY_STRIKER.clear()
        sheets = list(combatants.values())
        found = _ANY_STRIKER[key] = (sheets, any(_may_strike_first(c) for c in sheets))
    return found[1]


# the sheets' ids -> (the sheets, the answer): the sheets are kept so that their ids stay theirs
_ANY_STRIKER: dict[tuple[int, ...], tuple[list[Combatant], bool]] = {}


def apply_first_strike(
    slots: list[list[str]], combatants: Mapping[str, Combatant]
) -> tuple[list[list[str]], list[dict[str, str]]]:
    """First round only (ODD-INIT-5, ODD-INIT-6): a creature with first strike against an enemy that
    would act before it is moved to act just before that enemy. Assumes the foes close to within 10 ft
    in the first round (the encounter has them engaged); the move is that creature's action for the round.
    """
    moves: list[dict[str, str]] = []
    slots = [list(s) for s in slots]
    if not _any_first_striker(combatants):
        return slots, moves  # nobody with reach over 10 ft or Large: nobody strikes first (ODD-INIT-5)
    for name in [n for slot in slots for n in slot]:
        me = combatants[name]
        if not _may_strike_first(me):
            continue  # neither reach over 10 ft nor Large: first strike over nobody (ODD-INIT-5)
        my_slot = next(i for i, s in enumerate(slots) if name in s)
        for i, slot in enumerate(slots[:my_slot]):
            foes = [n for n in slot if combatants[n].side != me.side and has_first_strike(me, combatants[n])]
            if foes:
                reason = has_first_strike(me, combatants[foes[0]]) or ""
                slots[my_slot].remove(name)
                slots.insert(i, [name])
                moves.append({"actor": name, "before": foes[0], "reason": reason, "rule": "ODD-INIT-5"})
                break
        slots = [s for s in slots if s]
    return slots, moves
