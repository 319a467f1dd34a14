"""Dice: the `d20` package's notation, evaluated with our own dice sources.

`d20.parse()` reads the expression; we walk its AST ourselves because d20's roller draws from the
global `random` (no per-fight seed, no typed-in dice). Every die goes through a :class:`DiceSource`
and is recorded as a :class:`DieRoll`, so an event can carry every die it used.

Limits live here, in :data:`LIMITS`; anything larger raises :class:`DiceError` before rolling.
"""

from __future__ import annotations

import random
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import Any, Protocol

from referee.deferred import defer, deferrable
from referee.dice_grammar import d20  # imported on first parse, its grammar tables cached
from referee.errors import DiceError, DiceExhaustedError


@dataclass(frozen=True)
class DiceLimits:
    """Bounds on one expression: never a hang, never a huge allocation."""

    max_length: int = 200
    max_dice: int = 1000
    max_faces: int = 1000
    max_depth: int = 20
    max_script: int = 10_000  # results in one typed-in dice list (`--dice 7,4,12`)


LIMITS = DiceLimits()


@dataclass(frozen=True, slots=True)
class DieRoll:
    """One die that was rolled: its faces, the face shown and what it was for."""

    sides: int
    value: int
    purpose: str = ""

    def to_dict(self) -> dict[str, object]:
        return {"sides": self.sides, "value": self.value, "purpose": self.purpose}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DieRoll:
        return cls(int(data["sides"]), int(data["value"]), str(data.get("purpose", "")))


def die_roll(sides: int, value: int, purpose: str) -> DieRoll:
    """``DieRoll(sides, value, purpose)``, one record for each such die: they are frozen, and the same
    dice come up again and again in a batch of fights (kept up to a bound, then made afresh)."""
    key = (sides, value, purpose)
    found = _DIE_ROLLS.get(key)
    if found is None:
        if len(_DIE_ROLLS) >= _DIE_ROLLS_LIMIT:
            _DIE_ROLLS.clear()
        found = _DIE_ROLLS[key] = DieRoll(sides, value, purpose)
    return found


_DIE_ROLLS: dict[tuple[int, int, str], DieRoll] = {}
_DIE_ROLLS_LIMIT = 65_536


class DiceSource(Protocol):
    """Anything that can produce the face of one die."""

    def roll(self, sides: int, purpose: str) -> int: ...


class RandomDice:
    """Reproducible pseudo-random dice: the same seed gives the same faces in the same order."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self._rng = random.Random(seed)
        # randint(1, sides) is 1 + _randbelow(sides) (random.randrange), which is getrandbits(k) drawn until
        # under `sides`: the same numbers drawn here without randint's checks and two calls (only while the
        # generator's _randbelow is that one; tests/test_dice.py checks that the two agree)
        own = getattr(type(self._rng), "_randbelow", None) is _BELOW_WITH_BITS
        self._bits: Callable[[int], int] | None = self._rng.getrandbits if own else None
        below = getattr(self._rng, "_randbelow", None)
        self._below: Callable[[int], int] | None = below if callable(below) else None

    def reseed(self, seed: int) -> RandomDice:
        """This source as ``RandomDice(seed)`` would start: the same faces in the same order (the generator
        seeded afresh, its whole state replaced), without making another generator (a simulator's fights
        each have their own seed, engine_path.py)."""
        self.seed = seed
        self._rng.seed(seed)
        return self

    def roll(self, sides: int, purpose: str) -> int:
        bits = self._bits
        if bits is not None and sides > 0:
            k = sides.bit_length()
            r = bits(k)
            while r >= sides:
                r = bits(k)
            return 1 + r
        below = self._below
        if below is None or sides < 1:
            return self._rng.randint(1, sides)
        return 1 + below(sides)

    def __repr__(self) -> str:
        return f"RandomDice({self.seed!r})"


_BELOW_WITH_BITS = getattr(random.Random, "_randbelow_with_getrandbits", None)


class ScriptedDice:
    """Dice results given in advance (tests, or physical dice typed in by the referee).

    Results are used in the order the engine asks for dice. `None` in the script, or the end of the
    script, hands over to `then` (a random source) if one is given; otherwise the end of the script
    raises :class:`DiceExhaustedError`. A result outside the die's faces is a :class:`DiceError`.
    """

    def __init__(self, results: Iterable[int | None], then: DiceSource | None = None) -> None:
        self._results: list[int | None] = list(results)
        self._next = 0
        self.then = then

    @property
    def remaining(self) -> int:
        return len(self._results) - self._next

    def roll(self, sides: int, purpose: str) -> int:
        if self._next >= len(self._results):
            if self.then is None:
                raise DiceExhaustedError(f"no scripted result left for a d{sides} ({purpose or 'roll'})")
            return self.then.roll(sides, purpose)
        value = self._results[self._next]
        self._next += 1
        if value is None:
            if self.then is None:
                raise DiceExhaustedError(f"no result given for a d{sides} ({purpose or 'roll'})")
            return self.then.roll(sides, purpose)
        if not 1 <= value <= sides:
            raise DiceError(
                f"die result {value} (scripted die #{self._next}) is not a face of a d{sides}"
                f" ({purpose or 'roll'}); expected 1 to {sides}"
            )
        return value


class DiceTape:
    """Wraps a source and records every die, so an event can carry the dice it used."""

    def __init__(self, source: DiceSource) -> None:
        self.source = source
        self._rolls: list[DieRoll] = []

    def roll(self, sides: int, purpose: str) -> int:
        value = self.source.roll(sides, purpose)
        self._rolls.append(die_roll(sides, value, purpose))
        return value

    def take(self) -> tuple[DieRoll, ...]:
        """The dice rolled since the last take, and forget them."""
        rolls, self._rolls = tuple(self._rolls), []
        return rolls


def parse_script(text: str) -> list[int]:
    """`"7,4,12,6"` → `[7, 4, 12, 6]`; a clear error naming the bad item otherwise."""
    results: list[int] = []
    items = text.replace(" ", ",").split(",")
    if sum(1 for item in items if item) > LIMITS.max_script:
        raise DiceError(
            f"dice list has more than {LIMITS.max_script} results; the limit is {LIMITS.max_script}"
        )
    for index, item in enumerate(items, start=1):
        if not item:
            continue
        try:
            value = int(item)
        except ValueError:
            raise DiceError(f"dice list item {index} is {item!r}, not a whole number") from None
        if value < 1:
            raise DiceError(f"dice list item {index} is {value}; a die shows 1 or more")
        results.append(value)
    return results


# --- expressions -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DiceGroup:
    """`count`d`sides`, optionally keeping the `keep` highest (>0) or lowest (<0) dice."""

    count: int
    sides: int
    keep: int = 0

    def __str__(self) -> str:
        suffix = "" if self.keep == 0 else (f"kh{self.keep}" if self.keep > 0 else f"kl{-self.keep}")
        return f"{self.count}d{self.sides}{suffix}"


@dataclass(frozen=True)
class DiceExpr:
    """A parsed, limit-checked dice expression. Rolled with :func:`roll`; odds come from `odds.py`.

    `plain` is the expression as a sum of plain groups and a constant when it is one (`2d6+1d4-1`),
    worked out once when parsed: :func:`roll` then rolls the groups straight from the source, the same
    dice in the same order as walking the tree (left to right).

    `node` is d20's syntax tree. Made without it (`1d8+1`, read by :func:`_simple`), the expression
    parses its text with d20 when `node` is first read (:mod:`referee.deferred`): the groups, the bounds
    and the rolls of a plain sum come from `plain`, so a command that only needs those never imports d20
    and lark."""

    text: str
    node: Any = field(repr=False, compare=False)
    plain: tuple[tuple[tuple[int, int], ...], int] | None = field(default=None, repr=False, compare=False)

    def __str__(self) -> str:
        return self.text

    def groups(self) -> list[DiceGroup]:
        if self.plain is not None:
            return [DiceGroup(count, sides) for count, sides in self.plain[0]]
        return list(_groups(self.node))

    @property
    def minimum(self) -> int:
        if self.plain is not None:  # each die shows at least 1
            return sum(count for count, _ in self.plain[0]) + self.plain[1]
        return _bound(self.node, low=True)

    @property
    def maximum(self) -> int:
        if self.plain is not None:
            return sum(count * sides for count, sides in self.plain[0]) + self.plain[1]
        return _bound(self.node, low=False)

    def linear(self) -> tuple[list[DiceGroup], int] | None:
        """(groups, constant) when the expression is a plain sum like `2d6+1d4-1`; else None."""
        if self.plain is not None:
            return self.groups(), self.plain[1]
        return _linear(self.node, 1)


deferrable(DiceExpr, ("node",))  # d20's tree of an expression read without it: parsed when first read


@dataclass(frozen=True, slots=True)
class RollResult:
    total: int
    dice: tuple[DieRoll, ...]


def parse_dice(text: str | int) -> DiceExpr:
    """Parse `text` with d20's grammar and check it against :data:`LIMITS`.

    `1d%` means a d100 (d20 itself would roll tens). Raises :class:`DiceError` with a one-line
    message naming the problem.
    """
    return _parse_cached(str(text).strip())


@lru_cache(maxsize=4096)
def _parse_cached(text: str) -> DiceExpr:
    if not text:
        raise DiceError("empty dice expression")
    if len(text) > LIMITS.max_length:
        raise DiceError(f"dice expression is {len(text)} characters long; the limit is {LIMITS.max_length}")
    if not text.isascii():
        raise DiceError(f"dice expression {text!r} has a character that is not plain ASCII")
    if text.count("(") > LIMITS.max_depth:
        raise DiceError(f"dice expression {text!r} nests deeper than {LIMITS.max_depth} levels")
    simple = _simple(text)
    if simple is not None:
        made = DiceExpr(text, None, simple)
        defer(made, ("node",), partial(_trees, text))
        return made
    node = _tree(text)
    _validate(node, text, depth=0)
    _bound(node, low=True)  # a literal division by zero fails here, not mid-fight
    if sum(g.count for g in _groups(node)) > LIMITS.max_dice:
        raise DiceError(f"dice expression {text!r} rolls more than {LIMITS.max_dice} dice")
    linear = _linear(node, 1)
    plain = None if linear is None else (tuple((g.count, g.sides) for g in linear[0]), linear[1])
    return DiceExpr(text, node, plain)


def _trees(text: str) -> tuple[Any]:
    """(:func:`_tree` of `text`,): the deferred `node` of a :class:`DiceExpr`."""
    return (_tree(text),)


def _tree(text: str) -> Any:
    """d20's syntax tree of `text` (one-line DiceError when d20 cannot read it)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = d20.parse(text.replace("d%", "d100"), allow_comments=False)
    except d20.RollSyntaxError as exc:
        got = "the end" if str(getattr(exc.got, "type", "")) == "$END" else repr(str(exc.got))
        raise DiceError(f"bad dice expression {text!r}: unexpected {got} at column {exc.col}") from None
    except (d20.RollError, RecursionError, ValueError) as exc:
        raise DiceError(f"bad dice expression {text!r}: {exc}") from None
    return tree.roll


# What most files write (`1d8`, `d6`, `2d4+1`, `1d6-1`, `3`): one group and a constant, or a constant.
_SIMPLE = re.compile(r"(?:([0-9]*)d([0-9]+))?(?:([+-]?)([0-9]+))?")


def _simple(text: str) -> tuple[tuple[tuple[int, int], ...], int] | None:
    """`plain` of `text` when it is one dice group within the limits and an added or subtracted
    whole number, or a whole number alone: what d20's tree would give (tests/test_dice.py compares
    them), read without importing d20. None for anything else, which d20 reads."""
    match = _SIMPLE.fullmatch(text)
    if match is None or not match.group(0):
        return None
    count_text, sides_text, sign, number = match.groups()
    constant = 0 if number is None else int(number)
    if sides_text is None:
        return ((), constant) if not sign else None  # `-3` is d20's negation: left to d20
    if number is not None and not sign:
        return None  # `1d63`? the regex split one number in two: not a sum
    count, sides = int(count_text or "1"), int(sides_text)
    if not (1 <= count <= LIMITS.max_dice and 1 <= sides <= LIMITS.max_faces):
        return None  # d20 reads it and the checks below name what is wrong
    return ((count, sides),), -constant if sign == "-" else constant


_ALLOWED_BINOPS = {"+", "-", "*", "/"}


def _validate(node: Any, text: str, depth: int) -> None:
    ast = d20.ast
    if depth > LIMITS.max_depth:
        raise DiceError(f"dice expression {text!r} nests deeper than {LIMITS.max_depth} levels")
    if isinstance(node, ast.Literal):
        if not isinstance(node.value, int):
            raise DiceError(f"dice expression {text!r} has a number that is not whole: {node.value}")
        return
    if isinstance(node, ast.Dice | ast.OperatedDice):
        dice = node.value if isinstance(node, ast.OperatedDice) else node
        if isinstance(node, ast.OperatedDice):
            for op in node.operations:
                if op.op not in {"k", "p"} or any(s.cat not in {"h", "l"} for s in op.sels):
                    raise DiceError(
                        f"dice expression {text!r}: only keep/drop highest/lowest (kh, kl, ph, pl) "
                        f"is supported, not {op}"
                    )
            if len(node.operations) > 1:
                raise DiceError(f"dice expression {text!r}: use one keep/drop operation per group")
        size = 100 if dice.size == "%" else int(dice.size)
        if size < 1:
            raise DiceError(f"dice expression {text!r}: a die needs at least 1 face, not d{size}")
        if size > LIMITS.max_faces:
            raise DiceError(f"dice expression {text!r}: d{size} has more than {LIMITS.max_faces} faces")
        if dice.num < 1:
            raise DiceError(f"dice expression {text!r}: roll at least one die, not {dice.num}")
        if dice.num > LIMITS.max_dice:
            raise DiceError(f"dice expression {text!r} rolls more than {LIMITS.max_dice} dice")
        return
    if isinstance(node, ast.Parenthetical | ast.AnnotatedNumber):
        _validate(node.value, text, depth + 1)
        return
    if isinstance(node, ast.UnOp):
        if node.op not in {"+", "-"}:
            raise DiceError(f"dice expression {text!r}: unsupported operator {node.op!r}")
        _validate(node.value, text, depth + 1)
        return
    if isinstance(node, ast.BinOp):
        if node.op not in _ALLOWED_BINOPS:
            raise DiceError(f"dice expression {text!r}: unsupported operator {node.op!r}")
        # a flat chain `1d4+1d4+...` is not nesting: only brackets and signs deepen (the length
        # limit keeps a chain short enough for the recursive walks)
        _validate(node.left, text, depth)
        _validate(node.right, text, depth + 1 if isinstance(node.right, ast.BinOp) else depth)
        return
    raise DiceError(f"dice expression {text!r}: unsupported part {node}")


def _dice_of(node: Any) -> DiceGroup:
    ast = d20.ast
    dice = node.value if isinstance(node, ast.OperatedDice) else node
    size = 100 if dice.size == "%" else int(dice.size)
    keep = 0
    if isinstance(node, ast.OperatedDice) and node.operations:
        op = node.operations[0]
        n = min(sum(s.num for s in op.sels), dice.num)
        high = op.sels[0].cat == "h"
        if op.op == "k":
            keep = n if high else -n
        else:  # drop n highest = keep the lowest count-n
            kept = dice.num - n
            keep = -kept if high else kept
            if kept == 0:
                keep = dice.num  # dropping everything: treated as keeping all (d20 would give 0)
    return DiceGroup(dice.num, size, keep)


def _groups(node: Any) -> Iterator[DiceGroup]:
    ast = d20.ast
    if isinstance(node, ast.Dice | ast.OperatedDice):
        yield _dice_of(node)
    elif isinstance(node, ast.Parenthetical | ast.AnnotatedNumber | ast.UnOp):
        yield from _groups(node.value)
    elif isinstance(node, ast.BinOp):
        yield from _groups(node.left)
        yield from _groups(node.right)


def _linear(node: Any, sign: int) -> tuple[list[DiceGroup], int] | None:
    ast = d20.ast
    if isinstance(node, ast.Literal):
        return [], sign * int(node.value)
    if isinstance(node, ast.Dice | ast.OperatedDice):
        group = _dice_of(node)
        return ([group], 0) if sign > 0 and group.keep == 0 else None
    if isinstance(node, ast.Parenthetical | ast.AnnotatedNumber):
        return _linear(node.value, sign)
    if isinstance(node, ast.UnOp):
        return _linear(node.value, sign if node.op == "+" else -sign)
    if isinstance(node, ast.BinOp) and node.op in {"+", "-"}:
        left = _linear(node.left, sign)
        right = _linear(node.right, sign if node.op == "+" else -sign)
        if left is None or right is None:
            return None
        return left[0] + right[0], left[1] + right[1]
    return None


def _bound(node: Any, low: bool) -> int:
    low_value, high_value = _range(node)
    return low_value if low else high_value


def _range(node: Any) -> tuple[int, int]:
    """(minimum, maximum) in one pass over the tree: linear in its size, so a long sum stays fast."""
    ast = d20.ast
    if isinstance(node, ast.Literal):
        return int(node.value), int(node.value)
    if isinstance(node, ast.Dice | ast.OperatedDice):
        group = _dice_of(node)
        kept = abs(group.keep) if group.keep else group.count
        return kept, kept * group.sides
    if isinstance(node, ast.Parenthetical | ast.AnnotatedNumber):
        return _range(node.value)
    if isinstance(node, ast.UnOp):
        lo, hi = _range(node.value)
        return (lo, hi) if node.op == "+" else (-hi, -lo)
    a_lo, a_hi = _range(node.left)
    b_lo, b_hi = _range(node.right)
    if node.op == "/" and b_lo <= 0 <= b_hi:
        # refuse when parsed: a divisor that can roll 0 would fail in the middle of a fight
        if b_lo == b_hi:
            raise DiceError("dice expression divides by zero")
        raise DiceError("dice expression may divide by zero (its divisor can be 0)")
    if node.op == "+":
        return a_lo + b_lo, a_hi + b_hi
    if node.op == "-":
        return a_lo - b_hi, a_hi - b_lo
    corners = [_apply(node.op, a, b) for a in (a_lo, a_hi) for b in (b_lo, b_hi)]
    return min(corners), max(corners)


def _apply(op: str, a: int, b: int) -> int:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b == 0:
        raise DiceError("dice expression divides by zero")
    return a // b


def roll(expr: DiceExpr | str, source: DiceSource, purpose: str = "") -> RollResult:
    """Roll an expression through `source`, returning the total and every die rolled."""
    parsed = expr if isinstance(expr, DiceExpr) else parse_dice(expr)
    purpose = purpose or parsed.text
    plain = parsed.plain
    if plain is not None:  # a plain sum: each group's dice in turn, as the tree walk would ask for them
        draw = source.roll
        groups = plain[0]
        if len(groups) == 1 and groups[0][0] == 1:  # one die (a hit die, a weapon's): no lists
            sides = groups[0][1]
            face = draw(sides, purpose)
            return RollResult(face + plain[1], (die_roll(sides, face, purpose),))
        rolled = [
            die_roll(sides, draw(sides, purpose), purpose) for count, sides in plain[0] for _ in range(count)
        ]
        return RollResult(sum(d.value for d in rolled) + plain[1], tuple(rolled))
    tape = DiceTape(source)
    value = _evaluate(parsed.node, tape, purpose)
    return RollResult(value, tape.take())


def maximise(expr: DiceExpr | str) -> int:
    """The largest value the expression can produce (critical hits, helpless targets)."""
    parsed = expr if isinstance(expr, DiceExpr) else parse_dice(expr)
    return parsed.maximum


def _evaluate(node: Any, source: DiceSource, purpose: str) -> int:
    ast = d20.ast
    if isinstance(node, ast.Literal):
        return int(node.value)
    if isinstance(node, ast.Dice | ast.OperatedDice):
        group = _dice_of(node)
        faces = [source.roll(group.sides, purpose) for _ in range(group.count)]
        return sum(_kept(faces, group.keep))
    if isinstance(node, ast.Parenthetical | ast.AnnotatedNumber):
        return _evaluate(node.value, source, purpose)
    if isinstance(node, ast.UnOp):
        value = _evaluate(node.value, source, purpose)
        return value if node.op == "+" else -value
    left = _evaluate(node.left, source, purpose)
    right = _evaluate(node.right, source, purpose)
    return _apply(node.op, left, right)


def _kept(faces: Sequence[int], keep: int) -> Sequence[int]:
    if keep == 0:
        return faces
    ordered = sorted(faces, reverse=keep > 0)
    return ordered[: abs(keep)]
