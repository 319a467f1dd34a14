"""A tactic the rules refuse is recorded with its rule; the fallback is a legal action (engine/refusals.py)."""

from __future__ import annotations

import pytest
from tests.conftest import angthar_data, make_setup

from referee.dice import ScriptedDice
from referee.engine.actions import Attack, Wait
from referee.engine.events import EventType
from referee.engine.fight import Fight
from referee.engine.refusals import Refused, describe, refused_instead, rule_of
from referee.errors import IllegalActionError


def test_the_rule_of_a_refusal_is_the_first_rule_id_its_message_names() -> None:
    # rule: MF-COVER-3, ODD-SIT-4, ODD-COVER-NOATK: the engine's messages end with their rule
    assert rule_of("Goblin is fully covered and cannot be attacked directly (MF-COVER-3)") == "MF-COVER-3"
    assert (
        rule_of("the referee rules X cannot attack from behind cover (ODD-COVER-NOATK)") == "ODD-COVER-NOATK"
    )
    assert rule_of("no rule named here") == "ODD-ACT-1"
    assert describe(Attack("A", target="B", weapon="club")) == "attack B with its club"


def test_a_refused_action_uses_no_action_and_the_fallback_does() -> None:
    # rule: ODD-SIT-4, ODD-ACT-1: the note is free; the fallback (a wait) is the round's one action
    fight = Fight(make_setup(angthar_data()))
    fight.begin(ScriptedDice([]))
    fight.start_round(ScriptedDice([7, 4]))
    error = IllegalActionError("Angthar does not know Goblin is there and cannot attack it (ODD-SIT-4)")
    action = refused_instead("Angthar", Attack("Angthar", target="Goblin"), error, Wait("Angthar", "waits"))
    events = fight.act(action, ScriptedDice([]))
    assert [e.type for e in events] == [EventType.ACTION, EventType.ACTION]
    assert (events[0].rule, events[0].data["free"], events[0].data["instead"]) == ("ODD-SIT-4", True, "wait")
    assert fight.state.acted == {"Angthar"}
    with pytest.raises(IllegalActionError, match="one ordinary action"):
        fight.act(Refused("Goblin", refused="attack", reason="x", action=None), ScriptedDice([]))
