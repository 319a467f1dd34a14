"""Attack tables: for each (attacker, target, earlier attackers on that target this round) the default
tactics pick the action and the engine's own resolution is enumerated
(:func:`outcomes.attack_outcome_distribution`, shared with the exact odds)."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from referee import chance
from referee.engine import outcomes
from referee.engine.actions import Attack, Wait
from referee.engine.resolve import attack_context
from referee.engine.tactics import choose_action
from referee.errors import IllegalActionError
from referee.files import Setup
from referee.rules.attack import AttackPlan, plan_attack
from referee.sim.tables import LEAF_LIMIT, Unsupported

Outcome = outcomes.Outcome
MAX_EARLIER_ATTACKERS = 3  # attackers already counted on a target (shields cover at most 3, ODD-AC-SHIELD)


def _plan_key(plan: AttackPlan) -> tuple[Any, ...]:
    """What makes two attacks resolve alike (names aside)."""
    c = plan.check
    return (
        plan.weapon, plan.form, tuple(m.value for m in c.modifiers), c.target, c.natural, c.keep, c.automatic,
        c.compare, c.sides, c.count, plan.damage, plan.critical, plan.miss_chance, plan.miss_dice,
        plan.on_hit, plan.on_attempt, plan.deflection_used,
    )  # fmt: skip


def _planned(setup: Setup, attacker: str, target: str, earlier: list[str], number: int) -> tuple[Any, Any]:
    """The tactics' action for `attacker` when `target` is the one to hit, and its plan (None: waits)."""
    state = outcomes.probe_state(setup, {target: 1}, number, {target: earlier})
    action = choose_action(state, attacker)
    if isinstance(action, Wait):
        return state, None
    if not isinstance(action, Attack) or action.target != target:
        raise Unsupported(
            f"the tactics give {attacker} a {action.kind} action, not a plain attack on {target}"
        )
    try:
        plan = plan_attack(attack_context(state, action))
    except IllegalActionError:
        return state, None
    return state, (action, plan)


def compile_attack(
    setup: Setup, attacker: str, target: str, earlier: list[str],
    seen: dict[tuple[Any, ...], int], dists: list[dict[Outcome, Fraction]], pair: tuple[str, str] = ("", ""),
) -> int:  # fmt: skip
    """The outcome table of `attacker`'s default attack on `target` (-1: the tactics wait).

    Two attacks share a table only when their plans match *and* they are made by and on combatants
    alike (`pair`, their descriptions): what follows the roll depends on more than the plan, e.g. the
    free attack the target makes back on a fumble (MF-FUMBLE-2) is the target's own blow."""
    state, chosen = _planned(setup, attacker, target, earlier, 1)
    if chosen is not None:
        action, plan = chosen
        if plan.on_hit or plan.on_attempt:
            raise Unsupported(f"{attacker}'s attack on {target} imposes conditions")
        if plan.deflection_used:
            raise Unsupported(f"{attacker}'s attack on {target} spends shield deflections (DAC-DEFL-3)")
        if plan.damage.knockout:
            raise Unsupported(f"{attacker}'s attack on {target} is a knock-out attempt (MF-KO-1)")
        key = (*pair, _plan_key(plan))
        if key not in seen:
            try:
                dist = outcomes.attack_outcome_distribution(state, action, LEAF_LIMIT)
            except (outcomes.UnsupportedOutcome, chance.TooManyOutcomes) as exc:
                raise Unsupported(str(exc)) from None  # the message names the attack
            seen[key] = len(dists)
            dists.append(dist)
    # the tables hold one plan per pair: the attack must not change after the first round (nor, with
    # starting conditions, by the last round)
    later_rounds = {2, setup.max_rounds} if any(c.conditions for c in setup.combatants) else {2}
    for number in sorted(later_rounds - {1}):
        _, later = _planned(setup, attacker, target, earlier, number)
        if (chosen is None) != (later is None) or (
            chosen is not None and later is not None and _plan_key(chosen[1]) != _plan_key(later[1])
        ):
            raise Unsupported(f"{attacker}'s attack on {target} changes after the first round")
    return -1 if chosen is None else seen[(*pair, _plan_key(chosen[1]))]


def attack_tables(
    setup: Setup, enemy: npt.NDArray[np.bool_]
) -> tuple[npt.NDArray[np.int32], list[dict[Outcome, Fraction]]]:
    """(plan index (attacker, target, earlier attackers), each plan's outcome distribution)."""
    names = [c.name for c in setup.combatants]
    n = len(names)
    k_count = min(MAX_EARLIER_ATTACKERS + 1, max(1, int(enemy.sum(axis=0).max())))
    plan_index = np.full((n, n, k_count), -1, dtype=np.int32)
    dists: list[dict[Outcome, Fraction]] = []
    seen: dict[tuple[Any, ...], int] = {}
    # Combatants alike but for their names (`count: 6`) attack alike: compile each pair of kinds once.
    kinds = [
        json.dumps(c.model_dump(mode="json", exclude={"name"}), sort_keys=True) for c in setup.combatants
    ]
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
                    done[kind] = compile_attack(
                        setup, names[a], names[t], earlier, seen, dists, (kinds[a], kinds[t])
                    )
                plan_index[a, t, k] = done[kind]
    if all((plan_index[:, :, k] == plan_index[:, :, 0]).all() for k in range(k_count)):
        plan_index = plan_index[:, :, :1].copy()  # earlier attackers change nothing: skip counting them
    return plan_index, dists
