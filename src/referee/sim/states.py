"""The combatant states the attack tables carry, beyond hit points: armour damaged by criticals
(HR-ARMDMG-1..4) and conditions that come and go — a wounded sleeper wakes (MOD-COND-SLEEP-M), an archer
who fires is `firing_missile` to the end of the round (HR-MISSILE-3), a starting condition that lasts
some rounds (``{name: fatigued, rounds: 3}``).

Each kind of combatant (combatants alike but for their names) has a list of states, each an
:data:`outcomes.Mark` (its armour as the fold leaves it, its conditions with the rounds they have left);
index 0 is how it starts. A state is reached only through the engine's own events folded into a probe
(``FightState.apply``): the state events of an attack (:func:`outcomes.attack_effects`) and the end of a
round (:func:`outcomes.round_end_events`: the engine's end-of-round hooks and the conditions that end).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import numpy.typing as npt

from referee import chance
from referee.engine import conditions, outcomes
from referee.engine.events import EventType
from referee.engine.fight import START_OF_ROUND
from referee.files import Setup
from referee.sim import round_ends
from referee.sim.tables import Unsupported

# Start-of-round hooks the tables carry (sim/delays.py: the order segment delays re-make is the
# initiative tables'); any other that acts or rolls dice is refused
CARRIED_START_HOOKS = frozenset({conditions.segment_delays})
MAX_STATES = 24  # states of one kind of combatant the tables may carry (HR-ARMDMG-1..4, conditions)
PROBE_ROUND = 2  # the round the probes are made in: a state counts a condition's end from its round


class States:
    """Per kind of combatant its list of states (:data:`outcomes.Mark`) and the moves between them."""

    def __init__(self, setup: Setup, names: list[str], kinds: list[str]) -> None:
        self.setup = setup
        self.names = names
        self.kinds = kinds
        self.first_name = {kind: names[kinds.index(kind)] for kind in kinds}
        start = outcomes.probe_state(setup)  # round 1, the starting conditions as the set-up event has them
        self.lists: dict[str, list[outcomes.Mark]] = {
            kind: [outcomes.mark_of(start[name], 1)] for kind, name in self.first_name.items()
        }
        self._after: dict[tuple[str, int, outcomes.StateEvents], int] = {}
        self._round_end: dict[tuple[str, int], int] = {}
        # MF-DROWN-2/3: an end of round that rolls dice (or reads the round) is compiled per round
        self.per_round = round_ends.rolls_at_round_end(setup)
        self._ends: dict[tuple[str, int], round_ends.RoundEnds] = {}
        if self.per_round and setup.surprise is not None:
            raise Unsupported(
                "the end of a round rolls dice (drowning, MF-DROWN-2) and the fight may begin with a free"
                " round of surprise (ODD-SURP-4)"
            )
        if setup.surprise is not None:
            for name, mark in ((n, self.lists[k][0]) for k, n in self.first_name.items()):
                if any(left is not None for _, left, _ in mark[3]):
                    raise Unsupported(
                        f"{name} starts with a condition that ends after some rounds, and the fight may begin"
                        " with a free round of surprise (ODD-SURP-4)"
                    )

    def count(self) -> int:
        return sum(len(states) for states in self.lists.values())

    def widest(self) -> int:
        return max(len(states) for states in self.lists.values())

    def index(self, kind: str, mark: outcomes.Mark) -> int:
        """The index of `mark` in its kind's list (added if new; refused past :data:`MAX_STATES`)."""
        states = self.lists[kind]
        if mark in states:
            return states.index(mark)
        if len(states) >= MAX_STATES:
            raise Unsupported(
                f"{self.first_name[kind]} can be left in more than {MAX_STATES} states (armour damaged by"
                " criticals, HR-ARMDMG-1, and conditions that come and go)"
            )
        states.append(mark)
        return len(states) - 1

    def after(self, kind: str, state: int, key: outcomes.StateEvents) -> int:
        """The state a combatant of `kind` in `state` is left in by an attack's state events `key`."""
        found = self._after.get((kind, state, key))
        if found is None:
            name = self.first_name[kind]
            probe = outcomes.probe_state(
                self.setup, number=PROBE_ROUND, marks={name: self.lists[kind][state]}
            )
            outcomes.fold_state_events(probe, name, key)
            found = self.index(kind, outcomes.mark_of(probe[name], PROBE_ROUND))
            self._after[(kind, state, key)] = found
        return found

    def after_round(self, kind: str, state: int) -> int:
        """The state a combatant of `kind` in `state` is in after the end of a round (its conditions that
        end with it gone, the rest a round shorter); refused where a round hook acts in that state."""
        found = self._round_end.get((kind, state))
        if found is not None:
            return found
        name = self.first_name[kind]
        marks = {name: self.lists[kind][state]}
        probe = outcomes.probe_state(self.setup, number=PROBE_ROUND, marks=marks)
        for hook in (h for h in START_OF_ROUND if h not in CARRIED_START_HOOKS):
            dice = chance.PrefixDice([])
            if hook(probe, dice) or dice.faces:
                raise Unsupported(
                    f"a round hook acts when {name} is {_described(marks[name])} ({hook.__name__})"
                )
        if self.per_round:
            self.ends(kind, state)
            self._round_end[(kind, state)] = state  # the per-round tables say where it goes
            return state
        dice = chance.PrefixDice([])
        ended = outcomes.round_end_events(probe, dice)
        if dice.faces or any(e.type is not EventType.CONDITION or e.data.get("added", True) for e in ended):
            raise Unsupported(f"an end-of-round hook acts when {name} is {_described(marks[name])}")
        probe.apply_all(ended)
        found = self.index(kind, outcomes.mark_of(probe[name], PROBE_ROUND + 1))
        self._round_end[(kind, state)] = found
        return found

    def ends(self, kind: str, state: int) -> round_ends.RoundEnds:
        """MF-DROWN-2/3: per round 1..max_rounds, down and standing, the distribution of (the state a
        combatant of `kind` in `state` is left in, its status) after the engine's end of that round."""
        found = self._ends.get((kind, state))
        if found is not None:
            return found
        name, mark = self.first_name[kind], self.lists[kind][state]
        made = []
        for number in range(1, self.setup.max_rounds + 1):
            pair = []
            for standing in (False, True):
                try:
                    dist = round_ends.round_end_distribution(self.setup, name, mark, number, standing)
                except chance.TooManyOutcomes as exc:
                    raise Unsupported(str(exc)) from None
                moved: dict[tuple[int, str | None], Fraction] = {}
                for (key, status), p in dist.items():
                    after = self._folded(kind, state, number, key)
                    moved[(after, status)] = moved.get((after, status), Fraction(0)) + p
                pair.append(moved)
            made.append((pair[0], pair[1]))
        self._ends[(kind, state)] = found = tuple(made)
        return found

    def _folded(self, kind: str, state: int, number: int, key: outcomes.StateEvents) -> int:
        if not key:
            return state
        mark = round_ends.folded(self.setup, self.first_name[kind], self.lists[kind][state], number, key)
        return self.index(kind, mark)

    def round_draws(self) -> round_ends.RoundDraws | None:
        """The ends of rounds per round (MF-DROWN-2/3), or None: they are :meth:`round_end_table`'s."""
        if not self.per_round:
            return None
        ends = {kind: [self.ends(kind, w) for w in range(len(states))] for kind, states in self.lists.items()}
        return round_ends.round_draws(self.kinds, self.widest(), ends)

    def close_rounds(self) -> None:
        """The end-of-round move of every state known (which may add states)."""
        for kind, states in self.lists.items():
            w = 0
            while w < len(states):
                self.after_round(kind, w)
                w += 1

    def round_end_table(self) -> npt.NDArray[np.int32] | None:
        """(C, W): each combatant's state after the end of a round, or None where no state changes then
        (or the ends of rounds are compiled per round, :meth:`round_draws`)."""
        if self.per_round:
            return None
        width = self.widest()
        table = np.tile(np.arange(width, dtype=np.int32), (len(self.names), 1))
        for i, kind in enumerate(self.kinds):
            for w in range(len(self.lists[kind])):
                table[i, w] = self.after_round(kind, w)
        return table if (table != np.arange(width)).any() else None


def _described(mark: outcomes.Mark) -> str:
    loss, destroyed, shield, conditions = mark
    parts = [name for name, _, _ in conditions]
    if loss or destroyed or shield:
        parts.append("with damaged armour")
    return ", ".join(parts) or "unharmed"
