"""Chance nodes: every random procedure is written once, as a function of a dice source.

A *procedure* is a function ``fn(dice) -> result`` that asks `dice` for each die it needs, in order,
and whose later requests depend only on the faces it was given (as OpenSpiel's chance nodes). Three
drivers run the same procedure:

- **live**: :func:`run` rolls through any :class:`~referee.dice.DiceSource` (seeded, scripted, typed
  in by a person) and records every die;
- **exact**: :func:`distribution` walks every sequence of faces and returns the exact distribution of
  the result (the simulator compiles its tables from it; the exact odds sum over it);
- **sample**: the simulator draws from the compiled distribution, or calls the procedure with
  :class:`~referee.dice.RandomDice`.

:func:`dice_requests` lists the dice a procedure can ask for, in order, with their purposes (what a
step will ask a referee to roll). Nothing here knows a rule.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeVar

from referee.dice import DiceSource, DiceTape, DieRoll
from referee.errors import RefereeError

T = TypeVar("T", bound=Hashable)
R = TypeVar("R")

DEFAULT_LIMIT = 200_000  # dice sequences one exact walk may visit before it is refused
ROLLS_PER_SEQUENCE = 10  # and dice it may roll, per sequence of that budget (1000 hit dice are slow)


class TooManyOutcomes(RefereeError, ValueError):
    """An exact walk would visit more dice sequences than its budget allows (refused, never truncated)."""

    def __init__(self, limit: int, what: str, detail: str = "") -> None:
        self.limit = limit
        super().__init__(detail or f"{what} has more than {limit:,} dice sequences to enumerate")


def run(fn: Callable[[DiceSource], R], source: DiceSource) -> tuple[R, tuple[DieRoll, ...]]:
    """Live: run the procedure with real (seeded, scripted or typed-in) dice; the result and every die."""
    tape = DiceTape(source)
    result = fn(tape)
    return result, tape.take()


class PrefixDice:
    """Replays a prefix of faces, then shows 1 for every further die; remembers each die's sides."""

    __slots__ = ("faces", "prefix", "purposes", "sides")

    def __init__(self, prefix: list[int]) -> None:
        self.prefix = prefix
        self.faces: list[int] = []
        self.sides: list[int] = []
        self.purposes: list[str] = []

    def roll(self, sides: int, purpose: str) -> int:
        index = len(self.faces)
        face = self.prefix[index] if index < len(self.prefix) else 1
        if face > sides:  # only if a procedure's requests do not follow from its earlier faces
            raise RefereeError(f"procedure asked for a d{sides} where it earlier asked for a smaller die")
        self.faces.append(face)
        self.sides.append(sides)
        self.purposes.append(purpose)
        return face


def _next_prefix(source: PrefixDice) -> list[int] | None:
    """The next sequence in the walk: raise the last die that can still go up (None: walk done)."""
    faces, sides = source.faces, source.sides
    while faces and faces[-1] == sides[len(faces) - 1]:
        faces.pop()
    if not faces:
        return None
    return [*faces[:-1], faces[-1] + 1]


def distribution(
    fn: Callable[[DiceSource], T], limit: int = DEFAULT_LIMIT, what: str = "this procedure"
) -> dict[T, Fraction]:
    """Exact: the distribution of `fn`'s result over every sequence of faces it can ask for.

    Each run replays a prefix and shows 1 for every further die; the next run raises the last die
    that can still go up (a depth-first walk of the chance tree without exceptions). Raises
    :class:`TooManyOutcomes` once more than `limit` sequences would be needed.
    """
    counts: dict[T, dict[int, int]] = {}  # result → {sequences' shared denominator: how many}
    prefix: list[int] = []
    rolls = 0
    for _ in range(limit):
        source = PrefixDice(prefix)
        result = fn(source)
        rolls += len(source.faces)
        _check_walk_cost(source, rolls, not prefix, limit, what)
        by_span = counts.setdefault(result, {})
        span = math.prod(source.sides)
        by_span[span] = by_span.get(span, 0) + 1
        following = _next_prefix(source)
        if following is None:
            return {r: sum((Fraction(n, s) for s, n in w.items()), Fraction(0)) for r, w in counts.items()}
        prefix = following
    raise TooManyOutcomes(limit, what)


def _check_walk_cost(source: PrefixDice, rolls: int, first: bool, limit: int, what: str) -> None:
    """Refuse a walk early: the first sequence already shows a lower bound on the sequences (every die
    it asked for branches into its faces), and long sequences are counted by the dice they roll."""
    if first and sum(sides - 1 for sides in source.sides) + 1 > limit:
        raise TooManyOutcomes(limit, what)
    if rolls > ROLLS_PER_SEQUENCE * limit:
        raise TooManyOutcomes(
            limit, what, f"{what} asks for more than {ROLLS_PER_SEQUENCE * limit:,} dice to enumerate"
        )


@dataclass(frozen=True, slots=True)
class DieRequest:
    """A die a procedure asks for: its place in the order, its faces, its purpose, and whether every
    way through the procedure asks for it (`always`) or only some (a damage die after a hit)."""

    index: int
    sides: int
    purpose: str
    always: bool

    def to_dict(self) -> dict[str, object]:
        return {"index": self.index, "sides": self.sides, "purpose": self.purpose, "always": self.always}


def dice_requests(
    fn: Callable[[DiceSource], object], limit: int = 20_000, what: str = "this step"
) -> list[DieRequest]:
    """The dice `fn` can ask for, in order: each (place, sides, purpose) seen on any way through it.

    A die asked for on every way through is `always`; one asked for only after some faces (damage
    after a hit, a confirmation die after a natural 20) is not.
    """
    seen: dict[tuple[int, int, str], int] = {}
    ways = 0
    prefix: list[int] = []
    for _ in range(limit):
        source = PrefixDice(prefix)
        fn(source)
        ways += 1
        for index, (sides, purpose) in enumerate(zip(source.sides, source.purposes, strict=True)):
            key = (index, sides, purpose)
            seen[key] = seen.get(key, 0) + 1
        following = _next_prefix(source)
        if following is None:
            break
        prefix = following
    else:
        raise TooManyOutcomes(limit, what)
    return [
        DieRequest(index, sides, purpose, count == ways)
        for (index, sides, purpose), count in sorted(seen.items())
    ]


def expectation(dist: dict[T, Fraction], value: Callable[[T], float | Fraction]) -> Fraction:
    """The mean of `value` over an exact distribution (kept as a fraction)."""
    return sum((p * Fraction(value(r)) for r, p in dist.items()), Fraction(0))
