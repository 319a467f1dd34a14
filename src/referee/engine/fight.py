"""The fight: a setup, its event log and the state folded from it (python-chess's push/pop shape).

`Fight` advances a fight one step at a time (set-up, surprise, round start, one action, round end),
each step appending events; :meth:`Fight.undo` drops events and refolds. :func:`run_fight` plays a
whole fight with :mod:`referee.engine.tactics` choosing for everyone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from referee.deferred import Recipe, defer, recipe_of
from referee.dice import DiceSource, DiceTape, DieRoll
from referee.engine import caches
from referee.engine.actions import Action
from referee.engine.events import Event, EventType, at_round, event
from referee.engine.resolve import resolve
from referee.engine.state import FightState
from referee.errors import IllegalActionError
from referee.rules import hit_points, initiative, memo, turns
from referee.setup import Setup

# The round hooks (scripted charges, segment delays; garrotte counts, drowning...) are listed in order in
# referee.engine.registry, read when a round starts or ends (the set-up needs none of the modules they
# name); this module gives them by name for the exact odds and the simulator too.
_ROUND_HOOKS = ("START_OF_ROUND", "END_OF_ROUND")
if TYPE_CHECKING:
    from referee.engine.registry import RoundHook

    START_OF_ROUND: tuple[RoundHook, ...]
    END_OF_ROUND: tuple[RoundHook, ...]


def __getattr__(name: str) -> Any:
    if name in _ROUND_HOOKS:
        return getattr(caches.late("registry"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Fight:
    """A fight in progress. Its state is always the fold of `events`."""

    def __init__(self, setup: Setup, events: Iterable[Event] = ()) -> None:
        self.setup = setup
        self.state = FightState.initial(setup)
        self.events: list[Event] = []
        if events:  # a new fight (most) has none yet: nothing to apply
            self.push(events)

    # --- the one door ------------------------------------------------------------------------------

    def push(self, events: Iterable[Event]) -> list[Event]:
        """Apply events (already resolved) and append them to the log."""
        added = list(events)
        self.state.apply_logged(added, self.events.append)
        return added

    def push_step(self, events: list[Event]) -> None:
        """Apply and log the events of an action taken in its turn, then the fight's end if it has come."""
        self.state.apply_logged(events, self.events.append)
        self._maybe_end()

    def undo(self, count: int = 1) -> list[Event]:
        """Drop the last `count` events and rebuild the state from the rest."""
        if count <= 0:
            return []
        dropped = self.events[-count:]
        self.truncate(len(self.events) - count)
        return dropped

    def truncate(self, keep: int) -> None:
        """Keep only the first `keep` events (undo back to a line of the log)."""
        kept = self.events[: max(0, keep)]
        self.state = FightState.initial(self.setup)
        self.events = []
        self.push(kept)

    # --- where we are ------------------------------------------------------------------------------

    @property
    def round(self) -> int:
        return self.state.round

    def is_over(self) -> bool:
        return self.state.is_over()

    def has_begun(self) -> bool:
        return bool(self.events)

    def next_actor(self) -> str | None:
        return self.state.next_actor()

    def needs(self) -> str:
        """What the fight needs next: `begin`, `round`, `action`, `end_round` or `over`."""
        if self.is_over():
            return "over"
        if not self.has_begun():
            return "begin"
        if self.state.phase != "rounds" or (not self.state.order and not self.state.free_round):
            return "round"
        if self.next_actor() is not None:
            return "action"
        return "end_round"

    # --- steps -------------------------------------------------------------------------------------

    def begin(
        self, dice: DiceSource, told: Callable[[Fight, DiceSource], Event] | None = None
    ) -> list[Event]:
        """Hit points (ODD-HD-1, ODD-HD-2), then surprise checks (ODD-SURP-1..5), then a free round. `told`:
        the SETUP event for the dice drawn (the lane's, engine/lane.py), else worked out here."""
        if self.has_begun():
            raise IllegalActionError("the fight has already begun")
        added = self.push([self.setup_event(dice) if told is None else told(self, dice)])
        surprise = self._surprise_events(dice)
        if surprise:
            added += self.push(surprise)
        return added

    def setup_event(self, dice: DiceSource) -> Event:
        """The SETUP event: each combatant's hit points (:func:`referee.rules.hit_points.roll_hit_points`),
        their dice drawn from `dice`."""
        tape = DiceTape(dice)
        setup = self.setup
        hp = {c.name: hit_points.roll_hit_points(c, tape) for c in setup.combatants}
        rolled = tape.take()
        if not memo.ENABLED:
            return self._made_setup_event(hp, rolled)
        # the same set-up and dice: the same event (a duel's goblin has six ways to begin); the dice by id
        # (one record per die, dice.die_roll; the event kept holds them, so their ids stay theirs)
        key = (id(setup), len(setup.combatants), tuple(map(id, rolled)), tuple(hp.values()))
        found = _SETUPS.get(key)
        if found is None or found[0] is not setup:
            if len(_SETUPS) >= 4096:
                _SETUPS.clear()
            found = _SETUPS[key] = (setup, self._made_setup_event(hp, rolled))
        return found[1]

    def _made_setup_event(self, hp: dict[str, int], rolled: tuple[DieRoll, ...]) -> Event:
        conditions = {c.name: list(c.conditions) for c in self.setup.combatants if c.conditions}
        lasting = {c.name: dict(c.condition_rounds) for c in self.setup.combatants if c.condition_rounds}
        return event(
            EventType.SETUP, 0, dice=rolled, rule="ODD-HD-2",
            text="hit points: " + ", ".join(f"{n} {v}" for n, v in hp.items()),
            data={"hp": hp, "conditions": conditions, "condition_rounds": lasting, "name": self.setup.name},
        )  # fmt: skip

    def _surprise_events(self, dice: DiceSource) -> list[Event]:
        """The events of the surprise procedure (rules/surprise.py, ODD-SURP-1..5)."""
        spec = self.setup.surprise
        if spec is None:
            return []
        from referee.rules import surprise  # only a fight with a surprise check needs it

        found = surprise.roll_surprise(spec, self.setup.combatants, dice)
        if not found.possible:
            return [
                event(EventType.SURPRISE, 0, rule="ODD-SURP-1", text="the referee rules surprise impossible",
                      data={"surprised": [], "possible": False})
            ]  # fmt: skip
        out = [
            event(
                EventType.CHECK, 0, actor=r.check.who, dice=(DieRoll(20, r.face, f"surprise {r.check.who}"),),
                total=r.face, target_number=r.check.check.target, hit=r.passed, rule="ODD-SURP-2",
                text=r.check.check.breakdown([r.face]),
                data={"check": "surprise", "applies_to": list(r.check.applies_to)},
            )
            for r in found.checks
        ]  # fmt: skip
        surprised, acting = list(found.surprised), list(found.acting)
        text = "nobody is surprised"
        if surprised and acting:
            text = f"surprised: {', '.join(surprised)}; a free round for the others (ODD-SURP-4)"
        elif surprised:
            text = "both sides are surprised: a free round of stunned silence (ODD-SURP-5)"
        out.append(
            event(EventType.SURPRISE, 0, rule=found.rule, text=text, data={"surprised": surprised, "possible": True})
        )  # fmt: skip
        if found.free_round:
            out.append(
                event(EventType.ROUND_START, 0, rule="ODD-SURP-4", text="free round",
                      data={"free_round": True, "order": [[n] for n in acting]})
            )  # fmt: skip
        return out

    def start_round(self, dice: DiceSource) -> list[Event]:
        """ODD-ROUND-4: a new round with fresh initiative (ODD-INIT-1..6)."""
        if self.needs() != "round":
            raise IllegalActionError(f"cannot start a round now (the fight needs: {self.needs()})")
        return self.open_round(dice, caches.late("registry").START_OF_ROUND)

    def open_round(
        self,
        dice: DiceSource,
        hooks: Iterable[RoundHook],
        initiative: Callable[[Fight, int, DiceSource], Event] | None = None,
    ) -> list[Event]:
        """The round start of :meth:`start_round` when the fight needs one, with these start-of-round hooks
        (the lane leaves out those that cannot answer in its fights, engine/lane.py) and the INITIATIVE
        event told by `initiative` (the lane's, for the same dice the same event) or worked out here."""
        number = self.state.round + 1
        apply, log = self.state.apply, self.events.append
        marker = _round_marker(EventType.ROUND_START, number)
        apply(marker)
        log(marker)
        order = self.initiative_event(number, dice) if initiative is None else initiative(self, number, dice)
        apply(order)
        log(order)
        added = [marker, order]
        for hook in hooks:
            found = hook(self.state, dice)
            if found:
                added += self.push(found)
        return added

    def initiative_event(self, number: int, dice: DiceSource) -> Event:
        """Round `number`'s INITIATIVE event (:func:`referee.rules.initiative.roll_initiative`, ODD-INIT-1..6)
        for the combatants active now, its dice drawn from `dice`; its rule and text
        (:func:`initiative_account`) worked out when first read."""
        tape = DiceTape(dice)
        active = [c.spec for c in self.state.combatants.values() if c.status == hit_points.ACTIVE]
        found = initiative.roll_initiative(self.setup.ruleset, active, self.setup.sides, number, tape)
        rolled = tape.take()
        told = found.__dict__.get("_told")  # an order kept for the same rolls: its event made once
        if told is not None and told[0] == rolled:
            return at_round(told[1], number)
        made = event(
            EventType.INITIATIVE, number, dice=rolled,
            data={"order": found.order, "rolls": found.rolls, "first_strike": found.first_strike},
        )  # fmt: skip
        # its rule and text when first read (a simulator reads neither): referee.deferred; the recipe holds
        # the order's own recipe, not the order, which holds the event (a cycle would wait for the collector)
        defer(made, _TOLD, partial(_told_initiative, found.order, recipe_of(found, initiative.EXPLAINED)))
        object.__setattr__(found, "_told", (rolled, made))
        return made

    def act(self, action: Action, dice: DiceSource) -> list[Event]:
        """Resolve one combatant's action for this round (in initiative order)."""
        need = self.needs()
        if getattr(action, "out_of_turn", False) and need in {"action", "end_round", "round"}:
            # the referee's own acts (putting on a condition...) use nobody's turn
            added = self.push(resolve(self.state, action, dice))
            return added + self._maybe_end()
        if need != "action":
            raise IllegalActionError(f"no action can be taken now (the fight needs: {need})")
        expected = self.next_actor()
        if action.actor != expected:
            allowed = self._may_act_now(action.actor)
            if not allowed:
                raise IllegalActionError(f"it is {expected}'s turn, not {action.actor}'s")
        return self._resolved(action, dice)

    def _resolved(self, action: Action, dice: DiceSource) -> list[Event]:
        """The events of an action in its turn (checked by the caller), applied; then maybe the end."""
        added = self.push(resolve(self.state, action, dice))
        added += self._maybe_end()
        return added

    def _may_act_now(self, name: str) -> bool:
        """Combatants in the same initiative slot act simultaneously, in any order (ODD-INIT-3)."""
        return name in self.state.combatants and self.state.may_act(name)

    def end_round(self, dice: DiceSource) -> list[Event]:
        """Conditions that last to the end of the round expire; the round ends; maybe the fight does."""
        if self.needs() not in {"end_round", "action"}:
            raise IllegalActionError(f"cannot end the round now (the fight needs: {self.needs()})")
        return self.close_round(dice, caches.late("registry").END_OF_ROUND)

    def close_round(self, dice: DiceSource, hooks: Iterable[RoundHook], expiry: bool = True) -> list[Event]:
        """The round end of :meth:`end_round` when it may be taken, with these end-of-round hooks and
        conditions expiring unless `expiry` is off (the lane, when nobody has a condition, engine/lane.py)."""
        number = self.state.round
        added: list[Event] = []
        for hook in hooks:
            found = hook(self.state, dice)
            if found:
                added += self.push(found)
        expired = self._expiry_events(number) if expiry else None
        if expired:
            added += self.push(expired)
        marker = _round_marker(EventType.ROUND_END, number)
        self.state.apply(marker)
        self.events.append(marker)
        added.append(marker)
        added += self._maybe_end(round_over=True)
        return added

    def _expiry_events(self, number: int) -> list[Event]:
        out = []
        for c in self.state.combatants.values():
            for cond in list(c.conditions.values()):
                if cond.until_round is not None and cond.until_round <= number:
                    out.append(
                        event(EventType.CONDITION, number, target=c.name, text=f"{c.name} is no longer {cond.name}",
                              data={"condition": cond.name, "added": False})
                    )  # fmt: skip
        return out

    def _maybe_end(self, round_over: bool = False) -> list[Event]:
        """The end of the fight, if it has come (rules/turns.py): one side left, none, or the round limit."""
        state = self.state
        if state.phase == "over":
            return []
        if state.several_sides_standing() and turns.goes_on(
            2, round_over, state.round < self.setup.max_rounds
        ):
            return []  # nothing else can end the fight now
        standing = state.sides_standing()
        if turns.goes_on(len(standing), round_over):
            return []
        found = turns.fight_end(
            standing, state.round, self.setup.max_rounds, round_over,
            pending=turns.simultaneous_actions_pending(state.may_act_though_down, state.acted),
            fallen_to_finish=caches.late("tactics").fallen_to_finish(state),  # it imports the state helpers
        )  # fmt: skip
        if found is None:
            return []
        return self.push([self._end_event(found.winner, found.reason)])

    def _end_event(self, winner: str | None, reason: str) -> Event:
        """The FIGHT_END event: made once per set-up, winner, reason and round (frozen, like the others)."""
        setup, number = self.setup, self.state.round
        key = (id(setup), len(setup.combatants), winner, reason, number)
        found = _ENDS.get(key) if memo.ENABLED else None
        if found is not None and found[0] is setup:
            return found[1]
        members = [c.name for c in setup.combatants if c.side == winner]  # "Lucas wins"
        text = (
            f"round limit {number} reached"
            if reason == turns.ROUND_LIMIT
            else turns.winner_text(winner, members)
        )
        made = event(EventType.FIGHT_END, number, text=text, data={"winner": winner, "reason": reason})
        if memo.ENABLED:
            if len(_ENDS) >= 4096:
                _ENDS.clear()
            _ENDS[key] = (setup, made)
        return made

    def take(self, step: str, dice: DiceSource, action: Action | None = None) -> list[Event]:
        """Take a named step: `begin`, `round`, `action` (with `action`) or `end_round`."""
        if step == "begin":
            return self.begin(dice)
        if step == "round":
            return self.start_round(dice)
        if step == "end_round":
            return self.end_round(dice)
        if step == "action":
            if action is None:
                raise IllegalActionError("an action step needs an `action`")
            return self.act(action, dice)
        raise IllegalActionError(f"unknown step {step!r}; steps: begin, round, action, end_round")

    def step(self, choose: Callable[[FightState, str], Action], dice: DiceSource) -> list[Event]:
        """Advance by one step, asking `choose` for any action needed."""
        state = self.state
        if state.phase == "over":
            return []
        actor = state.next_actor() if self.events and state.phase == "rounds" else None
        if actor is None or (not state.order and not state.free_round):
            return self.take(self.needs(), dice)
        # an action, of `actor` (in its turn: what act() checks); the plan that `choose` checked is the
        # one resolved (engine/caches.py)
        began = caches.begin_step(state)
        try:
            action = choose(state, actor)
            if action.actor != actor:  # another's action: act() checks that it may be taken now
                return self.take("action", dice, action)
            return self._resolved(action, dice)
        finally:
            caches.end_step(began)

    def result(self) -> FightResult:
        return FightResult(
            self.state.winner, self.state.round, self.state.snapshot()["combatants"], self.events
        )


def _round_marker(kind: EventType, number: int) -> Event:
    """The ROUND_START (ODD-ROUND-1) or ROUND_END event of round `number`: frozen and the same in every
    fight, so made once per round number."""
    key = (kind, number)  # an EventType hashes as its string (cached)
    found = _MARKERS.get(key)
    if found is None:
        if len(_MARKERS) >= 4096:
            _MARKERS.clear()
        if kind is EventType.ROUND_START:
            found = event(EventType.ROUND_START, number, rule="ODD-ROUND-1", text=f"round {number}")
        else:
            found = event(EventType.ROUND_END, number, text=f"end of round {number}")
        _MARKERS[key] = found
    return found


_MARKERS: dict[tuple[EventType, int], Event] = {}


def initiative_account(found: initiative.Initiative) -> tuple[str, str]:
    """An INITIATIVE event's rule and text: the slots in order, then the notes (Dex ties, simultaneous
    slots, first strikes; ODD-INIT-1..6)."""
    return _told_initiative(found.order, lambda: (found.rule, found.notes))


def _told_initiative(order: list[list[str]], explained: Recipe) -> tuple[str, str]:
    """:func:`initiative_account` of the order's slots and its rule and notes as `explained` tells them."""
    rule, notes = explained()
    text = " > ".join(["=".join(slot) for slot in order])
    for note in notes:
        text += f"; {note}"
    return rule, f"initiative: {text}"


_TOLD = ("rule", "text")
# (id(setup), its number of combatants, ...) -> (the setup, the event): the setup is kept so that its id
# stays its own; its count of combatants, so that a latecomer's fight asks again
_SETUPS: dict[tuple[object, ...], tuple[Setup, Event]] = {}
_ENDS: dict[tuple[object, ...], tuple[Setup, Event]] = {}


@dataclass(frozen=True)
class FightResult:
    winner: str | None
    rounds: int
    combatants: list[dict[str, Any]]
    events: list[Event]

    def to_dict(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "rounds": self.rounds,
            "combatants": [
                {k: c[k] for k in ("name", "side", "hp", "max_hp", "status", "subdual", "conditions")}
                for c in self.combatants
            ],
            "events": [e.to_dict() for e in self.events],
        }


def run_fight(
    setup: Setup,
    dice: DiceSource,
    choose: Callable[[FightState, str], Action] | None = None,
    max_rounds: int | None = None,
) -> Fight:
    """Play a whole fight; `choose` decides each action (default: :func:`tactics.choose_action`)."""
    if max_rounds is not None:
        from dataclasses import replace

        setup = replace(setup, max_rounds=max_rounds)
    fight = Fight(setup)
    pick = choose or caches.late("tactics").choose_action
    steps = 0
    limit = 10_000 + 1_000 * setup.max_rounds * max(1, len(setup.combatants))
    lane = caches.late("lane").lane_for(setup, choose)  # the plain attacks, without the layers
    if lane is not None:
        lane.play(fight, dice, pick, limit)
        return fight
    step = fight.step
    while fight.state.phase != "over":
        step(pick, dice)
        steps += 1
        if steps > limit:  # a bug guard: a fight must end (round limit)
            raise RuntimeError("fight did not end")
    return fight


def replay(setup: Setup, events: Iterable[Event]) -> Fight:
    """Rebuild a fight from its events alone: no dice, identical state."""
    return Fight(setup, events)
