"""Attack routines in the tables, one attack at a time (ODD-ATK-3: `attacks: [claw, claw, bite]`).

The engine makes a routine as a first step and then each later attack in the state the earlier ones
left (``routines.first_step``, ``routines.routine_step``); when the target falls, the rest go to the
enemy the default tactics choose (``routines.step_action``). The tables hold each step alone, so the
kernels play the routine as the engine does: step 0 is the attacker's ordinary attack table; step s
(s >= 1) has a table per (continuing on its target, or moved on to a new one), attacker, target,
earlier attackers, deflections spent and states, compiled from the engine's own step
(:func:`outcomes.routine_step_distribution`) in a probe that holds what the earlier steps leave and
that the step reads: the attacker among its target's attackers this round (ODD-AC-SHIELD), the
deflections spent (DAC-DEFL-3), both states (HR-ARMDMG-1..4, conditions); when moved on, the fallen
target down. Between steps the kernels move the target on and stop a routine whose attacker fell
(a blow back, MF-FUMBLE-2), as ``routines.routine_step`` does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from referee.engine import outcomes, routines
from referee.engine.actions import Attack
from referee.engine.refusals import Refused
from referee.engine.resolve import plan_declared_attack
from referee.engine.tactics import choose_action
from referee.errors import IllegalActionError
from referee.files import Setup
from referee.rules.attack import AttackPlan
from referee.sim.tables import Unsupported

PROBE_ROUND = 2  # the steps are compiled in a later round (and checked against round 1 and others)


def default_routine(state: Any, attacker: str) -> Attack | None:
    """The tactics' attack in a probe when it is a routine of several attacks (ODD-ATK-3), else None."""
    action = choose_action(state, attacker)
    if isinstance(action, Refused):
        action = action.action
    if isinstance(action, Attack) and routines.makes_routine(state, action):
        return action
    return None


def routine_lengths(setup: Setup, enemy: npt.NDArray[np.bool_]) -> list[int]:
    """ODD-ATK-3: per combatant the attacks of its default action (1: a single attack), the same
    against every enemy it may attack; refused where the tables cannot carry its routine."""
    names = [c.name for c in setup.combatants]
    out = []
    for a, name in enumerate(names):
        found = set()
        for t in np.flatnonzero(enemy[a]).tolist():
            state = outcomes.probe_state(setup, {names[t]: 1}, PROBE_ROUND)
            action = default_routine(state, name)
            found.add(1 if action is None else len(routines.routine_of(state, action).weapons))
        if len(found) > 1:
            raise Unsupported(
                f"{name}'s attack routine has {sorted(found)} attacks against different enemies"
            )
        length = found.pop() if found else 1
        c = setup.combatants[a]
        if length > 1 and c.tactic is not None and c.tactic.target is not None:
            raise Unsupported(f"{name}'s attack routine and a tactic that names its target (ODD-ATK-3)")
        out.append(length)
    return out


def step_plan(state: Any, action: Attack, index: int, target: str) -> AttackPlan | None:
    """The plan of attack `index` of `action`'s routine in `state` (ODD-ATK-3: its target, or the one the
    default tactics move on to; None: the step is lost); refused where it would strike another than
    `target`."""
    routine = routines.routine_of(state, action)
    step = routines.step_action(state, routine, index)
    if isinstance(step, str):
        return None
    if step.target != target:
        raise Unsupported(
            f"{action.actor}'s attack {index + 1} of its routine moves on to {step.target}, not {target}"
        )
    try:
        return plan_declared_attack(state, step)[1]
    except IllegalActionError:
        return None


def step_phases(lengths: list[int]) -> list[tuple[int, bool | None, int, bool]]:
    """The phases of the tables that hold a routine's later steps (ODD-ATK-3): (round, None, step, moved on)."""
    return [(PROBE_ROUND, None, s, moved) for s in range(1, max(lengths)) for moved in (False, True)]
