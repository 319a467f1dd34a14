"""Lookup tables the kernels sample from, and the one error a compiled table raises when it cannot carry
a rule (:class:`Unsupported`: the run falls back to the event engine and says why)."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from referee import chance
from referee.dice import DiceSource
from referee.errors import RefereeError

IntArray = npt.NDArray[np.int64]
# What one attack does in the simulator's tables (sim/attacks.py): (damage to target, damage to attacker,
# attacks back, deflections spent by the target, deflections spent by the attacker, the target's state
# after the attack or -1: unchanged, subdual damage to the target and to the attacker, the attacker's
# state after the attack or -1: unchanged, 1 for a knock-out blow: MF-KO-1, one that leaves the target at
# 0 hit points, unconscious, where it would fall below)
SimOutcome = tuple[int, int, int, int, int, int, int, int, int, int]
T = TypeVar("T", bound=Hashable)

LEAF_LIMIT = 20_000  # dice sequences enumerated per attack or hit-point roll before giving up
MAX_EARLIER_ATTACKERS = 3  # attackers already counted on a target (shields cover at most 3, ODD-AC-SHIELD)
TABLE_LIMIT = 1 << 20  # entries of one lookup table; larger exact tables are rounded (see to_table)


class Unsupported(RefereeError):
    """The encounter needs something the vectorised path cannot express; the event engine runs it."""


def exact(
    fn: Callable[[DiceSource], T], limit: int = LEAF_LIMIT, what: str = "this step"
) -> dict[T, Fraction]:
    """:func:`chance.distribution` of a rule's procedure, refused (Unsupported) past `limit` sequences."""
    try:
        return chance.distribution(fn, limit, what)
    except chance.TooManyOutcomes as exc:
        raise Unsupported(str(exc)) from None


def sum_distribution(groups: list[tuple[int, int]], constant: int) -> dict[int, Fraction]:
    """Distribution of a plain sum of dice (count, sides) plus a constant, by convolution."""
    counts = np.ones(1, dtype=object)
    for count, sides in groups:
        for _ in range(count):
            counts = np.convolve(counts, np.ones(sides, dtype=object))
    low = constant + sum(count for count, _ in groups)
    whole = sum(int(c) for c in counts)
    return {low + i: Fraction(int(c), whole) for i, c in enumerate(counts) if c}


def faces_for_total(groups: list[tuple[int, int]], wanted: int) -> list[int]:
    """Faces, in the order the dice are asked, whose sum is `wanted` (each die as high as it can be)."""
    sides = [s for count, s in groups for _ in range(count)]
    faces = []
    for i, s in enumerate(sides):
        rest = len(sides) - i - 1
        face = max(1, min(s, wanted - rest))
        faces.append(face)
        wanted -= face
    return faces


@dataclass(frozen=True)
class Table:
    """A discrete distribution as a table of equally likely values: sample = table[floor(u * size)]."""

    values: npt.NDArray[np.int32]
    exact: bool


def to_table(dist: dict[int, Fraction]) -> Table:
    """Exact when the common denominator fits TABLE_LIMIT; else rounded to TABLE_LIMIT entries
    (largest remainders), an error below one in a million per value."""
    items = sorted(dist.items())
    denominator = math.lcm(*(p.denominator for _, p in items))
    is_exact = denominator <= TABLE_LIMIT
    size = denominator if is_exact else TABLE_LIMIT
    raw = [p * size for _, p in items]
    counts = [math.floor(r) for r in raw]
    short = size - sum(counts)
    for i in sorted(range(len(raw)), key=lambda i: raw[i] - counts[i], reverse=True)[:short]:
        counts[i] += 1
    values = np.repeat(np.array([v for v, _ in items], dtype=np.int32), counts)
    return Table(values, is_exact)


@dataclass(frozen=True)
class Packed:
    """Several tables in one array (what the kernels index): table i is values[off[i] : off[i] + size[i]]."""

    values: npt.NDArray[np.int32]
    off: IntArray
    size: IntArray
    exact: bool

    @classmethod
    def of(cls, tables: list[Table]) -> Packed:
        if not tables:
            return cls(np.zeros(1, np.int32), np.zeros(1, np.int64), np.ones(1, np.int64), True)
        sizes = [t.values.size for t in tables]
        return cls(
            np.concatenate([t.values for t in tables]), offsets(sizes), np.array(sizes, dtype=np.int64),
            all(t.exact for t in tables),
        )  # fmt: skip

    def table(self, i: int) -> npt.NDArray[np.int32]:
        return self.values[int(self.off[i]) : int(self.off[i] + self.size[i])]


def offsets(sizes: list[int]) -> IntArray:
    return np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64) if sizes else np.zeros(1, np.int64)


def ranks(keys: list[Hashable]) -> dict[Hashable, int]:
    """Each distinct sortable key's rank from 1 (the lowest) up: integers that compare as the keys do."""
    return {key: i + 1 for i, key in enumerate(sorted(set(keys)))}  # type: ignore[type-var]
