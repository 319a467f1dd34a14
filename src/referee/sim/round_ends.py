"""Ends of rounds that roll dice or do more than end conditions: drowning (MF-DROWN-2, MF-DROWN-3,
GAP-DROWN: the breath fixed at the end of round 1 with a d4, then a Luck (Con) save each round once it
has run out, death on a failure).

Such an end of round reads the round's number, so it is compiled per round: for each combatant's kind,
each of its states (:mod:`referee.sim.states`), each round of the fight and whether it is standing, the
exact distribution of the engine's own end of round (:func:`outcomes.round_end_step`, walked by
:func:`referee.chance.distribution`) in a probe where it alone can act — the others are down, so that
their dice are not walked with its own (each combatant's end of round depends only on its own state,
whether it stands and the round: `tests/sim/test_round_ends.py` checks it against the whole probe).
What it does is read as the state events on it (folded by the caller) and the status it is left with;
anything else is refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from referee import chance
from referee.engine import outcomes
from referee.engine.events import Event, EventType
from referee.files import Setup
from referee.sim.tables import Packed, Table, Unsupported, to_table

# What one combatant's end of round does: the state events on it (conditions put on and ending) and the
# status it is left with (None: unchanged; MF-DROWN-3: dead).
RoundEndEffects = tuple[outcomes.StateEvents, str | None]
# Per round (from 1), (down, standing): the distribution of (the state it is left in, its status).
RoundEnds = tuple[tuple[dict[tuple[int, str | None], Fraction], dict[tuple[int, str | None], Fraction]], ...]


def _ends_a_condition(e: Event) -> bool:
    return e.type is EventType.CONDITION and not e.data.get("added", True)


def rolls_at_round_end(setup: Setup) -> bool:
    """Whether the engine's end of round 1 of the fight as it starts rolls dice or does more than end
    conditions (MF-DROWN-2: the breath is fixed then): if so the ends of rounds are compiled per round."""
    probe = outcomes.probe_state(setup)
    dice = chance.PrefixDice([])
    ended = outcomes.round_end_events(probe, dice)
    return bool(dice.faces) or not all(_ends_a_condition(e) for e in ended)


def read_round_end(events: Sequence[Event], name: str, number: int) -> RoundEndEffects:
    """What the end of round `number` did to `name` (MF-DROWN-2/3: its breath, a save, drowning);
    refused where it does anything else, or anything but end a condition of another."""
    mine: list[Event] = []
    status: str | None = None
    for e in events:
        if name not in (e.target, e.actor):
            if not _ends_a_condition(e):
                raise Unsupported(f"the end of round {number} changes {e.target or e.actor} ({e.text})")
            continue
        if e.type is EventType.CONDITION and e.target == name:
            mine.append(e)
        elif e.type is EventType.DEFEAT and e.target == name:
            status = str(e.data["status"])
        elif e.type is not EventType.CHECK:  # a check (the Luck save) changes nothing of itself
            raise Unsupported(
                f"the end of round {number} does more to {name} than the tables carry ({e.text})"
            )
    return outcomes.state_events(mine, name, number), status


def round_end_distribution(
    setup: Setup, name: str, mark: outcomes.Mark, number: int, standing: bool
) -> dict[RoundEndEffects, Fraction]:
    """The exact distribution of what the engine's end of round `number` does to `name` in state `mark`,
    standing or down (MF-DROWN-2: only the standing hold their breath), everyone else down."""
    others = [c.name for c in setup.combatants if c.name != name]
    probe = outcomes.probe_state(
        setup, number=number, marks={name: mark}, down=others if standing else [*others, name]
    )
    step = outcomes.round_end_step(probe)
    return chance.distribution(
        lambda dice: read_round_end(step(dice), name, number), what=f"the end of round {number} for {name}"
    )


def folded(
    setup: Setup, name: str, mark: outcomes.Mark, number: int, key: outcomes.StateEvents
) -> outcomes.Mark:
    """The state `name` in `mark` is left in after round `number` by the state events `key` of its end
    (a condition that ends gone, the rest a round shorter)."""
    probe = outcomes.probe_state(setup, number=number, marks={name: mark})
    outcomes.fold_state_events(probe, name, key)
    return outcomes.mark_of(probe[name], number + 1)


@dataclass(frozen=True)
class RoundDraws:
    """The ends of rounds compiled per round: `index` (max_rounds + 1, C, W, standing 0/1) → a table of
    `table` (row 0 unused: no free round here), whose entries are outcome codes: the state each is left
    in (`next_state`) and its status (`status`, None: unchanged)."""

    index: npt.NDArray[np.int32]
    table: Packed
    next_state: npt.NDArray[np.int32]
    status: tuple[str | None, ...]


def round_draws(kinds: Sequence[str], width: int, ends: Mapping[str, Sequence[RoundEnds]]) -> RoundDraws:
    """MF-DROWN-2/3: :class:`RoundDraws` from `ends[kind][state][round - 1][standing]`, each a distribution of (next
    state, status); a state a kind never reaches is never looked up (it holds the first state's)."""
    codes: dict[tuple[int, str | None], int] = {}
    shared: dict[tuple[tuple[int, Fraction], ...], int] = {}
    made: list[Table] = []
    rounds = len(next(iter(ends.values()))[0])
    index = np.zeros((rounds + 1, len(kinds), width, 2), dtype=np.int32)
    for i, kind in enumerate(kinds):
        for w in range(width):
            by_round = ends[kind][w if w < len(ends[kind]) else 0]
            for number, pair in enumerate(by_round, start=1):
                for standing, dist in enumerate(pair):
                    coded = tuple(sorted((codes.setdefault(o, len(codes)), p) for o, p in dist.items()))
                    if coded not in shared:
                        shared[coded] = len(made)
                        made.append(to_table(dict(coded)))
                    index[number, i, w, standing] = shared[coded]
    return RoundDraws(
        index, Packed.of(made), np.array([w for w, _ in codes], dtype=np.int32), tuple(s for _, s in codes)
    )
