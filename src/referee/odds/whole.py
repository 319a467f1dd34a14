"""The exact odds of a whole fight: the Markov chain (:mod:`referee.odds.chain`), else the engine's walk.

The chain is fast but carries only hit points (and attackers so far this round), so it refuses what it
cannot model (docs/odds.md, "What the model refuses"). The exact walk of the event engine itself
(:mod:`referee.exact_engine`) models everything the engine does, at about a tenth of a millisecond per
dice sequence, so a small fight the chain refuses is walked within a small budget (:data:`WALK_MAX_WORK`
dice sequences), and the answer says which path gave it (:attr:`FightOdds.path`). Over that budget
too, the refusal gives both reasons.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from referee.odds.chain import WALK, FightOdds, chain_odds
from referee.odds.errors import OddsError
from referee.odds.plans import SIM
from referee.setup import Setup

# The engine walk's budgets for a fight the chain refuses (referee.exact_engine.exact_fight): a few
# seconds at most (a 1-vs-1 at 3 hit points a side over 3 rounds is about 9,000 sequences: 1 s).
WALK_MAX_STATES = 5_000  # live states after one step
WALK_MAX_SEQUENCES = 5_000  # dice sequences of one step of one state
WALK_MAX_WORK = 10_000  # dice sequences of the whole walk


def fight_odds(setup: Setup, *, exact: bool = False, walk: bool = True) -> FightOdds:
    """Exact odds of a small fight run by :func:`engine.fight.run_fight` with the default tactics: the
    chain's, or, where the chain refuses and `walk` is on, the engine walk's within its budget
    (WALK_MAX_STATES, WALK_MAX_SEQUENCES, WALK_MAX_WORK).

    `exact=True` gives Fractions (the chain then computes in Fractions: small fights); otherwise floats.
    Raises OddsError when neither answers (with both reasons).
    """
    try:
        return chain_odds(setup, exact=exact)
    except OddsError as refused:
        if not walk:
            raise
        reason = str(refused)
    from referee.exact_engine import ExactEngineBudget, exact_fight

    try:
        walked = exact_fight(
            setup, max_states=WALK_MAX_STATES, max_sequences=WALK_MAX_SEQUENCES, max_work=WALK_MAX_WORK
        )
    except ExactEngineBudget as over:
        head = reason.split(f"; {SIM}")[0]
        raise OddsError(
            f"{head}; the exact walk of the engine is over its budget too ({over}); {SIM}"
        ) from None

    def number(p: Fraction) -> Any:
        return p if exact else float(p)

    return FightOdds(
        wins={side: number(p) for side, p in walked.wins.items()},
        draw=number(walked.draw),
        limit=number(walked.limit),
        rounds={n: number(p) for n, p in walked.rounds.items()},
        states=walked.states,
        exact=exact,
        path=WALK,
        refused=reason,
    )
