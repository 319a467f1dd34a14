"""The attacks of a small fight, compiled for the chain (:mod:`referee.odds.chain`) from the engine.

For each attacker A and enemy T the default tactics (:func:`engine.tactics.choose_action`) pick the
attack in a probe state (:func:`engine.outcomes.probe_state`), and the engine's real resolution of it is
enumerated over every die (:func:`engine.outcomes.attack_outcome_distribution`): the joint
distribution of damage to T, damage to A (a fumble's free attack back, MF-FUMBLE-2) and attacks back.

What an attack does may depend on how many enemies already attacked T this round (a shield covers
the first N attackers, ODD-AC-SHIELD, GAP-SHIELD-ASSIGN). The attack is compiled for every such count
that can happen (0 up to T's other enemies, at most :data:`MAX_EARLIER`); when the counts give different
answers, T's count is a dimension of the chain's state within a round, capped where the answers stop
changing. Anything the chain cannot carry is refused with the reason (:class:`OddsError`).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from referee import chance
from referee.dice import DiceSource
from referee.engine import caches, outcomes, tactics
from referee.engine import resolve as engine
from referee.engine.actions import Attack, Wait
from referee.engine.state import FightState
from referee.files import Setup
from referee.odds.errors import OddsError
from referee.rules import targeting
from referee.rules.attack import AttackPlan

if TYPE_CHECKING:
    import numpy.typing as npt

    Array = npt.NDArray[Any]
else:
    Array = np.ndarray  # the same arrays; numpy.typing is for the type checker only
MAX_EARLIER = 3  # earlier attackers on a target told apart (shields cover at most 3, ODD-AC-SHIELD)
SIM = "use `referee sim`"

# One attack's effect on the chain: for each damage to the attacker, K[new hp, old hp] of the target
# (None: the tactics wait, no attack is made).
Groups = list[tuple[int, Array]]


@dataclass(eq=False, repr=False)  # compared and shown by identity: fewer methods to make at import
class Attacks:
    """The compiled attacks of a fight."""

    kernels: dict[tuple[int, int], list[Groups | None]]  # (attacker, target) → per count state of target
    caps: list[int]  # per combatant: the highest count state of attackers on it (0: not counted)
    targets: dict[tuple[int, int], Array] = field(default_factory=dict)  # cells where A picks T
    enemies: dict[int, list[int]] = field(default_factory=dict)  # the targets each one can attack
    always: dict[int, bool] = field(default_factory=dict)  # one enemy, picked wherever it is active


def _plan_key(plan: AttackPlan) -> tuple[Any, ...]:
    return (
        plan.check, plan.damage, plan.critical, plan.miss_chance, plan.miss_dice, plan.on_hit,
        plan.on_attempt, plan.deflection_used,
    )  # fmt: skip


def _choice(
    setup: Setup, name: str, target: str, hp: int, number: int, earlier: Mapping[str, Sequence[str]]
) -> tuple[FightState, Attack, AttackPlan] | None:
    """The default tactics' attack of `name` on `target` (which has the fewest hit points) in a probe
    state; None when they wait (no legal attack on it)."""
    state = outcomes.probe_state(setup, {target: hp}, number, earlier)
    action = tactics.choose_action(state, name)
    if isinstance(action, Wait):
        return None
    if type(action) is not Attack or action.target != target:
        raise OddsError(f"{name}'s default action is not a plain attack on {target} ({action.kind}); {SIM}")
    plan = engine.plan_declared_attack(state, action)[1]
    if plan.damage.subdual or plan.damage.knockout:
        raise OddsError(f"{name}'s attack deals subdual or knock-out damage; {SIM}")
    return state, action, plan


def _same(
    a: tuple[FightState, Attack, AttackPlan] | None, b: tuple[FightState, Attack, AttackPlan] | None
) -> bool:
    if a is None or b is None:
        return a is b
    return a[1] == b[1] and _plan_key(a[2]) == _plan_key(b[2])


def _distribution(
    choice: tuple[FightState, Attack, AttackPlan] | None,
) -> dict[outcomes.Outcome, Fraction] | None:
    if choice is None:
        return None
    state, action, _plan = choice
    try:
        # every sequence of dice resolves the same attack in the same unchanged state: planned once (the
        # engine's cache for one moment of a fight), not once per sequence
        with caches.stepping(state):
            return outcomes.attack_outcome_distribution(state, action, down_is_enough=True)  # down: 0
    except (outcomes.UnsupportedOutcome, chance.TooManyOutcomes) as exc:
        raise OddsError(f"{exc}; {SIM}") from None


def compile_attacks(
    setup: Setup, names: list[str], sides: list[int], size: list[int], exact: bool
) -> Attacks:
    """Every attacker's attack on every enemy, per count of earlier attackers on that enemy."""
    kinds = [
        json.dumps(c.model_dump(mode="json", exclude={"name"}), sort_keys=True) for c in setup.combatants
    ]
    memo: dict[tuple[str, str, int], dict[outcomes.Outcome, Fraction] | None] = {}
    raw: dict[tuple[int, int], list[dict[outcomes.Outcome, Fraction] | None]] = {}
    deflected: list[tuple[int, int]] = []  # attacks that spend the target's shield deflections
    checked: dict[tuple[str, str, int], tuple[bool, list[dict[outcomes.Outcome, Fraction] | None]]] = {}
    for a, name in enumerate(names):
        for t, target in enumerate(names):
            if sides[a] == sides[t]:
                continue
            others = [names[i] for i in range(len(names)) if sides[i] != sides[t] and i != a]
            alike = (kinds[a], kinds[t], len(others))  # the same attacker on the same target: asked once
            if alike in checked:
                spends, raw[(a, t)] = checked[alike]
                if spends:
                    deflected.append((a, t))
                continue
            first = _choice(setup, name, target, 1, 1, {})
            # the plan must not depend on the target's hit points or the round (the chain tracks neither)
            if not _same(first, _choice(setup, name, target, 2, 2, {})):
                raise OddsError(f"{name}'s attack on {target} changes during the fight; {SIM}")
            # nor on whether the target attacked the attacker earlier in the round (GAP-SHIELD-ASSIGN...)
            if not _same(first, _choice(setup, name, target, 1, 1, {name: [target]})):
                raise OddsError(
                    f"{name}'s attack on {target} depends on whether {target} attacked first this round; {SIM}"
                )
            if first is not None and first[2].deflection_used:
                deflected.append((a, t))
            per_count = []
            before = first
            for k in range(min(MAX_EARLIER, len(others)) + 1):
                key = (kinds[a], kinds[t], k)
                if key not in memo:
                    choice = first if k == 0 else _choice(setup, name, target, 1, 1, {target: others[:k]})
                    # the same attack with the same plan as after one attacker fewer does the same
                    same = k > 0 and _same(choice, before)
                    memo[key] = memo[(kinds[a], kinds[t], k - 1)] if same else _distribution(choice)
                    before = choice
                per_count.append(memo[key])
            raw[(a, t)] = per_count
            checked[alike] = (first is not None and bool(first[2].deflection_used), per_count)
    caps = [0] * len(names)
    for (_a, t), per_count in raw.items():
        changes = [k for k in range(1, len(per_count)) if per_count[k] != per_count[k - 1]]
        caps[t] = max([caps[t], *changes])
    for (a, _t), per_count in raw.items():
        if caps[a] and any(back for dist in per_count if dist for (_dt, _da, back) in dist):
            raise OddsError(
                f"{names[a]} can be struck back (MF-FUMBLE-2) and its armour class depends on how many"
                f" attacked it this round: the chain counts attacks, not attackers; {SIM}"
            )
    _check_deflections(deflected, raw, names, sides)
    _check_after_striking_back(setup, raw, names, memo, kinds)
    attacks = Attacks({}, caps)
    kernels: dict[tuple[int, int], Groups] = {}  # the same distribution on the same axis: one kernel

    def built(dist: dict[outcomes.Outcome, Fraction], axis: int) -> Groups:
        if (id(dist), axis) not in kernels:
            kernels[(id(dist), axis)] = _groups(dist, axis, exact)
        return kernels[(id(dist), axis)]

    for (a, t), per_count in raw.items():
        tables = [None if d is None else built(d, size[t]) for d in per_count]
        tables = (tables + [tables[-1]] * caps[t])[: caps[t] + 1]
        if any(table is not None for table in tables):
            attacks.kernels[(a, t)] = tables
    _target_masks(attacks, names, sides, size)
    return attacks


def _check_after_striking_back(
    setup: Setup,
    raw: Mapping[tuple[int, int], list[dict[outcomes.Outcome, Fraction] | None]],
    names: list[str],
    memo: Mapping[tuple[str, str, int], dict[outcomes.Outcome, Fraction] | None],
    kinds: list[str],
) -> None:
    """MF-FUMBLE-2: a combatant that struck back at a fumbling enemy has attacked it this round already;
    its own attack on that enemy must not depend on that (HR-MOVE-2 and the like), or it is refused."""
    for (t, a), per_count in raw.items():
        if not any(back for dist in per_count if dist for (_dt, _da, back) in dist):
            continue
        after = _distribution(_choice(setup, names[a], names[t], 1, 1, {names[t]: [names[a]]}))
        if after != memo[(kinds[a], kinds[t], 0)]:
            raise OddsError(
                f"{names[a]}'s attack on {names[t]} changes once it has struck {names[t]} back (MF-FUMBLE-2); {SIM}"
            )


def _check_deflections(
    deflected: list[tuple[int, int]],
    raw: Mapping[tuple[int, int], list[dict[outcomes.Outcome, Fraction] | None]],
    names: list[str],
    sides: list[int],
) -> None:
    """DAC-DEFL-3: a shield's deflections are spent per round (GAP-SHIELD-USES), state the chain does not
    carry. Exact only where the target meets one attack a round: one enemy, who is never struck back."""
    for a, t in deflected:
        enemies = [i for i in range(len(names)) if sides[i] != sides[t]]
        struck_back = any(back for dist in raw.get((t, a), []) if dist for (_dt, _da, back) in dist)
        if len(enemies) > 1 or struck_back:
            raise OddsError(
                f"{names[a]}'s attack on {names[t]} spends shield deflections (DAC-DEFL-3) that other"
                f" attacks this round would find spent; {SIM}"
            )


def _groups(dist: Mapping[outcomes.Outcome, Fraction], size: int, exact: bool) -> Groups:
    """Per damage to the attacker: K[new, old], the chance an active target at `old` hit points is
    left at `new` (0 = down). A target already down takes nothing and strikes nothing back."""
    by_back: dict[int, Array] = {}

    def kernel(da: int) -> Array:
        if da not in by_back:
            k = np.zeros((size, size), dtype=object if exact else float)
            if exact:
                k[...] = Fraction(0)
            by_back[da] = k
        return by_back[da]

    kernel(0)[0, 0] = Fraction(1) if exact else 1.0
    for (dt, da, _back), p in dist.items():
        k = kernel(da)
        for old in range(1, size):
            k[max(0, old - dt), old] += p if exact else float(p)
    return sorted(by_back.items())


def _target_masks(attacks: Attacks, names: list[str], sides: list[int], size: list[int]) -> None:
    """Where the default tactics pick each enemy (:func:`rules.targeting.choose_target`: fewest hit
    points, ties by file order), asked once per combination of the enemies' hit points."""
    for a in range(len(names)):
        enemies = [t for t in range(len(names)) if sides[t] != sides[a]]
        masks = {t: np.zeros(size, dtype=bool) for t in enemies}
        for hps in itertools.product(*(range(size[t]) for t in enemies)):
            candidates = [(names[t], hp, 0, t) for t, hp in zip(enemies, hps, strict=True) if hp > 0]
            choice = targeting.choose_target(candidates)
            if choice is None:
                continue
            index: list[Any] = [slice(None)] * len(names)
            for t, hp in zip(enemies, hps, strict=True):
                index[t] = hp
            masks[names.index(choice)][tuple(index)] = True
        for t in enemies:
            if (a, t) in attacks.kernels:
                attacks.targets[(a, t)] = masks[t]
        attacks.enemies[a] = [t for t in enemies if (a, t) in attacks.kernels]
        attacks.always[a] = len(attacks.enemies[a]) == 1 and bool(
            np.array_equal(masks[attacks.enemies[a][0]], _active(size, attacks.enemies[a][0]))
        )


def _active(size: list[int], i: int) -> Array:
    active: Array = np.indices(size)[i] > 0
    return active


def check_round_hooks(setup: Setup) -> None:
    """The chain tracks hit points only: hooks that act (or roll) at the start or end of a round are refused."""
    from referee.engine import fight

    state = outcomes.probe_state(setup)
    for hooks in (fight.START_OF_ROUND, fight.END_OF_ROUND):
        for hook in hooks:
            if _acts(hook, state):
                raise OddsError(f"a round hook acts in this encounter ({hook.__name__}); {SIM}")


def _acts(hook: Callable[[FightState, DiceSource], list[Any]], state: FightState) -> bool:
    """Whether a round hook asks for a die or returns an event (with every die at 1)."""
    acted: list[bool] = []
    try:
        asked = chance.dice_requests(lambda dice: acted.append(bool(hook(state, dice))))
    except chance.TooManyOutcomes:
        return True
    return bool(asked) or any(acted)
