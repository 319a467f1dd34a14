"""Rolling a planned attack (ODD-ATK-1, MF-CRIT-1, HR-CRIT-1, HR-FUMBLE-1, MF-VIS-5) and its damage
(ODD-ATK-2, GAP-CRIT-002, GAP-MIN-DAMAGE): live (scripted dice), exact (every face), and through the
engine, which rolls the same procedure."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from tests.conftest import angthar_data, make_setup

from referee import chance
from referee.dice import DiceSource, ScriptedDice
from referee.engine.actions import Attack
from referee.engine.events import EventType
from referee.engine.fight import Fight
from referee.engine.resolve import plan_declared_attack
from referee.rules import attack_roll
from referee.rules.attack import AttackPlan, CriticalPlan
from referee.rules.attack_roll import AttackOutcome, roll_attack, roll_damage

CONFIRMING = {"critical_hits": "confirm_16_20", "fumbles": "confirm_1_5"}


def fight_in_round(**options: Any) -> Fight:
    """Angthar (d20 + 5 against 12: hits on 7-20; battle axe 1d8+1) and the goblin, Angthar to act."""
    fight = Fight(make_setup(angthar_data(options=options)))
    fight.begin(ScriptedDice([]))
    fight.start_round(ScriptedDice([7, 4]))
    return fight


def planned(**options: Any) -> AttackPlan:
    fight = fight_in_round(**options)
    return plan_declared_attack(fight.state, Attack("Angthar", target="Goblin"))[1]


def chance_of(dist: dict[AttackOutcome, Fraction], **fields: bool) -> Fraction:
    return sum(
        (p for o, p in dist.items() if all(getattr(o, k) == v for k, v in fields.items())), Fraction(0)
    )


def test_live_hit_and_miss() -> None:
    # rule: ODD-ATK-1: d20 + bonus against the target number; one die, nothing more
    plan = planned()
    hit, dice = chance.run(lambda d: roll_attack(plan, d), ScriptedDice([7]))
    assert (hit.natural, hit.hit, hit.critical, hit.faces) == (7, True, False, (7,))
    assert [(d.sides, d.purpose) for d in dice] == [(20, "attack")]
    assert not roll_attack(plan, ScriptedDice([6])).hit


def test_live_confirmation_dice() -> None:
    # rule: HR-CRIT-1 (a natural 20 is critical if the confirmation d20 shows 16-20), HR-FUMBLE-1 (1-5)
    plan = planned(**CONFIRMING)
    assert roll_attack(plan, ScriptedDice([20, 16])).critical
    confirmed_not, dice = chance.run(lambda d: roll_attack(plan, d), ScriptedDice([20, 15]))
    assert confirmed_not.hit and not confirmed_not.critical
    assert [d.purpose for d in dice] == ["attack", "critical confirmation"]
    assert roll_attack(plan, ScriptedDice([1, 5])).fumble
    assert not roll_attack(plan, ScriptedDice([1, 6])).fumble


def test_exact_attack_distribution() -> None:
    # rule: ODD-ATK-1, HR-CRIT-1, HR-FUMBLE-1: the exact chances of the live procedure
    plan = planned(**CONFIRMING)
    dist = chance.distribution(lambda d: roll_attack(plan, d))
    assert sum(dist.values()) == 1
    assert chance_of(dist, hit=True) == Fraction(14, 20)
    assert chance_of(dist, critical=True) == Fraction(1, 20) * Fraction(5, 20)
    assert chance_of(dist, fumble=True) == Fraction(1, 20) * Fraction(5, 20)
    outright_plan = planned(critical_hits="max_plus_half_level")
    outright = chance.distribution(lambda d: roll_attack(outright_plan, d))
    assert chance_of(outright, critical=True) == Fraction(1, 20)  # MF-CRIT-1: no confirmation


def test_exact_miss_chance() -> None:
    # rule: MF-VIS-5 with option miss_chance_dice = d6: 33% is 1-2 on a d6
    plan = replace(planned(), miss_chance=33, miss_dice="d6")
    dist = chance.distribution(lambda d: roll_attack(plan, d))
    assert chance_of(dist, missed_by_chance=True) == Fraction(14, 20) * Fraction(2, 6)
    assert chance_of(dist, hit=True) == Fraction(14, 20) * Fraction(4, 6)
    assert roll_attack(plan, ScriptedDice([12, 2])).missed_by_chance


def test_exact_damage() -> None:
    # rule: ODD-ATK-2 (1d8+1), GAP-CRIT-002 (a confirmed critical rolls the dice twice: 2d8+1)
    plan = planned(**CONFIRMING)
    normal = AttackOutcome(12, True, False, False, False)
    dist = chance.distribution(lambda d: roll_damage(plan, normal, d)[0])
    assert dist == {n: Fraction(1, 8) for n in range(2, 10)}
    critical = AttackOutcome(20, True, True, False, False)
    doubled = chance.distribution(lambda d: roll_damage(plan, critical, d)[0])
    assert min(doubled) == 3 and max(doubled) == 17 and doubled[10] == Fraction(8, 64)
    assert attack_roll.damage_rule_id(plan, critical) == "HR-CRIT-1"


def test_the_engine_rolls_the_same_procedure() -> None:
    # rule: HR-CRIT-1, GAP-CRIT-002: the engine's attack event reads the live procedure's outcome
    fight = fight_in_round(**CONFIRMING)
    events = fight.act(Attack("Angthar", target="Goblin"), ScriptedDice([20, 17, 3, 5]))
    attack = next(e for e in events if e.type is EventType.ATTACK)
    assert attack.data["critical"] and [d.purpose for d in attack.dice] == ["attack", "critical confirmation"]
    damage = next(e for e in events if e.type is EventType.DAMAGE)
    assert damage.damage == 3 + 5 + 1 and damage.rule == "HR-CRIT-1"


def test_a_changed_confirmation_procedure_reaches_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: HR-CRIT-1 changed by a house rule (confirmation on 11-20): engine and exact odds both follow
    def wider(crit: CriticalPlan, dice: DiceSource) -> bool:
        return dice.roll(20, "critical confirmation") >= 11

    def critical_on(faces: list[int]) -> bool:
        fight = fight_in_round(**CONFIRMING)
        events = fight.act(Attack("Angthar", target="Goblin"), ScriptedDice(faces))
        return bool(next(e for e in events if e.type is EventType.ATTACK).data["critical"])

    assert not critical_on([20, 12, 3, 5])
    monkeypatch.setattr(attack_roll, "confirm_critical", wider)
    assert critical_on([20, 12, 3, 5])
    plan = planned(**CONFIRMING)
    dist = chance.distribution(lambda d: roll_attack(plan, d))
    assert chance_of(dist, critical=True) == Fraction(1, 20) * Fraction(10, 20)
