"""Compiling an encounter into the tables the kernels play from (:class:`Compiled`).

Each table comes from a procedure in ``rules/`` (:mod:`referee.sim.procedures`) or from the engine's own
resolution of an attack (:mod:`referee.sim.attacks`); the kernels only look things up, sample, sort
and add. The free round of surprise is a table of who is surprised (:mod:`referee.sim.surprise`)
and attacks compiled in the free round. Combatants' states — armour damaged by criticals, conditions
that come and go, starting ones that end — are the states of :mod:`referee.sim.states`, moved by the
engine's own events; an end of round that rolls dice (drowning) is drawn per round
(:mod:`referee.sim.round_ends`), segment delays per state (:mod:`referee.sim.delays`). Encounters the
tables cannot express (positions, holds, hooks that act or roll dice at the start of a round other than
segment delays, a blow back that meets the attacker's own attackers, :mod:`referee.sim.blow_backs`, ...)
raise :class:`Unsupported`, and the event engine plays them instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial

import numpy as np
import numpy.typing as npt

from referee import chance
from referee.dice import DiceSource
from referee.engine import fight as fight_module
from referee.engine import outcomes
from referee.files import Setup
from referee.rules import hit_points
from referee.rules.options import FinishFallen
from referee.sim import delays, first_strike, procedures
from referee.sim.attacks import OUTCOME_FIELDS, attack_tables
from referee.sim.rounds import scripted_target
from referee.sim.states import CARRIED_START_HOOKS
from referee.sim.surprise import FreeRound, free_round_tables
from referee.sim.tables import IntArray, Packed, SimOutcome, Unsupported, offsets, to_table


@dataclass(frozen=True)
class Compiled:
    """The lookup tables the kernels play from. Index order = the encounter file's order."""

    names: tuple[str, ...]
    sides: tuple[str, ...]
    side_of: IntArray  # (C,)
    enemy: npt.NDArray[np.bool_]  # (C, C)
    group_initiative: bool
    unit_of: IntArray  # (C,): each combatant's initiative unit (itself, or its side under ODD-INIT-4)
    init: Packed  # key-rank tables (higher acts first, equal keys act together)
    init_index: IntArray  # (variant, unit) → table in `init`
    init_round: IntArray  # (max_rounds + 1,) → variant of that round
    hp: Packed  # hit points at set-up, one table per combatant
    # (C, C, K, U, W): in the rounds after the first (and round 1 unless first_plan_index says otherwise),
    # outcome table of (attacker, target, earlier attackers on the target this round: the attacker's place
    # among the target's distinct attackers, or their count,
    # deflections it spent this round (and the attacker: see back_spent), its state and the attacker's:
    # see attacker_states), or -1 (waits)
    plan_index: npt.NDArray[np.int32]
    dmg: Packed
    status_values: npt.NDArray[np.int8]  # code per hit-point total, per combatant
    # status of combatant i with h hit points and s subdual: status_values[status_base[i] + h * S_i +
    # min(s, S_i - 1)], S_i = sub_size[i] (1 where no subdual damage is dealt, GAP-SUBDUAL)
    status_base: IntArray
    status_names: tuple[str, ...]  # code → status; code 0 is "active"
    target_key: npt.NDArray[np.int64]  # the tactics' preference, laid out as status_values (lowest chosen)
    may_act: npt.NDArray[np.bool_]  # (status code, struck down in its own slot) → acts (ODD-INIT-3)
    end_code: IntArray  # (round, bitmask of sides standing) → -1 goes on, else procedures.end_table's verdict
    max_rounds: int
    exact: bool
    may_wait: bool  # some combatant cannot attack some enemy (the tactics wait)
    side_rows: tuple[tuple[int, int], ...]  # each side's combatants are rows lo..hi-1 (file order)
    # each outcome: damage to the target, damage to the attacker, attacks back, deflections the target and
    # the attacker spent (DAC-DEFL-3), the target's state after it (-1: unchanged; HR-ARMDMG-1..4, conditions)
    out_target: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(1, np.int32))
    out_attacker: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(1, np.int32))
    out_back: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(1, np.int32))
    out_spent: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(1, np.int32))
    out_spent_back: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(1, np.int32))
    out_wear: npt.NDArray[np.int32] = field(default_factory=lambda: np.full(1, -1, np.int32))
    out_subdual: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(1, np.int32))
    out_subdual_back: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(1, np.int32))
    sub_size: IntArray = field(default_factory=lambda: np.ones(1, np.int64))
    # the attacker's state after the outcome (-1: unchanged): a condition on it, its armour struck back
    out_wear_back: npt.NDArray[np.int32] = field(default_factory=lambda: np.full(1, -1, np.int32))
    # the last axis of the plans is (target's state) * attacker_states + (attacker's state); 1: the
    # attacker's state changes no attack, and the axis is the target's state alone
    attacker_states: int = 1
    # (C, W): each combatant's state after the end of a round (its conditions that end with it), or None
    round_end: npt.NDArray[np.int32] | None = None
    # (C,): the enemy a combatant's tactic names as its target (attacked while it stands), -1: none
    scripted_target: IntArray | None = None
    # (V, C, C, K, U, W) and (max_rounds + 1,): each variant's plans and the variant of each round, where
    # tactics apply in some rounds only (`rounds: [1, 3, 5]`), else None: round 1's plans and the later
    # rounds' (first_plan_index, plan_index)
    round_plans: npt.NDArray[np.int32] | None = None
    plan_round: IntArray | None = None
    # 1: a knock-out blow (MF-KO-1): a target it brings to 0 or below is left at 0 with knockout_code[t]
    out_knockout: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(1, np.int32))
    knockout_code: npt.NDArray[np.int8] = field(default_factory=lambda: np.zeros(1, np.int8))
    hits_back: bool = False
    first_strike: npt.NDArray[np.bool_] | None = None  # (C, C): a moves before enemy b in round 1
    free_round: FreeRound | None = None  # the surprise table (ODD-SURP-1..5), or None: no free round
    # (target surprised 0/1, C, C, K, U, W): the free round's plans, laid out as plan_index
    free_plan_index: npt.NDArray[np.int32] | None = None
    # round 1's plans where they differ from the later rounds' (a scripted first action), else None
    first_plan_index: npt.NDArray[np.int32] | None = None
    # ODD-ATK-3 (sim/routine_steps.py): per combatant the attacks of its action (1: one), and the later
    # attacks' plans (step - 1, moved on to another target 0/1, C, C, K, U, W), or None: no routines
    routine_len: IntArray = field(default_factory=lambda: np.ones(1, np.int64))
    step_plans: npt.NDArray[np.int32] | None = None
    # the deflections the attacker spent this round, counted where a blow back meets them (MF-FUMBLE-2,
    # DAC-DEFL-3): the plans' deflection axis is (the target's count) * back_spent + (the attacker's)
    back_spent: int = 1
    # J (sim/blow_backs.py, MF-FUMBLE-2 with ODD-AC-SHIELD): where a blow back reads the attacker's own
    # attackers, that deflection axis times own_count plus the target's place among them (or their count)
    own_count: int = 1
    # MF-DROWN-2/3: ends of rounds that roll dice, per round: (max_rounds + 1, C, W, standing 0/1) → a
    # table of `end_table` of outcome codes, each the state it leaves (`end_state`) and the status code
    # (`end_status`, -1: unchanged); None: the ends of rounds are `round_end`'s (no dice)
    end_draw: npt.NDArray[np.int32] | None = None
    # GAP-SEGMENTS: (variant, unit = combatant, its state) → table in `init` where segment delays act
    # (a combatant's conditions delay it), else None (`init_index` alone)
    init_state: IntArray | None = None
    end_table: Packed = field(default_factory=lambda: Packed.of([]))
    end_state: npt.NDArray[np.int32] = field(default_factory=lambda: np.zeros(1, np.int32))
    end_status: npt.NDArray[np.int32] = field(default_factory=lambda: np.full(1, -1, np.int32))

    @property
    def first_round(self) -> npt.NDArray[np.bool_] | None:
        """The older name of :attr:`first_strike`."""
        return self.first_strike

    @property
    def count(self) -> int:
        return len(self.names)

    @property
    def units(self) -> int:
        return int(self.init_index.shape[1])

    # the flat arrays of the hit-point and outcome tables, by their older names
    @property
    def hp_values(self) -> npt.NDArray[np.int32]:
        return self.hp.values

    @property
    def hp_off(self) -> IntArray:
        return self.hp.off

    @property
    def hp_size(self) -> IntArray:
        return self.hp.size

    @property
    def dmg_values(self) -> npt.NDArray[np.int32]:
        return self.dmg.values

    @property
    def dmg_off(self) -> IntArray:
        return self.dmg.off

    @property
    def dmg_size(self) -> IntArray:
        return self.dmg.size


def check_supported(setup: Setup) -> None:
    """Raise Unsupported naming the first feature of the encounter the vectorised path cannot play."""
    if setup.ruleset.finish_fallen is not FinishFallen.OFF:
        # the tables hold standing targets and end the fight with one side standing (rules/targeting.py)
        raise Unsupported(
            f"option finish_fallen = {setup.ruleset.finish_fallen} (foes strike the fallen, HR-HELPLESS-1)"
        )
    for c in setup.combatants:
        if c.position is not None:
            raise Unsupported("grid positions (movement and distance change during the fight)")
    state = outcomes.probe_state(setup)
    # the ends of rounds are the states' (sim/states.py): carried per round where they roll dice
    for round_hook in (h for h in fight_module.START_OF_ROUND if h not in CARRIED_START_HOOKS):
        if _rolls_dice(partial(round_hook, state)):
            raise Unsupported(f"a round hook rolls dice ({round_hook.__name__})")
        if round_hook(state, chance.PrefixDice([])):
            raise Unsupported(f"a round hook acts in this encounter ({round_hook.__name__})")


def _rolls_dice(step: Callable[[DiceSource], object]) -> bool:
    """Whether a step asks for any die on some way through it."""
    try:
        return bool(chance.dice_requests(step, limit=1000))
    except chance.TooManyOutcomes:
        return True


def _side_rows(side_of: IntArray) -> tuple[tuple[int, int], ...]:
    """Row ranges per side, in the sides' order (the file lists each side's combatants together)."""
    rows: list[tuple[int, int]] = []
    for s in range(int(side_of.max()) + 1):
        where = np.flatnonzero(side_of == s)
        if where.size == 0 or where[-1] - where[0] + 1 != where.size or (rows and where[0] < rows[-1][1]):
            raise Unsupported("a side's combatants are not listed together, in the order of the sides")
        rows.append((int(where[0]), int(where[-1]) + 1))
    return tuple(rows)


def _status_tables(
    setup: Setup,
    hp_tables: Packed,
    plan_index: npt.NDArray[np.int32],
    dists: list[dict[SimOutcome, Fraction]],
) -> tuple[list[int], list[list[str]], list[int]]:
    """Per combatant the lowest hit-point total tabulated, the status at each total (and subdual total)
    from there, and how many subdual totals are tabulated (1: it takes no subdual damage)."""
    n = len(setup.combatants)
    max_damage = np.zeros(n, dtype=np.int64)  # the most one attack can take off each combatant
    subdued = np.zeros(n, dtype=np.bool_)
    for a in range(n):
        for t in range(n):
            for pid in set(plan_index[:, a, t].ravel().tolist()) - {-1}:
                max_damage[t] = max(max_damage[t], max(o[0] for o in dists[pid]))
                max_damage[a] = max(max_damage[a], max(o[1] for o in dists[pid]))
                subdued[t] |= any(o[6] for o in dists[pid])
                subdued[a] |= any(o[7] for o in dists[pid])
    lows, statuses, sizes = [], [], []
    for i, c in enumerate(setup.combatants):
        values = hp_tables.table(i)
        # subdual totals up to the most hit points it can have: more knocks it out all the same
        size = int(values.max()) + 1 if subdued[i] else 1
        low, row = procedures.status_range(
            setup, c, int(values.min()), int(values.max()), int(max_damage[i]), size
        )
        lows.append(low)
        statuses.append(row)
        sizes.append(size)
    return lows, statuses, sizes


def _first_strike(setup: Setup) -> npt.NDArray[np.bool_] | None:
    """ODD-INIT-5/6: who moves before whom in round 1, checked against the rule on random orders."""
    pairs = first_strike.moves_before(setup)
    if pairs is not None:
        first_strike.check_moves(setup, pairs)
    return pairs


def _knockout_codes(setup: Setup, status_names: list[str]) -> npt.NDArray[np.int8]:
    """MF-KO-1: per combatant the status code a knock-out blow that brings it to 0 leaves it with
    (`hit_points.status_after_damage` with the knock-out), added to the status names if new."""
    out = []
    for c in setup.combatants:
        status = hit_points.status_after_damage(0, 0, c.is_monster, setup.ruleset, True)
        if status not in status_names:
            status_names.append(status)
        out.append(status_names.index(status))
    return np.array(out, dtype=np.int8)


def _scripted_targets(setup: Setup) -> IntArray | None:
    """Per combatant the enemy its tactic names as its target (-1: none), or None: nobody names one."""
    found = [scripted_target(setup, a) for a in range(len(setup.combatants))]
    if all(t is None for t in found):
        return None
    return np.array([-1 if t is None else t for t in found], dtype=np.int64)


def compile_setup(setup: Setup) -> Compiled:
    """Build the kernels' tables from the rules' procedures and the engine's attacks. Raises Unsupported."""
    check_supported(setup)
    combatants = setup.combatants
    sides = setup.sides
    side_of = np.array([sides.index(c.side) for c in combatants], dtype=np.int64)
    side_rows = _side_rows(side_of)
    enemy = side_of[:, None] != side_of[None, :]
    hp = Packed.of([to_table(procedures.hit_point_distribution(c)) for c in combatants])
    unit_of, group, init, init_index, init_round = procedures.initiative_tables(setup)
    free = free_round_tables(setup)
    if free is not None and len(combatants) > 62:
        raise Unsupported("surprise with more than 62 combatants")
    tables = attack_tables(setup, enemy, free.reachable() if free is not None else None)
    delayed = (
        None if tables.states is None else delays.initiative_by_state(setup, tables.states, init_round, group)
    )
    if delayed is not None:  # GAP-SEGMENTS: each key drawn per state (its conditions' delays)
        init = delayed[0]
    plans, dists = tables.plans, tables.dists
    plan_index = tables.later
    outcome_code: dict[SimOutcome, int] = {}
    for dist in dists:
        for o in dist:
            outcome_code.setdefault(o, len(outcome_code))
    dmg = Packed.of([to_table({outcome_code[o]: p for o, p in dist.items()}) for dist in dists])
    table_of = np.array(list(outcome_code), dtype=np.int32).reshape(-1, OUTCOME_FIELDS)
    every = plans if tables.step_plans is None else np.concatenate([plans, _as_phases(tables.step_plans)])
    lows, statuses, sub_size = _status_tables(setup, hp, every, dists)
    status_names = list(dict.fromkeys([hit_points.ACTIVE, *(s for row in statuses for s in row)]))
    knockout_code = _knockout_codes(setup, status_names)  # may add a status (before the tables of them)
    draws = tables.round_draws
    end_status = [] if draws is None else [_status_code(status_names, s) for s in draws.status]
    procedures.check_target_choice([c.name for c in combatants], lows, statuses, sub_size)
    status_values = np.array([status_names.index(s) for row in statuses for s in row], dtype=np.int8)
    return Compiled(
        names=tuple(c.name for c in combatants),
        sides=sides,
        side_of=side_of,
        enemy=enemy,
        group_initiative=group,
        unit_of=unit_of,
        init=init,
        init_index=init_index,
        init_round=init_round,
        hp=hp,
        plan_index=plan_index,
        dmg=dmg,
        status_values=status_values,
        status_base=offsets([len(row) for row in statuses]) - np.array(lows, dtype=np.int64) * sub_size,
        status_names=tuple(status_names),
        target_key=procedures.target_keys(lows, statuses, sub_size),
        may_act=procedures.may_act_table(status_names),
        end_code=procedures.end_table(sides, setup.max_rounds, free is not None),
        max_rounds=setup.max_rounds,
        exact=hp.exact and dmg.exact and init.exact and (draws is None or draws.table.exact),
        may_wait=bool((plans[:, enemy] < 0).any()),
        side_rows=side_rows,
        first_strike=_first_strike(setup),
        out_target=np.ascontiguousarray(table_of[:, 0]),
        out_attacker=np.ascontiguousarray(table_of[:, 1]),
        out_back=np.ascontiguousarray(table_of[:, 2]),
        out_spent=np.ascontiguousarray(table_of[:, 3]),
        out_spent_back=np.ascontiguousarray(table_of[:, 4]),
        out_wear=np.ascontiguousarray(table_of[:, 5]),
        out_subdual=np.ascontiguousarray(table_of[:, 6]),
        out_subdual_back=np.ascontiguousarray(table_of[:, 7]),
        out_wear_back=np.ascontiguousarray(table_of[:, 8]),
        out_knockout=np.ascontiguousarray(table_of[:, 9]),
        knockout_code=knockout_code,
        attacker_states=tables.attacker_states,
        round_end=tables.round_end,
        scripted_target=_scripted_targets(setup),
        round_plans=tables.round_plans,
        plan_round=tables.plan_round,
        sub_size=np.array(sub_size, dtype=np.int64),
        hits_back=bool(table_of[:, 1:3].any() or table_of[:, 7].any()),
        free_round=free,
        free_plan_index=tables.free,
        first_plan_index=tables.first,
        routine_len=tables.routine_len
        if tables.routine_len is not None
        else np.ones(len(combatants), np.int64),
        step_plans=tables.step_plans,
        back_spent=tables.back_spent,
        own_count=tables.own_count,
        end_draw=None if draws is None else draws.index,
        init_state=None if delayed is None else delayed[1],
        end_table=Packed.of([]) if draws is None else draws.table,
        end_state=np.zeros(1, np.int32) if draws is None else draws.next_state,
        end_status=np.array(end_status or [-1], dtype=np.int32),
    )


def _status_code(status_names: list[str], status: str | None) -> int:
    """The code of a status an end of round leaves (MF-DROWN-3: dead), added if new; -1: unchanged."""
    if status is None:
        return -1
    if status not in status_names:
        status_names.append(status)
    return status_names.index(status)


def _as_phases(steps: npt.NDArray[np.int32]) -> npt.NDArray[np.int32]:
    """A routine's later steps' plans (S, 2, C, C, ...) as phases of the plans (S * 2, C, C, ...)."""
    return steps.reshape(-1, *steps.shape[2:])
