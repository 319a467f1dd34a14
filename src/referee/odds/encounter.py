"""An encounter before its first die: starting hit points, the opening state, one attack's odds."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction

from referee.dice import DiceSource
from referee.engine import outcomes
from referee.engine.actions import Attack
from referee.engine.state import FightState
from referee.files import Setup
from referee.odds.attack import ActionOdds, action_odds, distribution_of
from referee.rules import hit_points

_STARTING_HP: dict[tuple[str, tuple[tuple[str, str], ...]], dict[int, Fraction]] = {}


def starting_hit_points(setup: Setup, name: str) -> dict[int, Fraction]:
    """A combatant's hit points at set-up: :func:`rules.hit_points.roll_hit_points` over every face
    (ODD-HD-1, ODD-HD-2). Cached by the combatant's whole description and the ruleset (5d8 hit dice
    are 32,768 sequences)."""
    combatant = setup.combatant(name)
    key = (combatant.model_dump_json(), tuple(sorted((k, str(v)) for k, v in setup.ruleset.values.items())))
    if key not in _STARTING_HP:

        def hp(dice: DiceSource) -> int:
            return hit_points.roll_hit_points(combatant, dice)

        _STARTING_HP[key] = distribution_of(hp, f"{name}'s hit points")
    return dict(_STARTING_HP[key])


def opening_state(setup: Setup, hp: Mapping[str, int] | None = None) -> FightState:
    """The state at the start of round 1 with the given (or the highest possible) hit points
    (:func:`engine.outcomes.probe_state`: the engine's own set-up event, its starting conditions and all)."""
    chosen = dict(hp or {})
    for c in setup.combatants:
        if c.name not in chosen:
            chosen[c.name] = max(starting_hit_points(setup, c.name))
    return outcomes.probe_state(setup, chosen)


def encounter_action_odds(setup: Setup, action: Attack) -> ActionOdds:
    """Odds of an attack at the start of the encounter; the drop chance is averaged over the target's
    starting hit points when they are rolled."""
    state = opening_state(setup)
    odds = action_odds(state, action)
    drop: dict[str, Fraction] = {}
    for hp, p in starting_hit_points(setup, odds.target).items():
        at = action_odds(opening_state(setup, {odds.target: hp}), action)
        for status, q in at.drop_status.items():
            drop[status] = drop.get(status, Fraction(0)) + p * q
    return replace(odds, drop=sum(drop.values(), Fraction(0)), drop_status=drop)
