"""The exact distribution of a plain sum of dice (``2d6+1d4-1``), without icepool.

One attack's damage is usually such a sum; importing icepool for it was a tenth of `referee odds`'s
start. The distribution is the same one :func:`referee.odds.dice.dice_die` gives (its outcomes in
order, each with the same chance: tests/odds/test_sums.py); anything else (keep highest or lowest,
products, subtracted dice) is left to it.
"""

from __future__ import annotations

from fractions import Fraction

from referee.budget import check_dice_distribution
from referee.dice import parse_dice


def plain_sum(text: str) -> dict[int, Fraction] | None:
    """Each total of `text` with its chance, in increasing order, when `text` is a plain sum of dice
    groups and numbers (:meth:`referee.dice.DiceExpr.linear`); None otherwise. Refused past the dice
    budgets, as :func:`referee.odds.dice.dice_die` refuses."""
    check_dice_distribution(text, "exact odds")  # measured before any work (docs/errors.md, "Limits")
    linear = parse_dice(text).linear()
    if linear is None:
        return None
    groups, constant = linear
    ways, total = {constant: 1}, 1
    for group in groups:
        ways = _added(ways, _sum_of(group.count, {face: 1 for face in range(1, group.sides + 1)}))
        total *= group.sides**group.count
    return {value: Fraction(count, total) for value, count in sorted(ways.items())}


def _added(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    """The ways of each total of two independent sums (a convolution)."""
    out: dict[int, int] = {}
    for x, m in a.items():
        for y, n in b.items():
            out[x + y] = out.get(x + y, 0) + m * n
    return out


def _sum_of(count: int, die: dict[int, int]) -> dict[int, int]:
    """`count` dice added, by doubling (as :func:`referee.odds.dice.sum_of`)."""
    total: dict[int, int] = {0: 1}
    while count:
        if count & 1:
            total = _added(total, die)
        count >>= 1
        if count:
            die = _added(die, die)
    return total
