"""Ascending armour class (ODD-AC-1, ODD-AC-2, ODD-AC-ARMOR, ODD-AC-SHIELD, ODD-AC-DEX-1, ODD-AC-DEX-2), built from the attack context the engine uses."""

from __future__ import annotations

from typing import Any

from tests.conftest import make_setup

from referee.checks import Modifier
from referee.dice import ScriptedDice
from referee.engine.actions import Attack
from referee.engine.fight import Fight
from referee.engine.resolve import attack_context
from referee.rules.armour_class import armour_class
from referee.rules.context import Situation


def duel(defender: dict[str, Any], attackers: int = 1, options: dict[str, str] | None = None) -> Fight:
    data = {
        "sides": [
            {"name": "A", "combatants": [{"name": "Orc", "hit_dice": 1, "hp": 5, "count": attackers, "weapons": ["spear"]}]},
            {"name": "D", "combatants": [{"name": "Knight", "level": 3, "hp": 20, "weapons": ["long sword"], **defender}]},
        ],
        "options": options or {},
    }  # fmt: skip
    fight = Fight(make_setup(data))
    fight.begin(ScriptedDice([]))
    return fight


def ac_of(fight: Fight, attacker: str = "Orc", situation: Situation | None = None) -> Any:
    ctx = attack_context(fight.state, Attack(attacker, target="Knight", situation=situation or Situation()))
    return armour_class(ctx)


def test_unarmoured_is_ten() -> None:
    # rule: ODD-AC-1: ordinary clothes → AC 10
    assert ac_of(duel({})).value == 10


def test_chain_mail_is_fifteen() -> None:
    # rule: ODD-AC-ARMOR (TV-000-12): chain mail +5 → AC 15
    ac = ac_of(duel({"armour": "chain mail"}))
    assert ac.value == 15
    assert ac.breakdown() == "AC 15 = 10 base [ODD-AC-1] +5 chain mail [ODD-AC-ARMOR]"


def test_dex_counts_while_the_defender_can_react() -> None:
    # rule: ODD-AC-DEX-1: Dex 16 → +2 under the odd table
    assert ac_of(duel({"armour": "leather", "abilities": {"dex": 16}})).value == 14


def test_dex_lost_from_the_rear_and_when_restrained() -> None:
    # rule: ODD-AC-DEX-2: attacked from the rear → no Dex
    fight = duel({"abilities": {"dex": 16}})
    assert ac_of(fight, situation=Situation(flags=frozenset({"rear"}))).value == 10
    assert ac_of(fight, situation=Situation(flags=frozenset({"unaware"}))).value == 10


def test_dex_penalty_dropped_or_kept_by_option() -> None:
    # rule: ODD-AC-DEX-2 drops the whole modifier; option dex_loss=bonus_only keeps a penalty (DAC-DODGE-3)
    rear = Situation(flags=frozenset({"rear"}))
    assert ac_of(duel({"abilities": {"dex": 5}}), situation=rear).value == 10
    kept = duel({"abilities": {"dex": 5}}, options={"dex_loss": "bonus_only"})
    assert ac_of(kept, situation=rear).value == 8


def test_shield_covers_a_limited_number_of_attackers() -> None:
    # rule: ODD-AC-SHIELD: a small shield +1 against 1 opponent, a medium shield against 2 (GAP-SHIELD-ASSIGN)
    fight = duel({"shield": "small shield"}, attackers=2)
    fight.start_round(ScriptedDice([10, 9, 1]))
    assert ac_of(fight, "Orc 1").value == 11
    fight.act(Attack("Orc 1", target="Knight"), ScriptedDice([1]))
    assert ac_of(fight, "Orc 1").value == 11  # the same attacker keeps the shield's cover
    assert ac_of(fight, "Orc 2").value == 10  # a second attacker is not covered by a small shield
    medium = duel({"shield": "medium shield"}, attackers=2)
    medium.start_round(ScriptedDice([10, 9, 1]))
    medium.act(Attack("Orc 1", target="Knight"), ScriptedDice([1]))
    assert ac_of(medium, "Orc 2").value == 11


def test_magic_protection_adds() -> None:
    # rule: ODD-AC-MAGIC-1: a ring of protection +1
    assert (
        ac_of(
            duel({"armour": "leather", "protection": [{"name": "ring of protection", "enhancement": 1}]})
        ).value
        == 13
    )


def test_armour_class_never_below_one() -> None:
    # rule: ODD-AC-2 (TV-DER-04): AAC 3 with a -4 penalty → 1
    from referee.rules.armour_class import ASCENDING, _assemble
    from referee.rules.ruleset import Ruleset

    floored = _assemble(
        [Modifier(3, "ODD-AC-1", "listed AC"), Modifier(-4, "ODD-AC-SIT", "penalty")],
        ASCENDING,
        "normal",
        Ruleset(),
    )
    assert (floored.value, floored.floored) == (1, True)
    free = _assemble(
        [Modifier(3, "ODD-AC-1", "listed AC"), Modifier(-4, "ODD-AC-SIT", "penalty")],
        ASCENDING,
        "normal",
        Ruleset().with_options(ac_floor="none"),
    )
    assert free.value == -1
