"""The fast path for pure sums: the exact distribution of a dice expression, from icepool.

Only the sum of a plain damage expression is computed here; every procedure around the dice (the attack
roll, confirmations, hit points, initiative) is enumerated from the engine's own code through
:func:`referee.chance.distribution`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from functools import lru_cache
from typing import Any

import icepool

from referee.budget import check_dice_distribution
from referee.dice import DiceGroup, parse_dice
from referee.dice_grammar import d20  # imported on first parse, its grammar tables cached


@lru_cache(maxsize=1024)
def dice_die(text: str) -> icepool.Die[int]:
    """The exact distribution of a dice expression (cached by its text).

    Walks d20's syntax tree as :func:`referee.dice.roll` does: each dice group is ``count @ d(sides)``
    or icepool's keep-highest / keep-lowest; + - * and floor division act on whole distributions.
    """
    check_dice_distribution(text, "exact odds")  # measured before any work (docs/errors.md, "Limits")
    expr = parse_dice(text)
    groups = iter(expr.groups())  # the groups in the tree's left-to-right order
    return _die_of(expr.node, groups)


def sum_of(count: int, die: icepool.Die[int]) -> icepool.Die[int]:
    """`count @ die` by doubling: log2(count) additions and no recursion (icepool's own `@` recurses
    once per die, which overflows Python's stack at about 1000 dice)."""
    total: icepool.Die[int] | None = None
    while count:
        if count & 1:
            total = die if total is None else total + die
        count >>= 1
        if count:
            die = die + die
    return total if total is not None else icepool.Die([0])


def _die_of(node: Any, groups: Iterator[DiceGroup]) -> icepool.Die[int]:
    ast = d20.ast
    if isinstance(node, ast.Literal):
        return icepool.Die([int(node.value)])
    if isinstance(node, ast.Dice | ast.OperatedDice):
        group = next(groups)
        die = icepool.d(group.sides)
        if group.keep > 0:
            return die.highest(group.count, group.keep)
        if group.keep < 0:
            return die.lowest(group.count, -group.keep)
        return sum_of(group.count, die)
    if isinstance(node, ast.Parenthetical | ast.AnnotatedNumber):
        return _die_of(node.value, groups)
    if isinstance(node, ast.UnOp):
        inner = _die_of(node.value, groups)
        return inner if node.op == "+" else -inner
    left = _die_of(node.left, groups)
    right = _die_of(node.right, groups)
    ops: dict[str, Callable[[icepool.Die[int], icepool.Die[int]], icepool.Die[int]]] = {
        "+": lambda a, b: a + b,
        "-": lambda a, b: a - b,
        "*": lambda a, b: a * b,
        "/": lambda a, b: a // b,  # referee.dice divides with floor division too
    }
    return ops[node.op](left, right)


def die_fractions(die: icepool.Die[int]) -> dict[int, Fraction]:
    total = die.denominator()
    return {int(outcome): Fraction(quantity, total) for outcome, quantity in die.items()}
