"""The orders of action the chain plays (referee.odds.orders, referee.odds.rounds): enumerated per
ranking of the keys, collapsed where orders do the same, reused every round unless a rule reads the
round's number — each checked against the plain way."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest
from tests.test_odds import assert_fight_matches_engine, tiny_fight

from referee import odds
from referee.dice import DiceSource
from referee.odds import orders, rounds
from referee.rules import initiative
from referee.rules.ruleset import Ruleset


def unit_rolls(rng: random.Random, unit: str, dex: int | None) -> orders.Rolls:
    faces = rng.sample(range(1, 11), rng.randint(1, 4))
    weights = [rng.randint(1, 5) for _ in faces]
    total = sum(weights)
    return [
        (initiative.UnitRoll(unit, f, (f,) if dex is None else (f, dex)), Fraction(w, total))
        for f, w in zip(faces, weights, strict=True)
    ]


@pytest.mark.parametrize("seed", range(12))
def test_orders_per_ranking_equal_every_combination(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: ODD-INIT-1..4: order_from_rolls asked per ranking of the keys gives the distribution it gives
    # asked for every combination (forced by putting a wrapper of the rule in its place)
    rng = random.Random(seed)
    group = seed % 3 == 0
    names = [f"U{i}" for i in range(rng.randint(2, 5))]
    per_unit = [unit_rolls(rng, n, None if group else rng.choice([10, 11])) for n in names]
    members = {n: [n] for n in names}
    index = {n: i for i, n in enumerate(names)}
    ruleset = Ruleset.preset("odd")
    fast = orders.order_distribution(ruleset, per_unit, members, None, index, Fraction(1))
    plain = initiative.order_from_rolls
    monkeypatch.setattr(initiative, "order_from_rolls", lambda *args: plain(*args))
    assert not orders.ranks_only()
    slow = orders.order_distribution(ruleset, per_unit, members, None, index, Fraction(1))
    assert fast == slow
    assert sum(fast.values()) == 1


def test_a_roll_that_reads_the_round_is_rolled_every_round(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: ODD-INIT-1 replaced by a house rule that reads the round (+5 to the first side from round
    # 2): the chain asks for the rolls every round and still equals the engine
    plain = initiative.roll_unit

    def later_rounds_favour_ann(
        ruleset: Ruleset, unit: str, members: Any, number: int, dice: DiceSource
    ) -> initiative.UnitRoll:
        rolled = plain(ruleset, unit, members, number, dice)
        bonus = 5 if number > 1 and unit == "Ann" else 0
        return initiative.UnitRoll(unit, rolled.face, (rolled.face + bonus, 0), rolled.delays)

    setup = tiny_fight([("Ann", "A", 2, 10), ("Bob", "B", 2, 10)], max_rounds=3)
    before = odds.fight_odds(setup, exact=True)
    monkeypatch.setattr(initiative, "roll_unit", later_rounds_favour_ann)
    after = assert_fight_matches_engine(setup)
    assert after.wins["A"] > before.wins["A"]


def test_orders_that_do_the_same_are_played_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: ODD-INIT-3: one against two, individual initiative; the two enemies' blows commute, so
    # fewer sequences are played, and the exact answer is the same Fraction as playing every order
    setup = tiny_fight([("Ann", "A", 3, 12), ("Bob", "B", 2, 10), ("Cy", "B", 2, 10)], max_rounds=3)
    sizes: list[tuple[int, int]] = []
    plain_collapse = rounds.collapse

    def counted(box: rounds.Box, sequences: Any) -> dict[Any, Any]:
        merged = plain_collapse(box, sequences)
        sizes.append((len(sequences), len(merged)))
        return merged

    monkeypatch.setattr(rounds, "collapse", counted)
    collapsed = odds.fight_odds(setup, exact=True, walk=False)
    assert any(after < before for before, after in sizes)
    monkeypatch.setattr(rounds, "collapse", lambda box, sequences: dict(sequences))
    every = odds.fight_odds(setup, exact=True, walk=False)
    assert collapsed == every


@pytest.mark.parametrize("seed", range(6))
def test_rankings_of_fewer_units_are_those_of_more_with_the_rest_left_out(seed: int) -> None:
    # rule: ODD-INIT-1: each unit rolls alone, so leaving units out of a ranking of all gives the
    # ranking of those left (how the chain gets a round's orders once someone is down)
    rng = random.Random(seed)
    per_unit = [unit_rolls(rng, f"U{i}", rng.choice([10, 11])) for i in range(5)]
    keep = sorted(rng.sample(range(5), rng.randint(1, 4)))
    every = orders.rankings(per_unit, Fraction(1))
    assert orders.restricted(every, keep) == orders.rankings([per_unit[u] for u in keep], Fraction(1))


WHOLE_CASES = {
    "dex ties": ([("Ann", "A", 3, 12), ("Bob", "B", 2, 12), ("Cy", "B", 2, 10)], {}),
    "group": ([("Ann", "A", 2, 10), ("Abe", "A", 2, 10), ("Bob", "B", 2, 10), ("Cy", "B", 1, 10)],
              {"initiative": "d10_group"}),
    "fumbles strike back": ([("Ann", "A", 2, 10), ("Bob", "B", 2, 10), ("Cy", "B", 1, 10)],
                            {"fumbles": "free_attack_or_ally_reroll"}),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(WHOLE_CASES))
def test_the_whole_round_equals_each_set_s_own_round(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: ODD-INIT-1..4, ODD-INIT-3, MF-FUMBLE-2: everyone's orders played on every cell (the downed
    # acting nowhere; a slot of enemies acting together played apart per who stood at its start) give
    # exactly the Fractions of each set of those up played with its own orders
    from referee.odds import chain

    names, options = WHOLE_CASES[case]
    setup = tiny_fight(names, max_rounds=3, **options)
    used: list[bool] = []
    plain = chain._whole_round

    def noted(c: Any, number: int) -> bool:
        used.append(plain(c, number))
        return used[-1]

    monkeypatch.setattr(chain, "_whole_round", noted)
    monkeypatch.setattr(chain, "_whole_is_cheaper", lambda *args: True)  # wherever it fits
    whole = odds.fight_odds(setup, exact=True, walk=False)
    assert any(used)
    monkeypatch.setattr(chain, "_whole_round", lambda c, number: False)
    apart = odds.fight_odds(setup, exact=True, walk=False)
    assert whole == apart
