"""Exact odds of one declared attack, and of a whole small fight, from the engine's own procedures.

- :mod:`referee.odds.attack`: one attack — the engine's attack roll and damage roll
  (:mod:`referee.rules.attack_roll`) enumerated over every die (:func:`referee.chance.distribution`),
  read against the engine's plan of the attack;
- :mod:`referee.odds.encounter`: starting hit points (:func:`rules.hit_points.roll_hit_points` over
  every face), the opening state, one attack at the start of an encounter;
- :mod:`referee.odds.plans` and :mod:`referee.odds.chain`: a whole small fight as a Markov chain
  (``docs/odds.md``), its attacks compiled from the engine's real resolution
  (:mod:`referee.engine.outcomes`), its initiative, target choice and end from :mod:`referee.rules`;
- :mod:`referee.odds.whole`: a whole fight's odds: the chain, else (within a small budget) the exact walk
  of the event engine itself (:mod:`referee.exact_engine`);
- :mod:`referee.odds.dice`: the fast path for pure sums (icepool).

Probabilities are :class:`fractions.Fraction` (floats for whole fights unless asked for exactly).
Anything beyond the model is refused with the reason (:class:`OddsError`), never answered under other rules.
"""

from __future__ import annotations

from referee.odds.attack import (
    ENUMERATION_LIMIT,
    ActionOdds,
    Outcome,
    action_odds,
    attack_outcomes,
    drop_statuses,
    hit_damage,
    plan_odds,
)
from referee.odds.encounter import encounter_action_odds, opening_state, starting_hit_points
from referee.odds.errors import OddsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from referee.odds.chain import FLOAT_CUTOFF, MAX_CELLS, MAX_ORDERS, FightOdds
    from referee.odds.dice import dice_die, die_fractions
    from referee.odds.whole import WALK_MAX_WORK, fight_odds

_CHAIN = ("FLOAT_CUTOFF", "MAX_CELLS", "MAX_ORDERS", "FightOdds")
_WHOLE = ("WALK_MAX_WORK", "fight_odds")
_DICE = ("dice_die", "die_fractions")


def __getattr__(name: str) -> Any:
    # The whole-fight chain (and numpy) is imported on first use: one attack's odds need neither; nor does
    # a whole fight need icepool (one attack's damage sum).
    if name in _DICE:
        from referee.odds import dice

        value = getattr(dice, name)
        globals()[name] = value
        return value
    if name in _CHAIN or name in _WHOLE:
        from referee.odds import chain, whole

        value = getattr(chain if name in _CHAIN else whole, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'referee.odds' has no attribute {name!r}")


__all__ = [
    "ENUMERATION_LIMIT",
    "FLOAT_CUTOFF",
    "MAX_CELLS",
    "MAX_ORDERS",
    "WALK_MAX_WORK",
    "ActionOdds",
    "FightOdds",
    "OddsError",
    "Outcome",
    "action_odds",
    "attack_outcomes",
    "dice_die",
    "die_fractions",
    "drop_statuses",
    "encounter_action_odds",
    "fight_odds",
    "hit_damage",
    "opening_state",
    "plan_odds",
    "starting_hit_points",
]
