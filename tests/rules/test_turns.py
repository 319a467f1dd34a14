"""Turns (ODD-INIT-3: who may act in the slot now acting) and the end of the fight (ODD-ROUND-4: one
side left, no side left, the round limit), as pure rules and through the engine."""

from __future__ import annotations

import pytest
from tests.conftest import angthar_data, make_setup

from referee.dice import ScriptedDice
from referee.engine.actions import Attack
from referee.engine.events import EventType
from referee.engine.fight import Fight, run_fight
from referee.errors import IllegalActionError
from referee.rules import turns
from referee.rules.turns import FightEnd, fight_end, may_act, next_actor

ORDER = [["a", "b"], ["c"]]


def test_next_actor_in_order() -> None:
    # rule: ODD-INIT-1: the order of the slots; someone not ready (down, or surprised) is skipped
    assert next_actor(ORDER, set(), -1, set(), lambda n: True) == "a"
    assert next_actor(ORDER, {"a"}, 0, set(), lambda n: n != "b") == "c"
    assert next_actor(ORDER, {"a", "b", "c"}, 1, set(), lambda n: True) is None


def test_struck_down_in_its_own_slot_still_acts() -> None:
    # rule: ODD-INIT-3: b shares a's slot; a drops b, b's simultaneous action still happens
    assert next_actor(ORDER, {"a"}, 0, {"b"}, lambda n: n != "b") == "b"
    # but not once the order has moved on to a later slot, and not c, dropped before its slot
    assert next_actor(ORDER, {"a", "c"}, 1, {"b"}, lambda n: n != "b") is None
    assert next_actor(ORDER, {"a", "b"}, 0, set(), lambda n: n != "c") is None


def test_may_act_anyone_in_the_slot_now_acting() -> None:
    # rule: ODD-INIT-3: a slot acts simultaneously, in any order; never twice, never out of turn
    ready = lambda n: True  # noqa: E731
    assert may_act("b", ORDER, set(), -1, set(), ready)
    assert not may_act("c", ORDER, set(), -1, set(), ready)
    assert not may_act("a", ORDER, {"a"}, 0, set(), ready)
    assert may_act("b", ORDER, {"a"}, 0, {"b"}, lambda n: n != "b")  # down, in its own slot
    assert not may_act("z", ORDER, set(), -1, set(), ready)


def test_fight_end() -> None:
    # rule: ODD-ROUND-4: rounds repeat until one side is defeated; none left is a draw; the round limit
    assert fight_end(["Village", "Goblins"], 3, 10, round_over=False) is None
    assert fight_end(["Village"], 3, 10, round_over=False) == FightEnd(
        "Village", "one side left", "ODD-ROUND-4"
    )
    assert fight_end([], 3, 10, round_over=False) == FightEnd(None, "no side left", "ODD-ROUND-4")
    assert fight_end(["Village", "Goblins"], 10, 10, round_over=False) is None
    assert fight_end(["Village", "Goblins"], 10, 10, round_over=True) == FightEnd(
        None, "round limit", "ODD-ROUND-4"
    )
    assert fight_end(["Village"], 10, 10, round_over=True) == FightEnd(
        "Village", "one side left", "ODD-ROUND-4"
    )


def test_fight_does_not_end_while_a_simultaneous_action_is_pending() -> None:
    # rule: ODD-INIT-3: the dropped combatant's action in its own slot comes before the end
    assert fight_end(["Village"], 1, 10, round_over=False, pending=True) is None
    assert turns.simultaneous_actions_pending({"Goblin"}, {"Angthar"})
    assert not turns.simultaneous_actions_pending({"Goblin"}, {"Angthar", "Goblin"})


def test_the_engine_lets_the_dropped_goblin_swing_then_ends() -> None:
    # rule: ODD-INIT-3, ODD-ROUND-4: equal rolls and Dex; Angthar kills the goblin (12, 6), the goblin
    # still swings (15, 3), and only then does the Village win
    data = angthar_data()
    data["sides"][0]["combatants"][0]["abilities"]["dex"] = 10
    fight = Fight(make_setup(data))
    fight.begin(ScriptedDice([]))
    fight.start_round(ScriptedDice([5, 5]))
    fight.act(Attack("Angthar", target="Goblin"), ScriptedDice([12, 6]))
    assert not fight.is_over() and fight.next_actor() == "Goblin"
    with pytest.raises(IllegalActionError):
        fight.act(Attack("Angthar", target="Goblin"), ScriptedDice([12, 6]))  # no second action
    ended = fight.act(Attack("Goblin", target="Angthar"), ScriptedDice([15, 3]))
    assert ended[-1].type is EventType.FIGHT_END
    assert ended[-1].data == {"winner": "Village", "reason": "one side left"}


def test_the_engine_ends_at_the_round_limit() -> None:
    # the round limit: both sides still stand at the end of the last round, nobody wins
    fight = run_fight(make_setup(angthar_data()), ScriptedDice([7, 4, 1, 1, 1]), max_rounds=1)
    end = fight.events[-1]
    assert end.type is EventType.FIGHT_END and end.data == {"winner": None, "reason": "round limit"}
    assert end.text == "round limit 1 reached"
