"""The whole-fight chain (referee.odds.chain, referee.odds.plans) against the engine: per-round state a
rule reads (attackers on a target this round), attacks back, and procedures replaced in rules/."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import EXAMPLES, make_setup
from tests.test_odds import assert_fight_matches_engine, tiny_fight

from referee import odds
from referee.dice import DiceSource
from referee.files import Setup, load_encounter
from referee.model import Combatant
from referee.rules import initiative
from referee.rules.ruleset import Ruleset

DATA = Path(__file__).resolve().parent.parent / "data"


def shielded(hp: int, orc_hp: int, max_rounds: int, **options: Any) -> Setup:
    """A knight with a small shield (AC 11 against the first attacker of a round, 10 after: ODD-AC-SHIELD)
    against two orcs; everyone has a 1d2 dagger and BTH +0."""
    orc = {"hp": orc_hp, "ac": 10, "weapons": [{"name": "dagger", "damage": "1d2"}]}
    return make_setup(
        {"name": "shield", "ruleset": "odd", "options": options, "max_rounds": max_rounds,
         "sides": [
             {"name": "Knight", "combatants": [
                 {"name": "Knight", "level": 1, "hp": hp, "shield": "small shield",
                  "weapons": [{"name": "dagger", "damage": "1d2"}]}]},
             {"name": "Orcs", "combatants": [{"name": "Orc1", **orc}, {"name": "Orc2", **orc}]},
         ]}
    )  # fmt: skip


def test_a_small_shield_covers_one_attacker_a_round_in_the_chain() -> None:
    # rule: ODD-AC-SHIELD, GAP-SHIELD-ASSIGN: the second orc to attack in a round meets AC 10, not 11;
    # ODD-INIT-4 puts both orcs in one slot, so every round has a first and a second attacker
    setup = shielded(hp=3, orc_hp=1, max_rounds=2, initiative="d10_group")
    assert_fight_matches_engine(setup)


def test_the_knight_and_two_orcs_agree_with_the_engine() -> None:
    # rule: ODD-AC-SHIELD (issue 11): the knight's shield covers the first orc to attack each round only.
    # The file's first round, with the knight at 3 hit points and the orcs at 1, equals every dice
    # sequence through the engine (the chain that ignored the count said the orcs win 173847/640000)
    setup = load_encounter(DATA / "shield_knight_two_orcs.yaml")
    low = tuple(c.model_copy(update={"hp": 3 if c.side == "Knight" else 1}) for c in setup.combatants)
    exact = assert_fight_matches_engine(replace(setup, combatants=low, max_rounds=1))
    assert exact.wins["Orcs"] == Fraction(373643, 1280000)
    # the whole fight: the chain that ignored the count said 0.554; 2,000 engine fights say 0.5275
    assert float(odds.fight_odds(setup).wins["Knight"]) == pytest.approx(0.52536, abs=1e-5)


def test_a_free_attack_back_on_a_counted_shield_is_refused() -> None:
    # rule: MF-FUMBLE-2 with ODD-AC-SHIELD: a struck-back knight is attacked twice by one orc in a round;
    # the chain counts attacks, the shield counts attackers: refused, never answered under other rules
    setup = shielded(hp=3, orc_hp=1, max_rounds=2, fumbles="free_attack_or_ally_reroll")
    with pytest.raises(odds.OddsError, match="counts attacks, not attackers"):
        odds.fight_odds(setup)


def test_the_house_rules_duel_is_answered() -> None:
    # rule: MF-FUMBLE-2 (the preset's free attack back after a fumble) is carried, not refused
    result = odds.fight_odds(load_encounter(EXAMPLES / "house_rules_duel.yaml"))
    total = sum(result.wins.values()) + result.draw + result.limit + result.unresolved
    assert total == pytest.approx(1, abs=1e-9)


def test_an_initiative_house_rule_reaches_the_chain(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: ODD-INIT-1 replaced by d10 + Dex modifier where the initiative rule lives: the engine and the
    # exact odds both follow it (issue 11, the initiative drift)
    plain = initiative.roll_unit

    def with_dex(
        ruleset: Ruleset, unit: str, members: Any, number: int, dice: DiceSource
    ) -> initiative.UnitRoll:
        rolled = plain(ruleset, unit, members, number, dice)
        c: Combatant = members[0]
        bonus = (c.abilities.dexterity - 10) // 2
        return initiative.UnitRoll(unit, rolled.face, (rolled.face + bonus, 0), rolled.delays)

    setup = tiny_fight([("Ann", "A", 2, 16), ("Bob", "B", 2, 10)], max_rounds=2)
    before = odds.fight_odds(setup, exact=True)
    monkeypatch.setattr(initiative, "roll_unit", with_dex)
    after = assert_fight_matches_engine(setup)
    assert after.wins["A"] > before.wins["A"]  # +3 to Ann's initiative
