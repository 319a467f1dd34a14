"""The kernels hold no rule: their order of action is initiative.order_from_rolls' order for the keys
drawn, and what they play is what the tables say."""

from __future__ import annotations

import math

import numpy as np
import pytest
from tests.conftest import EXAMPLES
from tests.sim.cases import assert_samples_agree

from referee import sim
from referee.files import Setup, load_encounter, setup_from_data
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


def three_sides(options: dict[str, str]) -> Setup:
    """A fighter, two goblins and two orcs, each side against both others: a side can be beaten while
    the other two fight on (its initiative unit then has nobody standing)."""
    return setup_from_data(
        {
            "name": "Three sides",
            "ruleset": "odd",
            "options": options,
            "sides": [
                {"name": "Fighter", "combatants": [{"name": "Brenna", "level": 2, "hp": 11,
                 "armour": "chain mail", "weapons": ["long sword"]}]},
                {"name": "Goblins", "combatants": [{"name": "Goblin", "count": 2, "hit_dice": "1d6",
                 "ac": 12, "weapons": [{"name": "scimitar", "damage": "1d6"}]}]},
                {"name": "Orcs", "combatants": [{"name": "Orc", "count": 2, "hit_dice": 1, "ac": 13,
                 "weapons": [{"name": "spear", "damage": "1d6"}]}]},
            ],
        }
    )  # fmt: skip


@pytest.mark.skipif(sim.numba_play() is None, reason="numba is not installed")
@pytest.mark.parametrize("options", [{}, {"initiative": "d10_group"}])
def test_kernels_agree_when_a_unit_has_nobody_standing(options: dict[str, str]) -> None:
    # rule: ODD-INIT-1, ODD-INIT-4: the numba kernel rolls no key for a unit with nobody standing and
    # leaves the down out of the order; the numpy kernel rolls every key: the same fights in distribution
    setup = three_sides(options)
    fights = 60_000
    fast = sim.simulate(setup, fights, seed=3, kernel=sim.NUMBA)
    arrays = sim.simulate(setup, fights, seed=4, kernel=sim.NUMPY)
    assert fast.path == sim.VECTORISED and (fast.kernel, arrays.kernel) == (sim.NUMBA, sim.NUMPY)
    assert_samples_agree(fast, arrays)
    for i in range(len(setup.combatants)):
        a, b = fast.tally.standing[i] / fights, arrays.tally.standing[i] / fights
        assert abs(a - b) <= 4.5 * math.sqrt((a * (1 - a) + 1e-5) * 2 / fights)
