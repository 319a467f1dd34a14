"""Round 1's order with first strike (ODD-INIT-5, ODD-INIT-6) for any number of initiative dice.

The rule (:func:`initiative.apply_first_strike`) walks the combatants in the rolled order; each one with
first strike against an enemy in an earlier slot moves, alone, to act just before the first such slot.
Which pairs move is a table compiled from :func:`initiative.has_first_strike` (:func:`moves_before`);
the walk itself is :func:`strike_first` here (the array kernel) and the same steps in the numba
kernel. :func:`check_moves` replays :func:`initiative.apply_first_strike` on random orders at compile
time and refuses (Unsupported) an encounter where the table and the rule part ways (a house rule).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import numpy.typing as npt

from referee.files import Setup
from referee.rules import initiative
from referee.sim.tables import Unsupported

CHECKED_ORDERS = 200  # random round-1 orders replayed through the rule at compile time


def moves_before(setup: Setup) -> npt.NDArray[np.bool_] | None:
    """(C, C): combatant a has first strike against enemy b (ODD-INIT-5), in the file's order; None when
    nobody has it or the ruleset turns it off."""
    everyone = list(setup.combatants)
    if not setup.ruleset.first_strike_reach_size:
        return None
    pairs = np.array(
        [
            [a.side != b.side and initiative.has_first_strike(a, b) is not None for b in everyone]
            for a in everyone
        ],
        dtype=np.bool_,
    )
    return pairs if pairs.any() else None


def strike_first(actor_at: Any, slot_first: Any, pairs: npt.NDArray[np.bool_]) -> tuple[Any, Any]:
    """Per fight (columns): who acts at each position and the first position of its slot, before and
    after the first-strike moves. The walk of :func:`initiative.apply_first_strike` on every fight at once."""
    count, m = actor_at.shape
    seq = np.ascontiguousarray(actor_at.T).astype(np.int64)  # (m, C)
    where = np.arange(count)
    starts = np.ascontiguousarray(slot_first.T) == where[None, :]  # a slot begins at this position
    walk = seq.copy()  # the rolled order, walked once
    rows = np.arange(m)
    for k in range(count):
        name = walk[:, k]
        at = np.argmax(seq == name[:, None], axis=1)
        begins = np.maximum.accumulate(np.where(starts, where, 0), axis=1)
        foes = pairs[name[:, None], seq] & (where[None, :] < begins[rows, at][:, None])
        moves = foes.any(axis=1)
        if not moves.any():
            continue
        f = np.flatnonzero(moves)
        p, target = at[f], begins[f, np.argmax(foes[f], axis=1)]
        # the one it leaves behind at the front of its old slot now begins that slot
        nxt = np.minimum(p + 1, count - 1)
        heir = starts[f, p] & (p + 1 < count) & ~starts[f, nxt]
        starts[f[heir], nxt[heir]] = True
        # positions target..p-1 step back one; it takes `target`, alone
        source = np.where(
            (where[None, :] > target[:, None]) & (where[None, :] <= p[:, None]), where - 1, where
        )
        source[np.arange(f.size), target] = p
        seq[f] = np.take_along_axis(seq[f], source, axis=1)
        starts[f] = np.take_along_axis(starts[f], source, axis=1)
        starts[f, target] = True  # (the slot it went before still begins, one place on)
    first = np.maximum.accumulate(np.where(starts, where, 0), axis=1)
    return np.ascontiguousarray(seq.T), np.ascontiguousarray(first.T)


def slots_of(
    actor_at: npt.NDArray[np.int64], slot_first: npt.NDArray[np.int64], names: list[str]
) -> list[list[str]]:
    """One fight's order (positions) as the rule's slots of names."""
    slots: list[list[str]] = []
    for p, (who, first) in enumerate(zip(actor_at.tolist(), slot_first.tolist(), strict=True)):
        if first == p:
            slots.append([])
        slots[-1].append(names[who])
    return slots


def check_moves(setup: Setup, pairs: npt.NDArray[np.bool_], orders: int = CHECKED_ORDERS) -> None:
    """Replay :func:`initiative.apply_first_strike` on random rolled orders (many ties) and refuse the
    encounter if the table's walk orders any of them otherwise."""
    rs = setup.ruleset
    everyone = list(setup.combatants)
    names = [c.name for c in everyone]
    by_name = {c.name: c for c in everyone}
    units = initiative.initiative_units(rs, everyone, setup.sides)
    members = initiative.members_of_units(rs, everyone, setup.sides)
    unit_of = [next(i for i, u in enumerate(units) if n in members[u]) for n in names]
    draw = random.Random(5)  # fixed: the same orders every compile
    keys = np.array([[draw.randint(1, 3) for _ in units] for _ in range(orders)], dtype=np.int64).T
    per_combatant = keys[unit_of]
    ranked = np.argsort(-per_combatant, axis=0, kind="stable")  # higher key first, file order in a slot
    sorted_keys = np.take_along_axis(per_combatant, ranked, axis=0)
    position = np.arange(len(names))[:, None]
    starts = np.vstack([np.ones((1, orders), np.bool_), sorted_keys[1:] != sorted_keys[:-1]])
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=0)
    moved, moved_first = strike_first(ranked, first, pairs)
    for i in range(orders):
        rolls = [initiative.UnitRoll(u, 0, (int(keys[j, i]),)) for j, u in enumerate(units)]
        order = initiative.order_from_rolls(rs, rolls, members)
        expected, _ = initiative.apply_first_strike(order, by_name)
        if slots_of(moved[:, i], moved_first[:, i], names) != expected:
            raise Unsupported("first strike (ODD-INIT-5) that a table of who moves before whom cannot carry")
