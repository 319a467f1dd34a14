"""Initiative (ODD-INIT-1..6) and the order of action in a round.

The order is a list of *slots*; the combatants in one slot act simultaneously (ODD-INIT-3).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from referee.dice import DiceSource
from referee.model import Combatant, Size

# Rules that delay a combatant by some segments (segment initiative, option `initiative`) register here.
DELAY_RULES: list[Callable[[Combatant, int, DiceSource], list[tuple[int, str, str]]]] = []


@dataclass(frozen=True)
class Roll:
    name: str
    roll: int
    dex: int
    delay: int = 0

    @property
    def key(self) -> tuple[int, int]:
        """Sort key: higher effective roll first, then higher Dex (ODD-INIT-2)."""
        return (self.roll - self.delay, self.dex)


def order_individual(rolls: Sequence[Roll]) -> list[list[str]]:
    """ODD-INIT-1: highest roll first; ODD-INIT-2: ties by higher Dex; ODD-INIT-3: equal Dex act together."""
    ranked = sorted(rolls, key=lambda r: r.key, reverse=True)
    slots: list[list[str]] = []
    last: tuple[int, int] | None = None
    for r in ranked:
        if r.key == last:
            slots[-1].append(r.name)
        else:
            slots.append([r.name])
        last = r.key
    return slots


def order_groups(side_rolls: Sequence[tuple[str, int]], members: dict[str, list[str]]) -> list[list[str]]:
    """ODD-INIT-4: one d10 per side; the whole winning side acts first; ties act together (GAP-INIT-GROUP-TIE)."""
    slots: list[list[str]] = []
    last: int | None = None
    for side, roll in sorted(side_rolls, key=lambda sr: sr[1], reverse=True):
        if roll == last:
            slots[-1].extend(members[side])
        else:
            slots.append(list(members[side]))
        last = roll
    return [s for s in slots if s]


def longest_reach(c: Combatant) -> int:
    return max((w.reach for w in c.weapons if not w.is_ranged), default=5)


def has_first_strike(big: Combatant, small: Combatant) -> str | None:
    """ODD-INIT-5: reach over 10 ft against reach under 6 ft, or Large-or-bigger against Medium-or-smaller."""
    if longest_reach(big) > 10 and longest_reach(small) < 6:
        return "longer reach"
    if big.size >= Size.LARGE and small.size <= Size.MEDIUM:
        return "larger size"
    return None


def apply_first_strike(
    slots: list[list[str]], combatants: dict[str, Combatant]
) -> tuple[list[list[str]], list[dict[str, str]]]:
    """First round only (ODD-INIT-5, ODD-INIT-6): a creature with first strike against an enemy that
    would act before it is moved to act just before that enemy. Assumes the foes close to within 10 ft
    in the first round (the encounter has them engaged); the move is that creature's action for the round.
    """
    moves: list[dict[str, str]] = []
    slots = [list(s) for s in slots]
    for name in [n for slot in slots for n in slot]:
        me = combatants[name]
        my_slot = next(i for i, s in enumerate(slots) if name in s)
        for i, slot in enumerate(slots[:my_slot]):
            foes = [n for n in slot if combatants[n].side != me.side and has_first_strike(me, combatants[n])]
            if foes:
                reason = has_first_strike(me, combatants[foes[0]]) or ""
                slots[my_slot].remove(name)
                slots.insert(i, [name])
                moves.append({"actor": name, "before": foes[0], "reason": reason, "rule": "ODD-INIT-5"})
                break
        slots = [s for s in slots if s]
    return slots, moves
