"""The free round's tables (ODD-SURP-1..5) come from rules/surprise.roll_surprise, enumerated exactly."""

from __future__ import annotations

from fractions import Fraction

from tests.agreement.test_fast_cases import ambush
from tests.conftest import make_setup

from referee.sim import compile_setup
from referee.sim.surprise import free_round_tables, surprise_distribution


def test_per_side_checks_give_four_outcomes_with_the_rule_s_odds() -> None:
    # rule: ODD-SURP-2 (d20 at most Wis: Wis 9 passes 9 in 20), ODD-SURP-3 (the goblins' -2: 7 in 20)
    setup = make_setup(ambush("odd"))
    dist = surprise_distribution(setup)
    by_surprised = {surprised: p for (_, surprised, _), p in dist.items()}
    hero_fails, goblins_fail = Fraction(11, 20), Fraction(13, 20)
    assert by_surprised[("Hero",)] == hero_fails * (1 - goblins_fail)
    assert by_surprised[("Goblin 1", "Goblin 2")] == (1 - hero_fails) * goblins_fail
    assert by_surprised[()] == (1 - hero_fails) * (1 - goblins_fail)


def test_the_free_round_tables_say_who_acts() -> None:
    # rule: ODD-SURP-4 (the unsurprised act), ODD-SURP-5 (all surprised: a free round with no actions)
    setup = make_setup(ambush("odd"))
    free = free_round_tables(setup)
    assert free is not None
    for code, (played, surprised, acting) in enumerate(free.distribution):
        assert bool(free.played[code]) == bool(surprised)
        for i, c in enumerate(setup.combatants):
            assert bool(free.acts[code, i]) == (played and c.name in acting)
            assert bool(free.surprised[code, i]) == (played and c.name in surprised)
    everyone = next(i for i, (_, s, _) in enumerate(free.distribution) if len(s) == 3)
    assert free.played[everyone] and not free.acts[everyone].any()


def test_no_surprise_no_free_round() -> None:
    # rule: ODD-SURP-1: the referee rules surprise impossible
    data = ambush("odd")
    data["surprise"]["possible"] = False
    assert free_round_tables(make_setup(data)) is None
    assert compile_setup(make_setup(data)).free_round is None
