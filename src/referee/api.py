"""The library's public face: a fight taken one step at a time, as python-chess's ``Board`` is a game.

:class:`Fight` wraps the engine's fight (:class:`referee.engine.fight.Fight`, which the tracker uses
too) and adds what a program driving a fight wants: dice given as a plain list, whole steps
(:class:`Step`) that can be printed and taken back, the actions legal now, the dice a step will ask
for, and the exact odds of an attack. It restates no rule: every question is answered by the engine
itself, on the live state or on a dry run of a copy.

>>> fight = Fight.from_file("examples/duel.yaml", seed=3)
>>> fight.needs
'begin'
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee import render
from referee.chance import DieRequest, PrefixDice, TooManyOutcomes, dice_requests
from referee.dice import DiceSource, DieRoll, RandomDice, ScriptedDice, parse_script
from referee.engine.actions import Action, Attack
from referee.engine.events import Event
from referee.engine.fight import Fight as EngineFight
from referee.engine.registry import ACTION_TYPES
from referee.errors import DiceError, IllegalActionError, RefereeError
from referee.files import load_encounter
from referee.odds import action_odds
from referee.setup import Setup

if TYPE_CHECKING:
    from rich.text import Text

    from referee.engine.state import FightState
    from referee.odds import ActionOdds

# The dice a step may be given: None (the fight's own seeded dice), faces in the order the engine asks
# for them (None in the list: roll that one), a text such as "12,6", or any dice source.
Dice = DiceSource | Sequence[int | None] | str | None

# Action fields the facade knows how to fill when it lists the actions legal now; any other field
# keeps its default. Which filled-in action the rules accept is left to the engine.
CHOICE_FIELDS = ("target", "toward", "weapon", "form")

# Ways through a step that `dice_needed` walks before it settles for the lowest and highest rolls
# (each way is one dry run of the engine, about a millisecond; an attack has tens to hundreds).
WALK_LIMIT = 1_000


@dataclass(frozen=True, repr=False)
class Step:
    """One step of a fight (set-up, a round's start, an action, a round's end) and the events it made.

    ``str(step)`` is the plain account, with the rule IDs; :meth:`markdown` and :meth:`rich` render the
    same events for a chat message or a terminal.
    """

    kind: str  # begin, round, action or end_round
    events: tuple[Event, ...]
    action: Action | None = None

    @property
    def round(self) -> int:
        return self.events[-1].round if self.events else 0

    @property
    def dice(self) -> tuple[DieRoll, ...]:
        """Every die the step rolled, in the order it was asked for."""
        return tuple(d for e in self.events for d in e.dice)

    @property
    def rules(self) -> tuple[str, ...]:
        """The rule IDs the step cites (its events' rules and its modifiers' rules), first mention first."""
        cited = [r for e in self.events for r in (e.rule, *(m.rule for m in e.modifiers)) if r]
        return tuple(dict.fromkeys(cited))

    def text(self) -> str:
        return render.plain_account(self.events)

    def markdown(self) -> str:
        return render.markdown_account(self.events)

    def rich(self) -> Text:
        return render.rich_account(self.events)

    def __rich__(self) -> Text:  # rich's protocol: ``console.print(step)`` shows the styled account
        return self.rich()

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        who = f" by {self.action.actor}" if self.action is not None else ""
        count = len(self.events)
        return f"<Step {self.kind}{who}, round {self.round}: {count} event{'' if count == 1 else 's'}>"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "action": self.action.to_dict() if self.action is not None else None,
            "events": [e.to_dict() for e in self.events],
        }


@dataclass(frozen=True)
class CombatantSnapshot:
    """Where one combatant stands, copied out of the fight (it does not change as the fight goes on)."""

    name: str
    side: str
    hp: int
    max_hp: int
    subdual: int
    status: str  # active, unconscious, dead or fled
    conditions: tuple[str, ...] = field(default_factory=tuple)
    position: tuple[int, int] | None = None

    @property
    def is_active(self) -> bool:
        return self.status == "active"


class Fight:
    """A fight in progress, one step at a time. The state is always the fold of :attr:`events`.

    `seed` seeds the fight's own random dice, used wherever a step's `dice` is None (or runs out);
    `dice` replaces that source altogether.
    """

    def __init__(self, setup: Setup, *, seed: int | None = None, dice: DiceSource | None = None) -> None:
        self._engine = EngineFight(setup)
        self._random: DiceSource = dice if dice is not None else RandomDice(seed)
        self._steps: list[Step] = []

    @classmethod
    def from_file(cls, path: str | Path, *, seed: int | None = None, dice: DiceSource | None = None) -> Fight:
        """Load an encounter file (:func:`referee.files.load_encounter`) and start its fight."""
        return cls(load_encounter(path), seed=seed, dice=dice)

    def __repr__(self) -> str:
        need = f"{self.current}'s action" if self.needs == "action" else self.needs
        return f"<Fight {self.setup.name!r}, round {self.round}, next: {need}>"

    # --- where the fight stands ----------------------------------------------------------------------

    @property
    def setup(self) -> Setup:
        return self._engine.setup

    @property
    def state(self) -> FightState:
        """The engine's state (read it; change the fight only through the steps)."""
        return self._engine.state

    @property
    def events(self) -> tuple[Event, ...]:
        return tuple(self._engine.events)

    @property
    def steps(self) -> tuple[Step, ...]:
        return tuple(self._steps)

    @property
    def needs(self) -> str:
        """The next step: ``begin``, ``round``, ``action``, ``end_round`` or ``over``."""
        return self._engine.needs()

    @property
    def current(self) -> str | None:
        """The combatant whose slot it is, or None when no action is due."""
        return self._engine.next_actor() if self.needs == "action" else None

    @property
    def round(self) -> int:
        return self._engine.round

    @property
    def is_over(self) -> bool:
        return self._engine.is_over()

    @property
    def winner(self) -> str | None:
        return self.state.winner

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.setup.combatants)

    def combatant(self, name: str) -> CombatantSnapshot:
        """A copy of one combatant's hit points, status and conditions now."""
        c = self.state[self._known(name)]
        return CombatantSnapshot(
            name=c.name, side=c.side, hp=c.hp, max_hp=c.max_hp, subdual=c.subdual, status=c.status,
            conditions=tuple(sorted(c.conditions)), position=c.position,
        )  # fmt: skip

    # --- steps ---------------------------------------------------------------------------------------

    def begin(self, dice: Dice = None) -> Step:
        """Hit points (ODD-HD-1, ODD-HD-2), then surprise (ODD-SURP-1..5)."""
        return self.take("begin", dice)

    def start_round(self, dice: Dice = None) -> Step:
        """A new round and its initiative (ODD-ROUND-1, ODD-INIT-1..6)."""
        return self.take("round", dice)

    def act(self, action: Action, dice: Dice = None) -> Step:
        """One combatant's action in its initiative slot (ODD-ACT-1)."""
        return self.take("action", dice, action)

    def end_round(self, dice: Dice = None) -> Step:
        """The end of the round: conditions expire, maybe the fight ends (ODD-ROUND-4)."""
        return self.take("end_round", dice)

    def take(self, step: str, dice: Dice = None, action: Action | None = None) -> Step:
        """Take a named step (``begin``, ``round``, ``action`` with `action`, ``end_round``).

        A step is whole or nothing: if the rules refuse it, a die is outside its faces, or faces given
        as a list are left over (the referee and the engine disagree on the order of the dice), the
        fight is left as it was and the one-line error is raised.
        """
        if action is not None:
            self._known(action.actor)
        source = self._source(dice)
        scripted = source if isinstance(source, ScriptedDice) and isinstance(dice, str | Sequence) else None
        given = scripted.remaining if scripted is not None else 0  # faces given as a list or a text
        before = len(self._engine.events)
        try:
            self._engine.take(step, source, action)
            if scripted is not None and scripted.remaining:
                used = given - scripted.remaining
                raise DiceError(f"this step used {used} of the {given} dice given; remove the extra ones")
        except BaseException:
            self._engine.truncate(before)  # a step the engine began but could not finish
            raise
        made = Step(step, tuple(self._engine.events[before:]), action)
        self._steps.append(made)
        return made

    def undo(self) -> Step:
        """Take back the whole last step; return it."""
        if not self._steps:
            raise IllegalActionError("nothing to undo")
        last = self._steps.pop()
        self._engine.truncate(len(self._engine.events) - len(last.events))
        return last

    # --- questions -----------------------------------------------------------------------------------

    def is_legal(self, action: Action) -> bool:
        """Whether the rules accept `action` now (a dry run on a copy; nothing is rolled or kept)."""
        try:
            self._dry_run("action", action)(PrefixDice([]))
        except RefereeError:
            return False
        return True

    def legal_actions(self, name: str | None = None, kinds: Iterable[str] | None = None) -> list[Action]:
        """Every action `name` (default: the current combatant) may take now, as the engine judges it.

        Each registered action kind (or only those named in `kinds`, e.g. ``{"attack", "wait"}``) is
        filled in with every target, weapon (carried, or bare hands) and attack form; a dry run of the
        engine's step keeps those it accepts. Kinds that need free text (a spell, an item) or a
        referee's decision (out of turn) are not listed.
        """
        actor = self._known(name) if name is not None else self.current
        if actor is None or self.needs != "action":
            return []
        wanted = set(kinds) if kinds is not None else None
        legal: list[Action] = []
        seen: list[list[dict[str, Any]]] = []
        for candidate in self._candidates(actor):
            if wanted is not None and candidate.kind not in wanted:
                continue
            try:
                events = self._dry_run("action", candidate)(PrefixDice([]))
            except RefereeError:
                continue
            made = [e.to_dict() for e in events]
            if made not in seen:  # the same events: the same action, spelt out differently
                seen.append(made)
                legal.append(candidate)
        return legal

    def dice_needed(self, action: Action | None = None) -> list[DieRequest]:
        """The dice the next step (or `action`) will ask for, in order, with their purposes.

        `always` is False for a die asked only on some outcomes (damage after a hit). Found by walking
        a dry run of the step over the faces (:func:`referee.chance.dice_requests`); a step with too
        many ways through to walk (initiative for a crowd) lists the dice of its lowest and highest
        rolls, `always` where both ask for the same die.
        """
        step = "action" if action is not None else self.needs
        if step == "action" and action is None:
            raise IllegalActionError(f"the next step is {self.current}'s action: name it")
        if step == "over":
            return []
        run = self._dry_run(step, action)
        run(PrefixDice([]))  # an illegal step raises its one-line error here
        try:
            return dice_requests(run, limit=WALK_LIMIT, what=f"the {step} step")
        except TooManyOutcomes:
            return _extremes(run)

    def odds(self, action: Action) -> ActionOdds | None:
        """The exact odds of a declared attack now (:func:`referee.odds.action_odds`); None otherwise."""
        self._known(action.actor)
        return action_odds(self.state, action)

    # --- inside --------------------------------------------------------------------------------------

    def _known(self, name: str) -> str:
        return self.setup.combatant(name).name  # the one-line error lists the names

    def _source(self, dice: Dice) -> DiceSource:
        if dice is None:
            return self._random
        if isinstance(dice, str):
            return ScriptedDice(parse_script(dice), then=self._random)
        if isinstance(dice, Sequence):
            faces: list[int | None] = []
            for index, face in enumerate(dice, start=1):
                if face is not None and (not isinstance(face, int) or isinstance(face, bool)):
                    raise DiceError(f"die {index} of the list is {face!r}, not a whole number or None")
                faces.append(face)
            return ScriptedDice(faces, then=self._random)
        if callable(getattr(dice, "roll", None)):
            return dice
        raise DiceError(f"dice must be None, a list of faces or a dice source, not {dice!r}")

    def _dry_run(self, step: str, action: Action | None) -> Callable[[DiceSource], tuple[Event, ...]]:
        """The step as a procedure of its dice, run on a fresh copy of the fight each time."""
        if action is not None:
            self._known(action.actor)
        setup, events = self._engine.setup, list(self._engine.events)

        def run(dice: DiceSource) -> tuple[Event, ...]:
            return tuple(EngineFight(setup, events).take(step, dice, action))

        return run

    def _candidates(self, actor: str) -> Iterator[Action]:
        """Every registered action kind, filled in with each choice the facade can name."""
        me = self.state[actor]
        others = [c.name for c in self.state.combatants.values() if c.side != me.side]
        carried = [w.name for w in me.spec.weapons]
        weapons: list[str | None] = [
            *carried,
            *(["unarmed"] if "unarmed" not in {w.lower() for w in carried} else []),
        ]
        if len(me.spec.attacks) > 1:
            weapons.insert(0, None)  # no weapon: the whole attack routine (ODD-ATK-3)
        forms = _attack_forms()
        for cls in ACTION_TYPES.values():
            if getattr(cls, "out_of_turn", False) or not _fillable(cls):
                continue
            names = {f.name for f in fields(cls)}
            choices: list[dict[str, Any]] = [{}]
            if "target" in names:
                choices = [{**c, "target": t} for c in choices for t in others]
            if "toward" in names:
                choices = [{**c, "toward": t} for c in choices for t in [None, *others]]
            if "weapon" in names:
                choices = [{**c, "weapon": w} for c in choices for w in weapons]
            if "form" in names:
                choices = [{**c, "form": f} for c in choices for f in [None, *forms]]
            for values in choices:
                yield cls(actor, **values)


def _attack_forms() -> list[Any]:
    """The attack forms the `form` field of an attack takes (read from the field's declared type)."""
    hint = _hints(Attack).get("form")
    for arg in getattr(hint, "__args__", ()):
        if isinstance(arg, type) and issubclass(arg, Enum):
            return list(arg)
    return []


def _hints(cls: type[Action]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(cls)
    except Exception:  # an annotation that cannot be resolved: nothing to read from it
        return {}


def _fillable(cls: type[Action]) -> bool:
    """Whether every field outside :data:`CHOICE_FIELDS` has a usable default (not free text or an
    action to wrap: a spell's name, an item, a condition)."""
    for f in fields(cls):
        if f.name == "actor" or f.name in CHOICE_FIELDS:
            continue
        optional_text = f.name.endswith(("reason", "note"))  # an explanation, not what the action is
        if (f.default == "" and not optional_text) or (
            f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        ):
            return False
        if "Any" in str(f.type):
            return False
    return True


def _extremes(run: Callable[[DiceSource], object]) -> list[DieRequest]:
    """The dice of the lowest and the highest rolls of a step (for steps too long to walk)."""
    low = PrefixDice([])
    run(low)
    faces: list[int] = []  # the highest face of each die asked so far
    high = PrefixDice(faces)
    for _ in range(64):  # raise every die to its highest face until no new die appears
        high = PrefixDice(faces)
        try:
            run(high)
        except RefereeError:
            break
        if high.sides == faces:
            break
        faces = list(high.sides)
    lows = list(zip(low.sides, low.purposes, strict=True))
    highs = list(zip(high.sides, high.purposes, strict=True))
    out = [DieRequest(i, s, p, i < len(highs) and highs[i] == (s, p)) for i, (s, p) in enumerate(lows)]
    out += [
        DieRequest(i, s, p, False) for i, (s, p) in enumerate(highs) if i >= len(lows) or lows[i] != (s, p)
    ]
    return sorted(out, key=lambda r: (r.index, r.always is False))


def describe(action: Action) -> str:
    """A short text for an action: its kind, actor and the fields that differ from their defaults."""
    parts = [action.kind, action.actor]
    for f in fields(action):
        if f.name == "actor":
            continue
        value = getattr(action, f.name)
        default = f.default if f.default is not dataclasses.MISSING else None
        if f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        if value == default:
            continue
        if f.name == "target":
            parts.append(f"→ {value}")
        elif isinstance(value, Enum):
            parts.append(f"{f.name}={value.value}")
        else:
            parts.append(f"{f.name}={value}")
    return " ".join(parts)


__all__ = ["CombatantSnapshot", "Dice", "Fight", "Step", "describe"]
