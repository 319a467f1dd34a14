"""The referee's stored rulings (ODD-SIT-1): named in the encounter file's `rulings:`, reused by attacks."""

from __future__ import annotations

from typing import Any

import pytest
from tests.conftest import angthar_data, make_setup
from tests.odd_helpers import fight_of

from referee.dice import ScriptedDice
from referee.engine import tactics
from referee.engine.actions import Attack, action_from_dict
from referee.engine.events import Event, EventType
from referee.engine.fight import Fight
from referee.errors import EncounterFileError, IllegalActionError
from referee.rules.context import Situation

ROPE = {
    "modifiers": [{"value": -10, "reason": "drunk, swinging on a fraying rope", "band": "difficult"}],
    "ac_modifiers": [{"value": -1, "reason": "rusted armour"}],
    "flags": ["higher"],
    "cover": "half",
}
FOG = {"concealment": "quarter", "modifiers": [{"value": 2, "reason": "the goblin is dazzled"}]}


def rulings_data(**rulings: Any) -> dict[str, Any]:
    data = angthar_data(goblin_hp=20)
    data["rulings"] = rulings or {"rope": ROPE, "fog": FOG}
    return data


def attack_event(events: list[Event]) -> Event:
    return next(e for e in events if e.type is EventType.ATTACK)


def test_a_stored_ruling_serves_two_attacks() -> None:
    # rule: ODD-SIT-1 (the referee's -10 for the drunk on the rope, TV-000-11, stored once and used twice;
    # ODD-SIT-2: -10 is difficult)
    fight = fight_of(rulings_data(), initiative=[7, 4])
    rope = Situation(rulings=("rope",))
    # d20 12 + BTH 4 + Str 1 - 10 + 1 (higher, ODD-SIT-LOWER) = 8 against AC 12 + 4 (half cover) - 1 (rusted
    # armour) = 15: a miss
    first = attack_event(fight.act(Attack("Angthar", target="Goblin", situation=rope), ScriptedDice([12])))
    assert (first.total, first.target_number, first.hit) == (8, 15, False)
    ruled = [m for m in first.modifiers if m.rule == "ODD-SIT-1"]
    assert [(m.value, m.reason) for m in ruled] == [(-10, "drunk, swinging on a fraying rope (ruling: rope)")]
    assert "ODD-SIT-LOWER" in {m.rule for m in first.modifiers}
    assert "rusted armour (ruling: rope)" in str(first.data["ac_breakdown"])
    fight.act(Attack("Goblin", target="Angthar"), ScriptedDice([2]))
    fight.end_round(ScriptedDice([]))
    fight.start_round(ScriptedDice([7, 4]))
    # the same ruling again, with the action's own +1: 18 + 4 + 1 - 10 + 1 + 1 = 15 against 15: a hit
    own = action_from_dict(
        {
            "kind": "attack",
            "actor": "Angthar",
            "target": "Goblin",
            "situation": {"modifiers": [{"value": 1, "reason": "steadied"}], "rulings": ["rope"]},
        }
    )
    second = attack_event(fight.act(own, ScriptedDice([18, 6])))
    assert (second.total, second.target_number, second.hit) == (15, 15, True)
    assert [m.value for m in second.modifiers if m.rule == "ODD-SIT-1"] == [1, -10]


def test_two_rulings_add_up_and_the_action_keeps_its_own_cover() -> None:
    # rule: ODD-SIT-1, ODD-SIT-3 (cumulative); the action's cover wins over the ruling's
    fight = fight_of(rulings_data(), initiative=[7, 4])
    both = Situation(cover="quarter", rulings=("rope", "fog"))
    ctx_events = fight.act(Attack("Angthar", target="Goblin", situation=both), ScriptedDice([20, 6]))
    event = attack_event(ctx_events)
    assert sorted(m.value for m in event.modifiers if m.rule == "ODD-SIT-1") == [-10, 2]
    assert "ODD-SIT-CONC-25" in {m.rule for m in event.modifiers}
    assert "ODD-COVER-25" in str(event.data["ac_breakdown"])
    assert "ODD-COVER-50" not in str(event.data["ac_breakdown"])


def test_an_unknown_ruling_is_refused_with_the_known_names() -> None:
    # rule: ODD-SIT-1
    fight = fight_of(rulings_data(), initiative=[7, 4])
    attack = Attack("Angthar", target="Goblin", situation=Situation(rulings=("ropes",)))
    with pytest.raises(IllegalActionError) as info:
        fight.act(attack, ScriptedDice([12, 6]))
    assert str(info.value) == "unknown ruling 'ropes'; rulings: fog, rope"
    assert "\n" not in str(info.value)


def test_rulings_round_trip_through_action_from_dict() -> None:
    # rule: ODD-SIT-1
    attack = Attack("Angthar", target="Goblin", situation=Situation(cover="half", rulings=("rope", "fog")))
    data = attack.to_dict()
    assert data["situation"]["rulings"] == ["rope", "fog"]
    assert action_from_dict(data) == attack
    assert "rulings" not in Attack("Angthar", target="Goblin").to_dict()["situation"]
    with pytest.raises(IllegalActionError, match="a ruling is named by a string"):
        action_from_dict({**data, "situation": {"rulings": [3]}})
    with pytest.raises(IllegalActionError, match="rulings must be a list"):
        action_from_dict({**data, "situation": {"rulings": "rope"}})


def test_a_tactic_may_name_a_ruling() -> None:
    # rule: ODD-SIT-1 (a combatant nobody steers attacks in its stored ruling)
    data = rulings_data()
    data["sides"][0]["combatants"][0]["tactic"] = {"situation": {"rulings": ["rope"]}}
    fight = Fight(make_setup(data))
    fight.begin(ScriptedDice([]))
    fight.start_round(ScriptedDice([7, 4]))
    event = attack_event(fight.step(tactics.choose_action, ScriptedDice([12])))
    assert (event.actor, event.total, event.target_number, event.hit) == ("Angthar", 8, 15, False)
    data["sides"][0]["combatants"][0]["tactic"] = {"situation": {"rulings": ["nope"]}}
    with pytest.raises(
        EncounterFileError, match="Angthar's tactic names unknown ruling 'nope'; rulings: rope, fog"
    ):
        make_setup(data)


def test_a_bad_ruling_in_the_file_names_its_place() -> None:
    # rule: ODD-SIT-2 (a band that does not fit the value is refused where it stands)
    bad = {"modifiers": [{"value": -10, "reason": "drunk", "band": "easy"}]}
    with pytest.raises(EncounterFileError) as info:
        make_setup(rulings_data(rope=bad))
    message = str(info.value)
    assert message.startswith("test encounter: rulings.rope.modifiers.0: ")
    assert "a -10 modifier is difficult, not easy (ODD-SIT-2)" in message
    with pytest.raises(
        EncounterFileError,
        match=r"rulings\.rope\.distance: unknown field 'distance' here \(that field belongs to another part",
    ):
        make_setup(rulings_data(rope={"distance": 10}))
    with pytest.raises(EncounterFileError, match=r"rulings\.rope\.cover: .*cover 'some'"):
        make_setup(rulings_data(rope={"cover": "some"}))
    with pytest.raises(EncounterFileError, match=r"rulings\.rope\.modifiers\.0\.reason"):
        make_setup(rulings_data(rope={"modifiers": [{"value": -2}]}))


def test_the_setup_keeps_its_rulings() -> None:
    # rule: ODD-SIT-1 (stored for reuse: they survive the setup's round trip, as the tracker stores it)
    setup = make_setup(rulings_data())
    assert list(setup.rulings) == ["rope", "fog"]
    assert setup.rulings["rope"].cover == "half" and setup.rulings["fog"].concealment == "quarter"
    again = make_setup(setup.to_dict())
    assert again.rulings == setup.rulings
