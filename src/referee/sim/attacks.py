"""Attack tables: for each situation of an attack the default tactics pick the action and the engine's
own resolution is enumerated (:func:`outcomes.attack_effects_distribution`, the engine's ``resolve``).

A situation is (phase, attacker, target, earlier attackers on the target this round, shield deflections
the target has spent this round, the target's armour state):

- phase 0 is every round of initiative; with a free round of surprise, phases 1 and 2 are that round
  against a target not surprised and surprised (ODD-SURP-4, ODD-AC-DEX-2, MF-SURP-2);
- earlier attackers are counted up to 3, the most any shield covers (ODD-AC-SHIELD);
- deflections spent this round (DAC-DEFL-3, DAC-DEFL-4): counted while they change the attack;
- the armour state (HR-ARMDMG-1..4): every state the engine's armour events can leave the target in,
  found by folding those events (``FightState.apply``) into a probe, from the undamaged state on.

Each outcome says what the attack did: damage to the target and to the attacker (a free attack back,
MF-FUMBLE-2), the attacks back, the deflections spent on either, and the target's next armour state.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
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
# (damage to target, damage to attacker, attacks back, deflections spent by the target, deflections spent
# by the attacker, the target's armour state after the attack or -1: unchanged, subdual damage to the target
# and to the attacker)
SimOutcome = tuple[int, int, int, int, int, int, int, int]
MAX_EARLIER_ATTACKERS = 3  # attackers already counted on a target (shields cover at most 3, ODD-AC-SHIELD)
MAX_DEFLECTIONS = 6  # deflections spent in a round that the tables may count (DAC-DEFL-3)
MAX_ARMOUR_STATES = 24  # armour states of one combatant the tables may carry (HR-ARMDMG-1..4)
Wear = tuple[int, bool, bool]  # armour_loss, armour_destroyed, shield_destroyed as the fold leaves them


def _plan_key(plan: AttackPlan) -> tuple[Any, ...]:
    """What makes two attacks resolve alike (names aside)."""
    c = plan.check
    return (
        plan.weapon, plan.form, tuple(m.value for m in c.modifiers), c.target, c.natural, c.keep, c.automatic,
        c.compare, c.sides, c.count, plan.damage, plan.critical, plan.miss_chance, plan.miss_dice,
        plan.on_hit, plan.on_attempt, plan.deflection_used,
    )  # fmt: skip


def _effects(plan: AttackPlan) -> str:
    """The conditions an attack imposes, as a short list: `grappled on Hob until removed (ODD-GRAP-3)`."""
    parts = []
    for when, effects in (("on a hit", plan.on_hit), ("when tried", plan.on_attempt)):
        for e in effects:
            until = (
                "until removed" if e.rounds is None
                else "to the end of the round" if e.rounds == 0
                else "for 1 more round" if e.rounds == 1 else f"for {e.rounds} more rounds"
            )  # fmt: skip
            parts.append(f"{e.condition} on the {e.who} {when}, {until}, {e.rule}")
    return "; ".join(parts)


@dataclass(frozen=True)
class Situation:
    """Where an attack is made (see the module docstring)."""

    attacker: str
    target: str
    earlier: tuple[str, ...]
    caught: bool | None = None  # None: a round of initiative; else the free round, target surprised?
    spent: int = 0
    armour: outcomes.ArmourKey = ()
    round_no: int = 1  # 1: round 1; 2: every later round (checked on others); the free round: 0

    def probe(self, setup: Setup, number: int) -> Any:
        surprised = None if self.caught is None else ([self.target] if self.caught else [])
        return outcomes.probe_state(
            setup, {self.target: 1}, number, {self.target: self.earlier}, surprised,
            {self.target: self.spent}, {self.target: self.armour},
        )  # fmt: skip


def _planned(setup: Setup, where: Situation, number: int) -> tuple[Any, Any]:
    """The tactics' action when the target is the one to hit, and its plan (None: waits)."""
    state = where.probe(setup, number)
    action = choose_action(state, where.attacker)
    if isinstance(action, Wait):
        return state, None
    if not isinstance(action, Attack) or action.target != where.target:
        raise Unsupported(
            f"the tactics give {where.attacker} a {action.kind} action, not a plain attack on {where.target}"
        )
    try:
        plan = plan_attack(attack_context(state, action))
    except IllegalActionError:
        return state, None
    return state, (action, plan)


def wear_of(setup: Setup, target: str, armour: outcomes.ArmourKey) -> Wear:
    """The target's armour state once the armour events `armour` are folded into a probe."""
    c = outcomes.probe_state(setup, armour={target: armour})[target]
    return c.armour_loss, c.armour_destroyed, c.shield_destroyed


class _Compiler:
    """Compiles the outcome tables of one encounter, sharing tables between attacks alike."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self.dists: list[dict[SimOutcome, Fraction]] = []
        self.seen: dict[tuple[Any, ...], int] = {}
        self.wear: dict[str, list[tuple[Wear, outcomes.ArmourKey]]] = {}  # per target kind
        self.spends = False  # some attack compiled since the flag was cleared spends deflections
        named = {r + d for c in setup.combatants if c.tactic and c.tactic.rounds for r in c.tactic.rounds
                 for d in (0, 1)}  # fmt: skip
        self.later_rounds = sorted(r for r in {3, setup.max_rounds, *named} if 2 < r <= setup.max_rounds)

    def armour_state(self, kind: str, target: str, now: outcomes.ArmourKey, taken: outcomes.ArmourKey) -> int:
        """The index of the armour state `now` + `taken` leaves (a new state is added to the list)."""
        states = self.wear[kind]
        history = now + taken
        wear = wear_of(self.setup, target, history)
        for i, (known, _) in enumerate(states):
            if known == wear:
                return i
        if len(states) >= MAX_ARMOUR_STATES:
            raise Unsupported(
                f"{target}'s armour can be left in more than {MAX_ARMOUR_STATES} states (HR-ARMDMG-1)"
            )
        states.append((wear, history))
        return len(states) - 1

    def compile(self, where: Situation, pair: tuple[str, str], wear_index: int) -> int:
        """The outcome table of the attacker's default attack in `where` (-1: the tactics wait).

        Two attacks share a table only when their plans match *and* they are made by and on
        combatants alike (`pair`, their descriptions) in the same kind of round and armour state: what
        follows the roll depends on more than the plan, e.g. the free attack the target makes back on
        a fumble (MF-FUMBLE-2) is the target's own blow."""
        setup = self.setup
        state, chosen = _planned(setup, where, where.round_no or 1)
        if chosen is not None:
            action, plan = chosen
            attacker, target = where.attacker, where.target
            self.spends = self.spends or plan.deflection_used > 0
            if plan.on_hit or plan.on_attempt:
                raise Unsupported(f"{attacker}'s attack on {target} imposes conditions ({_effects(plan)}); the tables"
                                  " carry no condition that comes or goes during the fight")  # fmt: skip
            if plan.damage.knockout:
                raise Unsupported(f"{attacker}'s attack on {target} is a knock-out attempt (MF-KO-1)")
            key = (*pair, where.caught, wear_index, _plan_key(plan))
            if key not in self.seen:
                self.seen[key] = len(self.dists)
                self.dists.append(self._distribution(state, action, plan, pair[1], where))
        # the tables hold one plan for round 1 and one for the later rounds: the attack must not change
        # again (checked in round 3, the last round, and the rounds a scripted tactic names and the
        # rounds after them); the free round is played once
        for number in self.later_rounds if where.round_no == 2 else []:
            _, then = _planned(setup, where, number)
            if (chosen is None) != (then is None) or (
                chosen is not None and then is not None and _plan_key(chosen[1]) != _plan_key(then[1])
            ):
                raise Unsupported(
                    f"{where.attacker}'s attack on {where.target} changes after round 2 (in round {number})"
                )
        if chosen is None:
            return -1
        return self.seen[(*pair, where.caught, wear_index, _plan_key(chosen[1]))]

    def _distribution(
        self, state: Any, action: Attack, plan: AttackPlan, kind: str, where: Situation
    ) -> dict[SimOutcome, Fraction]:
        from referee.engine import routines

        if plan.deflection_used and routines.makes_routine(state, action):
            raise Unsupported(
                f"{where.attacker}'s attack routine on {where.target} spends shield deflections (DAC-DEFL-3)"
            )
        try:
            found = outcomes.attack_effects_distribution(state, action, LEAF_LIMIT)
        except (outcomes.UnsupportedOutcome, chance.TooManyOutcomes) as exc:
            raise Unsupported(str(exc)) from None  # the message names the attack
        out: dict[SimOutcome, Fraction] = {}
        for (outcome, spent_target, spent_attacker, armour, subdual, subdual_back), p in found.items():
            after = self.armour_state(kind, where.target, where.armour, armour) if armour else -1
            o = (*outcome, spent_target, spent_attacker, after, subdual, subdual_back)
            out[o] = out.get(o, Fraction(0)) + p
        return out


@dataclass(frozen=True)
class AttackTables:
    """plans: (phase, attacker, target, earlier attackers, deflections spent, target's armour state) →
    outcome table (-1: the tactics wait); dists: each table's outcome distribution. Phases: the rounds
    after the first; with a free round, that round against a target not surprised and surprised; and,
    where round 1's attacks differ (a scripted first action, `first_round`), round 1 last."""

    plans: npt.NDArray[np.int32]
    dists: list[dict[SimOutcome, Fraction]]
    first_round: bool = False

    @property
    def later(self) -> npt.NDArray[np.int32]:
        return np.ascontiguousarray(self.plans[0])

    @property
    def free(self) -> npt.NDArray[np.int32] | None:
        count = self.plans.shape[0] - (2 if self.first_round else 1)
        return np.ascontiguousarray(self.plans[1:3]) if count == 2 else None

    @property
    def first(self) -> npt.NDArray[np.int32] | None:
        return np.ascontiguousarray(self.plans[-1]) if self.first_round else None


def attack_tables(
    setup: Setup, enemy: npt.NDArray[np.bool_], free_round: npt.NDArray[np.bool_] | None = None
) -> AttackTables:
    """Every situation's outcome table (see the module docstring). `free_round` (2, C, C): whether a
    attacks t in the free round of surprise with t not surprised / surprised in some outcome of the
    checks (only those are compiled; the others are never looked up and hold round 1's tables)."""
    phases: list[tuple[int, bool | None]] = [(2, None), *([(0, False), (0, True)] if free_round is not None else []),
                                             (1, None)]  # fmt: skip
    names = [c.name for c in setup.combatants]
    n = len(names)
    k_count = min(MAX_EARLIER_ATTACKERS + 1, max(1, int(enemy.sum(axis=0).max())))
    # Combatants alike but for their names (`count: 6`) attack alike: compile each pair of kinds once.
    kinds = [
        json.dumps(c.model_dump(mode="json", exclude={"name"}), sort_keys=True) for c in setup.combatants
    ]
    compiler = _Compiler(setup)
    compiler.wear = {kind: [(wear_of(setup, names[kinds.index(kind)], ()), ())] for kind in kinds}
    for _ in range(2):  # again if the later layers reached armour states the earlier ones lack
        known = sum(len(s) for s in compiler.wear.values())
        layers: list[npt.NDArray[np.int32]] = []  # per deflections spent: (P, C, C, K, W)
        for spent in range(MAX_DEFLECTIONS + 1):
            base = layers[0] if layers else None
            compiler.spends = False
            layers.append(_layer(compiler, phases, names, kinds, enemy, k_count, spent, base, free_round))
            if not compiler.spends:
                break  # nothing more to spend: the tables stop counting deflections here
        else:
            raise Unsupported(
                f"shield deflections spent more than {MAX_DEFLECTIONS} times a round (DAC-DEFL-3)"
            )
        if sum(len(s) for s in compiler.wear.values()) == known:
            break
    w_count = max(layer.shape[-1] for layer in layers)
    plans = np.full((len(phases), n, n, k_count, len(layers), w_count), -1, dtype=np.int32)
    for u, layer in enumerate(layers):
        plans[:, :, :, :, u, : layer.shape[-1]] = layer
    if all((plans[:, :, :, k] == plans[:, :, :, 0]).all() for k in range(k_count)):
        plans = plans[:, :, :, :1].copy()  # earlier attackers change nothing: skip counting them
    _check_attacks_back(setup, plans, compiler.dists, names)
    if (plans[-1] == plans[0]).all():
        return AttackTables(np.ascontiguousarray(plans[:-1]), compiler.dists)
    return AttackTables(plans, compiler.dists, True)


def _layer(
    compiler: _Compiler, phases: list[tuple[int, bool | None]], names: list[str], kinds: list[str],
    enemy: npt.NDArray[np.bool_], k_count: int, spent: int, base: npt.NDArray[np.int32] | None,
    reachable: npt.NDArray[np.bool_] | None,
) -> npt.NDArray[np.int32]:  # fmt: skip
    """The tables with `spent` deflections used by the target this round: (P, C, C, K, W). With nobody
    attacking the target yet nothing is spent: those cells are `base`'s (the layer with none spent)."""
    n = len(names)
    done: dict[tuple[Any, ...], int] = {}
    cells: dict[tuple[int, int, int, int, int], int] = {}
    for t in range(n):
        foes = [names[i] for i in range(n) if enemy[i, t]]
        states = compiler.wear[kinds[t]]
        w = 0
        while w < len(states):  # the list grows as the attacks reach new armour states
            for phase, (round_no, caught) in enumerate(phases):
                for k in range(k_count):
                    for a in range(n):
                        if not enemy[a, t]:
                            continue
                        earlier = tuple(f for f in foes if f != names[a])[:k]
                        if spent and not k:
                            inside = base is not None and w < base.shape[-1]
                            cells[phase, a, t, k, w] = int(base[phase, a, t, 0, w]) if inside else -1  # type: ignore[index]
                            continue
                        if len(earlier) < k:  # fewer foes than k: as with k - 1
                            cells[phase, a, t, k, w] = cells[phase, a, t, k - 1, w]
                            continue
                        if caught is not None and reachable is not None and not reachable[int(caught), a, t]:
                            cells[phase, a, t, k, w] = cells[0, a, t, k, w]  # never in the free round
                            continue
                        kind = (kinds[a], kinds[t], k, round_no, caught, w)
                        if kind not in done:
                            where = Situation(
                                names[a], names[t], earlier, caught, spent, states[w][1], round_no
                            )
                            done[kind] = compiler.compile(where, (kinds[a], kinds[t]), w)
                        cells[phase, a, t, k, w] = done[kind]
            w += 1
    w_count = max(len(s) for s in compiler.wear.values())
    layer = np.full((len(phases), n, n, k_count, w_count), -1, dtype=np.int32)
    for (phase, a, t, k, w), plan in cells.items():
        layer[phase, a, t, k, w] = plan
    return layer


def _check_attacks_back(
    setup: Setup, plans: npt.NDArray[np.int32], dists: list[dict[SimOutcome, Fraction]], names: list[str]
) -> None:
    """A free attack back (MF-FUMBLE-2) is compiled against the attacker as it starts the round: refuse
    it where the attacker's armour or the deflections it has spent can differ (the tables carry the
    target's, not the attacker's)."""
    for a in range(len(names)):
        against = {o for pid in set(plans[:, :, a].ravel().tolist()) - {-1} for o in dists[pid]}
        if not any(o[3] or o[4] or o[5] >= 0 for o in against):
            continue  # nothing changes a's armour or spends its deflections
        for pid in set(plans[:, a].ravel().tolist()) - {-1}:
            if any(o[2] for o in dists[pid]):
                raise Unsupported(
                    f"{names[a]}'s attacks can draw a free attack back (MF-FUMBLE-2) that meets armour"
                    " damaged by criticals or deflections spent this round; the tables carry the target's"
                )
