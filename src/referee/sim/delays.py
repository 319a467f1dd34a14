"""Segment delays (GAP-SEGMENTS; MOD-COND-ENC-1, MOD-COND-ENC-3, MOD-UW-3, MOD-COND-STUN-2): under
`initiative = segments_with_delays` each standing combatant's delays are rolled after the initiative
dice and the order is re-made from (d10 - delay, Dex) (``engine.conditions.segment_delays``).

A combatant's delays come from its conditions, so its initiative key is drawn per (round's variant,
combatant, state): each table is the exact distribution of the key the engine's own start of round
(:func:`outcomes.round_start_events`: the initiative event, then the start-of-round hooks) gives the
combatant in a probe where it alone stands — its face and delay read from the last initiative event and
made a key by the rule's own ``initiative.Roll``. The kernels sort the keys as they sort any
(``initiative.order_from_rolls``); ``tests/sim/test_delays.py`` checks that in the whole probe the
engine's keys are the product of these and its order their sort.
"""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction

import numpy as np

from referee import chance
from referee.dice import DiceSource
from referee.engine import outcomes
from referee.engine.events import EventType
from referee.files import Setup
from referee.rules import initiative
from referee.rules.options import Initiative
from referee.sim.states import States
from referee.sim.tables import IntArray, Packed, Table, Unsupported, ranks, to_table


def key_distribution(
    setup: Setup, name: str, mark: outcomes.Mark, number: int
) -> dict[tuple[Hashable, bool], Fraction]:
    """GAP-SEGMENTS: the distribution of `name`'s initiative key in round `number` in state `mark`, and
    whether it was delayed, from the engine's own start of round in a probe where it alone stands."""
    others = [c.name for c in setup.combatants if c.name != name]

    def key(dice: DiceSource) -> tuple[Hashable, bool]:
        probe = outcomes.probe_state(setup, number=number, marks={name: mark}, down=others)
        events = outcomes.round_start_events(probe, dice)
        if any(e.type is not EventType.INITIATIVE for e in events):
            raise Unsupported(
                f"the start of round {number} does more than order the round ({events[-1].text})"
            )
        data = events[-1].data
        delay = int(dict(data.get("delays") or {}).get(name, 0))
        dex = probe[name].spec.abilities.dexterity
        return initiative.Roll(name, int(dict(data["rolls"])[name]), dex, delay).key, delay != 0

    try:
        return chance.distribution(key, what=f"initiative of {name} with its delays")
    except chance.TooManyOutcomes as exc:
        raise Unsupported(str(exc)) from None


def initiative_by_state(
    setup: Setup, states: States, round_variant: IntArray, group: bool
) -> tuple[Packed, IntArray] | None:
    """GAP-SEGMENTS: where segment delays act (some combatant in some state is delayed): the key tables, and per
    (round's variant, combatant, state) the table of its key; None where no delay ever acts."""
    if setup.ruleset.initiative is not Initiative.SEGMENTS_WITH_DELAYS:
        return None
    names = [c.name for c in setup.combatants]
    firsts = {int(v): r for r, v in reversed(list(enumerate(round_variant))) if r >= 1}
    lasts = {int(v): r for r, v in enumerate(round_variant) if r >= 1}
    dists: dict[tuple[int, str, int], dict[Hashable, Fraction]] = {}
    delayed = False
    for v, number in sorted(firsts.items()):
        for kind, name in states.first_name.items():
            for w, mark in enumerate(states.lists[kind]):
                found = key_distribution(setup, name, mark, number)
                if lasts[v] != number and key_distribution(setup, name, mark, lasts[v]) != found:
                    raise Unsupported(f"{name}'s segment delays change with the round (GAP-SEGMENTS)")
                delayed |= any(late for _, late in found)
                merged: dict[Hashable, Fraction] = {}
                dists[(v, kind, w)] = merged
                for (k, _), p in found.items():
                    merged[k] = merged.get(k, Fraction(0)) + p
    if not delayed:
        return None  # nobody is ever delayed: the plain initiative tables hold
    if group:
        raise Unsupported("segment delays under group initiative (GAP-SEGMENTS)")
    rank = ranks([k for d in dists.values() for k in d])
    made: dict[tuple[tuple[int, Fraction], ...], int] = {}
    tables: list[Table] = []
    width = states.widest()
    index = np.zeros((len(firsts), len(names), width), dtype=np.int64)
    for (v, kind, w), dist in dists.items():
        coded = tuple(sorted((rank[k], p) for k, p in dist.items()))
        if coded not in made:
            made[coded] = len(tables)
            tables.append(to_table(dict(coded)))
        for i, k in enumerate(states.kinds):
            if k == kind:
                index[v, i, w] = made[coded]
                index[v, i, len(states.lists[kind]) :] = index[v, i, 0]
    return Packed.of(tables), index
