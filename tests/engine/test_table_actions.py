"""The referee's table actions in the engine (engine/table_actions.py): steps in nobody's turn whose events are
the whole record, so a replay of the log rebuilds the same fight and undo takes them back."""

from __future__ import annotations

from typing import Any

import pytest
from tests.conftest import angthar_data, make_setup

from referee.dice import ScriptedDice
from referee.engine.actions import action_from_dict
from referee.engine.events import EventType
from referee.engine.fight import Fight, replay
from referee.engine.table_actions import normalise, visibility
from referee.errors import IllegalActionError


def begun(goblins: int = 2) -> Fight:
    fight = Fight(make_setup(angthar_data(goblins=goblins)))
    fight.take("begin", ScriptedDice([]))
    fight.take("round", ScriptedDice([7, 4, 3][: goblins + 1]))
    return fight


def take(fight: Fight, action: dict[str, Any], dice: list[int | None] | None = None) -> list[Any]:
    return fight.take("action", ScriptedDice(dice or []), action_from_dict(normalise(action)))


def test_a_latecomer_replays_from_the_log_alone() -> None:
    # rule: ODD-HD-1, ODD-HD-2 (hit dice rolled), ODD-INIT-1 (it rolls initiative from the next round)
    fight = begun()
    take(
        fight,
        {"kind": "add_combatant", "side": "Goblins", "combatant": {"name": "Ogre", "hit_dice": "2"}},
        [5, 6],
    )
    assert fight.state["Ogre"].hp == 11 and fight.state.setup.combatant("Ogre").side == "Goblins"
    assert replay(fight.setup, fight.events).state.snapshot() == fight.state.snapshot()
    fight.undo(1)
    assert "Ogre" not in fight.state.combatants


def test_the_current_actor_keeps_its_turn() -> None:
    # rule: ODD-INIT-3 (the table actions use nobody's turn)
    fight = begun()
    take(fight, {"kind": "adjust_hp", "target": "Goblin 2", "amount": -1})
    take(fight, {"kind": "note", "text": "a torch gutters"})
    assert fight.next_actor() == "Angthar"


def test_a_removed_combatant_does_not_act_though_its_slot_is_under_way() -> None:
    # rule: ODD-INIT-3 (down in its own slot still acts; one who left does not)
    fight = begun()
    take(fight, {"kind": "wait", "actor": "Angthar"})
    take(fight, {"kind": "remove_combatant", "target": "Goblin 1", "status": "surrendered"})
    assert fight.next_actor() == "Goblin 2"
    assert fight.state["Goblin 1"].status == "surrendered"


def test_harm_to_death_ends_the_conditions() -> None:
    # rule: ODD-HP-1 (monsters die at 0)
    fight = begun()
    take(fight, {"kind": "apply_condition", "actor": "Goblin 1", "condition": "prone"})
    events = take(fight, {"kind": "adjust_hp", "target": "Goblin 1", "amount": -9})
    assert [e.type for e in events[:3]] == [EventType.DAMAGE, EventType.DEFEAT, EventType.CONDITION]
    assert fight.state["Goblin 1"].conditions == {}


def test_refusals() -> None:
    fight = begun()
    for action, words in (
        ({"kind": "adjust_hp", "target": "Goblin 1", "amount": 0}, "change"),
        ({"kind": "adjust_hp", "target": "Angthar", "amount": 5}, "all its hit points"),
        ({"kind": "remove_combatant", "target": "Goblin 1", "status": "vanished"}, "leaves as"),
        ({"kind": "mark", "target": "Goblin 1", "name": "prone"}, "apply_condition"),
        ({"kind": "roll", "dice": "banana"}, "banana"),
    ):
        with pytest.raises(IllegalActionError, match=words):
            take(fight, action)


def test_visibility_follows_reveal_and_hide() -> None:
    fight = begun()
    take(fight, {"kind": "reveal", "target": "Goblin 1"})
    assert visibility(fight.events) == {"Goblin 1": False}
    take(fight, {"kind": "hide", "target": "Goblin 1"})
    assert visibility(fight.events) == {"Goblin 1": True}


def test_a_blow_that_kills_ends_the_conditions() -> None:
    # rule: GAP-COND-DEATH (nothing is stunned or prone once dead), ODD-HP-1 (monsters die at 0)
    fight = begun()
    take(fight, {"kind": "apply_condition", "actor": "Goblin 1", "condition": "stunned", "rounds": 3})
    take(fight, {"kind": "attack", "actor": "Angthar", "target": "Goblin 1"}, [20, 8, 8])
    assert fight.state["Goblin 1"].status == "dead"
    assert fight.state["Goblin 1"].conditions == {}
    for name in ("Goblin 2",):
        take(fight, {"kind": "wait", "actor": name})
    ended = fight.take("end_round", ScriptedDice([]))
    assert not [e for e in ended if e.type is EventType.CONDITION and e.target == "Goblin 1"]


@pytest.mark.parametrize(
    ("action", "said"),
    [
        ({"kind": "adjust_hp", "actor": "Angthar", "target": "Goblin", "amount": -(10**20)}, "amount must be from"),
        ({"kind": "attack", "actor": "Angthar", "target": "Goblin", "situation": {"distance": 10**9}}, "distance"),
        (
            {"kind": "attack", "actor": "Angthar", "target": "Goblin",
             "situation": {"modifiers": [{"value": 10**300, "reason": "luck"}]}},
            "a modifier is from -1,000 to 1,000",
        ),
    ],
)  # fmt: skip
def test_numbers_beyond_any_ruling_are_refused_by_name(action: dict[str, Any], said: str) -> None:
    # rule: ODD-SIT-1 (a referee's modifier is a small number; a slip of the keyboard is refused, not logged)
    with pytest.raises(IllegalActionError, match=said):
        action_from_dict(action)
