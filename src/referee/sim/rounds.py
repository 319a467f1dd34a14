"""Which rounds the attack tables are compiled apart for (:class:`RoundVariants`: round 1, the later
rounds, tactics that apply in some rounds only) and the target a tactic names (:func:`scripted_target`)."""

from __future__ import annotations

from dataclasses import dataclass

from referee.files import Setup
from referee.sim.tables import Unsupported


@dataclass(frozen=True)
class RoundVariants:
    """The rounds whose attacks are compiled apart: round 1, round 2 (the later rounds), and the first
    round of each other set of tactics that apply (a tactic's `rounds: [1, 3, 5]`); `variant[r]`: the
    variant of round r (0: round 2's, 1: round 1's, 2...: `firsts[2:]`); `checks`: the other rounds
    each variant's first round is checked against."""

    firsts: tuple[int, ...]
    variant: tuple[int, ...]
    checks: dict[int, tuple[int, ...]]

    @classmethod
    def of(cls, setup: Setup) -> RoundVariants:
        last = setup.max_rounds

        def applying(r: int) -> frozenset[int]:  # the combatants whose tactic applies in round r only
            return frozenset(i for i, c in enumerate(setup.combatants) if c.tactic and c.tactic.rounds
                             and r in c.tactic.rounds)  # fmt: skip

        keys: list[frozenset[int]] = [applying(2), applying(1)]
        firsts = [2, 1]
        variant = [1, 1]  # round 0 (the free round) has its own tables; round 1
        for r in range(2, last + 1):
            key = applying(r)
            if r > 2 and key not in keys[:1] + keys[2:]:
                keys.append(key)
                firsts.append(r)
            variant.append(0 if key == keys[0] else keys.index(key, 2))
        checks = {}
        for v, first in enumerate(firsts):
            same = [r for r in range(2, last + 1) if variant[r] == v]
            checks[first] = tuple(sorted({r for r in (3, *same[1:2], *same[-1:]) if r in same} - {first}))
        return cls(tuple(firsts), tuple(variant), checks)


def scripted_target(setup: Setup, a: int) -> int | None:
    """The enemy combatant `a`'s tactic names as its target, if any (the tactics attack it while it stands,
    else the default target: engine/odd_tactics.scripted_maneuver); refused where the tables cannot say so."""
    c = setup.combatants[a]
    if c.tactic is None or c.tactic.target is None:
        return None
    names = [x.name for x in setup.combatants]
    if c.tactic.target not in names:
        raise Unsupported(f"{c.name}'s tactic names {c.tactic.target}, who is not in the fight")
    named = names.index(c.tactic.target)
    if setup.combatants[named].side == c.side:
        raise Unsupported(f"{c.name}'s tactic names {c.tactic.target}, on its own side")
    if c.tactic.rounds is not None:
        raise Unsupported(f"{c.name}'s tactic names its target in some rounds only ({c.tactic.target})")
    return named
