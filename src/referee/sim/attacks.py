"""Attack tables: for each situation of an attack the default tactics pick the action and the engine's
own resolution is enumerated (:func:`outcomes.attack_effects_distribution`, the engine's ``resolve``).

A situation is (phase, attacker, target, earlier attackers on the target this round, shield deflections
the target has spent this round, the target's state, the attacker's state):

- phase 0 is every round of initiative; with a free round of surprise, phases 1 and 2 are that round
  against a target not surprised and surprised (ODD-SURP-4, ODD-AC-DEX-2, MF-SURP-2);
- earlier attackers are counted up to 3, the most any shield covers (ODD-AC-SHIELD);
- deflections spent this round (DAC-DEFL-3, DAC-DEFL-4): counted while they change the attack;
- the states (:mod:`referee.sim.states`): armour damaged by criticals (HR-ARMDMG-1..4) and conditions
  that come and go, every state the engine's events can leave a combatant in, folded into a probe
  (``FightState.apply``) from the way it starts. The attacker's state is counted only where it changes
  an attack (a sleeper that woke attacks, MOD-COND-SLEEP-M; a blow back meets its worn armour).

Each outcome says what the attack did: damage to the target and to the attacker (a free attack back,
MF-FUMBLE-2), the attacks back, the deflections spent on either, the subdual damage to either and the
target's and the attacker's next states.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from referee import chance
from referee.engine import outcomes, routines
from referee.engine.actions import Attack
from referee.engine.refusals import Refused
from referee.engine.resolve import attack_context
from referee.engine.tactics import choose_action
from referee.files import Setup
from referee.rules.attack import AttackPlan, plan_attack
from referee.sim import blow_backs, routine_steps
from referee.sim.deflections import check_who_spent, meets_own_deflections, padded
from referee.sim.round_ends import RoundDraws
from referee.sim.rounds import RoundVariants, scripted_target
from referee.sim.situations import Situation, effects, plan_key, planned, step_key
from referee.sim.states import States
from referee.sim.tables import LEAF_LIMIT, MAX_EARLIER_ATTACKERS, SimOutcome, Unsupported
from referee.vocabulary import PAIRED

Outcome = outcomes.Outcome
# a phase of the tables: (round, the free round's target surprised or None, step of a routine, moved on)
Phase = tuple[int, bool | None, int, bool]
OUTCOME_FIELDS = 10
MAX_DEFLECTIONS = 6  # deflections spent in a round that the tables may count (DAC-DEFL-3)


def _hits_back(dist: dict[SimOutcome, Fraction]) -> bool:
    """Whether a compiled table's attack can draw a blow back (MF-FUMBLE-2): damage, subdual damage or
    deflections spent on the attacker, or attacks back (as :func:`_strikes_back` reads the engine's)."""
    return any(o[1] or o[2] or o[4] or o[7] for o in dist)


def _strikes_back(found: dict[outcomes.Effects, Fraction]) -> bool:
    """Whether the attack can draw a blow back on the attacker (MF-FUMBLE-2): then the attacker's own
    state (its armour, the deflections it spent) changes what the attack does."""
    return any(e[0][1] or e[0][2] or e[2] or e[5] for e in found)


class _Compiler:
    """Compiles the outcome tables of one encounter, sharing tables between attacks alike."""

    def __init__(self, setup: Setup, states: States) -> None:
        self.setup = setup
        self.states = states
        self.dists: list[dict[SimOutcome, Fraction]] = []
        self.by_content: dict[frozenset[tuple[SimOutcome, Fraction]], int] = {}
        self.raw: dict[tuple[Any, ...], dict[outcomes.Effects, Fraction]] = {}
        self.spends = False  # some attack compiled since the flag was cleared spends deflections
        self.rounds = RoundVariants.of(setup)
        self.lengths: dict[str, int] = {}  # each attacker's routine, where longer than one attack
        self.own_matters = False  # some blow back changes with the attacker's own attackers (J)

    def compile(self, where: Situation, pair: tuple[str, str], wear: tuple[int, int]) -> int:
        """The outcome table of the attacker's default attack in `where` (-1: the tactics wait).

        Two attacks share what the engine's resolution gives only when their plans match *and* they are
        made by and on combatants alike (`pair`, their descriptions) in the same kind of round and target
        state, and — where the attack can draw a blow back — the same attacker state: what follows the
        roll depends on more than the plan, e.g. the free attack the target makes back on a fumble
        (MF-FUMBLE-2) is the target's own blow, on the attacker's own armour. `wear`: the indexes of the
        target's and the attacker's states."""
        setup = self.setup
        if where.step:
            return self.compile_step(where, pair, wear)
        state, chosen = planned(setup, where, where.round_no or 1)
        _, beset = planned(
            setup, where, where.round_no or 1, blow_backs.own_attackers(setup, where.attacker, where.target)
        )
        blow_backs.check_own_plan(
            where.attacker, where.target, *(None if c is None else plan_key(c[1]) for c in (chosen, beset))
        )
        if where.attacker not in where.earlier:  # K: as if it struck the target back earlier (MF-FUMBLE-2)
            _, present = planned(
                setup, replace(where, earlier=(*where.earlier, where.attacker)), where.round_no or 1
            )
            blow_backs.check_present_plan(
                where.attacker,
                where.target,
                *(None if c is None else plan_key(c[1]) for c in (chosen, present)),
            )
        if chosen is not None:
            chosen = self._first_of_routine(state, where, *chosen)
        if chosen is not None:
            self._note_plan(where, chosen[1])
        # the tables hold one plan per variant of the rounds (RoundVariants), compiled in its first round:
        # the attack must not change in its other rounds (checked in round 3, the second and the last
        # of them); the free round is played once
        for number in self.rounds.checks.get(where.round_no, ()):
            _, then = planned(setup, where, number)
            if (chosen is None) != (then is None) or (
                chosen is not None and then is not None and plan_key(chosen[1]) != plan_key(then[1])
            ):
                raise Unsupported(
                    f"{where.attacker}'s attack on {where.target} changes after round {where.round_no}"
                    f" (in round {number})"
                )
        if chosen is None:
            return -1
        action, plan = chosen
        knockout = plan.damage.knockout and not plan.damage.subdual
        if knockout:  # MF-KO-1: the blow's whole damage; the kernels leave the target at 0 (knocks)
            state = self._knockout_probe(where, plan)
        found = self._resolution(
            state, action, plan, (*pair, where.caught, wear[0], plan_key(plan)), wear[1], where
        )
        return self._table(self._outcomes(found, pair, wear, knockout))

    def _note_plan(self, where: Situation, plan: AttackPlan) -> None:
        """Whether the attack spends deflections (another layer of the tables); refuse a hold."""
        self.spends = self.spends or plan.deflection_used > 0
        held = [e for e in (*plan.on_hit, *plan.on_attempt) if e.condition in PAIRED]
        if held:
            raise Unsupported(f"{where.attacker}'s attack on {where.target} imposes conditions ({effects(plan)}); the"
                              " tables carry no hold (who holds whom, and since when, decide later attacks)")  # fmt: skip

    def _first_of_routine(
        self, state: Any, where: Situation, action: Attack, plan: AttackPlan
    ) -> tuple[Attack, AttackPlan] | None:
        """ODD-ATK-3: a routine's first attack stands for its action here (the later ones are the steps'
        tables, sim/routine_steps.py), with that attack's own plan; the routine as long as foreseen."""
        length = self.lengths.get(where.attacker, 1)
        makes = routines.makes_routine(state, action)
        if (len(routines.routine_of(state, action).weapons) if makes else 1) != length:
            raise Unsupported(f"{where.attacker}'s attack routine changes with the situation (ODD-ATK-3)")
        if not makes:
            return action, plan
        first = routine_steps.step_plan(state, action, 0, where.target)
        return None if first is None else (action, first)

    def compile_step(self, where: Situation, pair: tuple[str, str], wear: tuple[int, int]) -> int:
        """A later attack of the attacker's routine (ODD-ATK-3, sim/routine_steps.py): compiled in a
        later round, checked in round 1 and the rounds the plans are checked in (-1: the attacker makes
        no routine here, or the step is lost on a target it continues on)."""
        setup = self.setup

        def step_planned(number: int) -> tuple[Any, Attack, AttackPlan | None] | None:
            declared = where.first_step().probe(setup, number)
            template = routine_steps.default_routine(declared, where.attacker)
            if template is None:
                return None
            state = where.probe(setup, number)
            return state, template, routine_steps.step_plan(state, template, where.step, where.target)

        chosen = step_planned(routine_steps.PROBE_ROUND)
        for number in (1, *self.rounds.checks.get(routine_steps.PROBE_ROUND, ())):
            then = step_planned(number)
            same = step_key(chosen) == step_key(then)
            if not same:
                raise Unsupported(f"{where.attacker}'s routine attack {where.step + 1} on {where.target}"
                                  f" changes with the round (in round {number})")  # fmt: skip
        if chosen is None:
            return -1
        state, action, plan = chosen
        if plan is None:
            if where.primary is not None:  # the engine would move on to the next enemy it can reach
                raise Unsupported(f"{where.attacker}'s routine attack {where.step + 1} cannot reach"
                                  f" {where.target}, the enemy it moves on to (ODD-ATK-3)")  # fmt: skip
            return -1
        self._note_plan(where, plan)
        if where.primary is not None and where.attacker not in where.earlier:  # K on the one it moves on to
            again = replace(where, earlier=(*where.earlier, where.attacker))
            present = routine_steps.step_plan(
                again.probe(setup, routine_steps.PROBE_ROUND), action, where.step, where.target
            )
            blow_backs.check_present_plan(
                where.attacker, where.target, plan_key(plan), present and plan_key(present)
            )
        key = (*pair, None, wear[0], plan_key(plan), where.step, where.primary is None)
        found = self._resolution(state, action, plan, key, wear[1], where)
        return self._table(self._outcomes(found, pair, wear))

    def _knockout_probe(self, where: Situation, plan: AttackPlan) -> Any:
        """MF-KO-1: a knock-out blow leaves its target at 0 where it would fall below (the engine's
        `damage_dealt` reads the target's hit points): it is resolved on a target with plenty, so the
        outcome holds the blow's whole damage, and the kernels cap it at 0 (`Compiled.out_knockout`)."""
        state = where.probe(self.setup, where.round_no or 1, outcomes.PROBE_HP)
        action = choose_action(where.probe(self.setup, where.round_no or 1), where.attacker)
        if isinstance(action, Refused):
            action = action.action
        assert isinstance(action, Attack)
        if routines.makes_routine(state, action):
            raise Unsupported(
                f"{where.attacker}'s attack routine on {where.target} tries to knock out (MF-KO-1)"
            )
        if plan_key(plan_attack(attack_context(state, action))) != plan_key(plan):
            raise Unsupported(
                f"{where.attacker}'s knock-out attempt on {where.target} depends on its hit points (MF-KO-1)"
            )
        return state

    def _resolution(
        self, state: Any, action: Attack, plan: AttackPlan, key: tuple[Any, ...], attacker_state: int,
        where: Situation,
    ) -> dict[outcomes.Effects, Fraction]:  # fmt: skip
        """The engine's resolution, shared between attacker states (the deflections the attacker spent,
        its own attackers) unless it can strike the attacker back: a blow back meets them (MF-FUMBLE-2)."""
        first = self.raw.get((*key, (0, 0, 0)))
        if first is not None and not _strikes_back(first):
            return first
        own = (*key, (attacker_state, where.spent_back, where.own))
        if own not in self.raw:
            found = self._distribution(state, action, plan, where)
            if _strikes_back(found):
                self._own_attackers(state, action, plan, where, (own, found))
            self.raw[own] = found
        return self.raw[own]

    def _own_attackers(
        self, state: Any, action: Attack, plan: AttackPlan, where: Situation,
        found: tuple[tuple[Any, ...], dict[outcomes.Effects, Fraction]],
    ) -> None:  # fmt: skip
        """J (sim/blow_backs.py, MF-FUMBLE-2 with ODD-AC-SHIELD): the resolution with the target among the
        attacker's own attackers after the cell's others must be the cell's; in the first cell, whether
        more others change it (then J is compiled: `own_matters`, those resolutions kept)."""
        hp, number = state[where.target].hp, max(state.round, 1)
        foes = blow_backs.own_foes(self.setup, where.attacker, where.target)

        def resolved(own: tuple[str, ...]) -> dict[outcomes.Effects, Fraction]:
            return self._distribution(where.probe(self.setup, number, hp, own), action, plan, where)

        key, dist = found
        for j in range(where.own, len(foes) + 1 if not where.own else where.own + 1):
            more = (
                dist
                if j == where.own
                else resolved((*foes[:j], where.target) if where.spent_back else foes[:j])
            )
            if not where.spent_back:  # with spent deflections the target is among them already
                present = resolved((*foes[:j], where.target))
                blow_backs.check_own_attackers(where.attacker, where.target, more, present)
            self.raw[(*key[:-1], (*key[-1][:2], j))] = more
            self.own_matters = self.own_matters or more != dist

    def _outcomes(
        self, found: dict[outcomes.Effects, Fraction], pair: tuple[str, str], wear: tuple[int, int],
        knockout: bool = False,
    ) -> dict[SimOutcome, Fraction]:  # fmt: skip
        """The engine's effects as the kernels' outcomes: the states they leave either combatant in."""
        out: dict[SimOutcome, Fraction] = {}
        for (outcome, spent_t, spent_a, on_target, subdual, subdual_back, on_attacker), p in found.items():
            after = self.states.after(pair[1], wear[0], on_target) if on_target else -1
            after_a = self.states.after(pair[0], wear[1], on_attacker) if on_attacker else -1
            o = (*outcome, spent_t, spent_a, after, subdual, subdual_back, after_a, int(knockout))
            out[o] = out.get(o, Fraction(0)) + p
        return out

    def _table(self, dist: dict[SimOutcome, Fraction]) -> int:
        """The index of the table of `dist` (tables alike are shared)."""
        content = frozenset(dist.items())
        if content not in self.by_content:
            self.by_content[content] = len(self.dists)
            self.dists.append(dist)
        return self.by_content[content]

    def _distribution(
        self, state: Any, action: Attack, plan: AttackPlan, where: Situation
    ) -> dict[outcomes.Effects, Fraction]:
        try:
            if routines.makes_routine(state, action):  # one attack of it (sim/routine_steps.py)
                return outcomes.routine_step_distribution(state, action, where.step, where.target, LEAF_LIMIT)
            return outcomes.attack_effects_distribution(state, action, LEAF_LIMIT)
        except (outcomes.UnsupportedOutcome, chance.TooManyOutcomes) as exc:
            raise Unsupported(str(exc)) from None  # the message names the attack


@dataclass(frozen=True)
class AttackTables:
    """plans: (phase, attacker, target, earlier attackers, deflections spent, the target's state x the
    attacker's states + the attacker's state) → outcome table (-1: the tactics wait); dists: each table's
    outcome distribution. Phases: the rounds after the first; with a free round, that round against a
    target not surprised and surprised; and, where round 1's attacks differ (a scripted first action,
    `first_round`), round 1 last. `attacker_states`: 1 where the attacker's state changes no attack;
    `round_end`: (C, W) each combatant's state after the end of a round, or None (no state changes)."""

    plans: npt.NDArray[np.int32]
    dists: list[dict[SimOutcome, Fraction]]
    first_round: bool = False
    attacker_states: int = 1
    round_end: npt.NDArray[np.int32] | None = None
    # with more variants of the rounds than round 1's and the later rounds' (RoundVariants): each
    # variant's plans (V, C, C, K, U, W) and the variant of each round, else None
    round_plans: npt.NDArray[np.int32] | None = None
    plan_round: npt.NDArray[np.int64] | None = None
    # ODD-ATK-3 (sim/routine_steps.py): per combatant the attacks of its routine, and the later steps'
    # plans (S - 1, moved on 0/1, C, C, K, U, W), or None: nobody makes a routine
    routine_len: npt.NDArray[np.int64] | None = None
    step_plans: npt.NDArray[np.int32] | None = None
    # the deflections the attacker spent this round counted (a blow back meets them, MF-FUMBLE-2,
    # DAC-DEFL-3): the plans' U axis is (the target's count) * back_spent + (the attacker's)
    back_spent: int = 1
    round_draws: RoundDraws | None = None  # ends of rounds that roll dice (MF-DROWN-2/3), per round
    states: States | None = None  # the combatants' states the tables were compiled for
    # J (sim/blow_backs.py): where a blow back reads the attacker's own attackers, the U axis is
    # ((the target's count) * back_spent + (the attacker's)) * own_count + J
    own_count: int = 1

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
    rounds = RoundVariants.of(setup)
    phases: list[Phase] = [(2, None, 0, False), *([(0, False, 0, False), (0, True, 0, False)] if free_round is not None else []),
                           (1, None, 0, False), *((r, None, 0, False) for r in rounds.firsts[2:])]  # fmt: skip
    base_count = len(phases)
    lengths = routine_steps.routine_lengths(setup, enemy)  # ODD-ATK-3: the later steps' phases
    if max(lengths) > 1 and (free_round is not None or len(rounds.firsts) > 2):
        raise Unsupported(
            "an attack routine (ODD-ATK-3) in a free round of surprise or with tactics for some rounds"
        )
    phases += routine_steps.step_phases(lengths)
    names = [c.name for c in setup.combatants]
    n = len(names)
    k_count = min(MAX_EARLIER_ATTACKERS + 1, max(1, int(enemy.sum(axis=0).max())))
    # Combatants alike but for their names (`count: 6`) attack alike: compile each pair of kinds once.
    kinds = [
        json.dumps(c.model_dump(mode="json", exclude={"name"}), sort_keys=True) for c in setup.combatants
    ]
    states = States(setup, names, kinds)
    compiler = _Compiler(setup, states)
    compiler.lengths = {name: length for name, length in zip(names, lengths, strict=True) if length > 1}
    cells = _Cells(compiler, phases, names, kinds, enemy, k_count, {})

    def by_own(back: int) -> list[list[npt.NDArray[np.int32]]]:
        """The layers with `back` deflections spent by the attacker, per J where a blow back reads it."""
        plain = cells.spent_layers(back, free_round)
        more = range(1, k_count) if compiler.own_matters else ()
        return [plain, *(cells.spent_layers(back, free_round, j, plain) for j in more)]

    while True:  # again while the attacks and the ends of rounds reach states not yet compiled
        known, own_matters = states.count(), compiler.own_matters
        groups = [by_own(0)]  # per deflections the attacker spent: per J: per the target's
        if meets_own_deflections(groups[0][0], compiler.dists):  # MF-FUMBLE-2 with DAC-DEFL-3
            for back in range(1, MAX_DEFLECTIONS + 1):
                layers = by_own(back)
                both = padded([*layers, *groups[-1]])
                if (both[: len(layers)] == both[len(layers) :]).all():
                    break  # the attacker's count changes nothing more
                groups.append(layers)
            else:
                raise Unsupported(
                    f"an attacker's deflections spent more than {MAX_DEFLECTIONS} times a round"
                )
        states.close_rounds()
        if states.count() == known and compiler.own_matters == own_matters:
            break
    own_count = len(groups[0])
    grid = [layers for group in groups for layers in group]  # the attacker's count * own_count + J
    width = states.widest()
    # (P, C, C, K, U, UA, W, W): UA, the deflections the attacker spent, counted only where they change it
    plans = np.full((len(phases), n, n, k_count, 1, len(grid), width, width), -1, dtype=np.int32)
    every = padded(grid)  # (UA, U, P, C, C, K, w, w)
    plans = np.repeat(plans, every.shape[1], axis=4)
    w_in = every.shape[-1]
    plans[..., :w_in, :w_in] = np.moveaxis(every, (0, 1), (5, 4))
    check_who_spent(setup, plans, enemy, names, own_count)
    plans = plans.reshape(*plans.shape[:4], -1, *plans.shape[6:])
    for i, kind in enumerate(kinds):  # states a kind never reaches are never looked up: as its first
        reached = len(states.lists[kind])
        plans[:, :, i, :, :, reached:] = plans[:, :, i, :, :, :1]
        plans[:, i, :, :, :, :, reached:] = plans[:, i, :, :, :, :, :1]
    if all((plans[:, :, :, k] == plans[:, :, :, 0]).all() for k in range(k_count)):
        plans = plans[:, :, :, :1].copy()  # earlier attackers change nothing: skip counting them
    attacker_states = width
    if (plans == plans[..., :1]).all():
        plans, attacker_states = plans[..., :1].copy(), 1  # the attacker's state changes no attack
    plans = np.ascontiguousarray(plans.reshape(*plans.shape[:5], -1))
    steps = plans[base_count:].reshape(-1, 2, *plans.shape[1:]) if len(phases) > base_count else None
    plans = plans[:base_count]
    round_end = states.round_end_table()
    draws = states.round_draws()  # MF-DROWN-2/3: ends of rounds that roll dice, per round
    extra = len(rounds.firsts) - 2
    first = base_count - extra - 1
    if extra:  # a variant per set of tactics that apply (RoundVariants): round 1's plans among them
        variants = np.ascontiguousarray(np.concatenate([plans[:1], plans[first:]]))
        plan_round = np.array(rounds.variant, dtype=np.int64)
        return AttackTables(
            np.ascontiguousarray(plans[: first + 1]), compiler.dists, True, attacker_states, round_end,
            variants, plan_round, back_spent=len(groups), round_draws=draws, states=states, own_count=own_count,
        )  # fmt: skip
    routine = (np.array(lengths, dtype=np.int64), None if steps is None else np.ascontiguousarray(steps))
    if (plans[first] == plans[0]).all():
        plans, first_round = np.ascontiguousarray(plans[:first]), False
    else:
        first_round = True
    return AttackTables(
        plans,
        compiler.dists,
        first_round,
        attacker_states,
        round_end,
        None,
        None,
        *routine,
        len(groups),
        draws,
        states,
        own_count,
    )


@dataclass
class _Cells:
    """The cells of one layer of the tables (one count of deflections spent), compiled by kinds."""

    compiler: _Compiler
    phases: list[Phase]
    names: list[str]
    kinds: list[str]
    enemy: npt.NDArray[np.bool_]
    k_count: int
    done: dict[tuple[Any, ...], tuple[int, bool]]  # compiled cells: (table, spends deflections)

    def spent_layers(
        self, back: int, reachable: npt.NDArray[np.bool_] | None, own: int = 0,
        plain: list[npt.NDArray[np.int32]] | None = None,
    ) -> list[npt.NDArray[np.int32]]:  # fmt: skip
        """The layers per deflections the target spent this round (while some attack spends more), with
        `back` spent by the attacker and `own` of its other foes among its own attackers (J; `plain`: the
        layers with none, whose tables stand where no blow back can follow)."""
        layers: list[npt.NDArray[np.int32]] = []  # per deflections spent: (P, C, C, K, W, W)
        compiler = self.compiler
        for spent in range(MAX_DEFLECTIONS + 1):
            compiler.spends = False
            flat = None if plain is None else plain[min(spent, len(plain) - 1)]
            layers.append(self.layer(spent, layers[0] if layers else None, reachable, (back, own), flat))
            if not compiler.spends:
                return layers  # nothing more to spend: the tables stop counting deflections here
        raise Unsupported(f"shield deflections spent more than {MAX_DEFLECTIONS} times a round (DAC-DEFL-3)")

    def layer(
        self, spent: int, base: npt.NDArray[np.int32] | None, reachable: npt.NDArray[np.bool_] | None,
        back: tuple[int, int] = (0, 0), plain: npt.NDArray[np.int32] | None = None,
    ) -> npt.NDArray[np.int32]:  # fmt: skip
        """The tables with `spent` deflections used by the target this round: (P, C, C, K, W, W). With
        nobody attacking the target yet nothing is spent: those cells are `base`'s (none spent)."""
        names, kinds, enemy, n = self.names, self.kinds, self.enemy, len(self.names)
        lists = self.compiler.states.lists
        width = self.compiler.states.widest()
        layer = np.full((len(self.phases), n, n, self.k_count, width, width), -1, dtype=np.int32)
        for t in range(n):
            foes = [names[i] for i in range(n) if enemy[i, t]]
            for a in (a for a in range(n) if enemy[a, t]):
                # states found while this layer is made are compiled in the next pass (attack_tables)
                for w in range(min(width, len(lists[kinds[t]]))):
                    for v in range(min(width, len(lists[kinds[a]]))):
                        for phase in range(len(self.phases)):
                            for k in range(self.k_count):
                                cell = (phase, a, t, k, w, v)
                                layer[cell] = self._cell(
                                    layer, cell, foes, (spent, *back), base, reachable, plain
                                )
        return layer

    def _cell(
        self, layer: npt.NDArray[np.int32], cell: tuple[int, int, int, int, int, int], foes: list[str],
        spending: tuple[int, int, int], base: npt.NDArray[np.int32] | None,
        reachable: npt.NDArray[np.bool_] | None, plain: npt.NDArray[np.int32] | None = None,
    ) -> int:  # fmt: skip
        """One cell (phase, attacker, target, earlier attackers, target's state, attacker's state), with
        `spending` deflections spent by the target and the attacker, and J (the attacker's own attackers)."""
        names, kinds = self.names, self.kinds
        spent, back, own = spending
        phase, a, t, k, w, v = cell
        if plain is not None:  # J: as with none where it has no more other foes, or no blow back can follow
            own = min(own, len(blow_backs.own_foes(self.compiler.setup, names[a], names[t])))
            inside = w < plain.shape[-2] and v < plain.shape[-1]
            if (
                not own
                or (inside and plain[cell] < 0)
                or (inside and not _hits_back(self.compiler.dists[int(plain[cell])]))
            ):
                return int(plain[cell]) if inside else -1
        round_no, caught, step, moved = self.phases[phase]
        wear = (w, v)
        earlier = tuple(f for f in foes if f != names[a])[:k]
        primary = None
        if step:  # a later attack of a routine (sim/routine_steps.py)
            others = [i for i in np.flatnonzero(self.enemy[a]).tolist() if i != t]
            if step >= self.compiler.lengths.get(names[a], 1) or (moved and not others):
                return -1  # never looked up: no such step, or no other target to have moved on from
            primary = others[0] if moved else None
        if spent and not k and not (step and not moved):  # a routine's own attacks may have spent some
            earlier = (names[a],)  # the attacker first among them: spent on its own blow back (MF-FUMBLE-2)
        elif len(earlier) < k:  # fewer foes than k: as with k - 1
            return int(layer[phase, a, t, k - 1, w, v])
        if caught is not None and reachable is not None and not reachable[int(caught), a, t]:
            return int(layer[0, a, t, k, w, v])  # never in the free round
        named = scripted_target(self.compiler.setup, a)
        down = (names[named],) if named is not None and named != t else ()
        kind = (kinds[a], kinds[t], k, round_no, caught, w, v, spent, down, step,
                None if primary is None else kinds[primary], back, own)  # fmt: skip
        compiler = self.compiler
        if kind not in self.done:
            lists = compiler.states.lists
            marks = (lists[kinds[t]][w], lists[kinds[a]][v])
            where = Situation(names[a], names[t], earlier, caught, spent, marks, round_no, down, step,
                              None if primary is None else names[primary], back, own)  # fmt: skip
            spends, compiler.spends = compiler.spends, False
            self.done[kind] = (compiler.compile(where, (kinds[a], kinds[t]), wear), compiler.spends)
            compiler.spends = spends
        table, spends = self.done[kind]
        compiler.spends = compiler.spends or spends
        return table
