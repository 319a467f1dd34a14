"""A whole fight's odds (referee.odds.whole): the chain answers what it models; a small fight it refuses is
walked through the event engine itself (referee.exact_engine) and says so; beyond both, both reasons."""

from __future__ import annotations

from fractions import Fraction

import pytest
from tests.conftest import EXAMPLES, make_setup

from referee import odds
from referee.exact_engine import exact_fight
from referee.files import Setup, load_encounter
from referee.odds.chain import CHAIN, WALK


def tiny_duel(hp: int, max_rounds: int, **options: str) -> Setup:
    fighter = {"level": 1, "hp": hp, "weapons": [{"name": "dagger", "damage": "1d2"}]}
    return make_setup(
        {"name": "tiny", "ruleset": "odd", "options": options, "max_rounds": max_rounds,
         "sides": [{"name": "A", "combatants": [{"name": "Ann", **fighter}]},
                   {"name": "B", "combatants": [{"name": "Bob", **fighter}]}]}
    )  # fmt: skip


def test_the_chain_answers_what_it_models() -> None:
    # rule: ODD-INIT-1, ODD-HP-1: a plain duel is the chain's
    result = odds.fight_odds(load_encounter(EXAMPLES / "duel.yaml"))
    assert result.path == CHAIN and result.to_dict()["path"] == CHAIN and not result.refused


def test_a_small_fight_the_chain_refuses_is_walked_through_the_engine() -> None:
    # rule: HR-HELPLESS-1, GAP-COUP (finish_fallen): the chain holds standing targets only and refuses;
    # the engine's own walk answers, exactly, and says so
    setup = tiny_duel(hp=2, max_rounds=3, finish_fallen="when_no_standing_enemy")
    with pytest.raises(odds.OddsError, match="finish_fallen"):
        odds.fight_odds(setup, walk=False)
    result = odds.fight_odds(setup, exact=True)
    walked = exact_fight(setup)
    assert result.path == WALK and "finish_fallen" in result.refused
    assert result.wins == walked.wins and result.draw == walked.draw and result.limit == walked.limit
    assert sum(result.wins.values(), Fraction(0)) + result.draw + result.limit == 1
    assert result.wins["A"] == result.wins["B"] > 0  # the two are alike
    floats = odds.fight_odds(setup).to_dict()
    assert floats["path"] == WALK and floats["wins"]["A"] == pytest.approx(float(walked.wins["A"]), abs=1e-12)


def test_beyond_both_the_refusal_gives_both_reasons() -> None:
    # rule: ODD-GRAP-1: a grapple imposes a condition (the chain refuses) and the troll's fight is over
    # the walk's budget: one line with both reasons, pointing to the simulator
    with pytest.raises(odds.OddsError) as refused:
        odds.fight_odds(load_encounter(EXAMPLES / "grapple.yaml"))
    message = str(refused.value)
    assert "grappled" in message and "over its budget too" in message and "dice sequences" in message
    assert message.endswith("use `referee sim`") and "\n" not in message
