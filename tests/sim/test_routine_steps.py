"""Attack routines in the tables, one attack at a time (ODD-ATK-3, sim/routine_steps.py)."""

from __future__ import annotations

import numpy as np
from tests.sim.cases import under

from referee.sim import Compiled, compile_setup


def damage(compiled: Compiled, plan: int) -> set[int]:
    """The damage to the target an outcome table can give."""
    return set(compiled.out_target[compiled.dmg.table(plan)].tolist())


def test_each_attack_of_the_routine_has_its_own_table() -> None:
    # rule: ODD-ATK-3: claw (1d6), claw, bite (2d6): step 0 is the attacker's own attack table, the later
    # steps the step tables, whether it continues on its target or moved on from a fallen one
    compiled = compile_setup(under("owlbear.yaml", "odd"))
    names = list(compiled.names)
    bear, bran = names.index("Owlbear"), names.index("Bran")
    assert compiled.routine_len.tolist() == [1, 1, 3]
    assert compiled.step_plans is not None and compiled.step_plans.shape[:2] == (2, 2)
    assert damage(compiled, int(compiled.plan_index[bear, bran, 0, 0, 0])) == {0, *range(1, 7)}
    claw, bite = (compiled.step_plans[s, :, bear, bran, 0, 0, 0] for s in (0, 1))
    assert damage(compiled, int(claw[0])) == {0, *range(1, 7)}
    assert damage(compiled, int(bite[0])) == {0, *range(2, 13)}
    assert (claw[0], bite[0]) == (claw[1], bite[1])  # no shield here: moving on changes nothing
    assert (compiled.step_plans[:, :, :2] == -1).all()  # the woodcutters make one attack


def test_later_attacks_count_the_deflections_the_routine_spent() -> None:
    # rule: DAC-DEFL-3: Angthar's medium shield deflects twice a round (GAP-SHIELD-USES); the bite, third
    # on him, meets him without it
    compiled = compile_setup(under("owlbear.yaml", "dac"))
    names = list(compiled.names)
    bear, angthar = names.index("Owlbear"), names.index("Angthar")
    assert compiled.step_plans is not None
    bites = compiled.step_plans[1, 0, bear, angthar, 0, :, 0]
    misses = [float(np.mean(compiled.out_target[compiled.dmg.table(int(p))] == 0)) for p in bites]
    assert misses[0] == misses[1] > misses[2]
