"""Many fights at once: a numpy kernel compiled from the engine's own rule functions.

The simulator never restates a rule. For an encounter it *compiles* lookup tables by asking the engine:

- hit points: the engine's set-up step (:meth:`Fight.begin`) is enumerated over every die result;
- every attack: for each (attacker, target, earlier attackers on that target this round) the default
  tactics (:func:`tactics.choose_action`) pick the weapon, and the real resolver (:func:`resolve`) is
  run on every sequence of dice it can ask for (attack d20s, confirmation dice, miss-chance dice,
  damage dice). The exact joint distribution of the damage dealt (to the target, and to the attacker
  by a fumble's free attack back) becomes a table;
- defeat: :func:`hit_points.status_after_damage` is tabulated over every reachable hit-point total;
- initiative: the sort key of :class:`initiative.Roll` (ODD-INIT-1..3) for each d10 face, or one
  d10 per side (ODD-INIT-4).

The kernel then plays whole batches of fights with a few array operations per combatant turn. Encounters
the tables cannot express (surprise, positions, starting conditions, attacks that impose
conditions or change armour, hooks that act at the start or end of a round, ...) are played one by one
by the event engine (:func:`run_fight`) instead; :class:`SimResult` says which path ran and why.
"""

from __future__ import annotations

import itertools
import json
import math
import multiprocessing
import os
import time
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

import referee.rules.enabled  # noqa: F401  (registers every rule)
from referee.dice import DiceSource, RandomDice
from referee.engine import fight as fight_module
from referee.engine.actions import Attack, Wait
from referee.engine.events import EventType, event
from referee.engine.fight import Fight, run_fight
from referee.engine.resolve import attack_context, resolve
from referee.engine.state import FightState
from referee.engine.tactics import choose_action
from referee.errors import IllegalActionError, RefereeError
from referee.files import Setup
from referee.model import Combatant
from referee.rules import hit_points, initiative
from referee.rules.attack import AttackPlan, plan_attack

IntArray = npt.NDArray[np.int64]
T = TypeVar("T", bound=Hashable)

VECTORISED = "vectorised"
EVENT_ENGINE = "event engine"
NUMBA = "numba"  # the compiled kernel (needs the numba package)
NUMPY = "numpy"  # the array kernel (the reference; used without numba or when asked for)

LEAF_LIMIT = 20_000  # dice sequences enumerated per attack or hit-point roll before giving up
TABLE_LIMIT = 1 << 20  # entries of one lookup table; larger exact tables are rounded (see _table)
MAX_EARLIER_ATTACKERS = 3  # attackers already counted on a target (shields cover at most 3, ODD-AC-SHIELD)
PROBE_HP = 1000  # hit points of the combatants in the probe state (the chosen target has 1)


class Unsupported(RefereeError):
    """The encounter needs something the vectorised path cannot express; the event engine runs it."""


# --- exact distributions from the engine's own functions ------------------------------------------


class _NeedDie(BaseException):  # not an Exception: no `except Exception` in a rule may swallow it
    def __init__(self, sides: int) -> None:
        self.sides = sides


class _ProbeDice:
    """Hands out a fixed prefix of faces, then stops the caller to ask which die comes next."""

    def __init__(self, faces: list[int]) -> None:
        self.faces = faces
        self.used = 0

    def roll(self, sides: int, purpose: str) -> int:
        if self.used < len(self.faces):
            face = self.faces[self.used]
            self.used += 1
            return face
        raise _NeedDie(sides)


def enumerate_dice(fn: Callable[[DiceSource], T], limit: int = LEAF_LIMIT) -> dict[T, Fraction]:
    """The exact distribution of `fn`'s result over every sequence of dice it can ask for.

    `fn` is run with scripted dice; when it asks for a die beyond the script, every face of that die
    is tried in turn (a depth-first walk of the dice tree). Raises Unsupported past `limit` leaves.
    """
    out: dict[T, Fraction] = {}
    stack: list[tuple[list[int], Fraction]] = [([], Fraction(1))]
    leaves = 0
    while stack:
        faces, weight = stack.pop()
        try:
            value = fn(_ProbeDice(faces))
        except _NeedDie as need:
            share = weight / need.sides
            stack.extend(([*faces, f], share) for f in range(need.sides, 0, -1))
            continue
        leaves += 1
        if leaves > limit:
            raise Unsupported(f"more than {limit} dice outcomes to enumerate")
        out[value] = out.get(value, Fraction(0)) + weight
    return out


def sum_distribution(groups: list[tuple[int, int]], constant: int) -> dict[int, Fraction]:
    """Distribution of a plain sum of dice (count, sides) plus a constant, by convolution."""
    counts = np.ones(1, dtype=object)
    for count, sides in groups:
        for _ in range(count):
            counts = np.convolve(counts, np.ones(sides, dtype=object))
    low = constant + sum(count for count, _ in groups)
    whole = sum(int(c) for c in counts)
    return {low + i: Fraction(int(c), whole) for i, c in enumerate(counts) if c}


@dataclass(frozen=True)
class Table:
    """A discrete distribution as a table of equally likely values: sample = table[floor(u * size)]."""

    values: npt.NDArray[np.int32]
    exact: bool


def _table(dist: dict[int, Fraction]) -> Table:
    """Exact when the common denominator fits TABLE_LIMIT; else rounded to TABLE_LIMIT entries
    (largest remainders), an error below one in a million per value."""
    items = sorted(dist.items())
    denominator = math.lcm(*(p.denominator for _, p in items))
    exact = denominator <= TABLE_LIMIT
    size = denominator if exact else TABLE_LIMIT
    raw = [p * size for _, p in items]
    counts = [math.floor(r) for r in raw]
    short = size - sum(counts)
    for i in sorted(range(len(raw)), key=lambda i: raw[i] - counts[i], reverse=True)[:short]:
        counts[i] += 1
    values = np.repeat(np.array([v for v, _ in items], dtype=np.int32), counts)
    return Table(values, exact)


# --- the probe state: a round-1 state the planners and tactics look at ----------------------------


def _probe_state(setup: Setup, target: str, earlier: list[str]) -> FightState:
    """Round 1, everyone standing; `target` has the fewest hit points (so the default tactics choose
    it) and `earlier` have already attacked it this round. Built only through events."""
    state = FightState.initial(setup)
    hp = {c.name: (1 if c.name == target else PROBE_HP) for c in setup.combatants}
    state.apply(event(EventType.SETUP, 0, data={"hp": hp}))
    state.apply(event(EventType.ROUND_START, 1, data={"order": [[c.name for c in setup.combatants]]}))
    for name in earlier:
        state.apply(event(EventType.ATTACK, 1, actor=name, target=target))
    return state


def _plan_key(plan: AttackPlan) -> tuple[Any, ...]:
    """What makes two attacks resolve alike (names aside)."""
    c = plan.check
    return (
        plan.weapon, plan.form, tuple(m.value for m in c.modifiers), c.target, c.natural, c.keep, c.automatic,
        c.compare, c.sides, c.count, plan.damage, plan.critical, plan.miss_chance, plan.miss_dice,
        plan.on_hit, plan.on_attempt, plan.deflection_used,
    )  # fmt: skip


_PLAIN_ATTACK_EVENTS = {EventType.ACTION, EventType.ATTACK, EventType.DAMAGE, EventType.DEFEAT}


# What one attack does: damage to its target, damage to the attacker (a free attack back on a fumble,
# MF-FUMBLE-2) and the number of such attacks back (they count on the attacker's shield, ODD-AC-SHIELD).
Outcome = tuple[int, int, int]


def _outcome(state: FightState, action: Attack, target: str, dice: DiceSource) -> Outcome:
    """Resolve the attack with the engine and read what it did; refuse anything the kernel cannot play."""
    actor = action.actor
    to_target = to_attacker = back = 0
    for e in resolve(state, action, dice):
        if e.type not in _PLAIN_ATTACK_EVENTS:
            raise Unsupported(f"{actor}'s attack on {target} can cause an event of type {e.type.value!r}")
        if e.type is EventType.ACTION and e.actor != actor and not e.data.get("free"):
            raise Unsupported(f"{actor}'s attack on {target} makes {e.actor} act")
        if e.type is EventType.ATTACK and (e.actor, e.target) != (actor, target):
            if (e.actor, e.target) != (target, actor):
                raise Unsupported(
                    f"{actor}'s attack on {target} leads to an attack by {e.actor} on {e.target}"
                )
            back += 1
        if e.type is EventType.DAMAGE:
            if e.data.get("subdual") or e.target not in {target, actor}:
                raise Unsupported(
                    f"{actor}'s attack on {target} deals subdual damage or damage to a third party"
                )
            if e.target == target:
                to_target += int(e.damage or 0)
            else:
                to_attacker += int(e.damage or 0)
    return to_target, to_attacker, back


# --- compiling an encounter -----------------------------------------------------------------------


@dataclass(frozen=True)
class Compiled:
    """The lookup tables the kernel plays from. Index order = the encounter file's order."""

    names: tuple[str, ...]
    sides: tuple[str, ...]
    side_of: IntArray  # (C,)
    enemy: npt.NDArray[np.bool_]  # (C, C)
    group_initiative: bool
    # (C, 10): order key for each d10 face (higher acts first, equal keys act together)
    init_key: npt.NDArray[np.int32]
    hp_values: npt.NDArray[np.int32]
    hp_off: IntArray
    hp_size: IntArray
    # (C, C, K): damage table of (attacker, target, earlier attackers on the target), or -1 (waits)
    plan_index: npt.NDArray[np.int32]
    dmg_values: npt.NDArray[np.int32]
    dmg_off: IntArray
    dmg_size: IntArray
    status_values: npt.NDArray[np.int8]  # code per hit-point total, per combatant
    status_base: IntArray  # status of combatant i with h hit points: status_values[status_base[i] + h]
    status_names: tuple[str, ...]  # code → status; code 0 is "active"
    max_rounds: int
    exact: bool
    may_wait: bool  # some combatant cannot attack some enemy (the tactics wait)
    side_rows: tuple[tuple[int, int], ...]  # each side's combatants are rows lo..hi-1 (file order)
    # each table entry is an outcome: damage to the target, damage to the attacker, attacks back
    out_target: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(1, np.int32))
    out_attacker: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(1, np.int32))
    out_back: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(1, np.int32))
    hits_back: bool = False
    first_round: IntArray | None = None  # (pattern code, 2, C): round-1 order with first strike

    @property
    def count(self) -> int:
        return len(self.names)


def check_supported(setup: Setup) -> None:
    """Raise Unsupported naming the first feature of the encounter the vectorised path cannot play."""
    if setup.surprise is not None and setup.surprise.possible and setup.surprise.sides:
        raise Unsupported("surprise checks (ODD-SURP-1 to ODD-SURP-5)")
    for c in setup.combatants:
        if c.position is not None:
            raise Unsupported("grid positions (movement and distance change during the fight)")
        if c.conditions:
            raise Unsupported(f"{c.name} starts with conditions ({', '.join(c.conditions)})")
    for c in setup.combatants:
        for hook in initiative.DELAY_RULES:
            try:
                delays = hook(c, 1, _ProbeDice([]))
            except _NeedDie:
                raise Unsupported(f"initiative delays that roll dice ({c.name})") from None
            if delays:
                raise Unsupported(f"initiative delays ({c.name}: {delays[0][2]})")
    state = _probe_state(setup, setup.combatants[0].name, [])
    for hooks in (fight_module.START_OF_ROUND, fight_module.END_OF_ROUND):
        for round_hook in hooks:
            try:
                if round_hook(state, _ProbeDice([])):
                    raise Unsupported(f"a round hook acts in this encounter ({round_hook.__name__})")
            except _NeedDie:
                raise Unsupported(f"a round hook rolls dice ({round_hook.__name__})") from None


def _hp_distribution(setup: Setup, c: Combatant) -> dict[int, Fraction]:
    """Hit points at set-up as the engine fixes them (ODD-HD-1, ODD-HD-2)."""
    alone = replace(setup, combatants=(c,), surprise=None)

    def hp(dice: DiceSource) -> int:
        setup_event = Fight(alone).begin(dice)[0]
        return int(setup_event.data["hp"][c.name])

    try:
        return enumerate_dice(hp)
    except Unsupported:
        pass
    # Too many dice to walk: the engine rolls a plain sum, so find each total's distribution by
    # convolution and ask the engine what hit points each total gives.
    from referee.dice import parse_dice

    linear = parse_dice(c.hp_dice or "0").linear()
    if linear is None or any(g.keep or g.count < 0 for g in linear[0]):
        raise Unsupported(f"{c.name}'s hit dice {c.hp_dice} are too many to enumerate")
    groups = [(g.count, g.sides) for g in linear[0]]
    totals = sum_distribution(groups, linear[1])
    out: dict[int, Fraction] = {}
    for total, p in totals.items():
        value = hp(_ProbeDice(_faces_for_total(groups, total - linear[1])))
        out[value] = out.get(value, Fraction(0)) + p
    return out


def _faces_for_total(groups: list[tuple[int, int]], wanted: int) -> list[int]:
    """Faces, in the order the dice are asked, whose sum is `wanted` (each die as high as it can be)."""
    sides = [s for count, s in groups for _ in range(count)]
    faces = []
    for i, s in enumerate(sides):
        rest = len(sides) - i - 1
        face = max(1, min(s, wanted - rest))
        faces.append(face)
        wanted -= face
    return faces


def _init_keys(setup: Setup) -> tuple[npt.NDArray[np.int32], bool]:
    """ODD-INIT-1..3: the engine's own sort key per d10 face, ranked; ODD-INIT-4: the side's d10."""
    group = setup.ruleset["initiative"] == "d10_group"
    if group:
        keys = np.tile(np.arange(1, 11, dtype=np.int32), (len(setup.combatants), 1))
        return keys, True
    raw = [
        [initiative.Roll(c.name, face, c.abilities.dexterity).key for face in range(1, 11)]
        for c in setup.combatants
    ]
    ranks = {key: i for i, key in enumerate(sorted({k for row in raw for k in row}))}
    return np.array([[ranks[k] + 1 for k in row] for row in raw], dtype=np.int32), False


FIRST_STRIKE_LIMIT = 6  # combatants (or sides, under group initiative) whose round-1 orders are tabulated


def _first_round_orders(setup: Setup, group: bool) -> IntArray | None:
    """ODD-INIT-5, ODD-INIT-6: round 1's order when someone has first strike, for every pattern of who
    rolled above whom, from the engine's own ordering and first-strike functions. None if nobody has it."""
    combatants = {c.name: c for c in setup.combatants}
    if not setup.ruleset.is_on("first_strike_reach_size") or not any(
        initiative.has_first_strike(a, b) for a in setup.combatants for b in setup.enemies_of(a.name)
    ):
        return None
    count = len(setup.combatants)
    units = len(setup.sides) if group else count
    if units > FIRST_STRIKE_LIMIT:
        raise Unsupported(
            f"first strike in round 1 (ODD-INIT-5) with more than {FIRST_STRIKE_LIMIT} initiative dice"
        )
    names = [c.name for c in setup.combatants]
    members = {s: [c.name for c in setup.combatants if c.side == s] for s in setup.sides}
    table = np.zeros((units**units, 2, count), dtype=np.int64)
    seen: set[tuple[int, ...]] = set()
    for levels in itertools.product(range(units), repeat=units):
        above = tuple(sum(other < mine for other in levels) for mine in levels)  # who rolled higher
        if above in seen:
            continue
        seen.add(above)
        if group:
            order = initiative.order_groups(
                [(s, units - above[i]) for i, s in enumerate(setup.sides)], members
            )
        else:
            order = initiative.order_individual(
                [initiative.Roll(n, units - above[i], 0) for i, n in enumerate(names)]
            )
        order, _ = initiative.apply_first_strike(order, combatants)
        code = sum(a * units**i for i, a in enumerate(above))
        position = 0
        for index, slot in enumerate(order):
            start = sum(len(s) for s in order[:index])
            for name in slot:
                table[code, 0, position] = names.index(name)
                table[code, 1, position] = start
                position += 1
    return table


def compile_setup(setup: Setup) -> Compiled:
    """Build the kernel's tables from the engine's own functions. Raises Unsupported."""
    check_supported(setup)
    combatants = setup.combatants
    names = tuple(c.name for c in combatants)
    n = len(names)
    sides = setup.sides
    side_of = np.array([sides.index(c.side) for c in combatants], dtype=np.int64)
    enemy = side_of[:, None] != side_of[None, :]
    hp_tables = [_table(_hp_distribution(setup, c)) for c in combatants]
    k_count = min(MAX_EARLIER_ATTACKERS + 1, max(1, int(enemy.sum(axis=0).max())))
    plan_index = np.full((n, n, k_count), -1, dtype=np.int32)
    dists: list[dict[Outcome, Fraction]] = []
    seen: dict[tuple[Any, ...], int] = {}
    # Combatants alike but for their names (`count: 6`) attack alike: compile each pair of kinds once.
    kinds = [json.dumps(c.model_dump(mode="json", exclude={"name"}), sort_keys=True) for c in combatants]
    done: dict[tuple[str, str, int], int] = {}
    for t in range(n):
        foes = [names[i] for i in range(n) if enemy[i, t]]
        for k in range(k_count):
            for a in range(n):
                if not enemy[a, t]:
                    continue
                earlier = [f for f in foes if f != names[a]][:k]
                if len(earlier) < k:
                    plan_index[a, t, k] = plan_index[a, t, k - 1]
                    continue
                kind = (kinds[a], kinds[t], k)
                if kind not in done:
                    done[kind] = _compile_attack(setup, names[a], names[t], earlier, seen, dists)
                plan_index[a, t, k] = done[kind]
    if all((plan_index[:, :, k] == plan_index[:, :, 0]).all() for k in range(k_count)):
        plan_index = plan_index[:, :, :1].copy()  # earlier attackers change nothing: skip counting them
    init_key, group = _init_keys(setup)
    outcomes: dict[Outcome, int] = {}
    for dist in dists:
        for o in dist:
            outcomes.setdefault(o, len(outcomes))
    dmg = [_table({outcomes[o]: p for o, p in dist.items()}) for dist in dists]
    table_of = np.array(list(outcomes), dtype=np.int32).reshape(-1, 3)
    max_damage = np.zeros(n, dtype=np.int64)  # the most one attack can take off each combatant
    for a in range(n):
        for t in range(n):
            for pid in set(plan_index[a, t].tolist()) - {-1}:
                max_damage[t] = max(max_damage[t], max(o[0] for o in dists[pid]))
                max_damage[a] = max(max_damage[a], max(o[1] for o in dists[pid]))
    status = [_status_table(setup, c, int(hp_tables[i].values.min()), int(hp_tables[i].values.max()),
                            int(max_damage[i])) for i, c in enumerate(combatants)]  # fmt: skip
    names_of_status = [hit_points.ACTIVE]
    for table in status:
        for s in table[1]:
            if s not in names_of_status:
                names_of_status.append(s)
    status_codes = [np.array([names_of_status.index(s) for s in table[1]], dtype=np.int8) for table in status]
    return Compiled(
        names=names,
        sides=sides,
        side_of=side_of,
        enemy=enemy,
        group_initiative=group,
        init_key=init_key,
        hp_values=np.concatenate([t.values for t in hp_tables]),
        hp_off=_offsets([t.values.size for t in hp_tables]),
        hp_size=np.array([t.values.size for t in hp_tables], dtype=np.int64),
        plan_index=plan_index,
        dmg_values=np.concatenate([t.values for t in dmg] or [np.zeros(1, np.int32)]),
        dmg_off=_offsets([t.values.size for t in dmg]),
        dmg_size=np.array([t.values.size for t in dmg] or [1], dtype=np.int64),
        status_values=np.concatenate(status_codes),
        status_base=_offsets([s.size for s in status_codes])
        - np.array([low for low, _ in status], dtype=np.int64),
        may_wait=bool((plan_index[enemy] < 0).any()),
        first_round=_first_round_orders(setup, group),
        out_target=np.ascontiguousarray(table_of[:, 0]),
        out_attacker=np.ascontiguousarray(table_of[:, 1]),
        out_back=np.ascontiguousarray(table_of[:, 2]),
        hits_back=bool(table_of[:, 1:].any()),
        side_rows=_side_rows(side_of),
        status_names=tuple(names_of_status),
        max_rounds=setup.max_rounds,
        exact=all(t.exact for t in hp_tables + dmg),
    )


def _side_rows(side_of: IntArray) -> tuple[tuple[int, int], ...]:
    """Row ranges per side; the file lists each side's combatants together (files.setup_from_data)."""
    rows = []
    for s in range(int(side_of.max()) + 1):
        where = np.flatnonzero(side_of == s)
        if where.size == 0 or where[-1] - where[0] + 1 != where.size:
            raise Unsupported("a side's combatants are not listed together")
        rows.append((int(where[0]), int(where[-1]) + 1))
    return tuple(rows)


def _offsets(sizes: list[int]) -> IntArray:
    return np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64) if sizes else np.zeros(1, np.int64)


def _compile_attack(
    setup: Setup, attacker: str, target: str, earlier: list[str],
    seen: dict[tuple[Any, ...], int], dists: list[dict[Outcome, Fraction]],
) -> int:  # fmt: skip
    """The damage table of `attacker`'s default attack on `target` (-1: the tactics wait)."""
    state = _probe_state(setup, target, earlier)
    action = choose_action(state, attacker)
    if isinstance(action, Wait):
        return -1
    if not isinstance(action, Attack) or action.target != target:
        raise Unsupported(f"the tactics give {attacker} a {action.kind} action, not a plain attack")
    try:
        plan = plan_attack(attack_context(state, action))
    except IllegalActionError:
        return -1
    if plan.on_hit or plan.on_attempt:
        raise Unsupported(f"{attacker}'s attack on {target} imposes conditions")
    if plan.deflection_used:
        raise Unsupported(f"{attacker}'s attack on {target} spends shield deflections (DAC-DEFL-3)")
    if plan.damage.knockout:
        raise Unsupported(f"{attacker}'s attack on {target} is a knock-out attempt (MF-KO-1)")
    key = _plan_key(plan)
    if key not in seen:
        try:
            dist = enumerate_dice(lambda dice: _outcome(state, action, target, dice))
        except Unsupported as exc:
            raise Unsupported(f"{attacker}'s attack on {target}: {exc}") from None
        seen[key] = len(dists)
        dists.append(dist)
    return seen[key]


def _status_table(
    setup: Setup, c: Combatant, hp_low: int, hp_high: int, max_damage: int
) -> tuple[int, list[str]]:
    """`status_after_damage` for every hit-point total the fight can reach (two blows below the lowest)."""
    # Hit points before a blow are at least 1 (only standing combatants are chosen as targets); a
    # combatant struck down in its own slot still acts (ODD-INIT-3) and may be struck back once more.
    low = min(hp_low, 1) - 2 * max_damage
    statuses = [
        hit_points.status_after_damage(hp, 0, c.is_monster, setup.ruleset) for hp in range(low, hp_high + 1)
    ]
    return low, statuses


# --- the kernel -----------------------------------------------------------------------------------


@dataclass
class Tally:
    """Counts from some fights; tallies add up (batches, workers)."""

    fights: int
    wins: IntArray  # per side
    draws: int
    round_limit: int
    rounds: IntArray  # histogram, index = rounds
    survived: IntArray  # per combatant: not dead at the end
    standing: IntArray  # per combatant: still active at the end
    hp_left: IntArray  # per combatant: sum of max(hp, 0) at the end

    @classmethod
    def empty(cls, sides: int, combatants: int, max_rounds: int) -> Tally:
        z = np.zeros
        return cls(0, z(sides, np.int64), 0, 0, z(max_rounds + 1, np.int64), z(combatants, np.int64),
                   z(combatants, np.int64), z(combatants, np.int64))  # fmt: skip

    def add(self, other: Tally) -> None:
        self.fights += other.fights
        self.wins += other.wins
        self.draws += other.draws
        self.round_limit += other.round_limit
        self.rounds += other.rounds
        self.survived += other.survived
        self.standing += other.standing
        self.hp_left += other.hp_left


def _sample(
    values: npt.NDArray[Any], off: IntArray, size: IntArray, which: Any, u: npt.NDArray[np.float64]
) -> Any:
    """One draw from each chosen table: entry floor(u * size) of table `which`."""
    return values[off[which] + (u * size[which]).astype(np.int64)]


@dataclass
class _Fights:
    """The fights of a batch still going on, one row per combatant (C, m): contiguous per combatant."""

    hp: npt.NDArray[np.int32]
    code: npt.NDArray[np.int8]  # status code; 0 = active
    # the tactics' sort key (engine/tactics.py): hit points << 8 | file index while active, else NOBODY
    keyed: npt.NDArray[np.int64]

    @property
    def size(self) -> int:
        return int(self.hp.shape[1])

    def keep(self, mask: npt.NDArray[np.bool_]) -> None:
        self.hp = np.ascontiguousarray(self.hp[:, mask])
        self.code = np.ascontiguousarray(self.code[:, mask])
        self.keyed = np.ascontiguousarray(self.keyed[:, mask])


NOBODY = np.int64(1) << 62  # no living enemy


def simulate_batch(c: Compiled, n: int, rng: np.random.Generator) -> Tally:
    """Play `n` fights to the end and count the results (all fights of a batch advance together)."""
    count = c.count
    hp = np.empty((count, n), dtype=np.int32)
    for j in range(count):
        hp[j] = _sample(c.hp_values, c.hp_off, c.hp_size, j, rng.random(n))
    keyed = (hp.astype(np.int64) << 8) | np.arange(count, dtype=np.int64)[:, None]
    fights = _Fights(hp, np.zeros((count, n), dtype=np.int8), keyed)
    tally = Tally.empty(len(c.sides), count, c.max_rounds)
    tally.fights = n
    round_no = 0
    while fights.size:
        round_no += 1
        _play_round(c, fights, rng, round_no)
        active = fights.code == 0
        standing = np.stack([active[c.side_of == s].any(axis=0) for s in range(len(c.sides))])
        sides_left = standing.sum(axis=0)
        done = (sides_left <= 1) | (round_no >= c.max_rounds)
        if done.any():
            _count_finished(tally, c, fights.hp[:, done], fights.code[:, done], standing[:, done],
                            sides_left[done], round_no)  # fmt: skip
            fights.keep(~done)
    return tally


def _play_round(c: Compiled, fights: _Fights, rng: np.random.Generator, round_no: int) -> None:
    """One round: initiative, then every combatant in order attacks the weakest living enemy."""
    count, m = c.count, fights.size
    code = fights.code
    flat_code = code.reshape(-1)
    actor_at, slot_first = _initiative(c, code == 0, rng, c.first_round if round_no == 1 else None)
    received = np.zeros(count * m, dtype=np.int32)  # attacks on each combatant this round
    downed = np.full(count * m, -1, dtype=np.int32)  # position in the order at which it went down
    rows = np.arange(m, dtype=np.int32)
    k_top = c.plan_index.shape[2] - 1
    flat_plans = c.plan_index.reshape(-1)
    for p in range(count):
        a = actor_at[p]
        at = a * m + rows
        # ODD-INIT-3: whoever stood when its slot began still acts, even if struck down in the slot
        acts = (flat_code[at] == 0) | (downed[at] >= slot_first[p])
        weakest = _weakest_enemy(c, fights.keyed).reshape(-1)[c.side_of[a] * m + rows]
        f = np.flatnonzero(acts & (weakest < NOBODY))
        if not f.size:
            continue
        af, tf = a[f], (weakest[f] & 255).astype(np.int64)
        tt = tf * m + f
        pair = af * count + tf
        # the plan may depend on how many attacked the target before this round (ODD-AC-SHIELD)
        earlier = np.minimum(received[tt], k_top) if k_top else 0
        plan = flat_plans[pair * (k_top + 1) + earlier]
        if c.may_wait:  # no legal attack on that target: the tactics wait
            go = plan >= 0
            f, af, tf, tt, plan = f[go], af[go], tf[go], tt[go], plan[go]
        if k_top:
            received[tt] += 1
        outcome = _sample(c.dmg_values, c.dmg_off, c.dmg_size, plan, rng.random(f.size))
        _wound(c, fights, tt, tf, c.out_target[outcome], downed, p)
        if c.hits_back:  # MF-FUMBLE-2: a fumble gives the target a free attack on the attacker
            aa = af * m + f
            if k_top:
                received[aa] += c.out_back[outcome]
            struck = np.flatnonzero(c.out_attacker[outcome])
            _wound(c, fights, aa[struck], af[struck], c.out_attacker[outcome[struck]], downed, p)


def _wound(c: Compiled, fights: _Fights, spot: Any, who: Any, damage: Any, downed: Any, p: int) -> None:
    """Take `damage` off the combatants at flat `spot` (combatant index `who`); update who stands."""
    left = fights.hp.reshape(-1)[spot] - damage
    fights.hp.reshape(-1)[spot] = left
    status = c.status_values[c.status_base[who] + left]
    fights.code.reshape(-1)[spot] = status
    fights.keyed.reshape(-1)[spot] = np.where(status == 0, (left.astype(np.int64) << 8) | who, NOBODY)
    downed[spot[status != 0]] = p


def _weakest_enemy(c: Compiled, keyed: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """engine/tactics.py: for each side (S, m), the key of the living enemy with the fewest hit points,
    ties to the first in the file (the smallest hit points << 8 | index), or NOBODY."""
    side_best = [keyed[lo:hi].min(axis=0) for lo, hi in c.side_rows]
    if len(side_best) == 2:
        return np.stack([side_best[1], side_best[0]])
    out = np.full((len(side_best), keyed.shape[1]), NOBODY, dtype=np.int64)
    for s in range(len(side_best)):
        for other, best in enumerate(side_best):
            if other != s:
                np.minimum(out[s], best, out=out[s])
    return out


def _initiative(
    c: Compiled, active: npt.NDArray[np.bool_], rng: np.random.Generator, patterns: IntArray | None = None
) -> tuple[Any, Any]:
    """Order of action: the highest key first, equal keys in one slot, file order inside a slot.

    Returns, per position (C, m), the combatant acting there and the first position of its slot.
    `patterns` (round 1 with first strike) maps the pattern of who rolled above whom to the order."""
    count, m = active.shape
    if c.group_initiative:
        unit_faces = rng.integers(0, 10, size=(len(c.sides), m), dtype=np.int32)
        faces = unit_faces[c.side_of]
    else:
        unit_faces = faces = rng.integers(0, 10, size=(count, m), dtype=np.int32)
    faces += (10 * np.arange(count, dtype=np.int32))[:, None]
    keys = c.init_key.reshape(-1)[faces]
    keys[~active] = 0
    if patterns is not None:  # round 1 with first strike: everyone stands, look the order up
        unit_keys = unit_faces if c.group_initiative else keys
        units = unit_keys.shape[0]
        code = np.zeros(m, dtype=np.int64)
        for i in range(units):
            above_i = sum((unit_keys[j] > unit_keys[i]).astype(np.int64) for j in range(units) if j != i)
            code += above_i * units**i
        return patterns[code, 0].T, patterns[code, 1].T
    if count > PAIRWISE_LIMIT:
        return _order_by_sorting(keys)
    return _order_pairwise(keys)


def _order_pairwise(keys: Any) -> tuple[Any, Any]:
    """Per fight (columns of `keys`): who acts at each position, and the first position of its slot."""
    count, m = keys.shape
    above = np.zeros((count, m), dtype=np.int32)  # how many have a higher key: the slot's first position
    position = np.zeros((count, m), dtype=np.int32)
    for i in range(count):
        for j in range(count):
            if i != j:
                above[i] += keys[j] > keys[i]
                if j < i:
                    position[i] += keys[j] == keys[i]
    position += above  # and how many act before it (file order inside a slot)
    actor_at = np.empty((count, m), dtype=np.int32)
    first = np.empty((count, m), dtype=np.int32)
    rows = np.arange(m, dtype=np.int32)
    flat_actor, flat_first = actor_at.reshape(-1), first.reshape(-1)
    for i in range(count):
        spot = position[i] * m + rows
        flat_actor[spot] = i
        flat_first[spot] = above[i]
    return actor_at, first


PAIRWISE_LIMIT = 12  # up to this many combatants, pairwise comparisons beat a sort (measured)


def _order_by_sorting(keys: Any) -> tuple[Any, Any]:
    """The same order as the pairwise count, by a stable sort of each fight's keys (many combatants)."""
    count, m = keys.shape
    by_fight = np.ascontiguousarray(keys.T)
    perm = np.argsort(-by_fight, axis=1, kind="stable")
    ranked = np.take_along_axis(by_fight, perm, axis=1)
    first = np.zeros((m, count), dtype=np.int64)
    starts = np.where(ranked[:, 1:] != ranked[:, :-1], np.arange(1, count), 0)
    first[:, 1:] = np.maximum.accumulate(starts, axis=1)
    return np.ascontiguousarray(perm.T), np.ascontiguousarray(first.T)


def _count_finished(
    tally: Tally, c: Compiled, hp: Any, code: Any, standing: Any, sides_left: Any, round_no: int
) -> None:
    """Add finished fights (columns) to the tally."""
    tally.rounds[round_no] += hp.shape[1]
    one = sides_left == 1
    tally.wins += standing[:, one].sum(axis=1)
    tally.draws += int((sides_left == 0).sum())
    tally.round_limit += int((sides_left > 1).sum())
    dead = c.status_names.index(hit_points.DEAD) if hit_points.DEAD in c.status_names else -1
    tally.survived += (code != dead).sum(axis=1)
    tally.standing += (code == 0).sum(axis=1)
    tally.hp_left += np.maximum(hp, 0).sum(axis=1)


# --- the compiled kernel (numba) ------------------------------------------------------------------
#
# The same fight, played one fight at a time in machine code: it reads the same tables and follows the
# same steps as `simulate_batch` above (which stays as the reference and the fallback when numba is
# missing). `tests/test_sim.py` checks that the two agree.


def _numba_play() -> Callable[..., Any] | None:
    """The numba kernel, compiled on first use (and cached on disk), or None without numba."""
    global _NUMBA_PLAY
    if _NUMBA_PLAY is not None:
        return _NUMBA_PLAY
    try:
        import numba  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        return None
    _NUMBA_PLAY = numba.njit(cache=True, nogil=True)(_play_fights)
    return _NUMBA_PLAY


_NUMBA_PLAY: Callable[..., Any] | None = None


def _play_fights(  # one loop nest, kept together for the compiler
    seed: int,
    n: int,
    side_of: Any,
    group: bool,
    init_key: Any,
    hp_values: Any,
    hp_off: Any,
    hp_size: Any,
    plan_index: Any,
    dmg_values: Any,
    dmg_off: Any,
    dmg_size: Any,
    out_target: Any,
    out_attacker: Any,
    out_back: Any,
    status_values: Any,
    status_base: Any,
    max_rounds: int,
    first_round: Any,
    has_first: bool,
    sides: int,
    dead: int,
    wins: Any,
    rounds: Any,
    survived: Any,
    standing: Any,
    hp_left: Any,
) -> tuple[int, int]:
    """Play `n` fights and add them to the tally arrays; returns (draws, round-limit fights)."""
    np.random.seed(seed)
    count = side_of.size
    k_top = plan_index.shape[2] - 1
    hp = np.zeros(count, np.int64)
    code = np.zeros(count, np.int64)
    keys = np.zeros(count, np.int64)
    side_faces = np.zeros(sides, np.int64)
    order = np.zeros(count, np.int64)
    first = np.zeros(count, np.int64)
    received = np.zeros(count, np.int64)
    downed = np.zeros(count, np.int64)
    left = np.zeros(sides, np.int64)
    draws = 0
    limit = 0
    for _ in range(n):
        for j in range(count):
            hp[j] = hp_values[hp_off[j] + int(np.random.random() * hp_size[j])]
            code[j] = 0
        round_no = 0
        while True:
            round_no += 1
            # initiative: ODD-INIT-1..3 (keys per combatant) or ODD-INIT-4 (one d10 a side)
            for s in range(sides):
                side_faces[s] = np.random.randint(0, 10)
            for j in range(count):
                face = side_faces[side_of[j]] if group else np.random.randint(0, 10)
                keys[j] = init_key[j, face] if code[j] == 0 else 0
            if round_no == 1 and has_first:  # ODD-INIT-5: the tabulated round-1 order
                units = sides if group else count
                pattern = 0
                scale = 1
                for i in range(units):
                    above = 0
                    for j in range(units):
                        if group:
                            above += side_faces[j] > side_faces[i]
                        else:
                            above += keys[j] > keys[i]
                    pattern += above * scale
                    scale *= units
                for p in range(count):
                    order[p] = first_round[pattern, 0, p]
                    first[p] = first_round[pattern, 1, p]
            else:
                for i in range(count):
                    above = 0
                    before = 0
                    for j in range(count):
                        if keys[j] > keys[i]:
                            above += 1
                        elif keys[j] == keys[i] and j < i:
                            before += 1
                    order[above + before] = i
                    first[above + before] = above
            for j in range(count):
                received[j] = 0
                downed[j] = -1
            for p in range(count):
                a = order[p]
                if code[a] != 0 and downed[a] < first[p]:
                    continue  # ODD-INIT-3: only those down since their slot began still act
                target = -1
                best = 0
                for j in range(count):  # engine/tactics.py: fewest hit points, ties to the file order
                    if side_of[j] != side_of[a] and code[j] == 0 and (target < 0 or hp[j] < best):
                        target = j
                        best = hp[j]
                if target < 0:
                    continue
                plan = plan_index[a, target, min(received[target], k_top)]
                if plan < 0:
                    continue  # no legal attack: the tactics wait
                received[target] += 1
                outcome = dmg_values[dmg_off[plan] + int(np.random.random() * dmg_size[plan])]
                hp[target] -= out_target[outcome]
                code[target] = status_values[status_base[target] + hp[target]]
                if code[target] != 0 and downed[target] < 0:
                    downed[target] = p
                received[a] += out_back[outcome]
                if out_attacker[outcome] > 0:  # MF-FUMBLE-2: struck back
                    hp[a] -= out_attacker[outcome]
                    code[a] = status_values[status_base[a] + hp[a]]
                    if code[a] != 0 and downed[a] < 0:
                        downed[a] = p
            for s in range(sides):
                left[s] = 0
            for j in range(count):
                if code[j] == 0:
                    left[side_of[j]] = 1
            standing_sides = 0
            winner = -1
            for s in range(sides):
                if left[s]:
                    standing_sides += 1
                    winner = s
            if standing_sides <= 1 or round_no >= max_rounds:
                rounds[round_no] += 1
                if standing_sides == 1:
                    wins[winner] += 1
                elif standing_sides == 0:
                    draws += 1
                else:
                    limit += 1
                for j in range(count):
                    survived[j] += code[j] != dead
                    standing[j] += code[j] == 0
                    hp_left[j] += max(hp[j], 0)
                break
    return draws, limit


def compiled_batch(c: Compiled, n: int, rng: np.random.Generator) -> Tally | None:
    """`simulate_batch` in the numba kernel (seeded from `rng`), or None when numba is missing."""
    play = _numba_play()
    if play is None:
        return None
    tally = Tally.empty(len(c.sides), c.count, c.max_rounds)
    tally.fights = n
    dead = c.status_names.index(hit_points.DEAD) if hit_points.DEAD in c.status_names else -1
    patterns = c.first_round if c.first_round is not None else np.zeros((1, 2, c.count), np.int64)
    tally.draws, tally.round_limit = play(
        int(rng.integers(0, 2**31 - 1)), n, c.side_of, c.group_initiative, c.init_key.astype(np.int64),
        c.hp_values, c.hp_off, c.hp_size, c.plan_index, c.dmg_values, c.dmg_off, c.dmg_size,
        c.out_target, c.out_attacker, c.out_back, c.status_values, c.status_base, c.max_rounds,
        patterns, c.first_round is not None, len(c.sides), dead,
        tally.wins, tally.rounds, tally.survived, tally.standing, tally.hp_left,
    )  # fmt: skip
    return tally


# --- the event engine, fight by fight -------------------------------------------------------------


def event_batch(setup: Setup, n: int, rng: np.random.Generator) -> Tally:
    """Play `n` fights with the event engine (each seeded from `rng`) and count the results."""
    names = [c.name for c in setup.combatants]
    tally = Tally.empty(len(setup.sides), len(names), setup.max_rounds)
    tally.fights = n
    for seed in rng.integers(0, 2**63 - 1, size=n):
        state = run_fight(setup, RandomDice(int(seed))).state
        tally.rounds[min(state.round, setup.max_rounds)] += 1
        left = state.sides_standing()
        if state.winner is not None:
            tally.wins[setup.sides.index(state.winner)] += 1
        elif left:
            tally.round_limit += 1
        else:
            tally.draws += 1
        for i, name in enumerate(names):
            cs = state.combatants[name]
            tally.survived[i] += cs.status != hit_points.DEAD
            tally.standing[i] += cs.is_active()
            tally.hp_left[i] += max(cs.hp, 0)
    return tally


# --- running many batches -------------------------------------------------------------------------


@dataclass(frozen=True)
class Job:
    setup: Setup
    compiled: Compiled | None
    n: int
    batch: int
    seed: int
    kernel: str = NUMPY

    @property
    def batches(self) -> int:
        return -(-self.n // self.batch)

    def size(self, index: int) -> int:
        return min(self.batch, self.n - index * self.batch)

    def run(self, index: int, seeds: np.random.SeedSequence) -> Tally:
        rng = np.random.default_rng(seeds)
        if self.compiled is None:
            return event_batch(self.setup, self.size(index), rng)
        if self.kernel == NUMBA:
            tally = compiled_batch(self.compiled, self.size(index), rng)
            if tally is not None:
                return tally
        return simulate_batch(self.compiled, self.size(index), rng)


_WORKER_JOB: Job | None = None


def _worker(task: tuple[int, np.random.SeedSequence]) -> Tally:
    assert _WORKER_JOB is not None
    return _WORKER_JOB.run(*task)


def batch_size(compiled: Compiled | None) -> int:
    """Fights per batch: memory stays near 64 MB of working arrays per batch, whatever the encounter."""
    if compiled is None:
        return 200
    return int(max(1024, min(1 << 17, (1 << 22) // max(1, compiled.count))))


@dataclass(frozen=True)
class SimResult:
    setup: Setup
    tally: Tally
    path: str
    reason: str
    seed: int
    workers: int
    seconds: float
    exact_tables: bool = True
    kernel: str = ""  # NUMBA or NUMPY on the vectorised path, "" on the event engine

    def win_rate(self, side: str) -> float:
        return float(self.tally.wins[self.setup.sides.index(side)]) / max(1, self.tally.fights)

    def mean_rounds(self) -> float:
        r = self.tally.rounds
        return float((r * np.arange(r.size)).sum()) / max(1, self.tally.fights)

    def median_rounds(self) -> int:
        cumulative = np.cumsum(self.tally.rounds)
        return int(np.searchsorted(cumulative, (self.tally.fights + 1) / 2))

    def to_dict(self) -> dict[str, Any]:
        t = self.tally
        n = max(1, t.fights)
        return {
            "encounter": self.setup.name,
            "ruleset": self.setup.ruleset.name,
            "fights": t.fights,
            "seed": self.seed,
            "workers": self.workers,
            "path": self.path,
            "fallback_reason": self.reason or None,
            "kernel": self.kernel or None,
            "exact_tables": self.exact_tables,
            "seconds": round(self.seconds, 3),
            "fights_per_second": round(t.fights / self.seconds) if self.seconds > 0 else None,
            "sides": [
                {
                    "side": s,
                    "wins": int(t.wins[i]),
                    "win_rate": int(t.wins[i]) / n,
                    "ci95": list(wilson(int(t.wins[i]), t.fights)),
                }
                for i, s in enumerate(self.setup.sides)
            ],
            "draws": {"count": t.draws, "rate": t.draws / n},
            "round_limit": {
                "count": t.round_limit,
                "rate": t.round_limit / n,
                "max_rounds": self.setup.max_rounds,
            },
            "rounds": {
                "mean": self.mean_rounds(),
                "median": self.median_rounds(),
                "distribution": {str(r): int(c) for r, c in enumerate(t.rounds) if c},
            },
            "combatants": [
                {
                    "name": c.name,
                    "side": c.side,
                    "survival_rate": int(t.survived[i]) / n,
                    "standing_rate": int(t.standing[i]) / n,
                    "mean_hp_left": int(t.hp_left[i]) / n,
                }
                for i, c in enumerate(self.setup.combatants)
            ],
        }


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (good near 0 and 1, unlike the normal one)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def plan_run(setup: Setup, force_engine: bool = False) -> tuple[Compiled | None, str]:
    """The compiled tables, or None and the reason the event engine must play this encounter."""
    if force_engine:
        return None, "the event engine was asked for"
    try:
        return compile_setup(setup), ""
    except Unsupported as exc:
        return None, str(exc)


def simulate(
    setup: Setup,
    n: int,
    seed: int = 0,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    force_engine: bool = False,
    batch: int | None = None,
    kernel: str | None = None,
) -> SimResult:
    """Play `n` fights of `setup`. Same seed and worker count → identical result (each batch is seeded
    from a SeedSequence spawned by batch index, so the result does not depend on the workers at all).

    `kernel`: NUMBA (compiled, the default when numba is installed) or NUMPY (the array reference)."""
    if n < 1:
        raise IllegalActionError(f"the number of fights must be at least 1, not {n}")
    if workers < 1:
        raise IllegalActionError(f"the number of workers must be at least 1, not {workers}")
    started = time.perf_counter()
    compiled, reason = plan_run(setup, force_engine)
    kernel = kernel or default_kernel()
    if kernel not in {NUMBA, NUMPY}:
        raise IllegalActionError(f"unknown kernel {kernel!r}; kernels: {NUMBA}, {NUMPY}")
    if kernel == NUMBA and (_numba_play() is None or compiled is None):
        kernel = NUMPY if compiled is not None else ""
    if kernel == NUMBA and compiled is not None:
        compiled_batch(compiled, 1, np.random.default_rng(0))  # compile (or load) before any fork
    job = Job(setup, compiled, n, batch or batch_size(compiled), seed, kernel or NUMPY)
    seeds = np.random.SeedSequence(seed).spawn(job.batches)
    tally = Tally.empty(len(setup.sides), len(setup.combatants), setup.max_rounds)
    for part in _run_batches(job, seeds, workers):
        tally.add(part)
        if progress is not None:
            progress(tally.fights, n)
    return SimResult(
        setup, tally, VECTORISED if compiled else EVENT_ENGINE, reason, seed, workers,
        time.perf_counter() - started, compiled.exact if compiled else True, kernel,
    )  # fmt: skip


def default_kernel() -> str:
    """NUMBA when numba is installed, unless REFEREE_SIM_KERNEL=numpy asks for the array kernel."""
    if os.environ.get("REFEREE_SIM_KERNEL", "").lower() == NUMPY:
        return NUMPY
    return NUMBA if _numba_play() is not None else NUMPY


def _run_batches(job: Job, seeds: list[np.random.SeedSequence], workers: int) -> Iterator[Tally]:
    tasks = list(enumerate(seeds))
    if workers == 1 or len(tasks) == 1:
        for index, s in tasks:
            yield job.run(index, s)
        return
    global _WORKER_JOB
    _WORKER_JOB = job  # handed to the forked workers (a Setup holds mapping proxies, which do not pickle)
    try:
        with multiprocessing.get_context("fork").Pool(min(workers, len(tasks))) as pool:
            yield from pool.imap(_worker, tasks)
    finally:
        _WORKER_JOB = None


__all__ = [
    "EVENT_ENGINE",
    "VECTORISED",
    "Compiled",
    "SimResult",
    "Tally",
    "Unsupported",
    "compile_setup",
    "enumerate_dice",
    "simulate",
    "simulate_batch",
    "wilson",
]
