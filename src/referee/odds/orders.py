"""The distribution of a round's order of action, from the initiative rule itself (:mod:`rules.initiative`).

Each unit's roll is :func:`initiative.roll_unit` over every face (:func:`chance.distribution`), grouped by
its sort key; the slots are :func:`initiative.order_from_rolls`; first strike (ODD-INIT-5) is
:func:`initiative.apply_first_strike`, once per distinct order.

The plain way asks :func:`initiative.order_from_rolls` for every combination of the units' rolls (10,000
for four combatants). While :func:`initiative.order_from_rolls` is the rule's own (higher key first,
equal keys share a slot in rolling order: it reads nothing of the rolls but how their keys rank), the
combinations that rank the keys alike give one order, so the orders are enumerated per ranking instead
— the keys from the highest down, each unit placed at one of them — and the rule is asked once per
ranking, with rolls that rank that way. A rule that replaces it is asked for every combination again.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from referee.dice import DiceSource
from referee.model import Combatant
from referee.odds.attack import distribution_of
from referee.rules import initiative
from referee.rules.ruleset import Ruleset

Rolls = list[tuple[initiative.UnitRoll, Any]]  # one unit's rolls, a representative per key, and chances
Order = tuple[tuple[int, ...], ...]  # slots of combatant indices


def roll_every_face(
    ruleset: Ruleset, unit: str, members: list[Combatant], number: int
) -> tuple[list[tuple[initiative.UnitRoll, Fraction]], bool]:
    """One unit's initiative in round `number` over every face (:func:`initiative.roll_unit`), grouped by
    sort key, and whether the roll read the round's number (else it is the same every round: checked, not
    assumed, as the number it is given notes every use)."""
    seen: dict[tuple[int, ...], initiative.UnitRoll] = {}
    watched = _WatchedNumber(number)

    def key_of(dice: DiceSource) -> tuple[int, ...]:
        rolled = initiative.roll_unit(ruleset, unit, members, watched, dice)
        seen.setdefault(rolled.key, rolled)
        return rolled.key

    dist = distribution_of(key_of, f"{unit}'s initiative")
    return [(seen[k], p) for k, p in sorted(dist.items())], watched.read


class _WatchedNumber(int):
    """A round number that notes whether anything used it (compared, added, formatted, hashed ...)."""

    read = False


def _noting(name: str) -> Callable[..., Any]:
    plain = getattr(int, name)

    def method(self: _WatchedNumber, *args: Any) -> Any:
        self.read = True
        return plain(self, *args)

    return method


for _name in (
    *(f"__{op}__" for op in ("eq", "ne", "lt", "le", "gt", "ge", "hash", "bool", "index", "int", "float")),
    *(f"__{op}__" for op in ("add", "sub", "mul", "floordiv", "truediv", "mod", "divmod", "pow")),
    *(f"__r{op}__" for op in ("add", "sub", "mul", "floordiv", "truediv", "mod", "divmod", "pow")),
    *(f"__{op}__" for op in ("and", "or", "xor", "lshift", "rshift", "neg", "pos", "abs", "invert")),
    *(f"__r{op}__" for op in ("and", "or", "xor", "lshift", "rshift")),
    "__format__", "__str__", "__repr__", "__round__", "__trunc__", "__floor__", "__ceil__",
    "bit_length", "to_bytes", "as_integer_ratio", "conjugate",
):  # fmt: skip
    setattr(_WatchedNumber, _name, _noting(_name))


def slot_distribution(
    ruleset: Ruleset, per_unit: Sequence[Rolls], members: Mapping[str, list[str]], one: Any
) -> dict[tuple[tuple[str, ...], ...], Any]:
    """The chance of each distinct list of slots (:func:`initiative.order_from_rolls`) before first
    strike. `one` is 1 as the chances are kept."""
    if _ranks_only():
        rolled = [(rolls, p) for rolls, p in _rankings(per_unit, one).values()]
    else:
        rolled = [_combination(combo, one) for combo in itertools.product(*per_unit)]
    total: dict[tuple[tuple[str, ...], ...], Any] = {}
    for rolls, p in rolled:
        slots = tuple(map(tuple, initiative.order_from_rolls(ruleset, rolls, members)))
        total[slots] = total.get(slots, 0) + p
    return total


def indexed_orders(
    slots: Mapping[tuple[tuple[str, ...], ...], Any],
    first_strike: Mapping[str, Combatant] | None,
    index: Mapping[str, int],
) -> dict[Order, Any]:
    """The slots as combatant indices, first strike applied (ODD-INIT-5) when `first_strike` gives the
    combatants; orders made equal by it are summed."""
    total: dict[Order, Any] = {}
    for named, p in slots.items():
        moved = named
        if first_strike is not None:
            moved = tuple(
                map(tuple, initiative.apply_first_strike([list(s) for s in named], first_strike)[0])
            )
        order = tuple(tuple(index[n] for n in slot) for slot in moved)
        total[order] = total.get(order, 0) + p
    return total


def order_distribution(
    ruleset: Ruleset,
    per_unit: Sequence[Rolls],
    members: Mapping[str, list[str]],
    first_strike: Mapping[str, Combatant] | None,
    index: Mapping[str, int],
    one: Any,
) -> dict[Order, Any]:
    """The chance of each distinct order of action (slots of combatant indices), first strike applied
    when `first_strike` gives the combatants (ODD-INIT-5). `one` is 1 as the chances are kept."""
    return indexed_orders(slot_distribution(ruleset, per_unit, members, one), first_strike, index)


def _combination(
    combo: Sequence[tuple[initiative.UnitRoll, Any]], one: Any
) -> tuple[list[initiative.UnitRoll], Any]:
    p = one
    for _, q in combo:
        p = p * q
    return [r for r, _ in combo], p


def _ranks_only() -> bool:
    """Whether the order is the rule's own sort (it reads only how the keys rank): the functions are
    the module's own code, not a house rule put in their place."""
    own = initiative.__file__
    return all(
        getattr(fn, "__code__", None) is not None
        and fn.__code__.co_filename == own
        and fn.__code__.co_name == name
        for fn, name in ((initiative.order_from_rolls, "order_from_rolls"), (initiative._order, "_order"))
    )


def _rankings(
    per_unit: Sequence[Rolls], one: Any
) -> dict[tuple[frozenset[int], ...], tuple[list[initiative.UnitRoll], Any]]:
    """Every ranking of the units' keys (the units sharing each key, from the highest key down) with its
    chance and rolls that rank so: the keys are taken from the highest down, and at each the units not
    yet placed that can have it either have it (they form the next group) or a lower one. Rankings
    reached alike are merged as they go (the units still to place have keys below the last one)."""
    chance = [{r.key: (r, q) for r, q in rolls} for rolls in per_unit]
    keys = sorted({key for by_key in chance for key in by_key}, reverse=True)
    states: dict[tuple[frozenset[int], ...], tuple[Any, dict[int, initiative.UnitRoll]]] = {(): (one, {})}
    for key in keys:
        following: dict[tuple[frozenset[int], ...], tuple[Any, dict[int, initiative.UnitRoll]]] = {}
        for groups, (p, witness) in states.items():
            can = [u for u, by_key in enumerate(chance) if key in by_key and u not in witness]
            for size in range(len(can) + 1):
                for here in itertools.combinations(can, size):
                    q = p
                    for u in here:
                        q = q * chance[u][key][1]
                    after = (*groups, frozenset(here)) if here else groups
                    held = following.get(after)
                    if held is None:
                        following[after] = (q, {**witness, **{u: chance[u][key][0] for u in here}})
                    else:
                        following[after] = (held[0] + q, held[1])
        states = following
    every = len(per_unit)
    return {
        groups: ([witness[u] for u in range(every)], p)
        for groups, (p, witness) in states.items()
        if len(witness) == every
    }
