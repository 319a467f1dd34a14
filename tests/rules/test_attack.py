"""The ODD core contributors of the attack planner, checked through the engine's own attack context."""

from __future__ import annotations

from typing import Any

from tests.conftest import make_setup

from referee.dice import ScriptedDice
from referee.engine.actions import Attack
from referee.engine.fight import Fight
from referee.engine.resolve import attack_context
from referee.rules.attack import plan_attack, range_band


def archer_fight(**archer: Any) -> Fight:
    data = {
        "sides": [
            {"name": "A", "combatants": [{"name": "Archer", "level": 3, "attack_bonus": 2, "hp": 10,
                                          "abilities": {"str": 16, "dex": 14}, **archer}]},
            {"name": "B", "combatants": [{"name": "Orc", "hit_dice": 1, "hp": 20, "ac": 12, "weapons": ["spear"]}]},
        ],
    }  # fmt: skip
    fight = Fight(make_setup(data))
    fight.begin(ScriptedDice([]))
    return fight


def plan(fight: Fight, weapon: str, distance: int) -> Any:
    return plan_attack(
        attack_context(fight.state, Attack("Archer", target="Orc", weapon=weapon, distance=distance))
    )


def test_ranged_to_hit_uses_dex() -> None:
    # rule: ODD-RANGED-1: d20 + BTH + Dex; Dex 14 → +1
    p = plan(archer_fight(weapons=["short bow"]), "short bow", 30)
    assert [(m.value, m.rule) for m in p.check.modifiers] == [(2, "ODD-BTH-1"), (1, "ODD-RANGED-1")]


def test_strength_adds_to_thrown_damage_not_to_propelled() -> None:
    # rule: ODD-RANGED-2: Str 16 (+2) to a thrown javelin's damage, never to a sling stone
    fight = archer_fight(weapons=["javelin", "sling"])
    thrown = plan(fight, "javelin", 20)
    assert [(m.value, m.rule) for m in thrown.damage.modifiers] == [(2, "ODD-RANGED-2")]
    propelled = plan(fight, "sling", 20)
    assert propelled.damage.modifiers == ()


def test_range_bands() -> None:
    # rule: ODD-RANGED-3 (TV-DER-01): increment 30 ft
    assert [range_band(30, d) for d in (30, 31, 60, 61, 90, 91)] == [0, -2, -2, -6, -6, None]


def test_medium_range_penalty_in_the_plan() -> None:
    # rule: ODD-RANGED-3: a short bow (50 ft) at 80 ft is medium range, -2
    p = plan(archer_fight(weapons=["short bow"]), "short bow", 80)
    assert (-2, "ODD-RANGED-3") in [(m.value, m.rule) for m in p.check.modifiers]


def test_thrown_attack_event_damage() -> None:
    # rule: ODD-RANGED-2, ODD-ATK-2: javelin d6 4 + Str 2 = 6
    fight = archer_fight(weapons=["javelin"])
    fight.start_round(ScriptedDice([9, 1]))
    events = fight.act(Attack("Archer", target="Orc", weapon="javelin", distance=20), ScriptedDice([15, 4]))
    damage = next(e for e in events if e.type.value == "damage")
    assert damage.damage == 6
