"""The kernels hold no rule: their order of action is initiative.order_from_rolls' order for the keys
drawn, and what they play is what the tables say."""

from __future__ import annotations

import numpy as np
from tests.conftest import EXAMPLES

from referee import sim
from referee.files import load_encounter
from referee.rules import initiative
from referee.sim.kernel_numpy import order_by_sorting, order_pairwise


def rule_order(keys: list[int], units: list[int]) -> list[list[int]]:
    """initiative.order_from_rolls for units with these keys; unit u stands for combatants of `units`."""
    setup = load_encounter(EXAMPLES / "duel.yaml")
    names = sorted(set(units))
    rolls = [initiative.UnitRoll(str(u), 0, (keys[u],)) for u in names]
    members = {str(u): [str(i) for i, owner in enumerate(units) if owner == u] for u in names}
    order = initiative.order_from_rolls(setup.ruleset, rolls, members)
    return [[int(n) for n in slot] for slot in order]


def kernel_slots(actor_at: list[int], first: list[int]) -> list[list[int]]:
    slots: list[list[int]] = []
    for p, (who, start) in enumerate(zip(actor_at, first, strict=True)):
        if start == p:
            slots.append([])
        slots[-1].append(who)
    return slots


def test_kernel_order_is_order_from_rolls() -> None:
    # rule: ODD-INIT-1, ODD-INIT-2: higher key first; ODD-INIT-3: equal keys share a slot, file order inside
    rng = np.random.default_rng(0)
    keys = rng.integers(1, 5, size=(6, 120)).astype(np.int64)
    for order in (order_pairwise, order_by_sorting):
        actor_at, first = order(keys)
        for f in range(keys.shape[1]):
            expected = rule_order(keys[:, f].tolist(), list(range(6)))
            assert kernel_slots(actor_at[:, f].tolist(), first[:, f].tolist()) == expected


def test_group_order_is_order_from_rolls() -> None:
    # rule: ODD-INIT-4, GAP-INIT-GROUP-TIE: a side's members act together; tied sides share a slot
    rng = np.random.default_rng(1)
    side_of = [0, 0, 1, 1, 1, 2]
    side_keys = rng.integers(1, 4, size=(3, 200)).astype(np.int64)
    keys = side_keys[side_of]
    actor_at, first = order_pairwise(keys)
    for f in range(keys.shape[1]):
        expected = rule_order(side_keys[:, f].tolist(), side_of)
        assert kernel_slots(actor_at[:, f].tolist(), first[:, f].tolist()) == expected


def test_kernels_keep_to_the_compiled_end() -> None:
    # the kernels stop a fight exactly when the end table says so: here never before round 3
    setup = load_encounter(EXAMPLES / "duel.yaml")
    compiled = sim.compile_setup(setup)
    compiled.end_code[1:3] = -1  # as a rule that let no fight end before the third round would
    rng = np.random.default_rng(5)
    tallies = [sim.simulate_batch(compiled, 2000, rng)]
    if sim.numba_play() is not None:
        tally = sim.compiled_batch(compiled, 2000, rng)
        assert tally is not None
        tallies.append(tally)
    for tally in tallies:
        assert tally.rounds[:3].sum() == 0 and tally.rounds.sum() == 2000
