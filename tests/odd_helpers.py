"""Small builders shared by the tests of the ODD maneuvers, situations and movement."""

from __future__ import annotations

from typing import Any

from tests.conftest import make_setup

from referee.dice import ScriptedDice
from referee.engine.actions import Attack
from referee.engine.events import EventType, event
from referee.engine.fight import Fight
from referee.engine.resolve import attack_context
from referee.engine.state import FightState
from referee.rules.attack import AttackPlan, plan_attack


def fighter(name: str = "Ann", **extra: Any) -> dict[str, Any]:
    """A 4th-level fighter: BTH +3, Str 10 and Dex 10 (no modifiers), 20 hp, long sword."""
    data: dict[str, Any] = {"name": name, "level": 4, "attack_bonus": 3, "hp": 20, "weapons": ["long sword"]}
    data.update(extra)
    return data


def orc(name: str = "Orc", **extra: Any) -> dict[str, Any]:
    """A 1 HD orc: BTH +1, AC 12, 6 hp, club."""
    data: dict[str, Any] = {"name": name, "hit_dice": 1, "hp": 6, "ac": 12, "weapons": ["club"]}
    data.update(extra)
    return data


def encounter(left: list[dict[str, Any]], right: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "test",
        "ruleset": "odd",
        "sides": [{"name": "Heroes", "combatants": left}, {"name": "Foes", "combatants": right}],
    }
    data.update(extra)
    return data


def fight_of(data: dict[str, Any], initiative: list[int] | None = None) -> Fight:
    """A fight set up (fixed hit points) and, when `initiative` is given, in its first round."""
    fight = Fight(make_setup(data))
    fight.begin(ScriptedDice([]))
    if initiative is not None:
        fight.start_round(ScriptedDice(initiative))
    return fight


def state_of(data: dict[str, Any]) -> FightState:
    return fight_of(data).state


def give(state: FightState, who: str, condition: str, source: str | None = None, **extra: Any) -> None:
    """Put a condition on a combatant through the one door (a CONDITION event)."""
    state.apply(
        event(EventType.CONDITION, state.round, actor=source, target=who,
              data={"condition": condition, "added": True, "until_round": None, "extra": extra})
    )  # fmt: skip


def plan(state: FightState, attacker: str, target: str, **fields: Any) -> AttackPlan:
    return plan_attack(attack_context(state, Attack(attacker, target=target, **fields)))


def rules_of(modifiers: Any) -> list[tuple[int, str]]:
    return [(m.value, m.rule) for m in modifiers]
