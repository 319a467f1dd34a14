"""Random encounters and random action sequences under every preset: the engine's invariants hold.

Each fight is played by a seeded chooser that picks random targets, weapons, forms and situations
(falling back to the default tactics when its choice is illegal), with seeded random dice. Checked:

- same seeds → the same events (compared as `Event.to_dict` lists);
- replaying the events, also after a JSON round trip, rebuilds the identical state (`snapshot()`);
- an illegal action raises `IllegalActionError` and changes nothing;
- hit points change only through DAMAGE and HEAL events, and those account for every change;
- a combatant that is out takes no action, except a simultaneous one (ODD-INIT-3, `state.next_actor`);
- each round's initiative order is a permutation of the active combatants (ODD-INIT-1, ODD-INIT-4,
  also after the first-strike moves of ODD-INIT-5);
- ascending AC never drops below 1 under `ac_floor = min_1` (ODD-AC-2);
- the fight ends, at the latest when the round limit is reached.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field, fields
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.dice import RandomDice
from referee.engine import tactics
from referee.engine.actions import Action, Attack, Wait, _field_types, action_from_dict
from referee.engine.events import Event, EventType
from referee.engine.fight import Fight, replay
from referee.engine.registry import ACTION_TYPES
from referee.engine.state import FightState
from referee.errors import IllegalActionError
from referee.files import Setup, setup_from_data
from referee.rules.context import CONCEALMENT_DEGREES, COVER_DEGREES, AttackForm, Situation
from referee.rules.ruleset import PRESETS
from referee.rules.vocabulary import CONDITIONS

from .strategies import encounter, examples

FLAGS = ["rear", "flank", "higher", "lower", "friendly", "knockout", "prone", "helpless"]


class RandomChooser:
    """Random but reproducible choices: the same seed makes the same choices in the same states."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def any_action(self, state: FightState, actor: str) -> dict[str, Any]:
        """Any registered action kind, its fields filled from their types (so new kinds are fuzzed too)."""
        rng = self.rng
        kind = rng.choice(sorted(ACTION_TYPES))
        cls = ACTION_TYPES[kind]
        me = state[actor]
        enemies = [c.name for c in state.combatants.values() if c.side != me.side] or [actor]
        data: dict[str, Any] = {"kind": kind, "actor": actor}
        for f in fields(cls):
            if f.name == "actor" or rng.random() < 0.4:
                continue
            hint = str(_field_types(cls).get(f.name))
            if f.name in {"target", "toward", "by"}:
                data[f.name] = rng.choice(enemies)
            elif f.name == "weapon":
                data[f.name] = rng.choice([w.name for w in me.spec.weapons] or ["unarmed"])
            elif f.name == "form":
                data[f.name] = rng.choice(list(AttackForm)).value
            elif f.name == "pace":
                data[f.name] = rng.choice(["walk", "jog", "run"])
            elif f.name == "condition":
                data[f.name] = rng.choice(sorted(CONDITIONS))
            elif f.name == "action":
                data[f.name] = {"kind": "attack", "actor": actor, "target": rng.choice(enemies)}
            elif "tuple[int, int]" in hint and "..." not in hint:
                data[f.name] = [rng.randint(-2, 8), rng.randint(-2, 8)]
            elif "bool" in hint:
                data[f.name] = rng.random() < 0.5
            elif "int" in hint:
                data[f.name] = rng.choice([0, 1, 2, 3, 5, 10, 15, 30, 60, -1])
        return data

    def __call__(self, state: FightState, actor: str) -> Action:
        rng = self.rng
        roll = rng.random()
        if roll < 0.25:
            return tactics.choose_action(state, actor)
        if roll < 0.3:
            return Wait(actor, "hesitates")
        if roll < 0.45:
            try:
                return action_from_dict(self.any_action(state, actor))
            except IllegalActionError:
                return tactics.choose_action(state, actor)
        me = state[actor]
        others = [c.name for c in state.combatants.values() if c.name != actor]
        enemies = [c.name for c in state.combatants.values() if c.side != me.side]
        target = rng.choice(enemies if rng.random() < 0.9 else others)
        weapons: list[str | None] = [w.name for w in me.spec.weapons] + [None, "unarmed"]
        situation = Situation(
            cover=rng.choice(COVER_DEGREES[:4]) if rng.random() < 0.2 else "none",
            concealment=rng.choice(CONCEALMENT_DEGREES[:3]) if rng.random() < 0.2 else "none",
            flags=frozenset(rng.sample(FLAGS, rng.randint(0, 2))) if rng.random() < 0.3 else frozenset(),
        )
        return Attack(
            actor,
            target=target,
            weapon=rng.choice(weapons),
            form=rng.choice(list(AttackForm)) if rng.random() < 0.3 else None,
            charge=rng.random() < 0.15,
            situation=situation,
        )


@dataclass
class Played:
    fight: Fight
    illegal: list[tuple[str, str]] = field(default_factory=list)


def play(setup: Setup, dice_seed: int, choice_seed: int) -> Played:
    """Play a whole fight, step by step; an illegal random choice must leave the fight untouched."""
    fight = Fight(setup)
    dice = RandomDice(dice_seed)
    choose = RandomChooser(choice_seed)
    played = Played(fight)
    step_limit = 20 + setup.max_rounds * (4 * len(setup.combatants) + 10)
    for _ in range(step_limit):
        need = fight.needs()
        if need == "over":
            return played
        if need == "begin":
            fight.begin(dice)
        elif need == "round":
            fight.start_round(dice)
        elif need == "end_round":
            fight.end_round(dice)
        else:
            actor = fight.next_actor()
            assert actor is not None
            act_once(played, choose(fight.state, actor), dice)
    raise AssertionError(f"the fight did not end within {step_limit} steps")


def act_once(played: Played, action: Action, dice: RandomDice) -> None:
    fight = played.fight
    before_events = len(fight.events)
    before = fight.state.snapshot()
    try:
        fight.act(action, dice)
        return
    except IllegalActionError as exc:
        played.illegal.append((repr(action), str(exc)))
        assert "\n" not in str(exc)
    assert len(fight.events) == before_events, "an illegal action added events"
    assert fight.state.snapshot() == before, "an illegal action changed the state"
    fallback = tactics.choose_action(fight.state, action.actor)
    fight.act(fallback, dice)


def check_event_invariants(setup: Setup, events: list[Event]) -> None:
    """Fold the events one by one into a fresh state, checking each fact against the state before it."""
    state = FightState.initial(setup)
    damage_total: dict[str, int] = {n: 0 for n in state.combatants}
    floor = setup.ruleset["ac_floor"] == "min_1"
    for e in events:
        before = {n: (c.hp, c.subdual, c.status) for n, c in state.combatants.items()}
        acting_down_ok = set(state.may_act_though_down)
        if e.type is EventType.ACTION and e.actor is not None and not e.data.get("free", False):
            # ODD-INIT-3: a simultaneous action of a combatant taken out in its own slot still happens.
            assert before[e.actor][2] == "active" or e.actor in acting_down_ok, (
                f"{e.actor} acts while out: {e}"
            )
        if e.type is EventType.ATTACK and e.actor is not None and not e.data.get("free", False):
            assert before[e.actor][2] == "active" or e.actor in acting_down_ok, f"{e.actor} attacks while out"
        if e.type is EventType.ATTACK and floor and e.data.get("ac_convention") == "ascending":
            assert e.data["ac"] >= 1, f"ODD-AC-2: ascending AC {e.data['ac']} below 1"
        if e.type is EventType.INITIATIVE:
            flat = [n for slot in e.data["order"] for n in slot]
            active = [c.name for c in state.active()]
            assert sorted(flat) == sorted(active), (
                f"initiative {e.data['order']} is not a permutation of {active}"
            )
        if e.type is EventType.ROUND_START and e.data.get("order"):
            flat = [n for slot in e.data["order"] for n in slot]
            assert len(flat) == len(set(flat)) and set(flat) <= set(state.combatants)
        state.apply(e)
        for name, c in state.combatants.items():
            hp, subdual, _ = before[name]
            if e.type is EventType.SETUP:
                continue
            changed = (c.hp, c.subdual) != (hp, subdual)
            if e.target == name and e.type is EventType.DAMAGE:
                assert e.damage is not None and e.damage >= 0, f"negative damage {e}"
                if e.data.get("subdual"):
                    assert (c.hp, c.subdual) == (hp, subdual + e.damage)
                else:
                    assert (c.hp, c.subdual) == (hp - e.damage, subdual)
                    damage_total[name] += e.damage
            elif e.target == name and e.type is EventType.HEAL:
                assert e.damage is not None and e.damage >= 0
                damage_total[name] -= c.hp - hp
            else:
                assert not changed, f"{name}'s hit points changed through a {e.type} event: {e}"
    for name, c in state.combatants.items():
        assert c.max_hp - c.hp == damage_total[name], f"{name}: hit points lost do not add up"


def check_replay(setup: Setup, fight: Fight) -> None:
    snapshot = fight.state.snapshot()
    assert replay(setup, fight.events).state.snapshot() == snapshot
    wire = json.loads(json.dumps([e.to_dict() for e in fight.events]))
    assert replay(setup, [Event.from_dict(d) for d in wire]).state.snapshot() == snapshot
    # undo to any point and replay forward: the one door gives the same state
    if fight.events:
        cut = len(fight.events) // 2
        again = replay(setup, fight.events)
        again.truncate(cut)
        again.push(fight.events[cut:])
        assert again.state.snapshot() == snapshot


def check_fight(data: dict[str, Any], dice_seed: int, choice_seed: int) -> None:
    setup = setup_from_data(data, "fuzz")
    first = play(setup, dice_seed, choice_seed)
    fight = first.fight
    assert fight.is_over()
    assert fight.state.round <= setup.max_rounds, "the fight ran past its round limit"
    second = play(setup_from_data(data, "fuzz"), dice_seed, choice_seed).fight
    assert [e.to_dict() for e in second.events] == [e.to_dict() for e in fight.events], (
        "same seed, other events"
    )
    check_event_invariants(setup, fight.events)
    check_replay(setup, fight)


@pytest.mark.parametrize("preset", sorted(PRESETS))
@settings(max_examples=examples(8))
@given(data=st.data(), dice_seed=st.integers(0, 2**32), choice_seed=st.integers(0, 2**32))
def test_random_fights_keep_the_invariants(
    preset: str, data: st.DataObject, dice_seed: int, choice_seed: int
) -> None:
    """ODD-INIT-1, ODD-INIT-3, ODD-INIT-4, ODD-INIT-5, ODD-AC-2, ODD-HP-1 hold in random fights."""
    check_fight(data.draw(encounter(preset)), dice_seed, choice_seed)


@pytest.mark.parametrize("preset", sorted(PRESETS))
@settings(max_examples=examples(5))
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_default_tactics_fights_end_and_replay(preset: str, data: st.DataObject, seed: int) -> None:
    """Fights played by the default tactics (`run_fight`) end within max_rounds and replay exactly."""
    from referee.engine.fight import run_fight

    setup = setup_from_data(data.draw(encounter(preset)), "fuzz")
    fight = run_fight(setup, RandomDice(seed))
    assert fight.is_over() and fight.state.round <= setup.max_rounds
    check_event_invariants(setup, fight.events)
    check_replay(setup, fight)


def test_round_limit_ends_a_fight_nobody_can_win() -> None:
    """Two sides that only wait: the fight ends at max_rounds with no winner."""
    data = {
        "sides": [
            {"name": "A", "combatants": [{"name": "Ann", "hp": 5}]},
            {"name": "B", "combatants": [{"name": "Bob", "hp": 5}]},
        ],
        "max_rounds": 3,
    }
    setup = setup_from_data(data)
    from referee.engine.fight import run_fight

    fight = run_fight(setup, RandomDice(1), choose=lambda state, actor: Wait(actor))
    assert fight.state.round == 3 and fight.state.winner is None
    assert fight.events[-1].data["reason"] == "round limit"
