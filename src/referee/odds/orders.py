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
    """One unit's initiative in round `number` over every face (:func:`initiative.roll_unit`, ODD-INIT-1,
    ODD-INIT-2, ODD-INIT-4), grouped by sort key, and whether the roll read the round's number (else it
    is the same every round: checked, not assumed, as the number it is given notes every use)."""
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


Ranking = tuple[int, ...]  # the units sharing each key, from the highest key down (bits of positions)


def slot_distribution(
    ruleset: Ruleset,
    per_unit: Sequence[Rolls],
    members: Mapping[str, list[str]],
    one: Any,
    ranked: Mapping[Ranking, Any] | None = None,
) -> dict[tuple[tuple[str, ...], ...], Any]:
    """The chance of each distinct list of slots (:func:`initiative.order_from_rolls`, ODD-INIT-1 to ODD-
    INIT-4) before first strike: asked once per ranking of the keys (`ranked`, else :func:`rankings`)
    while the rule is its own (:func:`ranks_only`), else for every combination of rolls. `one` is 1 as
    the chances are kept."""
    if ranks_only():
        by_ranking = rankings(per_unit, one) if ranked is None else ranked
        rolled = [(_witness(per_unit, groups), p) for groups, p in by_ranking.items()]
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


def ranks_only() -> bool:
    """Whether the order is the rule's own sort (it reads only how the keys rank): the functions are
    the module's own code, not a house rule put in their place."""
    own = initiative.__file__
    return all(
        getattr(fn, "__code__", None) is not None
        and fn.__code__.co_filename == own
        and fn.__code__.co_name == name
        for fn, name in ((initiative.order_from_rolls, "order_from_rolls"), (initiative._order, "_order"))
    )


def rankings(per_unit: Sequence[Rolls], one: Any) -> dict[Ranking, Any]:
    """Every ranking of the units' keys with its chance (higher key first, equal keys together: ODD-INIT-1
    to ODD-INIT-4, enumerated for :func:`initiative.order_from_rolls`): the keys are taken from the
    highest down, and at each the units not yet placed that can have it either have it (they form the
    next group) or a lower one. Rankings reached alike are merged as they go (the units still to place
    have keys below the last one, whatever came before)."""
    chance = [{r.key: q for r, q in rolls} for rolls in per_unit]
    keys = sorted({key for by_key in chance for key in by_key}, reverse=True)
    states: dict[Ranking, tuple[int, Any]] = {(): (0, one)}  # ranking so far → (units placed, chance)
    for key in keys:
        holders = [(1 << u, by_key[key]) for u, by_key in enumerate(chance) if key in by_key]
        following: dict[Ranking, tuple[int, Any]] = {}
        for groups, (placed, p) in states.items():
            free = [(bit, q) for bit, q in holders if not placed & bit]
            for choice in range(1 << len(free)):  # 0: none of them has this key
                q, group = p, 0
                for j, (bit, qj) in enumerate(free):
                    if choice >> j & 1:
                        q, group = q * qj, group | bit
                after = (*groups, group) if group else groups
                held = following.get(after)
                following[after] = (placed | group, q if held is None else held[1] + q)
        states = following
    everyone = (1 << len(per_unit)) - 1
    return {groups: p for groups, (placed, p) in states.items() if placed == everyone}


def restricted(ranked: Mapping[Ranking, Any], keep: Sequence[int]) -> dict[Ranking, Any]:
    """The rankings of some of the units (`keep`: their places among all, in their own order): each
    ranking with the others left out. The rolls are independent (each unit rolls alone, ODD-INIT-1,
    ODD-INIT-4), so this is their own distribution."""
    out: dict[Ranking, Any] = {}
    for groups, p in ranked.items():
        mapped = tuple(
            g for g in (sum(1 << j for j, u in enumerate(keep) if group >> u & 1) for group in groups) if g
        )
        out[mapped] = out.get(mapped, 0) + p
    return out


def _witness(per_unit: Sequence[Rolls], groups: Ranking) -> list[initiative.UnitRoll]:
    """Rolls that rank as `groups` do: each group at the highest key all its units can have that is
    below the last group's (the highest choice leaves the most room below)."""
    by_key = [{r.key: r for r, _ in rolls} for rolls in per_unit]
    keys = sorted({key for rolls in by_key for key in rolls}, reverse=True)
    chosen: dict[int, initiative.UnitRoll] = {}
    at = 0
    for group in groups:
        units = [u for u in range(len(per_unit)) if group >> u & 1]
        while not all(keys[at] in by_key[u] for u in units):
            at += 1
        for u in units:
            chosen[u] = by_key[u][keys[at]]
        at += 1
    return [chosen[u] for u in range(len(per_unit))]
