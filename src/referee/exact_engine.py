"""The exact distribution of a whole fight, computed by running the event engine itself.

Nothing here restates a rule. The fight is walked forward one engine step at a time (set-up, round
start, each action the default tactics choose, end of round: :meth:`Fight.step`). Each step is a
procedure of its dice (:mod:`referee.chance`): for every live state, :func:`chance.distribution` runs
the step on a fresh copy of the fight (the event log replayed into a new :class:`Fight`) once per
sequence of faces, and the resulting fights are grouped by a *state key*. The probability mass of
each key is carried to the next step; finished fights add up into wins per side, draws (no side
left), the round limit and the round the fight ended in.

The state key is conservative: every field of :class:`FightState` and of each
:class:`CombatantState` (conditions with their rounds and data, positions, who attacked whom this
round, deflections, charges, movement, surprise, the order, who acted, the current slot, ODD-INIT-3's
simultaneous actors...), except the event count, the fixed setup and the back-references. Only this
round's initiative rolls (`FightState.rolls`) are left out, because they would split every state ten
ways per combatant although the default tactics never read them after the order is made; that is
checked, not assumed: the inherited rolls are watched on every step, and if any rule reads them
the walk starts again with the rolls in the key.

It is slow (about a millisecond of engine time per dice sequence of a step) and meant for small
fights: the oracle the exact odds (:mod:`referee.odds`) and the simulator (:mod:`referee.sim`) are
checked against, and the exact answer for small fights the Markov chain refuses. Its budgets (live
states, dice sequences in one step, dice sequences in the whole walk) are checked before each step
from an estimate and as it goes from the counts; a fight over budget is refused with
:class:`ExactEngineBudget`, never truncated.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from fractions import Fraction
from typing import Any, cast

from referee import chance
from referee.dice import DiceSource
from referee.engine import tactics
from referee.engine.actions import Action
from referee.engine.events import Event, EventType
from referee.engine.fight import Fight
from referee.engine.state import CombatantState, FightState
from referee.errors import RefereeError
from referee.setup import Setup

DEFAULT_MAX_STATES = 50_000  # live (distinct, unfinished) states after one step
DEFAULT_MAX_SEQUENCES = 100_000  # dice sequences one step of one state may have
DEFAULT_MAX_WORK = 2_000_000  # dice sequences of the whole walk (about half an hour of engine time)

# Fields that are not part of where the fight stands: the fixed setup, the fold's event counter, each
# combatant's fixed description and its back-reference to the fight.
_NOT_STATE: dict[type, frozenset[str]] = {
    FightState: frozenset({"setup", "event_count"}),
    CombatantState: frozenset({"spec", "fight"}),
}
_WITHOUT_ROLLS = {**_NOT_STATE, FightState: _NOT_STATE[FightState] | {"rolls"}}

Choose = Callable[[FightState, str], Action]


class ExactEngineBudget(RefereeError, ValueError):
    """The exact walk of the engine would go over one of its budgets (refused, never truncated)."""


@dataclass(frozen=True)
class ExactFight:
    """Exact chances of a whole fight played by the engine with the default tactics (Fractions)."""

    wins: dict[str, Fraction]
    draw: Fraction  # no side left standing
    limit: Fraction  # the round limit ended the fight
    rounds: dict[int, Fraction]  # the round the fight ended in
    states: int  # distinct unfinished states visited
    sequences: int  # dice sequences run through the engine
    rolls_in_key: bool = False  # True when a rule read the initiative rolls, so they were keyed

    def total(self) -> Fraction:
        """The whole mass (1 exactly, unless something is wrong)."""
        return sum(self.wins.values(), Fraction(0)) + self.draw + self.limit

    def to_dict(self) -> dict[str, Any]:
        return {
            "wins": {side: float(p) for side, p in self.wins.items()},
            "draw": float(self.draw),
            "limit": float(self.limit),
            "rounds": {str(n): float(p) for n, p in sorted(self.rounds.items()) if p},
            "states": self.states,
            "sequences": self.sequences,
        }


def exact_fight(
    setup: Setup,
    *,
    max_states: int = DEFAULT_MAX_STATES,
    max_sequences: int = DEFAULT_MAX_SEQUENCES,
    max_work: int = DEFAULT_MAX_WORK,
    choose: Choose | None = None,
) -> ExactFight:
    """The exact outcome distribution of `setup` played by the event engine (:func:`run_fight`'s fight).

    `choose` picks every action (default: :func:`tactics.choose_action`, looked up at call time).
    Raises :class:`ExactEngineBudget` when more than `max_states` unfinished states would be live at
    once, one step of one state has more than `max_sequences` dice sequences, or the whole walk would
    run more than `max_work` (checked before each step of the walk from an estimate: the first
    state's sequences times the number of states still to step).
    """
    budgets = _Budgets(max_states, max_sequences, max_work)
    if min(max_states, max_sequences, max_work) < 1:
        raise ExactEngineBudget(f"budgets must be at least 1 ({budgets})")
    try:
        return _Walk(setup, choose, budgets, rolls_in_key=False).run()
    except _RollsWereRead:
        # a rule read initiative rolls inherited from an earlier step: keying them is needed
        return _Walk(setup, choose, budgets, rolls_in_key=True).run()


# --- the state key ---------------------------------------------------------------------------------


def state_key(fight: Fight, *, rolls: bool = True) -> Hashable:
    """Where `fight` stands: every field of its state (but the event count and the setup), hashable.

    `rolls=False` leaves out this round's initiative rolls (see the module docstring for the check
    that makes this safe)."""
    return (fight.has_begun(), _frozen(fight.state, _NOT_STATE if rolls else _WITHOUT_ROLLS))


def _frozen(value: Any, skip: Mapping[type, frozenset[str]]) -> Hashable:
    """A hashable image of a piece of state; containers keep their order (sets are sorted)."""
    if type(value) in _PLAIN:
        return cast(Hashable, value)
    if is_dataclass(value) and not isinstance(value, type):
        left_out = skip.get(type(value), frozenset())
        return (
            type(value).__name__,
            tuple(
                (f.name, _frozen(getattr(value, f.name), skip))
                for f in fields(value)
                if f.name not in left_out
            ),
        )
    if isinstance(value, Mapping):
        return ("map", tuple((_frozen(k, skip), _frozen(v, skip)) for k, v in value.items()))
    if isinstance(value, set | frozenset):
        return ("set", tuple(sorted((_frozen(v, skip) for v in value), key=repr)))
    if isinstance(value, list | tuple):
        return ("seq", tuple(_frozen(v, skip) for v in value))
    try:
        hash(value)
    except TypeError:
        raise RefereeError(f"the exact walk cannot key a {type(value).__name__} in the fight state") from None
    return cast(Hashable, value)  # any other hashable value (an enum, a frozen record) keys itself


_PLAIN = {str, int, float, bool, type(None)}


# --- the walk --------------------------------------------------------------------------------------


class _RollsWereRead(Exception):
    """A step read initiative rolls the key had left out."""


class _WatchedRolls(dict[str, int]):
    """The initiative rolls inherited by a step, noting whether anything reads them."""

    read = False

    def _saw(self) -> None:
        type(self).read = True  # a class flag: one step runs at a time, it is reset before each

    def __getitem__(self, key: str) -> int:
        self._saw()
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self._saw()
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        self._saw()
        return super().__contains__(key)

    def __iter__(self) -> Iterator[str]:
        self._saw()
        return super().__iter__()

    def __len__(self) -> int:
        self._saw()
        return super().__len__()

    def keys(self) -> Any:
        self._saw()
        return super().keys()

    def values(self) -> Any:
        self._saw()
        return super().values()

    def items(self) -> Any:
        self._saw()
        return super().items()

    def copy(self) -> dict[str, int]:
        self._saw()
        return dict(super().items())

    def __eq__(self, other: object) -> bool:
        self._saw()
        return super().__eq__(other)

    __hash__ = None  # as a dict: not hashable


@dataclass(frozen=True)
class _Ended:
    """How a finished fight ended (the key finished fights are grouped by)."""

    winner: str | None
    reason: str
    round: int


@dataclass
class _Outcomes:
    """One state's step: each next key's chance and a fight (its events) that stands there."""

    chances: dict[Hashable, Fraction]
    events: dict[Hashable, tuple[Event, ...]]


@dataclass(frozen=True)
class _Budgets:
    max_states: int
    max_sequences: int
    max_work: int

    def __str__(self) -> str:
        return f"max_states {self.max_states:,}, max_sequences {self.max_sequences:,}, max_work {self.max_work:,}"


class _RandomPath:
    """Dice for one random way through a step; `ways` multiplies the faces of every die asked for."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.ways = 1

    def roll(self, sides: int, purpose: str) -> int:
        self.ways *= sides
        return self.rng.randint(1, sides)


PROBES = 4  # random ways through a step that estimate its number of dice sequences


@dataclass
class _Walk:
    setup: Setup
    choose: Choose | None
    budgets: _Budgets
    rolls_in_key: bool
    memo: dict[Hashable, _Outcomes] = field(default_factory=dict)
    sequences: int = 0
    rng: random.Random = field(default_factory=lambda: random.Random(0))  # estimates only, never results

    def run(self) -> ExactFight:
        frontier: dict[Hashable, tuple[tuple[Event, ...], Fraction]] = {
            self.key(Fight(self.setup)): ((), Fraction(1))
        }
        wins = {side: Fraction(0) for side in self.setup.sides}
        draw = limit = Fraction(0)
        rounds: dict[int, Fraction] = {}
        while frontier:
            self.check_level(frontier)
            following: dict[Hashable, tuple[tuple[Event, ...], Fraction]] = {}
            for key, (events, mass) in frontier.items():
                outcomes = self.memo.get(key)
                if outcomes is None:
                    outcomes = self.memo[key] = self.step(events)
                for after, p in outcomes.chances.items():
                    share = mass * p
                    if isinstance(after, _Ended):
                        rounds[after.round] = rounds.get(after.round, Fraction(0)) + share
                        if after.winner is not None:
                            wins[after.winner] += share
                        elif after.reason == "round limit":
                            limit += share
                        else:
                            draw += share
                        continue
                    if after == key:  # a step that changes nothing would be walked for ever
                        raise RefereeError(f"a step of {self.setup.name!r} left the fight where it was")
                    held = following.get(after)
                    following[after] = (outcomes.events[after], share + (held[1] if held else 0))
                    if len(following) > self.budgets.max_states:
                        raise ExactEngineBudget(
                            f"the exact walk of {self.setup.name!r} has more than"
                            f" {self.budgets.max_states:,} live states after one step"
                        )
            frontier = following
        return ExactFight(wins, draw, limit, dict(sorted(rounds.items())), len(self.memo), self.sequences,
                          self.rolls_in_key)  # fmt: skip

    # --- budgets -----------------------------------------------------------------------------------

    def check_level(self, frontier: Mapping[Hashable, tuple[tuple[Event, ...], Fraction]]) -> None:
        """Before a step of the walk: estimate one state's sequences (Knuth's estimator: the mean, over
        random ways through the step, of the product of the dice's faces) and refuse up front if one
        step, or this step for every state still to take it, would go over budget."""
        unseen = [events for key, (events, _) in frontier.items() if key not in self.memo]
        if not unseen:
            return
        run = self.runner(unseen[0])
        ways = 0
        for _ in range(PROBES):
            path = _RandomPath(self.rng)
            run(path)
            ways += path.ways
        estimate = ways // PROBES
        if estimate > self.budgets.max_sequences:
            raise ExactEngineBudget(
                f"one step of {self.setup.name!r} has about {estimate:,} dice sequences, more than"
                f" {self.budgets.max_sequences:,}"
            )
        self.check_work(estimate * len(unseen))

    def check_work(self, still_to_come: int) -> None:
        expected = self.sequences + still_to_come
        if expected > self.budgets.max_work:
            raise ExactEngineBudget(
                f"the exact walk of {self.setup.name!r} needs more than {self.budgets.max_work:,} dice"
                f" sequences (about {expected:,} by the end of the next step)"
            )

    # --- one step ----------------------------------------------------------------------------------

    def key(self, fight: Fight) -> Hashable:
        return state_key(fight, rolls=self.rolls_in_key)

    def runner(self, events: tuple[Event, ...]) -> Callable[[DiceSource], Fight]:
        """The next step from where `events` stand, as a procedure of its dice: each call takes the step
        on a fresh copy of the fight (the log replayed) and returns that fight."""
        choose = self.chosen(Fight(self.setup, events))

        def run(dice: DiceSource) -> Fight:
            fight = Fight(self.setup, events)
            self.watch_rolls(fight)
            fight.step(choose, dice)
            self.check_rolls_unread()
            return fight

        return run

    def step(self, events: tuple[Event, ...]) -> _Outcomes:
        """Every dice sequence of the next step from where `events` stand, grouped by key."""
        seen: dict[Hashable, tuple[Event, ...]] = {}
        run = self.runner(events)

        def one_step(dice: DiceSource) -> Hashable:
            fight = run(dice)
            self.sequences += 1
            if self.sequences > self.budgets.max_work:
                self.check_work(0)
            after = _ended(fight) if fight.is_over() else self.key(fight)
            if after not in seen:
                seen[after] = tuple(fight.events)
            return after

        try:
            chances = chance.distribution(one_step, self.budgets.max_sequences, "one step")
        except chance.TooManyOutcomes:
            raise ExactEngineBudget(
                f"one step of {self.setup.name!r} (round {Fight(self.setup, events).round}) has more than"
                f" {self.budgets.max_sequences:,} dice sequences"
            ) from None
        return _Outcomes(chances, seen)

    def chosen(self, fight: Fight) -> Choose:
        """The tactics' choice for this state, asked once: it takes no dice, so every sequence of the
        step gets the same action (asking again per sequence would only repeat the same work)."""
        choose = self.choose or tactics.choose_action
        actor = fight.next_actor() if fight.needs() == "action" else None
        if actor is None:
            return choose
        self.watch_rolls(fight)
        action = choose(fight.state, actor)
        self.check_rolls_unread()
        return lambda state, name: action

    def watch_rolls(self, fight: Fight) -> None:
        """Left out of the key, inherited initiative rolls are watched: a read means they matter."""
        if not self.rolls_in_key:
            _WatchedRolls.read = False
            fight.state.rolls = _WatchedRolls(fight.state.rolls)

    def check_rolls_unread(self) -> None:
        if not self.rolls_in_key and _WatchedRolls.read:
            raise _RollsWereRead


def _ended(fight: Fight) -> _Ended:
    ends = [e for e in fight.events if e.type is EventType.FIGHT_END]
    reason = str(ends[-1].data.get("reason", "")) if ends else ""
    return _Ended(fight.state.winner, reason, fight.state.round)
