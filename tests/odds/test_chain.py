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
        odds.fight_odds(
            setup, walk=False
        )  # the chain's own refusal (the engine walk: tests/odds/test_whole.py)


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


def three_against_three(hp: int, **options: Any) -> Setup:
    """Three fighters against three orcs, `hp` hit points each, d6 weapons, AC 12."""

    def side(name: str) -> dict[str, Any]:
        return {"name": name, "combatants": [
            {"name": f"{name} {i}", "hp": hp, "ac": 12, "attack_bonus": 1,
             "weapons": [{"name": "club", "damage": "1d6"}]} for i in (1, 2, 3)]}  # fmt: skip

    return make_setup(
        {"name": "3 vs 3", "ruleset": "odd", "options": options, "sides": [side("A"), side("B")]}
    )


def test_six_combatants_within_the_bound_agree_with_the_simulator() -> None:
    # rule: ODD-INIT-4 (one d10 per side), ODD-INIT-3, GAP-HP-ZERO: six combatants, 5^6 = 15,625 states
    # (under MAX_CELLS); 100,000 simulated fights within 4.5 standard errors of the exact odds
    from tests.sim.cases import assert_matches_exact

    from referee import sim

    setup = three_against_three(4, initiative="d10_group")
    exact = odds.fight_odds(setup)
    assert exact.states == 5**6
    total = sum(exact.wins.values()) + exact.draw + exact.limit + exact.unresolved
    assert total == pytest.approx(1, abs=1e-9)
    result = sim.simulate(setup, 100_000, seed=12)
    rounds = sum(float(p) * r for r, p in exact.rounds.items())
    wins = {side: float(p) for side, p in exact.wins.items()}
    assert_matches_exact(result, wins, float(exact.draw), float(exact.limit), rounds)


def test_six_combatants_over_the_bound_are_refused_with_the_count() -> None:
    # rule: the documented bound (docs/odds.md): 8^6 = 262,144 hit-point combinations > MAX_CELLS
    with pytest.raises(
        odds.OddsError, match=r"^262144 hit-point combinations is over the exact-odds bound of 100000;"
    ):
        odds.fight_odds(three_against_three(7, initiative="d10_group"))


def test_too_many_initiative_combinations_are_refused_with_the_count() -> None:
    # rule: ODD-INIT-1/2 (a d10 each, Dex ties): six units give 10^6 combinations a round > MAX_ORDERS
    with pytest.raises(odds.OddsError, match=r"^1000000 combinations of initiative rolls a round is over"):
        odds.fight_odds(three_against_three(2))
