"""Encounters where the paths have drifted apart before, on every path that accepts them.

ODD-AC-SHIELD: a small shield covers one attacker a round, so the second orc's attack in a round meets
the knight without it. The exact odds once probed a state where nobody had attacked yet (0.632 for the
knight where the engine and the simulator said 0.60-0.61)."""

from __future__ import annotations

from typing import Any

from tests.agreement.paths import (
    Record,
    assert_exact_paths_agree,
    compare_simulator,
    exact_odds,
    exact_walk,
    vectorised,
)
from tests.conftest import make_setup


def knight_and_two_orcs(knight_hp: int = 12, orc_hp: int = 4, max_rounds: int = 100) -> dict[str, Any]:
    knight = {"name": "Knight", "level": 1, "hp": knight_hp, "armour": "chain mail", "shield": "small shield",
              "weapons": [{"name": "mace", "damage": "1d4"}]}  # fmt: skip
    orc = {"name": "Orc", "count": 2, "hit_dice": "1", "hp": orc_hp, "ac": 14,
           "weapons": [{"name": "axe", "damage": "1d4"}]}  # fmt: skip
    return {"name": "knight and two orcs", "ruleset": "odd", "max_rounds": max_rounds,
            "sides": [{"name": "Knight", "combatants": [knight]}, {"name": "Orcs", "combatants": [orc]}]}  # fmt: skip


def test_the_shield_fight_agrees_between_the_exact_odds_and_the_simulator() -> None:
    # rule: ODD-AC-SHIELD (one attacker a round), ODD-INIT-1, ODD-ATK-1 (the whole fight)
    setup = make_setup(knight_and_two_orcs())
    record = Record(setup.name)
    chain = exact_odds(setup, record)
    assert chain is not None and vectorised(setup, record), record.summary()
    compare_simulator(setup, chain, record, "exact odds")


def test_the_shield_fight_s_first_round_agrees_exactly_with_the_engine() -> None:
    # rule: ODD-AC-SHIELD: both orcs attack the knight in round 1; only the first meets the shield
    setup = make_setup(knight_and_two_orcs(knight_hp=2, orc_hp=1, max_rounds=1))
    record = Record(setup.name)
    walked = exact_walk(setup, record, 20_000)
    chain = exact_odds(setup, record)
    assert walked is not None and chain is not None, record.summary()
    assert walked["win Orcs"] > 0.3  # the knight can fall in round 1: the shield matters
    assert_exact_paths_agree(walked, chain, "exact engine walk vs exact odds")
    assert vectorised(setup, record), record.summary()
    compare_simulator(setup, walked, record, "exact engine walk")
