"""Cost budgets: work whose size is known before it starts is measured first and refused in one line.

Every input is within its documented limit (docs/errors.md, "Limits"), but limits multiply: a
`1000d6` weapon, `1d1000*1d1000` damage, `1000d1000` hit dice, 200 combatants for 1000 rounds. Each
costly step asks this module first and is refused (:class:`OverBudget`, exit status 2 on the command
line) with the figure and the budget, instead of running for minutes or exhausting memory:

- :func:`check_dice_distribution`: an exact dice distribution (the odds' damage, the simulator's hit
  points), by the pairs of outcomes its convolutions combine and the outcomes it can have;
- :func:`check_fight_turns`: a fight run to its end, by combatants × rounds (turns it may take);
- :func:`check_sum_convolution`: the simulator's convolution of a plain sum of dice;
- :func:`check_engine_dice`: a simulation the event engine plays, by the dice it may roll;
- :func:`check_rolled_hit_dice`: many simulations (a balance search), by the hit dice every fight rolls.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from referee.dice import parse_dice
from referee.errors import RefereeError

MAX_DISTRIBUTION_STEPS = 2_000_000  # pairs of outcomes combined (a second or two of work)
MAX_DISTRIBUTION_OUTCOMES = 20_000  # distinct results of one exact dice distribution
MAX_FIGHT_TURNS = 100_000  # combatants × max_rounds of one fight played to its end
MAX_ENGINE_DICE = 5_000_000  # dice the event engine may roll over one simulation (hit points, damage)


class OverBudget(RefereeError, ValueError):
    """A step whose cost, measured before it starts, is over its budget (one line with both figures)."""


@dataclass(frozen=True, slots=True)
class Cost:
    """An exact distribution's cost: the outcomes it may have (an upper bound) and the work."""

    outcomes: int
    steps: int


def sum_cost(count: int, outcomes: int) -> Cost:
    """`count` copies of a distribution of `outcomes` consecutive values summed by doubling (as
    :func:`referee.odds.dice.sum_of` does): each addition combines every pair of outcomes."""
    steps = 0
    total: int | None = None  # outcomes of the partial result
    base = outcomes
    while count:
        if count & 1:
            if total is None:
                total = base
            else:
                steps += total * base
                total = total + base - 1
        count >>= 1
        if count:
            steps += base * base
            base = 2 * base - 1
    return Cost(total or 1, steps)


def _keep_cost(count: int, sides: int, keep: int) -> Cost:
    """Keep-highest/lowest runs icepool's multiset evaluation: each face × dice kept × partial sums ×
    dice (measured: ~20 million of these a second). Keeping one die is a power of the CDF (cheap)."""
    kept = min(keep, count)
    outcomes = kept * (sides - 1) + 1
    if kept == count:
        return sum_cost(count, sides)
    if kept == 1:
        return Cost(outcomes, count * sides)
    return Cost(
        outcomes, sides * (kept + 1) * outcomes * count // 4
    )  # a step is cheaper than a pair of big fractions


def expression_cost(text: str) -> Cost:
    """The cost of the exact distribution of a dice expression, from its syntax tree alone."""
    from referee.dice_grammar import d20

    expr = parse_dice(text)
    groups = iter(expr.groups())

    def walk(node: Any) -> Cost:
        ast = d20.ast
        if isinstance(node, ast.Literal):
            return Cost(1, 0)
        if isinstance(node, ast.Dice | ast.OperatedDice):
            group = next(groups)
            if group.keep:
                return _keep_cost(group.count, group.sides, abs(group.keep))
            return sum_cost(group.count, group.sides)
        if isinstance(node, ast.Parenthetical | ast.AnnotatedNumber | ast.UnOp):
            return walk(node.value)
        left, right = walk(node.left), walk(node.right)
        pairs = left.outcomes * right.outcomes
        # sums of ranges stay ranges; a product or a quotient may give every pair its own result
        outcomes = left.outcomes + right.outcomes - 1 if node.op in {"+", "-"} else pairs
        return Cost(outcomes, left.steps + right.steps + pairs)

    return walk(expr.node)


def check_dice_distribution(text: str, what: str) -> Cost:
    """Refuse the exact distribution of `text` when it would cost more than the budgets."""
    cost = expression_cost(text)
    if cost.outcomes > MAX_DISTRIBUTION_OUTCOMES:
        raise OverBudget(
            f"{what}: the exact distribution of {text!r} has up to {cost.outcomes:,} outcomes;"
            f" the limit is {MAX_DISTRIBUTION_OUTCOMES:,}"
        )
    if cost.steps > MAX_DISTRIBUTION_STEPS:
        raise OverBudget(
            f"{what}: the exact distribution of {text!r} takes about {cost.steps:,} steps;"
            f" the limit is {MAX_DISTRIBUTION_STEPS:,}"
        )
    return cost


def check_sum_convolution(groups: list[tuple[int, int]], what: str) -> None:
    """The simulator's convolution of a plain sum, one die at a time: outcomes and pairs combined."""
    outcomes, steps = 1, 0
    for count, sides in groups:
        for _ in range(count):
            steps += outcomes * sides
            outcomes += sides - 1
            if steps > MAX_DISTRIBUTION_STEPS or outcomes > MAX_DISTRIBUTION_OUTCOMES:
                raise OverBudget(
                    f"{what}: summing these dice exactly takes more than {MAX_DISTRIBUTION_STEPS:,} steps"
                    f" or {MAX_DISTRIBUTION_OUTCOMES:,} outcomes"
                )


def check_fight_turns(combatants: int, max_rounds: int, what: str) -> None:
    """A fight may last `max_rounds`, each giving every combatant a turn: refuse more than the budget."""
    turns = combatants * max_rounds
    if turns > MAX_FIGHT_TURNS:
        raise OverBudget(
            f"{what}: {combatants} combatants for up to {max_rounds} rounds is {turns:,} turns;"
            f" the limit is {MAX_FIGHT_TURNS:,} (lower max_rounds or the number of combatants)"
        )


def _dice_count(text: str | None) -> int:
    return sum(g.count for g in parse_dice(text).groups()) if text else 0


def _rolled_hit_dice(combatants: Sequence[Any]) -> int:
    """The hit dice rolled at the start of every fight: those of combatants without fixed hit points."""
    return sum(_dice_count(c.hp_dice) for c in combatants if c.hp is None)


def check_engine_dice(
    combatants: Sequence[Any], max_rounds: int, fights: int, what: str, hint: bool = True
) -> None:
    """The event engine rolls every die of every fight: each combatant's hit dice, and in each round
    at most its largest weapon's damage dice (doubled by a critical hit). Refuse a run whose dice, so
    bounded, are over the budget (a 1000d6 weapon played 10,000 times for 100 rounds is)."""
    hit_dice = _rolled_hit_dice(combatants)
    damage = sum(max((_dice_count(w.damage) for w in c.weapons), default=0) for c in combatants)
    per_fight = hit_dice + 2 * damage * max_rounds
    total = per_fight * fights
    if total > MAX_ENGINE_DICE:
        fewer = f" (ask for at most {max(1, MAX_ENGINE_DICE // max(1, per_fight)):,} fights)"
        raise OverBudget(
            f"{what}: {fights:,} fights played by the event engine may roll {total:,} dice;"
            f" the limit is {MAX_ENGINE_DICE:,}{fewer if hint else ''}"
        )


def check_rolled_hit_dice(
    combatants: Sequence[Any], fights: int, what: str, fewer: Callable[[int], str]
) -> None:
    """Hit dice are rolled in every fight the event engine plays, however short: refuse many fights of
    combatants with many hit dice (a `1000d1000` monster in each fight of a search) by their total.
    `fewer(n)` says how to ask for less, given the fights that fit the budget."""
    per_fight = _rolled_hit_dice(combatants)
    total = per_fight * fights
    if total > MAX_ENGINE_DICE:
        fits = MAX_ENGINE_DICE // max(1, per_fight)
        raise OverBudget(
            f"{what}: {fights:,} fights played by the event engine roll {total:,} hit dice;"
            f" the limit is {MAX_ENGINE_DICE:,} ({fewer(fits)})"
        )
