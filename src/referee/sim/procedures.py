"""Tables compiled from the procedures in ``rules/``: the kernels read these and hold no rule.

- hit points at set-up: :func:`hit_points.roll_hit_points` (ODD-HD-1, ODD-HD-2), enumerated;
- initiative: each unit's sort key from :func:`initiative.roll_unit` (ODD-INIT-1..4), per round,
  ranked to integers that compare as the keys do (round 1's first strike, ODD-INIT-5/6:
  :mod:`referee.sim.first_strike`);
- defeat: :func:`hit_points.status_after_damage` per reachable hit-point total (ODD-HP-1, GAP-HP-ZERO);
- the default target: :func:`targeting.target_priority` per (combatant, hit points), ranked;
- who may act in its slot: :func:`turns.next_actor` per (status, struck down in its own slot) (ODD-INIT-3);
- the end of the fight: :func:`turns.fight_end` per (round, sides standing) (ODD-ROUND-4).

Every rule is called through its module (``initiative.roll_unit``), so a house rule that replaces
it reaches the simulator; whatever a table cannot carry raises :class:`Unsupported`.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from fractions import Fraction
from functools import partial

import numpy as np
import numpy.typing as npt

from referee import chance
from referee.budget import OverBudget, check_sum_convolution
from referee.dice import DiceSource, parse_dice
from referee.files import Setup
from referee.model import Combatant
from referee.rules import hit_points, initiative, targeting, turns
from referee.sim.tables import (
    IntArray,
    Packed,
    Unsupported,
    exact,
    faces_for_total,
    ranks,
    sum_distribution,
    to_table,
)

SUBSET_LIMIT = 6  # sides up to this size: group keys are checked for every subset of standing members
MAX_SIDES = 12  # the end-of-fight table has 2**sides columns
NOBODY = np.int64(1) << 62  # target key of a combatant nobody may choose (not standing)


# --- hit points ------------------------------------------------------------------------------------


def hit_point_distribution(c: Combatant) -> dict[int, Fraction]:
    """ODD-HD-1, ODD-HD-2: :func:`hit_points.roll_hit_points` over every die it can ask for; hit dice
    too many to walk are summed by convolution (each total then asked of the same procedure)."""
    try:
        return exact(lambda dice: hit_points.roll_hit_points(c, dice), what=f"{c.name}'s hit points")
    except Unsupported:
        pass
    linear = parse_dice(c.hp_dice or "0").linear()
    if linear is None or any(g.keep or g.count < 0 for g in linear[0]):
        raise Unsupported(f"{c.name}'s hit dice {c.hp_dice} are too many to enumerate") from None
    groups = [(g.count, g.sides) for g in linear[0]]
    try:
        check_sum_convolution(groups, f"{c.name}'s hit dice {c.hp_dice}")  # measured before the work
    except OverBudget as exc:
        raise Unsupported(str(exc)) from None
    out: dict[int, Fraction] = {}
    for total, p in sum_distribution(groups, linear[1]).items():
        faces = faces_for_total(groups, total - linear[1])
        value = hit_points.roll_hit_points(c, chance.PrefixDice(faces))
        out[value] = out.get(value, Fraction(0)) + p
    return out


# --- initiative ------------------------------------------------------------------------------------


def _key_distribution(
    setup: Setup, unit: str, members: Sequence[Combatant], number: int
) -> dict[Hashable, Fraction]:
    """The distribution of one unit's sort key in round `number`, from the rule's own roll."""

    def key(dice: DiceSource) -> tuple[tuple[int, ...], bool]:
        rolled = initiative.roll_unit(setup.ruleset, unit, members, number, dice)
        return tuple(rolled.key), bool(rolled.delays)

    dist = exact(key, what=f"initiative of {unit}")
    if any(delayed for _, delayed in dist):
        raise Unsupported(f"initiative delays ({unit}: segment delays act during the round)")
    return {k: p for (k, _), p in dist.items()}


def _member_sets(members: list[Combatant]) -> list[list[Combatant]]:
    """The sets of standing members a side's roll may see: every subset of small sides, else the whole
    side, each member alone and each member missing."""
    if len(members) <= SUBSET_LIMIT:
        return [list(s) for r in range(1, len(members) + 1) for s in itertools.combinations(members, r)]
    alone = [[m] for m in members]
    missing = [[m for m in members if m is not gone] for gone in members]
    return [members, *alone, *missing]


def initiative_tables(setup: Setup) -> tuple[IntArray, bool, Packed, IntArray, IntArray]:
    """Per combatant its unit (itself, or its side under ODD-INIT-4); per round and unit a table of key
    ranks (higher acts first, equal keys act together). Returns (unit_of, group, tables,
    table index (variant, unit), variant of each round)."""
    rs = setup.ruleset
    everyone = list(setup.combatants)
    units = initiative.initiative_units(rs, everyone, setup.sides)
    members = initiative.members_of_units(rs, everyone, setup.sides)
    by_name = {c.name: c for c in everyone}
    group = units != [c.name for c in everyone]
    if group and units != list(setup.sides):
        raise Unsupported("initiative units that are neither the combatants nor the sides")
    unit_of = np.array(
        [next(i for i, u in enumerate(units) if c.name in members[u]) for c in everyone], dtype=np.int64
    )
    team = {u: [by_name[n] for n in members[u]] for u in units}
    for u in units if group else []:  # a side's key must not depend on which of its members stand
        for number in (1, 2):
            whole = _key_distribution(setup, u, team[u], number)
            if any(_key_distribution(setup, u, some, number) != whole for some in _member_sets(team[u])):
                raise Unsupported(f"{u}'s group initiative depends on which of its members stand")
    per_round = [
        tuple(tuple(sorted(_key_distribution(setup, u, team[u], r).items())) for u in units)
        for r in range(1, setup.max_rounds + 1)
    ]
    variants = list(dict.fromkeys(per_round))
    rank = ranks([k for variant in variants for unit in variant for k, _ in unit])
    tables = [to_table({rank[k]: p for k, p in unit}) for variant in variants for unit in variant]
    index = np.arange(len(tables), dtype=np.int64).reshape(len(variants), len(units))
    round_variant = np.array([0, *(variants.index(v) for v in per_round)], dtype=np.int64)
    return unit_of, group, Packed.of(tables), index, round_variant


# --- defeat, target choice, turns, the end ---------------------------------------------------------


def status_range(
    setup: Setup, c: Combatant, hp_low: int, hp_high: int, max_damage: int, subdual: int = 1
) -> tuple[int, list[str]]:
    """`status_after_damage` for every hit-point total the fight can reach (two blows below the lowest),
    and with `subdual` > 1 for every subdual total 0 .. subdual - 1 at each (GAP-SUBDUAL; the last stands
    for every total above it: hit points never rise in these fights), hit points major, subdual minor."""
    # Hit points before a blow are at least 1 (only standing combatants are chosen as targets); a
    # combatant struck down in its own slot still acts (ODD-INIT-3) and may be struck back once more.
    low = min(hp_low, 1) - 2 * max_damage
    statuses = [
        hit_points.status_after_damage(hp, s, c.is_monster, setup.ruleset)
        for hp in range(low, hp_high + 1)
        for s in range(subdual)
    ]
    return low, statuses


def target_keys(
    lows: list[int], statuses: list[list[str]], subdual: Sequence[int] | None = None
) -> npt.NDArray[np.int64]:
    """Per combatant, hit-point total and subdual total (the status table's layout), the default tactics'
    preference as a number, lowest chosen (:func:`targeting.target_priority`; equal numbers go to the
    first in the file): rank << 8 | file index while standing, else NOBODY."""
    if len(lows) > 255:
        raise Unsupported("more than 255 combatants")
    sizes = list(subdual) if subdual is not None else [1] * len(lows)
    owner = [i for i, row in enumerate(statuses) for _ in row]
    keys = [
        targeting.target_priority(lows[i] + h // sizes[i], h % sizes[i], i)
        for i, row in enumerate(statuses)
        for h in range(len(row))
    ]
    rank = ranks(list(keys))
    out = np.array([(rank[k] << 8) | i for i, k in zip(owner, keys, strict=True)], dtype=np.int64)
    standing = np.array([s == hit_points.ACTIVE for row in statuses for s in row])
    out[~standing] = NOBODY
    return out


def check_target_choice(
    names: Sequence[str], lows: list[int], statuses: list[list[str]], subdual: Sequence[int] | None = None
) -> None:
    """The kernels choose the lowest :func:`target_priority`; refuse if :func:`targeting.choose_target`
    chooses otherwise among some standing candidates (a house rule written there instead)."""
    sizes = list(subdual) if subdual is not None else [1] * len(lows)
    highs = [low + len(row) // size - 1 for low, row, size in zip(lows, statuses, sizes, strict=True)]
    for spread in range(4):  # everyone at 1, at their most, and two mixtures
        hp = [1 + ((i + spread) % 2) * (high - 1) if spread >= 2 else (1 if spread == 0 else high)
              for i, high in enumerate(highs)]  # fmt: skip
        candidates = [(name, max(1, h), 0, i) for i, (name, h) in enumerate(zip(names, hp, strict=True))]
        lowest = min(candidates, key=lambda c: targeting.target_priority(c[1], c[2], c[3]))[0]
        if targeting.choose_target(candidates) != lowest:
            raise Unsupported("the default target choice is not the lowest target_priority")


def may_act_table(status_names: Sequence[str]) -> npt.NDArray[np.bool_]:
    """ODD-INIT-3 from :func:`turns.next_actor`: whether a combatant whose slot has come acts, per
    (status code, struck down since its slot began)."""
    out = np.zeros((len(status_names), 2), dtype=np.bool_)
    for code, status in enumerate(status_names):
        for down_in_slot in (0, 1):
            acting_down = {"x"} if down_in_slot else set()
            ready = partial(_is_ready, status)
            chosen = turns.next_actor([["x"]], (), 0, acting_down, ready)
            out[code, down_in_slot] = chosen == "x"
    return out


def _is_ready(status: str, name: str) -> bool:
    return status == hit_points.ACTIVE


def end_table(sides: Sequence[str], max_rounds: int, free_round: bool = False) -> IntArray:
    """:func:`turns.fight_end` at the end of each round, per bitmask of the sides standing: -1 goes on,
    s < S is side s's win, S: nobody wins with no side left, S + 1: nobody wins with sides left.
    Row 0 is the free round of surprise (ODD-SURP-4), when there may be one."""
    count = len(sides)
    if count > MAX_SIDES:
        raise Unsupported(f"more than {MAX_SIDES} sides")
    table = np.full((max_rounds + 1, 1 << count), -1, dtype=np.int64)
    for number in range(0 if free_round else 1, max_rounds + 1):
        for mask in range(1 << count):
            standing = [s for i, s in enumerate(sides) if mask >> i & 1]
            end = turns.fight_end(standing, number, max_rounds, True)
            during = turns.fight_end(standing, number, max_rounds, False)
            if during is not None and (len(standing) > 1 or during != end):
                raise Unsupported("the fight can end in the middle of a round with sides still fighting")
            if end is None:
                if number == max_rounds:
                    raise Unsupported("the fight can go on past its round limit")
                continue
            if end.winner is not None:
                table[number, mask] = list(sides).index(end.winner)
            else:
                table[number, mask] = count if not standing else count + 1
    return table
