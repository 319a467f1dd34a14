"""Modifiers and checks: every number that reaches a roll names the rule it comes from.

A :class:`Check` is pure data (dice, modifiers, target, comparison, natural-roll rule). The live
engine rolls it, :mod:`referee.odds` enumerates it exactly and :mod:`referee.sim` compiles it to a
lookup table, so the three always agree: they all ask :meth:`Check.succeeds` about a natural roll.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from operator import attrgetter


@dataclass(frozen=True, slots=True)
class Modifier:
    """A signed number with the rule ID that justifies it and a short human reason."""

    value: int
    rule: str
    reason: str

    def __str__(self) -> str:
        return f"{self.value:+d} {self.reason} [{self.rule}]"

    def to_dict(self) -> dict[str, object]:
        return {"value": self.value, "rule": self.rule, "reason": self.reason}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Modifier:
        return cls(int(data["value"]), str(data["rule"]), str(data["reason"]))  # type: ignore[call-overload]


def total(modifiers: Iterable[Modifier]) -> int:
    """Sum of the modifiers' values."""
    return sum(map(_VALUE, modifiers))  # no generator frame per modifier: asked for each roll checked


_VALUE = attrgetter("value")


def describe(modifiers: Iterable[Modifier]) -> str:
    """`+4 basic to-hit [ODD-MELEE-1] +1 Str [ODD-MELEE-1]`, or empty."""
    return " ".join(str(m) for m in modifiers if m.value != 0)


class Compare(StrEnum):
    """How a check's total meets its target."""

    AT_LEAST = ">="  # attack rolls: total >= AC
    AT_MOST = "<="  # roll-under attribute checks: total <= score


class Keep(StrEnum):
    """Which of several rolled dice count (advantage / disadvantage, GAP-ADV)."""

    ALL = "all"
    HIGHEST = "highest"
    LOWEST = "lowest"


class Natural(StrEnum):
    """What a natural 1 or a natural top face does (option `natural_rolls`)."""

    NONE = "none"  # ODD-ATK-1: no special meaning
    AUTO_HIT_MISS = "auto_hit_miss"  # HR-NAT-1: natural 20 hits, natural 1 misses
    AUTO_HIT = "auto_hit"  # MF-CRIT-1: a natural 20 is a critical, and so a hit
    AUTO_MISS = "auto_miss"  # MF-FUMBLE-1: a natural 1 is a fumble, and so a miss


# The rule behind each automatic natural result, for the account.
NATURAL_RULES: dict[Natural, str] = {
    Natural.AUTO_HIT_MISS: "HR-NAT-1",
    Natural.AUTO_HIT: "MF-CRIT-1",
    Natural.AUTO_MISS: "MF-FUMBLE-1",
}


@dataclass(frozen=True, slots=True)
class Check:
    """A die test: `count`d`sides` (keeping one die under advantage) plus modifiers against a target.

    `target_modifiers` explain how the target number was built (an armour class breakdown);
    `target` is the number the total must reach (or stay under). `automatic` short-circuits the
    roll (a helpless target hit automatically, HR-HELPLESS-1).
    """

    label: str
    sides: int = 20
    count: int = 1
    keep: Keep = Keep.ALL
    modifiers: tuple[Modifier, ...] = ()
    target: int = 10
    target_label: str = "AC"
    target_modifiers: tuple[Modifier, ...] = ()
    compare: Compare = Compare.AT_LEAST
    natural: Natural = Natural.NONE
    automatic: bool | None = None
    shown_target: int | None = None  # descending AC: the AC the referee sees, when it differs
    notes: tuple[str, ...] = field(default=())
    words: tuple[str, str] = ("success", "failure")

    @property
    def bonus(self) -> int:
        return total(self.modifiers)

    @property
    def dice_count(self) -> int:
        """How many dice the roll asks the dice source for."""
        return 0 if self.automatic is not None else (2 if self.keep is not Keep.ALL else self.count)

    def natural_of(self, faces: Sequence[int]) -> int:
        """The natural result of the rolled faces (kept die under advantage, sum otherwise)."""
        if self.keep is Keep.HIGHEST:
            return max(faces)
        if self.keep is Keep.LOWEST:
            return min(faces)
        return sum(faces)

    def succeeds(self, natural: int) -> bool:
        """Whether a natural result passes the check. The single source of truth for hit/miss."""
        if self.automatic is not None:
            return self.automatic
        if self.count == 1 or self.keep is not Keep.ALL:
            if natural == self.sides and self.natural in {Natural.AUTO_HIT_MISS, Natural.AUTO_HIT}:
                return True
            if natural == 1 and self.natural in {Natural.AUTO_HIT_MISS, Natural.AUTO_MISS}:
                return False
        value = natural + self.bonus
        if self.compare is Compare.AT_LEAST:
            return value >= self.target
        return value <= self.target

    def outcome_table(self) -> tuple[bool, ...]:
        """Success for every natural result of one die (index 0 = natural 1). Used by odds and sim."""
        if self.count != 1:
            raise ValueError("outcome_table is defined for single-die checks (advantage keeps one)")
        return tuple(self.succeeds(n) for n in range(1, self.sides + 1))

    def needed(self) -> int | None:
        """Lowest natural roll that succeeds (AT_LEAST) or highest (AT_MOST); None if none does."""
        wins = [n for n in range(self.count, self.count * self.sides + 1) if self.succeeds(n)]
        if not wins:
            return None
        return min(wins) if self.compare is Compare.AT_LEAST else max(wins)

    def breakdown(self, faces: Sequence[int]) -> str:
        """One line a referee reads: `d20 12 +4 basic to-hit [ODD-MELEE-1] = 16 vs AC 12 → hit`."""
        if self.automatic is not None:
            return f"{self.label}: automatic {self.words[0] if self.automatic else self.words[1]}"
        natural = self.natural_of(faces)
        shown = ",".join(str(f) for f in faces) if len(faces) > 1 else str(natural)
        keep = {Keep.HIGHEST: " (keep highest)", Keep.LOWEST: " (keep lowest)"}.get(self.keep, "")
        dice = f"{self.count if self.keep is Keep.ALL else 2}d{self.sides}"
        mods = describe(self.modifiers)
        value = natural + self.bonus
        target = f"{self.target_label} {self.shown_target if self.shown_target is not None else self.target}"
        if self.shown_target is not None:
            target += f" (needs {self.target})"
        ok = self.succeeds(natural)
        verdict = self.words[0] if ok else self.words[1]
        sign = (
            self.compare.value
            if ok == (value >= self.target if self.compare is Compare.AT_LEAST else value <= self.target)
            else "vs"
        )
        if sign != "vs" and not ok:
            sign = "<" if self.compare is Compare.AT_LEAST else ">"
        why = ""
        if sign == "vs":  # the natural roll decided, not the total (HR-NAT-1, MF-CRIT-1, MF-FUMBLE-1)
            at_least = self.compare is Compare.AT_LEAST
            sign = ("<" if ok else ">=") if at_least else (">" if ok else "<=")
            face = "natural 1 always misses" if natural == 1 else f"natural {natural} always hits"
            why = f" ({face} [{NATURAL_RULES.get(self.natural, 'HR-NAT-1')}])"
        return f"{dice} {shown}{keep}{' ' + mods if mods else ''} = {value} {sign} {target} → {verdict}{why}"
