"""A free attack back (MF-FUMBLE-2) and the attacker's own attackers this round: carried exactly by the
attack tables, refused with the reason where they cannot be.

The kernels keep, per round, each combatant's distinct attackers in the order they first attacked it (the
engine's ``attackers_this_round``), as far as a shield counts them (ODD-AC-SHIELD: up to
:data:`MAX_EARLIER_ATTACKERS`). Two indexes of the tables read them, each as one's place among the other's
attackers where it is one of them, else their count:

- K, for an attack by A on T: A's place among T's attackers, or how many attacked T (sim/attacks.py
  compiles cell k with k of T's other foes as its earlier attackers, A not among them). A is among them
  before it attacks only when it struck T back earlier in the round; the plan with A among them after
  the k others must then be the plan of cell k (:func:`check_present_plan`), or it is refused.
- J, for an attack by A on T that can draw a blow back: T's place among A's attackers, or how many
  attacked A. A shield faces T as A's first attackers leave it, so a blow back reads J. Compiled only
  where some blow back changes with it (``own_matters``): cell j resolves the attack with A's first j
  other foes as its own attackers (:func:`own_foes`); the same with T among them after those must
  resolve alike (:func:`check_own_attackers`), or it is refused.

Every attack's plan is also checked against the attacker beset (:func:`own_attackers`, :func:`check_own_plan`):
the tables plan every attack with the attacker unattacked.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from referee.files import Setup
from referee.sim.tables import MAX_EARLIER_ATTACKERS, Unsupported


def own_foes(setup: Setup, attacker: str, target: str) -> tuple[str, ...]:
    """J's cells (ODD-AC-SHIELD): the attacker's other enemies, in file order, up to the most a shield
    counts; cell j has the first j of them as the attacker's own attackers this round."""
    side = next(c.side for c in setup.combatants if c.name == attacker)
    others = [c.name for c in setup.combatants if c.side != side and c.name != target]
    return tuple(others[:MAX_EARLIER_ATTACKERS])


def own_attackers(setup: Setup, attacker: str, target: str) -> tuple[str, ...]:
    """The attacker beset: its other enemies (up to three) and then the target, as its own attackers this
    round (the plans must not change with them, :func:`check_own_plan`)."""
    return (*own_foes(setup, attacker, target), target)


def check_own_attackers(
    attacker: str, target: str, found: dict[Any, Fraction], present: dict[Any, Fraction]
) -> None:
    """MF-FUMBLE-2 with ODD-AC-SHIELD: refuse an attack that can draw a blow back whose resolution with the
    target among the attacker's own attackers (`present`, after the cell's others) differs from the
    cell's (`found`: the same others, the target not among them): J cannot tell them apart."""
    if found != present:
        raise Unsupported(
            f"a blow back (MF-FUMBLE-2) by {target} on {attacker} changes with whether {target} has attacked"
            f" {attacker} this round, not only with {target}'s place among {attacker}'s attackers"
            f" (ODD-AC-SHIELD): not carried by the fast tables"
        )


def check_present_plan(attacker: str, target: str, plan: object, present: object) -> None:
    """ODD-AC-SHIELD, MF-FUMBLE-2: the attacker may be among the target's attackers already (it struck the
    target back this round); K then gives its place there, and the plan found that way (`present`) must be
    the cell's, planned with as many others and the attacker not among them (`plan`)."""
    if plan != present:
        raise Unsupported(
            f"{attacker}'s attack on {target} changes once {attacker} has struck {target} back this round"
            f" (MF-FUMBLE-2), not only with its place among {target}'s attackers (ODD-AC-SHIELD): not"
            f" carried by the fast tables"
        )


def check_own_plan(attacker: str, target: str, plan: object, beset: object) -> None:
    """Refuse an attack whose plan (or the tactics' choice) changes once the attacker has been attacked this
    round (`beset`, as :func:`own_attackers` leaves it): the tables plan every attack with the attacker
    unattacked. E.g. an invisible target is found once it attacked the attacker (MOD-COND-INVIS-1,
    MF-VIS-2), an exhausted attacker may defend itself (MOD-COND-EXHAUSTED)."""
    if plan != beset:
        raise Unsupported(
            f"{attacker}'s attack on {target} changes once {attacker} has been attacked this round (by"
            f" {target}, found as it attacks, MOD-COND-INVIS-1, MF-VIS-2; or defended against,"
            f" MOD-COND-EXHAUSTED): not carried by the fast tables"
        )
