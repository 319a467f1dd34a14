"""Exact odds of a whole small fight: a Markov chain over the combatants' hit points.

Each round the chain enumerates the orders of action — :func:`rules.initiative.roll_unit` for every
unit (:func:`rules.initiative.initiative_units`) over every face (:func:`referee.chance.distribution`),
the slots from :func:`rules.initiative.order_from_rolls`, first strike in round 1 — and plays each
actor's attack under the default tactics (:mod:`referee.odds.plans`). Within a round the state also
carries, for each combatant whose attackers' odds depend on it, how many have attacked it so far
(ODD-AC-SHIELD). The end of the fight is :func:`rules.turns.fight_end`. See ``docs/odds.md``.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from referee.files import Setup
from referee.model import Combatant
from referee.odds import rounds
from referee.odds.encounter import starting_hit_points
from referee.odds.errors import OddsError
from referee.odds.orders import (
    Order,
    Ranking,
    Rolls,
    indexed_orders,
    rankings,
    ranks_only,
    restricted,
    roll_every_face,
    slot_distribution,
)
from referee.odds.plans import SIM, Array, Attacks, check_round_hooks, compile_attacks
from referee.rules import initiative, turns
from referee.rules.options import FinishFallen

MAX_CELLS = 100_000  # the bound: states within a round, hit-point combinations × counts of attackers so far
MAX_ORDERS = 100_000  # combinations of the units' initiative rolls enumerated for one round
FLOAT_CUTOFF = 1e-18  # in floating point, stop once less than this chance is still fighting
CHAIN = "chain"  # FightOdds.path: the Markov chain over hit points answered
WALK = "engine walk"  # ... the exact walk of the event engine (referee.exact_engine) answered


@dataclass(frozen=True)
class FightOdds:
    """Exact chances of a whole fight under the default tactics (floats, or Fractions when `exact`)."""

    wins: Mapping[str, Any]
    draw: Any  # no side left standing
    limit: Any  # the round limit ended the fight
    rounds: Mapping[int, Any]  # the round the fight ended in
    states: int  # hit-point combinations in the chain
    unresolved: Any = 0  # floats only: the mass still fighting when it fell under FLOAT_CUTOFF
    exact: bool = False
    path: str = CHAIN  # what answered: the chain, or the engine's own walk (WALK) when the chain refused
    refused: str = ""  # with WALK: why the chain refused

    def to_dict(self) -> dict[str, Any]:
        return {
            "wins": {side: float(p) for side, p in self.wins.items()},
            "draw": float(self.draw),
            "limit": float(self.limit),
            "rounds": {str(n): float(p) for n, p in sorted(self.rounds.items()) if p},
            "states": self.states,
            "unresolved": float(self.unresolved),
            "path": self.path,
            **({"chain_refused": self.refused} if self.refused else {}),
        }


@dataclass(eq=False, repr=False)  # compared and shown by identity: fewer methods to make at import
class _Chain:
    """The fixed parts of the chain: who, their hit-point axes, the compiled attacks, the masks.

    Within a round the mass has one leading axis per counted combatant (attackers on it so far this
    round, 0..cap), then one hit-point axis per combatant."""

    setup: Setup
    names: list[str]
    sides: list[int]  # side index of each combatant
    size: list[int]  # max HP + 1 per axis (index 0 = down)
    attacks: Attacks
    active: list[Array]  # per combatant: cells where it is active
    hp: dict[str, dict[int, Fraction]]  # starting hit points of each combatant
    counted: dict[int, int] = field(default_factory=dict)  # combatant → its count axis
    orders: dict[Any, Mapping[Order, Any]] = field(default_factory=dict)  # distinct distributions
    slots: dict[Any, Mapping[tuple[tuple[str, ...], ...], Any]] = field(default_factory=dict)
    by_round: dict[tuple[frozenset[int], int], tuple[Mapping[Order, Any], Any]] = field(default_factory=dict)
    round_read: bool = False  # some unit's initiative read the round's number
    rankings: dict[tuple[int, ...], Mapping[Ranking, Any]] = field(default_factory=dict)  # by roll lists
    masks: dict[tuple[tuple[int, ...], tuple[bool, ...]], Array] = field(default_factory=dict)
    shifts: dict[tuple[int, int], Array] = field(default_factory=dict)
    unit_rolls: dict[tuple[Any, ...], list[tuple[initiative.UnitRoll, Fraction]]] = field(
        default_factory=dict
    )
    boxes: dict[tuple[bool, ...], rounds.Box] = field(default_factory=dict)
    transposed: dict[int, Array] = field(default_factory=dict)  # id(matrix) → its transpose, contiguous
    changes: dict[int, Array] = field(default_factory=dict)  # id(kernel) → kernel - identity
    terms: dict[int, list[tuple[Array, Array | None]]] = field(default_factory=dict)  # id(groups) → products
    whole: rounds.Box | None = None  # every fighting cell, with everyone's orders (rounds.whole_box)
    whole_rounds: dict[int, bool] = field(default_factory=dict)  # per round kept apart: whole box fits
    fighting: list[tuple[tuple[bool, ...], frozenset[int]]] | None = None
    exact: bool = False

    def mask(self, who: Sequence[int], pattern: Sequence[bool]) -> Array:
        """Cells where each of `who` is active or not, as `pattern` says (cached)."""
        key = (tuple(who), tuple(pattern))
        if key not in self.masks:
            mask = np.ones(self.size, dtype=bool)
            for i, up in zip(who, pattern, strict=True):
                mask &= self.active[i] if up else ~self.active[i]
            self.masks[key] = mask
        return self.masks[key]

    def zero(self) -> Any:
        return Fraction(0) if self.exact else 0.0

    def numbers(self, mask: Array) -> Array:
        """A mask as numbers (1 where set) in the mass's own kind, to multiply the mass by."""
        if self.exact:
            numbers: Array = np.empty(mask.shape, dtype=object)
            numbers[...] = Fraction(0)
            numbers[mask] = Fraction(1)
            return numbers
        return mask.astype(float)


def chain_odds(setup: Setup, *, exact: bool = False) -> FightOdds:
    """Exact odds of a small fight run by :func:`engine.fight.run_fight` with the default tactics, from
    the Markov chain (:func:`referee.odds.whole.fight_odds` falls back to the engine's walk).

    `exact=True` computes in Fractions (small fights); otherwise in double precision. Raises OddsError
    for fights beyond the model or the bound.
    """
    chain = _build_chain(setup, exact)
    zero = chain.zero()
    mass = _initial_mass(chain)
    code = _sides_code(chain)  # per cell: the set of sides standing, as bits
    groups = [  # the cells of each set of sides standing
        ([s for i, s in enumerate(setup.sides) if bits >> i & 1], chain.numbers(code == bits))
        for bits in sorted(set(code.ravel().tolist()))
    ]
    wins = [zero] * len(setup.sides)
    draw = limit = zero
    by_round: dict[int, Any] = {}
    unresolved = zero
    keep: dict[tuple[int, ...], Array] = {}  # the cells still fighting once these groups have ended
    for number in range(1, setup.max_rounds + 1):
        if not mass.any():
            break
        if not exact and mass.sum() < FLOAT_CUTOFF:
            unresolved = mass.sum()  # below double precision of the results: stop (docs/odds.md)
            break
        mass = _play_round(chain, mass, number)
        ended = zero
        over: list[int] = []
        for g, (standing, cells) in enumerate(groups):
            end = turns.fight_end(standing, number, setup.max_rounds, round_over=True)
            if end is None:
                continue
            p = (mass * cells).sum()  # not a dot product: BLAS would start threads for it
            if end.winner is not None:
                wins[setup.sides.index(end.winner)] += p
            elif end.reason == turns.ROUND_LIMIT:
                limit += p
            else:
                draw += p
            ended += p
            over.append(g)
        if tuple(over) not in keep:
            keep[tuple(over)] = 1 - sum(
                (groups[g][1] for g in over), chain.numbers(np.zeros_like(code, dtype=bool))
            )
        mass = mass * keep[tuple(over)]
        by_round[number] = ended
    return FightOdds(
        wins=dict(zip(setup.sides, wins, strict=True)),
        draw=draw,
        limit=limit,
        rounds=by_round,
        states=int(np.prod(chain.size)),
        unresolved=unresolved,
        exact=exact,
    )


def _build_chain(setup: Setup, exact: bool) -> _Chain:
    names = [c.name for c in setup.combatants]
    if setup.ruleset.finish_fallen is not FinishFallen.OFF:  # the chain's states hold standing targets only
        raise OddsError(
            f"exact fight odds do not model option finish_fallen = {setup.ruleset.finish_fallen}"
            f" (foes strike the fallen, HR-HELPLESS-1); {SIM}"
        )
    timed = [c.name for c in setup.combatants if c.condition_rounds]
    if timed:
        raise OddsError(f"{timed[0]} starts with conditions that end during the fight; {SIM}")
    if setup.surprise is not None and setup.surprise.possible and setup.surprise.sides:
        raise OddsError(f"exact fight odds do not model surprise (ODD-SURP-1 to ODD-SURP-5); {SIM}")
    hp = {n: starting_hit_points(setup, n) for n in names}
    size = [max(hp[n]) + 1 for n in names]
    cells = int(np.prod(size))
    if cells > MAX_CELLS:
        raise OddsError(f"{cells} hit-point combinations is over the exact-odds bound of {MAX_CELLS}; {SIM}")
    sides = [setup.sides.index(c.side) for c in setup.combatants]
    check_round_hooks(setup)
    attacks = compile_attacks(setup, names, sides, size, exact)
    counted = {i: axis for axis, i in enumerate(i for i, cap in enumerate(attacks.caps) if cap)}
    counts = int(np.prod([attacks.caps[i] + 1 for i in counted]))
    if cells * counts > MAX_CELLS:
        raise OddsError(
            f"{cells} hit-point combinations × {counts} counts of attackers this round (ODD-AC-SHIELD)"
            f" is over the exact-odds bound of {MAX_CELLS}; {SIM}"
        )
    grid = np.indices(size)
    active = [grid[i] > 0 for i in range(len(names))]
    return _Chain(setup, names, sides, size, attacks, active, hp, counted, exact=exact)


def _initial_mass(chain: _Chain) -> Array:
    mass: Array = np.array(Fraction(1) if chain.exact else 1.0, dtype=object if chain.exact else float)
    for name in chain.names:
        axis = np.zeros(max(chain.hp[name]) + 1, dtype=object if chain.exact else float)
        if chain.exact:
            axis[...] = Fraction(0)
        for value, p in chain.hp[name].items():
            axis[value] = p if chain.exact else float(p)
        mass = np.multiply.outer(mass, axis)
    return mass


def _sides_code(chain: _Chain) -> Array:
    """Per cell: the sides with an active member, as bits (side i → bit i)."""
    code = np.zeros(chain.size, dtype=np.int64)
    for i, side in enumerate(chain.sides):
        code |= np.where(chain.active[i], 1 << side, 0)
    return code


def _fighting(chain: _Chain) -> list[tuple[tuple[bool, ...], frozenset[int]]]:
    """The sets of combatants up at a round's start with two sides among them."""
    if chain.fighting is None:
        everyone = len(chain.names)
        chain.fighting = []
        for pattern in itertools.product((False, True), repeat=everyone):
            active = frozenset(i for i in range(everyone) if pattern[i])
            if len({chain.sides[i] for i in active}) >= 2:
                chain.fighting.append((pattern, active))
    return chain.fighting


def _whole_round(chain: _Chain, number: int) -> bool:
    """Whether this round can be played once on every cell with everyone's orders (ODD-INIT-1 to
    ODD-INIT-4, ODD-INIT-3: the downed act nowhere): for every set of
    combatants still up, its own orders of action (as the rule gives them for it) are everyone's with
    the others left out — then a step of one who is down changes nothing and the round is that set's
    own. Checked per distinct distribution of orders (the same every round but the first, unless a rule
    reads the round)."""
    if number == 1:  # everyone is up at the start (hit points are at least 1): the box of everyone
        return all(0 not in chain.hp[name] for name in chain.names)
    asked = number if chain.round_read or number < 3 else 2
    if asked not in chain.whole_rounds:
        everyone = frozenset(range(len(chain.names)))
        orders, key = _orders(chain, everyone, number)
        sets = [(pattern, active) for pattern, active in _fighting(chain) if active != everyone]
        fits = all(
            _alike(_without(orders, active), _orders(chain, active, number)[0], chain.exact)
            for _, active in sets
        )
        chain.whole_rounds[asked] = fits and _whole_is_cheaper(chain, orders, key, sets, number)
    return chain.whole_rounds[asked]


def _whole_is_cheaper(
    chain: _Chain,
    orders: Mapping[Order, Any],
    key: Any,
    sets: list[tuple[tuple[bool, ...], frozenset[int]]],
    number: int,
) -> bool:
    """Whether one pass over every cell plays fewer attacks × cells than a pass over each set's own
    cells (in the whole box anyone may be down at a slot's start, so a slot of enemies acting together
    is played apart there, where each set's own box knows who stands); each set's own at most (rough)."""
    whole = rounds.whole_box(chain)
    alone = rounds.cost(rounds.plan(whole, orders, key)) * whole.start.size
    apart = 0
    for pattern, active in [((True,) * len(chain.names), frozenset(range(len(chain.names)))), *sets]:
        own = rounds.Sketch(chain, pattern)  # its box's masks are made only if it is played apart
        apart += rounds.rough_cost(own, _orders(chain, active, number)[0]) * own.cells()
    return alone <= apart


def _without(orders: Mapping[Order, Any], active: frozenset[int]) -> dict[Order, Any]:
    """The orders with those not in `active` left out (slots left empty dropped), chances summed."""
    out: dict[Order, Any] = {}
    for order, p in orders.items():
        kept = tuple(s for s in (tuple(i for i in slot if i in active) for slot in order) if s)
        out[kept] = out.get(kept, 0) + p
    return out


def _alike(a: Mapping[Order, Any], b: Mapping[Order, Any], exact: bool) -> bool:
    if a.keys() != b.keys():
        return False
    return all(a[k] == b[k] if exact else abs(a[k] - b[k]) <= 1e-12 for k in a)


def _orders(chain: _Chain, active: frozenset[int], number: int) -> tuple[Mapping[Order, Any], Any]:
    """The distribution of the order of action for these active combatants (:mod:`referee.odds.orders`:
    each unit's roll over every face, the slots, first strike in round 1, ODD-INIT-5), and a key that
    names it (equal distributions share one). The same every round after the first unless a rule reads
    the round's number (then asked for again every round)."""
    asked = (active, number if chain.round_read or number < 3 else 2)
    if asked not in chain.by_round:
        chain.by_round[asked] = _orders_of(chain, active, number)
    return chain.by_round[asked]


def _orders_of(chain: _Chain, active: frozenset[int], number: int) -> tuple[Mapping[Order, Any], Any]:
    setup, ruleset = chain.setup, chain.setup.ruleset
    specs = [c for i, c in enumerate(setup.combatants) if i in active]
    by_name = {c.name: c for c in specs}
    units = initiative.initiative_units(ruleset, specs, setup.sides)
    members = initiative.members_of_units(ruleset, specs, setup.sides)
    per_unit = [_unit_rolls(chain, unit, [by_name[n] for n in members[unit]], number) for unit in units]
    rolled = (active, tuple(map(id, per_unit)))  # the roll lists are cached: one per distribution
    if rolled not in chain.slots:
        combinations = int(np.prod([len(rolls) for rolls in per_unit], dtype=np.int64))
        if combinations > MAX_ORDERS:
            raise OddsError(
                f"{combinations} combinations of initiative rolls a round is over the exact-odds bound of"
                f" {MAX_ORDERS}; {SIM}"
            )
        # floats unless exact: Fraction products per combination cost more than the rest
        weighted = [[(r, q if chain.exact else float(q)) for r, q in rolls] for rolls in per_unit]
        one: Any = Fraction(1) if chain.exact else 1.0
        chain.slots[rolled] = slot_distribution(
            ruleset, weighted, members, one, _ranked(chain, rolled[1], weighted)
        )
    first_strike = number == 1 and ruleset.first_strike_reach_size
    index = {n: i for i, n in enumerate(chain.names)}
    orders = indexed_orders(chain.slots[rolled], by_name if first_strike else None, index)
    for key, known in chain.orders.items():
        if key[0] == active and known == orders:
            return known, key
    key = (active, len(chain.orders))
    chain.orders[key] = orders
    return orders, key


def _ranked(chain: _Chain, ids: tuple[int, ...], per_unit: list[Rolls]) -> Mapping[Ranking, Any] | None:
    """The rankings of these units' keys, from those of a larger set of units when known (the same roll
    lists: each unit rolls alone, whoever else is up), else computed (None: the rule is not its own)."""
    if not ranks_only():
        return None
    if ids not in chain.rankings:
        for known, ranked in chain.rankings.items():
            if set(ids) <= set(known):
                chain.rankings[ids] = restricted(ranked, [known.index(i) for i in ids])
                break
        else:
            chain.rankings[ids] = rankings(per_unit, Fraction(1) if chain.exact else 1.0)
    return chain.rankings[ids]


def _unit_rolls(
    chain: _Chain, unit: str, members: list[Combatant], number: int
) -> list[tuple[initiative.UnitRoll, Fraction]]:
    """One unit's initiative in round `number` over every face, grouped by sort key (a representative
    roll each); cached per unit and members, and per round only if the roll read the round's number."""
    names = (unit, tuple(c.name for c in members))
    if names in chain.unit_rolls:
        return chain.unit_rolls[names]
    key = (*names, number)
    if key not in chain.unit_rolls:
        rolls, read = roll_every_face(chain.setup.ruleset, unit, members, number)
        chain.round_read = chain.round_read or read
        chain.unit_rolls[key if read else names] = rolls
        return rolls
    return chain.unit_rolls[key]


def _play_round(chain: _Chain, mass: Array, number: int) -> Array:
    counts = [chain.attacks.caps[i] + 1 for i in chain.counted]
    lead = (slice(None),) * len(counts)
    if counts:  # nobody has been attacked yet this round (ODD-AC-SHIELD counts from 0)
        within = np.zeros(counts + list(mass.shape), dtype=mass.dtype)
        within[(0,) * len(counts)] = mass
        mass = within
    out = np.zeros_like(mass)
    everyone = frozenset(range(len(chain.names)))
    if _whole_round(chain, number):
        cells = rounds.whole_box(chain)
        orders, key = _orders(chain, everyone, number)
        rounds.play(cells, mass, rounds.plan(cells, orders, key), out)
    else:
        for pattern, active in _fighting(chain):
            cells = rounds.box(chain, pattern)
            piece = mass[lead + cells.index] * cells.start
            if piece.any():
                orders, key = _orders(chain, active, number)
                rounds.play(cells, piece, rounds.plan(cells, orders, key), out[lead + cells.index])
    if counts:
        summed: Array = out.sum(axis=tuple(range(len(counts))))
        return summed
    return out
