"""One round of the whole-fight chain (:mod:`referee.odds.chain`), planned once and played every round.

A round starts in a *box*: the cells of one set of active combatants (the others stay at 0 hit points
all round, so their axes are cut to index 0). Its orders of action (:mod:`referee.odds.orders`) are
turned once per box into *steps*, one actor's attack each, and the steps of all orders into a trie
(orders sharing their first steps play them once); the plan is kept and played again every round with
the same orders (the orders change only where a rule reads the round: first strike in round 1).

A slot (ODD-INIT-3) is everyone in it who is active when it begins. Which actors may be down at a step
is known from the order alone (only an attacker's targets, and an attacker struck back, can lose hit
points), so a slot becomes plain steps: an actor that cannot be down yet attacks everywhere; one that
may be down attacks where it is active, which is where it was at the slot's start unless an earlier
member of the slot can down it — only then is the slot played apart, once per pattern of who of those
stood at its start. A step where nobody may be down needs no mask at all.

Orders that do the same to every mass are collapsed into one before the trie is built
(:func:`collapse`). The *whole box* is every cell still fighting, played with everyone's orders (anyone
may be down there from the start), used where :func:`referee.odds.chain._whole_round` finds it the
same round as each set's own, and cheaper.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from referee.odds.orders import Order
from referee.odds.plans import Array, Groups

if TYPE_CHECKING:
    from referee.odds.chain import _Chain


# The steps are the keys of every plan's trie: named tuples hash and compare as tuples do (in C), and
# cost a tenth of a frozen dataclass to define at import.
class Act(NamedTuple):
    """`actor` attacks the enemy the tactics pick; `where_up`: only in cells where it is active now."""

    actor: int
    where_up: bool


class Apart(NamedTuple):
    """A slot whose members' standing at its start must be kept apart: each of `split` may be down at
    its start and an earlier member of the slot can down it; each of `where_up` may be down at its start
    but no earlier member can down it (it acts where it stands, as at the slot's start)."""

    members: tuple[int, ...]
    split: tuple[int, ...]
    where_up: tuple[int, ...] = ()


Step = Act | Apart


@dataclass(eq=False, repr=False)  # compared and shown by identity: fewer methods to make at import
class Plan:
    """The steps of a round's orders as a trie: `end` is the chance of the orders that end here."""

    end: Any = 0
    next: dict[Step, Plan] = field(default_factory=dict)

    def add(self, steps: Sequence[Step], p: Any) -> None:
        node = self
        for step in steps:
            node = node.next.setdefault(step, Plan())
        node.end += p

    def size(self) -> int:
        """Steps played in one round (for the benchmarks and the tests)."""
        return sum(1 + child.size() for child in self.next.values())


class Standing:
    """Who is up at a round's start and whom each one's attack can put down: what a round's steps are
    planned from (:func:`steps`)."""

    chain: _Chain
    up: tuple[bool, ...]  # per combatant: active at the round's start
    whole: bool  # every cell still fighting, whoever is up in it (see `whole_box`)
    downed: dict[int, set[int]]
    foes: dict[int, list[int]]

    def enemies(self, a: int) -> list[int]:
        if a not in self.foes:
            self.foes[a] = [t for t in self.chain.attacks.enemies[a] if self.up[t]]
        return self.foes[a]

    def downs(self, a: int) -> set[int]:
        """Whom `a`'s attack can put down: its targets, and itself when struck back (MF-FUMBLE-2)."""
        if a not in self.downed:
            kernels = self.chain.attacks.kernels
            struck_back = any(
                back for t in self.enemies(a) for groups in kernels[(a, t)] if groups for back, _ in groups
            )
            self.downed[a] = set(self.enemies(a)) | ({a} if struck_back else set())
        return self.downed[a]


class Sketch(Standing):
    """A set of active combatants without its box's masks: enough to plan and weigh its steps."""

    def __init__(self, chain: _Chain, up: tuple[bool, ...]) -> None:
        self.chain, self.up, self.whole, self.downed, self.foes = chain, up, False, {}, {}

    def cells(self) -> int:
        """The cells of its box (an axis of one who is down is cut to its 0)."""
        return math.prod(n if up else 1 for n, up in zip(self.chain.size, self.up, strict=True))


@dataclass(eq=False, repr=False)  # compared and shown by identity: fewer methods to make at import
class Box(Standing):
    """The cells of one set of active combatants at the round's start, every mask cut alike; its plans
    per distribution of orders (cached per set)."""

    chain: _Chain
    index: tuple[Any, ...]  # into the hit-point axes
    up: tuple[bool, ...]
    start: Array  # the cells of this box where exactly these are active
    active: list[Array]  # per combatant: where it is active (as numbers: mass * mask)
    down: list[Array]  # ... and where it is not
    targets: dict[tuple[int, int], Array]  # where the attacker picks the target
    untargeted: dict[int, Array | None]  # where the attacker picks no enemy of this box (None: nowhere)
    masks: dict[tuple[tuple[int, ...], tuple[bool, ...]], Array] = field(default_factory=dict)
    plans: dict[Any, Plan] = field(default_factory=dict)
    downed: dict[int, set[int]] = field(default_factory=dict)
    foes: dict[int, list[int]] = field(default_factory=dict)
    whole: bool = False
    aimed_up: dict[tuple[int, int], Array] = field(default_factory=dict)  # picks the target and stands

    def mask(self, who: Sequence[int], pattern: Sequence[bool]) -> Array:
        key = (tuple(who), tuple(pattern))
        if key not in self.masks:
            self.masks[key] = self.chain.numbers(self.chain.mask(who, pattern)[self.index])
        return self.masks[key]


def box(chain: _Chain, pattern: tuple[bool, ...]) -> Box:
    if pattern not in chain.boxes:
        index = tuple(slice(None) if up else slice(0, 1) for up in pattern)
        start = chain.numbers(chain.mask(range(len(pattern)), pattern)[index])
        chain.boxes[pattern] = _cut(chain, pattern, index, start, whole=False)
    return chain.boxes[pattern]


def whole_box(chain: _Chain) -> Box:
    """Every cell where two sides still stand, played with the orders of everyone: where some are down
    at the round's start their steps change nothing (each acts only where it stands), which is their
    own round when the orders of those up are the orders of everyone with the others left out
    (:func:`referee.odds.chain._whole_round` checks it)."""
    if chain.whole is None:
        everyone = (True,) * len(chain.names)
        sides = [np.zeros(chain.size, dtype=bool) for _ in chain.setup.sides]
        for i, side in enumerate(chain.sides):
            sides[side] |= chain.active[i]
        fighting = np.add.reduce([s.astype(np.int64) for s in sides]) >= 2
        index = (slice(None),) * len(everyone)
        chain.whole = _cut(chain, everyone, index, chain.numbers(fighting), whole=True)
    return chain.whole


def _cut(chain: _Chain, pattern: tuple[bool, ...], index: tuple[Any, ...], start: Array, whole: bool) -> Box:
    active = [m[index] for m in chain.active]
    targets = {key: chain.numbers(mask[index]) for key, mask in chain.attacks.targets.items()}
    untargeted: dict[int, Array | None] = {}
    for a in range(len(pattern)):
        aimed = [mask[index] for (b, t), mask in chain.attacks.targets.items() if b == a and pattern[t]]
        nowhere = ~np.logical_or.reduce(aimed) if aimed else np.ones_like(active[a])
        untargeted[a] = chain.numbers(nowhere) if nowhere.any() else None
    return Box(
        chain, index, pattern, start, [chain.numbers(m) for m in active],
        [chain.numbers(~m) for m in active], targets, untargeted, whole=whole,
    )  # fmt: skip


def plan(box: Box, orders: Mapping[Order, Any], key: Any) -> Plan:
    """The trie of steps of these orders in this box, orders that do the same collapsed into one
    (cached by `key`, the orders' own)."""
    if key not in box.plans:
        sequences: dict[tuple[Step, ...], Any] = {}
        for order, p in orders.items():
            played = tuple(steps(box, order))
            sequences[played] = sequences.get(played, 0) + p
        trie = Plan(box.chain.zero())
        for played, p in collapse(box, sequences).items():
            trie.add(played, p)
        box.plans[key] = trie
    return box.plans[key]


def collapse(box: Box, sequences: Mapping[tuple[Step, ...], Any]) -> dict[tuple[Step, ...], Any]:
    """Sequences of steps that do the same to every mass, merged (their chances summed) into the one
    that costs least. Orders often differ only where their steps commute — two goblins striking the same
    man, in either order — so the sequences are told apart by what they do to one random mass on the
    box: the same result (exactly, with Fractions; to 1e-10 of the largest cell in floating point, far
    above rounding and far below any real difference of chances) is the same operator. One play of
    every sequence, once per box."""
    if len(sequences) < 2:
        return dict(sequences)
    chain = box.chain
    probe, weights = _probe(box)
    trie = Plan(chain.zero())
    for played in sequences:
        trie.add(played, 1)
    groups: dict[Any, list[tuple[Array, list[tuple[Step, ...]]]]] = {}
    for played, result in _leaves(box, probe, trie, ()):
        signature = (result * weights).sum()
        bucket = groups.setdefault(signature if chain.exact else float(f"{signature:.8e}"), [])
        for held, members in bucket:
            if _same(held, result, chain.exact):
                members.append(played)
                break
        else:
            bucket.append((result, [played]))
    merged: dict[tuple[Step, ...], Any] = {}
    for bucket in groups.values():
        for _result, members in bucket:
            cheapest = min(members, key=_cost)
            merged[cheapest] = sum((sequences[m] for m in members), chain.zero())
    return merged


def _probe(box: Box) -> tuple[Array, Array]:
    """A random mass on the box's starting cells (count axes at 0) and random weights for a signature
    (seeded: the same plan every time)."""
    chain = box.chain
    counts = [chain.attacks.caps[i] + 1 for i in chain.counted]
    shape = counts + list(box.start.shape)
    seed = [12]

    def draw(shape: Sequence[int]) -> Array:
        # scattered values from a multiplicative hash of the cell's place (numpy's random module would
        # cost more to import than the whole plan); what matters is that no structure lines them up
        seed[0] += 1
        count = math.prod(shape)
        hashed = (
            np.arange(1, count + 1, dtype=np.uint64) * np.uint64(2654435761) + np.uint64(seed[0])
        ) % np.uint64(2**31 - 1)
        picked: Array
        if chain.exact:
            picked = np.empty(count, dtype=object)
            picked[:] = [Fraction(int(n) + 1) for n in hashed.tolist()]
        else:
            picked = 0.5 + hashed / float(2**31 - 1)
        return picked.reshape(shape)

    mass = draw(box.start.shape) * box.start
    weights = draw(shape)
    probe = np.zeros(shape, dtype=mass.dtype)
    if chain.exact:
        probe[...] = Fraction(0)
    probe[(0,) * len(counts)] = mass
    return probe, weights


def _leaves(
    box: Box, mass: Array, node: Plan, before: tuple[Step, ...]
) -> list[tuple[tuple[Step, ...], Array]]:
    out = [(before, mass)] if node.end else []
    for step, child in node.next.items():
        out += _leaves(box, _step(box, mass, step), child, (*before, step))
    return out


def _same(a: Array, b: Array, exact: bool) -> bool:
    if exact:
        return bool(np.array_equal(a, b))
    scale = float(np.abs(a).max()) or 1.0
    return bool(np.abs(a - b).max() <= 1e-10 * scale)


def _weight(step: Step) -> int:
    """A step's attacks played: a slot played apart once per pattern of its split members."""
    return 1 if isinstance(step, Act) else len(step.members) << len(step.split)


def cost(node: Plan) -> int:
    """The attacks a round of this plan plays (to choose between plans)."""
    return sum(_weight(step) + cost(child) for step, child in node.next.items())


def rough_cost(box: Standing, orders: Mapping[Order, Any]) -> int:
    """At most the attacks a round of these orders plays in this box (before orders that do the same
    are collapsed: cheap to know)."""
    trie = Plan(box.chain.zero())
    for order, p in orders.items():
        trie.add(steps(box, order), p)
    return cost(trie)


def _cost(played: tuple[Step, ...]) -> tuple[int, tuple[Any, ...]]:
    """Steps played, a slot played apart counting once per pattern and member; ties by the steps."""
    weight = sum(_weight(s) for s in played)
    return weight, tuple(
        (0, s.actor, s.where_up) if isinstance(s, Act) else (1, s.members, s.split) for s in played
    )


def steps(box: Standing, order: Order) -> list[Step]:
    """An order's slots as steps (ODD-INIT-3, see the module docstring): who may be down is followed as
    it goes (in the whole box anyone may be down from the start)."""
    maybe_down: set[int] = set(range(len(box.up))) if box.whole else set()
    out: list[Step] = []
    for slot in order:
        downed_here: set[int] = set()
        split: list[int] = []
        for m in slot:
            if m in maybe_down and m in downed_here:
                split.append(m)
            downed_here |= box.downs(m)
        if split:
            where_up = tuple(m for m in slot if m in maybe_down and m not in split)
            out.append(Apart(slot, tuple(split), where_up))
        else:
            out.extend(Act(m, m in maybe_down) for m in slot)
        maybe_down |= downed_here
    return out


def play(box: Box, mass: Array, node: Plan, out: Array) -> None:
    """Add to `out` the mass after every order below `node`, each weighted by its chance."""
    if node.end:
        out += mass * node.end
    for step, child in node.next.items():
        play(box, _step(box, mass, step), child, out)


def _step(box: Box, mass: Array, step: Step) -> Array:
    if isinstance(step, Act):
        a = step.actor
        if not step.where_up:
            return _attack(box, mass, a)
        if a in box.downs(a):  # struck back: its own hit points move too, so the cells are kept apart
            return mass * box.down[a] + _attack(box, mass * box.active[a], a)
        if len(box.enemies(a)) > 1 or not box.chain.attacks.always[a]:
            return _aimed_where_up(box, mass, a)
        # its attack leaves its own hit points be: attack everywhere, then put back where it is down
        out = _attack(box, mass, a)
        where_down = (slice(None),) * (len(box.chain.counted) + a) + (0,)
        out[where_down] = mass[where_down]
        return out
    out = np.zeros_like(mass)
    for pattern in itertools.product((False, True), repeat=len(step.split)):
        piece = mass * box.mask(step.split, pattern)
        standing = dict(zip(step.split, pattern, strict=True))
        for m in step.members:
            if m in step.where_up:
                piece = _step(box, piece, Act(m, True))
            elif standing.get(m, True):
                piece = _attack(box, piece, m)
        out += piece
    return out


def _attack(box: Box, mass: Array, a: int) -> Array:
    """Combatant `a` attacks the enemy the tactics pick in each cell (cells with none are unchanged).
    An enemy down all round in this box is never picked: it is skipped."""
    attacks = box.chain.attacks
    enemies = box.enemies(a)
    if len(enemies) == 1 and attacks.always[a]:
        # one enemy, attacked wherever it stands; where it is down the kernel changes nothing
        return _along(box.chain, mass, a, enemies[0])
    untargeted = box.untargeted[a]
    out: Array | None = None if untargeted is None else mass * untargeted
    for t in enemies:
        moved = _along(box.chain, mass * box.targets[(a, t)], a, t)
        if out is None:
            out = moved
        else:
            out += moved
    return mass if out is None else out


def _aimed_where_up(box: Box, mass: Array, a: int) -> Array:
    """`a`, where it stands, attacks the enemy the tactics pick (it is not struck back): the mass plus,
    per enemy, what the attack changes in the cells where `a` stands and picks it — nothing to add
    where it picks none or is down."""
    chain = box.chain
    out: Array | None = None
    for t in box.enemies(a):
        if (a, t) not in box.aimed_up:
            box.aimed_up[(a, t)] = box.targets[(a, t)] * box.active[a]
        change = _change_along(chain, mass * box.aimed_up[(a, t)], a, t)
        if out is None:
            out = mass + change
        else:
            out += change
    return mass if out is None else out


def _change_along(chain: _Chain, mass: Array, a: int, t: int) -> Array:
    """What `a`'s attack on `t` changes: along(mass) - mass, in one product (K - I) where the attack is
    one kernel on the target's hit points alone."""
    tables = chain.attacks.kernels[(a, t)]
    groups = tables[0]
    if chain.counted.get(t) is not None or groups is None or len(groups) != 1 or groups[0][0]:
        return _along(chain, mass, a, t) - mass
    kernel = groups[0][1]
    if id(kernel) not in chain.changes:
        chain.changes[id(kernel)] = kernel - np.identity(len(kernel), dtype=kernel.dtype)
    return _matmul_along(chain, mass, len(chain.counted) + t, chain.changes[id(kernel)])


def _along(chain: _Chain, mass: Array, a: int, t: int) -> Array:
    """`a`'s attack on `t`, by the count of attackers on `t` so far this round when that is counted."""
    tables = chain.attacks.kernels[(a, t)]
    axis = chain.counted.get(t)
    if axis is None:
        groups = tables[0]
        return mass if groups is None else _apply(chain, mass, a, t, groups)
    cap = len(tables) - 1
    out = np.zeros_like(mass)
    for k, groups in enumerate(tables):
        here: list[Any] = [slice(None)] * mass.ndim
        here[axis] = slice(k, k + 1)
        piece = mass[tuple(here)]
        if groups is None:  # the tactics wait: no attack, no count
            out[tuple(here)] += piece
            continue
        after = list(here)
        after[axis] = slice(min(k + 1, cap), min(k + 1, cap) + 1)
        out[tuple(after)] += _apply(chain, piece, a, t, groups)
    return out


def _apply(chain: _Chain, mass: Array, a: int, t: int, groups: Groups) -> Array:
    """K[new, old] along the target's hit-point axis; any damage to the attacker along its own."""
    offset = len(chain.counted)
    out: Array | None = None
    for kernel, back in _terms(chain, a, groups):
        if kernel.ndim == 1:  # a diagonal kernel: a scale per hit point of the target
            shape = [1] * mass.ndim
            shape[offset + t] = len(kernel)
            moved = mass * kernel.reshape(shape)
        else:
            moved = _matmul_along(chain, mass, offset + t, kernel)
        if back is not None:
            moved = _matmul_along(chain, moved, offset + a, back)
        if out is None:
            out = moved
        else:
            out += moved
    assert out is not None
    return out


def _terms(chain: _Chain, a: int, groups: Groups) -> list[tuple[Array, Array | None]]:
    """The groups as products to apply: (kernel along the target, matrix along the attacker or None).
    The damage an attack back does (MF-FUMBLE-2) comes with a target left as it was (a diagonal kernel,
    the same for each damage up to its chance), so those groups are one diagonal and one matrix: the
    chance-weighted sum of the attacker's shifts (cached per groups)."""
    key = id(groups)  # the chain holds its groups: their ids stay theirs
    if key in chain.terms:
        return chain.terms[key]
    terms: list[tuple[Array, Array | None]] = [(k, None) for back, k in groups if not back]
    backs = [(back, k) for back, k in groups if back]
    diagonals = [np.diagonal(k).copy() for _, k in backs]
    plain = all(not (k - np.diag(d)).any() for (_, k), d in zip(backs, diagonals, strict=True))
    pattern = diagonals[0] if backs else None
    scales: list[Any] = []
    if plain and pattern is not None:
        at = next((i for i, v in enumerate(pattern) if v), None)
        for d in diagonals:
            scale = d[at] / pattern[at] if at is not None else chain.zero()
            if (d != pattern * scale).any():
                break
            scales.append(scale)
    if pattern is not None and len(scales) == len(backs):
        matrix = sum(
            (q * _shift(chain, a, back) for q, (back, _) in zip(scales, backs, strict=True)),
            0 * _shift(chain, a, 0),
        )
        terms.append((pattern, matrix))
    else:
        terms += [(k, _shift(chain, a, back)) for back, k in backs]
    chain.terms[key] = terms
    return terms


def _shift(chain: _Chain, a: int, damage: int) -> Array:
    """S[new, old]: `damage` off `a`'s hit points (0 = down)."""
    key = (a, damage)
    if key not in chain.shifts:
        size = chain.size[a]
        shift = np.zeros((size, size), dtype=object if chain.exact else float)
        one = Fraction(1) if chain.exact else 1.0
        shift[...] = chain.zero()
        for old in range(size):
            shift[max(0, old - damage), old] = one
        chain.shifts[key] = shift
    return chain.shifts[key]


def _matmul_along(chain: _Chain, mass: Array, axis: int, matrix: Array) -> Array:
    """matrix[new, old] applied along `axis`, as one matrix product where the axis is the first or the
    last (a batched one between)."""
    shape = mass.shape
    n = shape[axis]
    if axis == mass.ndim - 1:
        key = id(matrix)  # the chain holds its matrices: their ids stay theirs
        if key not in chain.transposed:
            chain.transposed[key] = np.ascontiguousarray(matrix.T)  # a transposed view is 3x slower here
        last: Array = (mass.reshape(-1, n) @ chain.transposed[key]).reshape(shape)
        return last
    if axis == 0:
        first: Array = (matrix @ mass.reshape(n, -1)).reshape(shape)
        return first
    before = math.prod(shape[:axis])  # Python ints: np.prod costs more than the product here
    moved: Array = np.matmul(matrix, mass.reshape(before, n, -1))
    return moved.reshape(shape)
