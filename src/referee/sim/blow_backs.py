"""What the attack tables cannot carry about a free attack back (MF-FUMBLE-2), refused where it can change
an answer (the event engine plays those encounters instead).

The tables resolve an attack with the attacker's own attackers this round left out, and the kernels count
the attacks each combatant received this round, not its distinct attackers. Both are exact except where:

(a) a blow back meets the attacker's shield as its own attackers leave it (ODD-AC-SHIELD: a shield covers
    its first attackers of the round; the one who strikes back may find it taken) — or anything else in
    the blow back reads who attacked the attacker this round. Checked on every resolution that can strike
    back, against the attacker beset by up to three of its other enemies and then the target itself
    (:func:`own_attackers`, the most a shield covers): a difference is refused.
(b) the count of attacks on a combatant runs ahead of its distinct attackers. That happens only when one
    who is already among its attackers strikes it back (its attack drew the blow back), or one who struck
    it back attacks it later in the round: the struck one is always an attacker whose attacks can draw a
    blow back. With one enemy only, the tables' cells for the enemy already counted are the ones it reads
    (sim/attacks.py compiles a count beyond the other foes as the fewer, or with the attacker's own blow
    back among them). So it is refused where a combatant with several enemies can draw a blow back and
    the attacks on it change with the count of its earlier attackers (:func:`check_distinct_attackers`).

The same probe checks every attack's plan (:func:`check_own_plan`): the tables plan it with the attacker
unattacked, refused where being attacked changes it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from referee.files import Setup
from referee.sim.tables import MAX_EARLIER_ATTACKERS, SimOutcome, Unsupported


def own_attackers(setup: Setup, attacker: str, target: str) -> tuple[str, ...]:
    """(a): the attacker's other enemies (up to three) and then the target, as attackers of the attacker
    this round: the shield they leave the attacker takes a blow back by the target last (ODD-AC-SHIELD)."""
    side = next(c.side for c in setup.combatants if c.name == attacker)
    others = [c.name for c in setup.combatants if c.side != side and c.name != target]
    return (*others[:MAX_EARLIER_ATTACKERS], target)


def check_own_attackers(
    attacker: str, target: str, found: dict[Any, Fraction], beset: dict[Any, Fraction]
) -> None:
    """(a), MF-FUMBLE-2 with ODD-AC-SHIELD: refuse an attack that can draw a blow back whose resolution
    changes when the attacker has attackers of its own this round (`beset`) from the tables' (`found`)."""
    if found != beset:
        raise Unsupported(
            f"a blow back (MF-FUMBLE-2) by {target} on {attacker} meets {attacker}'s shield as its own attackers"
            f" this round leave it (ODD-AC-SHIELD): not carried by the fast tables"
        )


def check_distinct_attackers(
    plans: npt.NDArray[np.int32], dists: list[dict[SimOutcome, Fraction]], enemy: npt.NDArray[np.bool_],
    names: list[str],
) -> None:  # fmt: skip
    """(b), MF-FUMBLE-2 with ODD-AC-SHIELD: refuse where a combatant with several enemies makes attacks that
    can draw a blow back (outcomes with attacks back) and the attacks on it change with the count of its
    earlier attackers this round (`plans`: (P, C, C, K, ...), every phase and routine step)."""
    if plans.shape[3] < 2:
        return  # the count of earlier attackers changes no attack
    for a in range(len(names)):
        if int(enemy[a].sum()) < 2 or (plans[:, :, a] == plans[:, :, a, :1]).all():
            continue
        mine = set(plans[:, a].ravel().tolist()) - {-1}
        if any(o[2] for pid in mine for o in dists[pid]):
            raise Unsupported(
                f"{names[a]}'s attacks can draw a blow back (MF-FUMBLE-2) and the attacks on {names[a]} change"
                f" with its earlier attackers this round (ODD-AC-SHIELD): the fast tables count the attacks"
                f" it received, not its distinct attackers"
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
