"""Hit points at set-up (ODD-HD-1, ODD-HD-2), defeat and subdual damage (ODD-HP-1, GAP-HP-ZERO,
GAP-SUBDUAL, MF-KO-1)."""

from __future__ import annotations

from referee.dice import DiceSource, roll
from referee.model import Combatant
from referee.rules.options import ZeroHp
from referee.rules.ruleset import Ruleset

ACTIVE = "active"
UNCONSCIOUS = "unconscious"
DEAD = "dead"


def roll_hit_points(c: Combatant, dice: DiceSource) -> int:
    """A combatant's hit points when the fight begins: the encounter's fixed number, else a roll of its
    hit dice (ODD-HD-1: one die per level or hit die; ODD-HD-2: at least 1), else 1."""
    if c.hp is not None:
        return c.hp
    if c.hp_dice:
        return max(1, roll(c.hp_dice, dice, f"hit points {c.name}").total)
    return 1


def status_after_damage(
    hp_after: int, subdual_after: int, is_monster: bool, ruleset: Ruleset, knockout: bool = False
) -> str:
    """The status a combatant has with these hit points.

    ODD-HP-1 with GAP-HP-ZERO (option `zero_hp`): monsters die at 0; characters fall unconscious from
    0 to -9 and die at -10, or everyone dies at 0. MF-KO-1: a knock-out leaves the target unconscious.
    GAP-SUBDUAL: subdual damage at or above the current hit points knocks out.
    """
    if hp_after <= 0:
        if knockout:
            return UNCONSCIOUS
        if ruleset.zero_hp is ZeroHp.DIE_AT_ZERO or is_monster:
            return DEAD
        return DEAD if hp_after <= -10 else UNCONSCIOUS
    if subdual_after >= hp_after:
        return UNCONSCIOUS
    return ACTIVE


def status_after_healing(status: str, hp_after: int, subdual_after: int) -> str:
    """The status after hit points are regained (ODD-HP-1 with GAP-HP-ZERO read backwards, GAP-SUBDUAL):
    an unconscious combatant whose hit points are above 0 and above its subdual damage wakes; the dead
    stay dead (healing does not raise them); anyone else keeps the status it has."""
    if status == UNCONSCIOUS and hp_after > 0 and subdual_after < hp_after:
        return ACTIVE
    return status


def healed_hit_points(hp: int, max_hp: int, amount: int) -> int:
    """Hit points after healing `amount`: never above the maximum (ODD-HD-2: a creature's hit points are
    what it rolled; healing restores lost points, it adds none)."""
    return max(hp, min(max_hp, hp + amount))
