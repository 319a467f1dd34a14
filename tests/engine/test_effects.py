"""Area effects with saving throws (src/referee/engine/effects.py): GAP-SAVES, MOD-COVER-1, MOD-COVER-EVADE,
MF-COVER-1, MF-COVER-2, MOD-COND-BLIND-1, MOD-COND-UNSEEN, ODD-ATK-4; driven by scripted dice."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.odd_helpers import encounter, fight_of, fighter, give, orc

from referee.checks import Modifier
from referee.dice import RandomDice, ScriptedDice
from referee.engine.actions import action_from_dict
from referee.engine.effects import AreaEffect
from referee.engine.events import Event, EventType
from referee.engine.fight import Fight
from referee.engine.resolve import resolve
from referee.errors import IllegalActionError


def of(events: list[Event], kind: EventType) -> list[Event]:
    return [e for e in events if e.type is kind]


def damage_to(events: list[Event]) -> dict[str, int]:
    return {str(e.target): int(e.damage or 0) for e in of(events, EventType.DAMAGE)}


def mod_fight(**extra: Any) -> Fight:
    """A 5th-level mage against four 1 HD orcs with 30 hp (GAP-SAVES: class save 15 at 1 HD)."""
    foes = [orc(n, hp=30) for n in ("Orc A", "Orc B", "Orc C", "Orc D")]
    return fight_of(encounter([fighter("Mage", level=5)], foes, ruleset="mod", **extra))


def mf_fight() -> Fight:
    """A mage against three fighters with Dex 12 (Luck (Dex) save: d20 <= 12)."""
    foes = [fighter(n, abilities={"dex": 12}) for n in ("Ann", "Bo", "Cy")]
    return fight_of(encounter([fighter("Mage", level=5)], foes, ruleset="mf"))


FIREBALL = {"kind": "effect", "actor": "Mage", "source": "fireball", "damage": "4d6", "save": "class"}


def test_fireball_half_on_a_save_and_the_arrow_slit_tv_001_04() -> None:
    # rule: GAP-SAVES (class save 15 for 1 HD, half damage on a save), MOD-COVER-1 (+10 at 90% cover,
    # GAP-001-COVER), MOD-COVER-EVADE (TV-001-04: behind an arrow slit a save means no damage at all)
    fight = mod_fight()
    action = action_from_dict(
        {
            **FIREBALL,
            "targets": ["Orc A", "Orc B", "Orc C", "Orc D"],
            "cover": {"Orc C": "90%", "Orc D": "ninety"},
        }
    )
    # dice order: the 4d6 first (3+4+5+2 = 14), then one save d20 per target in the listed order
    events = resolve(fight.state, action, ScriptedDice([3, 4, 5, 2, 15, 10, 5, 4]))
    start = of(events, EventType.ACTION)[0]
    assert [d.value for d in start.dice] == [3, 4, 5, 2] and start.data["amount"] == 14
    checks = of(events, EventType.CHECK)
    assert [c.target for c in checks] == ["Orc A", "Orc B", "Orc C", "Orc D"]
    assert [[d.value for d in c.dice] for c in checks] == [[15], [10], [5], [4]]
    assert [(c.total, c.target_number, c.hit) for c in checks] == [
        (15, 15, True), (10, 15, False), (15, 15, True), (14, 15, False)
    ]  # fmt: skip
    assert checks[2].modifiers == (Modifier(10, "MOD-COVER-1", "ninety cover"),)
    assert checks[2].data["rules"] == ["GAP-SAVES", "MOD-COVER-1"]
    assert damage_to(events) == {"Orc A": 7, "Orc B": 14, "Orc C": 0, "Orc D": 14}
    rules = {e.target: e.rule for e in of(events, EventType.DAMAGE)}
    assert rules["Orc C"] == "MOD-COVER-EVADE" and rules["Orc D"] == "ODD-ATK-4"
    fight.push(events)
    assert [fight.state[n].hp for n in ("Orc A", "Orc B", "Orc C", "Orc D")] == [23, 16, 30, 16]


def test_arrow_slit_evade_needs_the_mod_cover_option() -> None:
    # rule: MOD-COVER-EVADE applies only under `cover = mod_percent`; under mf 90% cover gives no Luck
    # (Dex) bonus (MF-COVER-1/2 name half and three quarters) and a save halves the damage
    fight = mf_fight()
    action = AreaEffect("Mage", source="breath", targets=("Ann",), damage=10, save="luck_dex",
                        cover={"Ann": "ninety"})  # fmt: skip
    events = resolve(fight.state, action, ScriptedDice([12]))
    check = of(events, EventType.CHECK)[0]
    assert (check.target_number, check.hit, check.modifiers) == (12, True, ())
    assert damage_to(events) == {"Ann": 5}


def test_mf_cover_plus_2_and_plus_4_to_luck_dex_saves() -> None:
    # rule: MF-COVER-1 (half cover +2 on Luck (Dex) saves), MF-COVER-2 (three quarters +4), GAP-SAVES
    # (Luck (Dex): d20 <= Dex 12, cover raising the target number)
    fight = mf_fight()
    action = AreaEffect("Mage", source="lightning", targets=("Ann", "Bo", "Cy"), damage="2d6",
                        save="luck_dex", cover={"Ann": "half", "Bo": "3/4"})  # fmt: skip
    events = resolve(fight.state, action, ScriptedDice([4, 4, 14, 16, 13]))
    checks = of(events, EventType.CHECK)
    assert [(c.target_number, c.total, c.hit) for c in checks] == [
        (14, 14, True),
        (16, 16, True),
        (12, 13, False),
    ]
    assert checks[0].modifiers == (Modifier(2, "MF-COVER-1", "half cover"),)
    assert checks[1].modifiers == (Modifier(4, "MF-COVER-2", "three_quarters cover"),)
    assert checks[2].modifiers == ()
    assert "Luck (Dex) save" in checks[0].text
    assert damage_to(events) == {"Ann": 4, "Bo": 4, "Cy": 8}


def test_mf_cover_does_not_help_a_luck_con_save() -> None:
    # rule: MF-COVER-1 (only Luck (Dex) saves), GAP-SAVES (Luck (Con) = d20 <= Con 10)
    fight = mf_fight()
    action = AreaEffect("Mage", source="stinking cloud", targets=("Ann",), damage=6, save="luck_con",
                        on_save="none", cover={"Ann": "half"})  # fmt: skip
    events = resolve(fight.state, action, ScriptedDice([10]))
    check = of(events, EventType.CHECK)[0]
    assert (check.target_number, check.hit, check.modifiers) == (10, True, ())
    assert damage_to(events) == {"Ann": 0}


def test_blind_saver_minus_4_and_unseen_plus_4() -> None:
    # rule: MOD-COND-BLIND-1 (a blind creature saves at -4), MOD-COND-UNSEEN (+4 against a creature that
    # cannot see it: an invisible target, or a blind caster), not against a trap
    fight = mod_fight()
    give(fight.state, "Orc A", "blind")
    give(fight.state, "Orc B", "invisible")
    action = AreaEffect("Mage", source="fireball", targets=("Orc A", "Orc B", "Orc C"), damage=8)
    events = resolve(fight.state, action, ScriptedDice([18, 11, 11]))
    checks = of(events, EventType.CHECK)
    assert [c.modifiers for c in checks] == [
        (Modifier(-4, "MOD-COND-BLIND-1", "blind"),),
        (Modifier(4, "MOD-COND-UNSEEN", "invisible to the source"),),
        (),
    ]
    assert [(c.total, c.hit) for c in checks] == [(14, False), (15, True), (11, False)]
    assert damage_to(events) == {"Orc A": 8, "Orc B": 4, "Orc C": 8}
    give(fight.state, "Mage", "blind")
    blind_caster = resolve(fight.state, action, ScriptedDice([11, 11, 11]))
    assert [c.data["rules"] for c in of(blind_caster, EventType.CHECK)] == [
        ["GAP-SAVES", "MOD-COND-BLIND-1", "MOD-COND-UNSEEN"],
        ["GAP-SAVES", "MOD-COND-UNSEEN"],
        ["GAP-SAVES", "MOD-COND-UNSEEN"],
    ]
    trap = AreaEffect("Mage", source="gas trap", targets=("Orc B",), damage=8, creature=False, free=True)
    assert of(resolve(fight.state, trap, ScriptedDice([11])), EventType.CHECK)[0].modifiers == ()


def test_no_save_subdual_and_a_defeat() -> None:
    # rule: ODD-ATK-4 (the stated damage, no save: no d20), ODD-HP-1 (a defeat), ODD-PUMMEL-2 (subdual)
    fight = mod_fight()
    trap = AreaEffect("Mage", source="falling block", targets=("Orc A",), damage=30, save="none")
    events = resolve(fight.state, trap, ScriptedDice([]))
    assert not of(events, EventType.CHECK) and damage_to(events) == {"Orc A": 30}
    assert of(events, EventType.DEFEAT)[0].target == "Orc A"
    soft = AreaEffect("Mage", source="sandbag", targets=("Orc B",), damage="1d6", save="none", subdual=True)
    damage = of(resolve(fight.state, soft, ScriptedDice([5])), EventType.DAMAGE)[0]
    assert damage.damage == 5 and damage.data["subdual"] is True


def test_the_effect_is_the_actors_action_unless_free() -> None:
    # rule: ODD-ACT-1 (an effect is the actor's action for the round), ODD-ACT-FREE-2 (`free`: no turn used)
    fight = mod_fight()
    fight.start_round(ScriptedDice([], then=RandomDice(3)))
    first = fight.next_actor()
    other = next(n for n in fight.state.combatants if n != first)
    effect = AreaEffect(other, source="breath", targets=(first or "",), damage=1, save="none")
    with pytest.raises(IllegalActionError, match="turn"):
        fight.act(effect, ScriptedDice([]))
    trap = AreaEffect(other, source="dart trap", targets=(first or "",), damage=1, save="none", free=True)
    events = fight.act(trap, ScriptedDice([]))
    assert of(events, EventType.ACTION)[0].data["free"] is True
    assert other not in fight.state.acted and fight.next_actor() == first
    assert first is not None
    mine = AreaEffect(first, source="breath", targets=(other,), damage=1, save="none")
    fight.act(mine, ScriptedDice([]))
    assert first in fight.state.acted


BAD: list[tuple[dict[str, Any], str]] = [
    ({"source": "", "targets": ["Orc A"]}, "source"),
    ({"targets": []}, "at least one target"),
    ({"targets": ["Nobody"]}, "no combatant called"),
    ({"targets": ["Orc A", "Orc A"]}, "listed twice"),
    ({"targets": ["Orc A"], "save": "reflex"}, "unknown save"),
    ({"targets": ["Orc A"], "on_save": "quarter"}, "on_save"),
    ({"targets": ["Orc A"], "cover": {"Orc B": "half"}}, "not a target"),
    ({"targets": ["Orc A"], "cover": {"Orc A": "lots"}}, "cover"),
    ({"targets": ["Orc A"], "damage": -3}, "0 or more"),
    ({"targets": ["Orc A"], "damage": "4d"}, "damage"),
    ({"targets": ["Orc A"], "damage": True}, "damage"),
    ({"targets": ["Orc A"], "cover": ["Orc A"]}, "cover"),
]


@pytest.mark.parametrize(("fields", "words"), BAD)
def test_bad_input_is_refused_in_one_line(fields: dict[str, Any], words: str) -> None:
    # rule: GAP-SAVES (inputs checked before any die is rolled; one-line IllegalActionError)
    fight = mod_fight()
    before = fight.state.snapshot()
    data = {"kind": "effect", "actor": "Mage", "source": "fireball", "damage": "4d6", **fields}
    with pytest.raises(IllegalActionError, match=words) as caught:
        resolve(fight.state, action_from_dict(data), ScriptedDice([]))
    assert "\n" not in str(caught.value)
    assert fight.state.snapshot() == before


def test_round_trips_through_action_from_dict() -> None:
    # rule: ODD-ATK-4 (the action travels through the JSON API like every other)
    action = AreaEffect("Mage", source="fireball", targets=("Orc A", "Orc C"), damage="4d6", save="luck_dex",
                        on_save="none", cover={"Orc C": "ninety"}, subdual=True, free=True)  # fmt: skip
    assert action.to_dict()["kind"] == "effect"
    assert action_from_dict(action.to_dict()) == action
    assert action_from_dict(json.loads(json.dumps(action.to_dict()))) == action
    assert action_from_dict({"kind": "effect", "actor": "Mage", "damage": 7}) == AreaEffect("Mage", damage=7)
