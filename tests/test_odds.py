"""Exact odds (referee.odds) checked against the worked examples and against brute force: every sequence
of dice fed through ScriptedDice into the real engine (`resolve`, `Fight.step`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any, TypeVar

import pytest
from tests.conftest import angthar_data, make_setup

from referee import odds
from referee.checks import Keep
from referee.dice import ScriptedDice, roll
from referee.engine import registry as engine_registry
from referee.engine import tactics
from referee.engine.actions import Attack, Wait
from referee.engine.events import EventType
from referee.engine.fight import Fight
from referee.engine.resolve import plan_declared_attack, resolve
from referee.engine.state import FightState
from referee.files import Setup
from referee.odds import attack as odds_attack
from referee.rules import registry
from referee.rules.context import AttackForm

T = TypeVar("T")


# --- brute force through ScriptedDice ----------------------------------------------------------------


class NeedDie(Exception):
    def __init__(self, sides: int) -> None:
        self.sides = sides


class Stop:
    """What ScriptedDice hands over to when its script ends: report the die that was asked for."""

    def roll(self, sides: int, purpose: str) -> int:
        raise NeedDie(sides)


def brute_force(fn: Callable[[ScriptedDice], T]) -> dict[T, Fraction]:
    """Every die sequence `fn` can ask for, each script run through ScriptedDice, with its chance."""
    out: dict[T, Fraction] = {}
    stack: list[tuple[list[int], Fraction]] = [([], Fraction(1))]
    while stack:
        script, p = stack.pop()
        try:
            result = fn(ScriptedDice(script, then=Stop()))
        except NeedDie as need:
            stack += [([*script, face], p / need.sides) for face in range(1, need.sides + 1)]
            continue
        out[result] = out.get(result, Fraction(0)) + p
    return out


def duel_data(**options: Any) -> dict[str, Any]:
    """A 3rd-level fighter (BTH +2, Str 13) with a 1d4+1 weapon against an AC 15 orc with 6 HP."""
    return {
        "name": "duel",
        "ruleset": "odd",
        "options": options,
        "sides": [
            {
                "name": "Heroes",
                "combatants": [
                    {
                        "name": "Hero",
                        "level": 3,
                        "attack_bonus": 2,
                        "abilities": {"str": 13, "dex": 11},
                        "hp": 9,
                        "weapons": [{"name": "club", "damage": "1d4+1"}],
                    }
                ],
            },
            {
                "name": "Orcs",
                "combatants": [
                    {
                        "name": "Orc",
                        "hit_dice": "1d8",
                        "hp": 6,
                        "ac": 15,
                        "weapons": [{"name": "axe", "damage": "1d6"}],
                    }
                ],
            },
        ],
    }


def engine_attack(state: FightState, action: Attack) -> Callable[[ScriptedDice], tuple[Any, ...]]:
    """The real resolver's verdict on one attack: (hit, critical, fumble, missed by chance, damage, defeat)."""

    def run(dice: ScriptedDice) -> tuple[Any, ...]:
        events = resolve(state, action, dice)
        attack = next(e for e in events if e.type is EventType.ATTACK)
        damage = next((e.damage for e in events if e.type is EventType.DAMAGE and e.actor == action.actor), 0)
        defeat = next(
            (e.data["status"] for e in events if e.type is EventType.DEFEAT and e.target == action.target),
            None,
        )
        d = attack.data
        return (attack.hit, d["critical"], d["fumble"], d["missed_by_chance"], damage, defeat)

    return run


def assert_matches_engine(state: FightState, action: Attack) -> odds.ActionOdds:
    exact = odds.action_odds(state, action)
    seen = brute_force(engine_attack(state, action))

    def chance(test: Callable[[tuple[Any, ...]], bool]) -> Fraction:
        return sum((p for k, p in seen.items() if test(k)), Fraction(0))

    assert exact.hit == chance(lambda k: k[0])
    assert exact.critical == chance(lambda k: k[1])
    assert exact.fumble == chance(lambda k: k[2])
    assert exact.missed_by_chance == chance(lambda k: k[3])
    damage: dict[int, Fraction] = {}
    for k, p in seen.items():
        damage[k[4]] = damage.get(k[4], Fraction(0)) + p
    assert dict(exact.damage) == {v: p for v, p in damage.items() if p}
    assert exact.drop == chance(lambda k: k[5] is not None)
    for status in ("dead", "unconscious"):
        assert exact.drop_status.get(status, Fraction(0)) == chance(lambda k, s=status: k[5] == s)  # type: ignore[misc]
    return exact


# --- worked examples ----------------------------------------------------------------------------------


def test_tv_000_02_angthar_needs_a_7() -> None:
    # rule: ODD-ATK-1, ODD-BTH-1, ODD-MELEE-1 (TV-000-02): +4 BTH +1 Str vs AC 12 → natural 7 or more, 14/20
    setup = make_setup(angthar_data())
    result = odds.action_odds(odds.opening_state(setup), Attack("Angthar", target="Goblin"))
    assert result.needed == 7
    assert result.hit == Fraction(14, 20)
    # rule: ODD-ATK-2, ODD-MELEE-2, ODD-HP-1 (TV-000-03): 1d8+1 on a 4 HP goblin; 4 or more kills it
    assert result.damage_on_hit == {v: Fraction(1, 8) for v in range(2, 10)}
    assert result.drop == Fraction(14, 20) * Fraction(6, 8)
    assert result.expected_damage == Fraction(14, 20) * Fraction(11, 2)


def test_tv_002_04_confirmed_critical_and_fumble_are_one_in_eighty() -> None:
    # rule: HR-CRIT-1, HR-FUMBLE-1 (TV-002-04): 1/20 × 5/20 = 1.25% each
    data = angthar_data(options={"critical_hits": "confirm_16_20", "fumbles": "confirm_1_5"})
    setup = make_setup(data)
    result = odds.action_odds(odds.opening_state(setup), Attack("Angthar", target="Goblin"))
    assert result.critical == Fraction(1, 80)
    assert result.fumble == Fraction(1, 80)
    assert result.to_dict()["crit"] == 0.0125


def test_tv_003_02_greatsword_critical_deals_18() -> None:
    # rule: MF-CRIT-1, MF-CRIT-2 (TV-003-02): max 1d12 = 12, + Str 3, + ceil(5/2) = 18
    data = angthar_data(
        options={"critical_hits": "max_plus_half_level", "ability_modifiers": "half_score_minus_10"}
    )
    fighter = data["sides"][0]["combatants"][0]
    fighter["abilities"]["str"] = 17
    fighter["weapons"] = [{"name": "greatsword", "damage": "1d12"}]
    setup = make_setup(data)
    state = odds.opening_state(setup)
    plan = plan_declared_attack(state, Attack("Angthar", target="Goblin"))[1]
    assert odds.hit_damage(plan, critical=True) == {18: Fraction(1)}
    result = odds.action_odds(state, Attack("Angthar", target="Goblin"))
    assert result.critical == Fraction(1, 20)
    # 18 only on a natural 20 (an ordinary hit does at most 12 + 3 = 15)
    assert result.damage[18] == Fraction(1, 20)


# --- oracle: every variant against the real resolver --------------------------------------------------


@pytest.mark.parametrize(
    "critical", ["none", "confirm_16_20", "max_plus_half_level", "confirm_16_20_max_plus_half_level"]
)
@pytest.mark.parametrize("fumbles", ["none", "confirm_1_5", "free_attack_or_ally_reroll"])
@pytest.mark.parametrize("natural", ["none", "auto_hit_miss"])
def test_odds_equal_brute_force_under_every_critical_and_fumble_variant(
    critical: str, fumbles: str, natural: str
) -> None:
    # rule: ODD-ATK-1, HR-NAT-1, HR-CRIT-1, HR-FUMBLE-1, MF-CRIT-1, MF-CRIT-2, MF-FUMBLE-1, GAP-CRIT-002
    setup = make_setup(duel_data(critical_hits=critical, fumbles=fumbles, natural_rolls=natural))
    assert_matches_engine(odds.opening_state(setup), Attack("Hero", target="Orc"))


def test_natural_20_hits_only_under_auto_hit_against_an_impossible_ac() -> None:
    # rule: HR-NAT-1 (natural 20 hits), MF-CRIT-1 (a natural 20 is a critical, so a hit)
    for options, hit in (({}, Fraction(0)), ({"natural_rolls": "auto_hit_miss"}, Fraction(1, 20)),
                         ({"critical_hits": "max_plus_half_level"}, Fraction(1, 20))):  # fmt: skip
        data = duel_data(**options)
        data["sides"][1]["combatants"][0]["ac"] = 30
        state = odds.opening_state(make_setup(data))
        result = assert_matches_engine(state, Attack("Hero", target="Orc"))
        assert result.hit == hit
        assert result.needed == (None if not hit else 20)


@pytest.mark.parametrize("lean", [1, -1])
def test_advantage_and_disadvantage_keep_one_of_two_d20(monkeypatch: pytest.MonkeyPatch, lean: int) -> None:
    # rule: GAP-ADV: 2d20 keep highest / lowest; natural 1/20 judged on the kept die
    monkeypatch.setattr(registry, "ADVANTAGE_RULES", [lambda ctx: [(lean, "GAP-ADV", "test")]])
    combined = "confirm_16_20_max_plus_half_level"
    setup = make_setup(
        duel_data(critical_hits=combined, fumbles="confirm_1_5", natural_rolls="auto_hit_miss")
    )
    state = odds.opening_state(setup)
    result = assert_matches_engine(state, Attack("Hero", target="Orc"))
    plan = plan_declared_attack(state, Attack("Hero", target="Orc"))[1]
    assert plan.check.keep is (Keep.HIGHEST if lean > 0 else Keep.LOWEST)
    # needs 11 on the kept die (+2 BTH +1 Str vs AC 15 … 11+3 = 14 < 15, so 12): 9 of 20 faces hit
    single = Fraction(9, 20)
    expected = 1 - (1 - single) ** 2 if lean > 0 else single**2
    assert result.hit == expected


@pytest.mark.parametrize("dice", ["d100", "d6"])
def test_miss_chance_turns_hits_into_misses(monkeypatch: pytest.MonkeyPatch, dice: str) -> None:
    # rule: MF-VIS-2, MF-VIS-5 (d100 ≤ 66 misses), X-11 (option miss_chance_dice = d6: 1-4 misses)
    monkeypatch.setattr(registry, "MISS_CHANCE_RULES", [lambda ctx: (66, "MF-VIS-2")])
    setup = make_setup(duel_data(miss_chance_dice=dice, critical_hits="max_plus_half_level"))
    result = assert_matches_engine(odds.opening_state(setup), Attack("Hero", target="Orc"))
    kept = Fraction(34, 100) if dice == "d100" else Fraction(2, 6)
    assert result.hit == Fraction(9, 20) * kept
    assert result.critical == Fraction(1, 20) * kept


def test_automatic_hits_roll_no_d20(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: HR-HELPLESS-1 (an automatic hit): no attack die, no critical; damage as usual
    monkeypatch.setattr(registry, "AUTOMATIC_RULES", [lambda ctx: (True, "HR-HELPLESS-1", "helpless")])
    result = assert_matches_engine(
        odds.opening_state(make_setup(duel_data(critical_hits="max_plus_half_level"))),
        Attack("Hero", target="Orc"),
    )
    assert (result.hit, result.critical, result.needed) == (1, 0, None)
    assert result.expected_damage == Fraction(9, 2)  # 1d4+1, +1 Str (ODD-MELEE-2)


def test_characters_fall_unconscious_before_they_die() -> None:
    # rule: ODD-HP-1, GAP-HP-ZERO: a character at 0 to -9 is unconscious, at -10 dead; option die_at_zero
    for zero_hp in ("unconscious_then_dead", "die_at_zero"):
        data = duel_data()
        data["options"] = {"zero_hp": zero_hp} if zero_hp == "die_at_zero" else {}
        state = odds.opening_state(make_setup(data), {"Hero": 2, "Orc": 6})
        result = assert_matches_engine(state, Attack("Orc", target="Hero"))
        assert result.drop == result.hit * Fraction(5, 6)  # 1d6 ≥ 2
        assert set(result.drop_status) == ({"dead"} if zero_hp == "die_at_zero" else {"unconscious"})


@pytest.mark.parametrize("text", ["2d6+1", "4d6kh3", "3d4kl1", "1d8*2", "(1d6+1)/2", "5-1d4", "2d4-1d2+3"])
def test_dice_distributions_equal_rolling_every_face(text: str) -> None:
    # rule: ODD-ATK-2 (weapon damage dice): icepool's distribution equals referee.dice.roll over every face
    seen = brute_force(lambda dice: roll(text, dice).total)
    assert odds.die_fractions(odds.dice_die(text)) == seen


def test_the_json_twin_uses_decimals() -> None:
    # rule: ODD-ATK-1 (TV-000-02)
    result = odds.action_odds(
        odds.opening_state(make_setup(angthar_data())), Attack("Angthar", target="Goblin")
    )
    data = json.loads(json.dumps(result.to_dict()))
    assert data["hit"] == 0.7 and data["needed"] == 7
    assert sum(data["damage"].values()) == pytest.approx(1)


def test_rolled_hit_points_average_the_drop_chance() -> None:
    # rule: ODD-HD-2 (1d6 goblin hit points), ODD-HP-1: drop averaged over the starting hit points
    setup = make_setup(angthar_data(goblin_hp=None))
    result = odds.encounter_action_odds(setup, Attack("Angthar", target="Goblin"))
    assert odds.starting_hit_points(setup, "Goblin") == {hp: Fraction(1, 6) for hp in range(1, 7)}
    # 1d8+1 ≥ hp for hp = 1..6: 8, 8, 7, 6, 5, 4 of 8 faces
    assert result.drop == Fraction(7, 10) * Fraction(8 + 8 + 7 + 6 + 5 + 4, 48)


# --- whole fights ---------------------------------------------------------------------------------------


def tiny_fight(names: list[tuple[str, str, int, int]], max_rounds: int, **options: Any) -> Setup:
    """(name, side, hp, dex) fighters with 1d2 daggers, BTH +0, AC 10: each needs an 11 to hit."""
    sides: dict[str, list[dict[str, Any]]] = {}
    for name, side, hp, dex in names:
        sides.setdefault(side, []).append(
            {"name": name, "level": 1, "hp": hp, "abilities": {"dex": dex},
             "weapons": [{"name": "dagger", "damage": "1d2"}]}
        )  # fmt: skip
    return make_setup(
        {"name": "tiny", "ruleset": "odd", "options": options, "max_rounds": max_rounds,
         "sides": [{"name": s, "combatants": cs} for s, cs in sides.items()]}
    )  # fmt: skip


def state_key(fight: Fight) -> str:
    s = fight.state
    extra = [s.current_slot, sorted(s.may_act_though_down), s.free_round]
    return json.dumps([s.snapshot(), extra], sort_keys=True, default=str)


def engine_fight_outcomes(setup: Setup) -> dict[tuple[str | None, str, int], Fraction]:
    """Every fight the engine can play, step by step over every die sequence, merging equal states."""
    frontier: dict[str, tuple[list[Any], Fraction]] = {"": ([], Fraction(1))}
    done: dict[tuple[str | None, str, int], Fraction] = {}
    while frontier:
        following: dict[str, tuple[list[Any], Fraction]] = {}
        for events, p in frontier.values():
            reached: dict[str, Fight] = {}

            def step(
                dice: ScriptedDice, events: list[Any] = events, reached: dict[str, Fight] = reached
            ) -> str:
                fight = Fight(setup, events)
                fight.step(tactics.choose_action, dice)
                key = state_key(fight)
                reached.setdefault(key, fight)
                return key

            for key, q in brute_force(step).items():
                fight = reached[key]
                after = fight.events
                if fight.is_over():
                    end = fight.events[-1].data
                    key = (fight.state.winner, str(end["reason"]), fight.state.round)
                    done[key] = done.get(key, Fraction(0)) + p * q
                    continue
                old = following.get(key, (list(after), Fraction(0)))
                following[key] = (old[0], old[1] + p * q)
        frontier = following
    return done


def assert_fight_matches_engine(setup: Setup) -> odds.FightOdds:
    truth = engine_fight_outcomes(setup)
    exact = odds.fight_odds(setup, exact=True)
    for side in setup.sides:
        assert exact.wins[side] == sum((p for (w, _, _), p in truth.items() if w == side), Fraction(0))
    assert exact.draw == sum(
        (p for (w, r, _), p in truth.items() if w is None and r != "round limit"), Fraction(0)
    )
    assert exact.limit == sum((p for (_, r, _), p in truth.items() if r == "round limit"), Fraction(0))
    for n in range(1, setup.max_rounds + 1):
        assert exact.rounds.get(n, 0) == sum((p for (_, _, m), p in truth.items() if m == n), Fraction(0))
    floats = odds.fight_odds(setup)
    for side in setup.sides:
        assert floats.wins[side] == pytest.approx(float(exact.wins[side]), abs=1e-12)
    return exact


def test_a_one_on_one_fight_equals_every_dice_sequence_through_the_engine() -> None:
    # rule: ODD-INIT-1, ODD-INIT-2 (Dex breaks ties), ODD-ROUND-4, ODD-ATK-1, ODD-HP-1, round limit
    setup = tiny_fight([("Ann", "A", 2, 12), ("Bob", "B", 2, 10)], max_rounds=3)
    exact = assert_fight_matches_engine(setup)
    assert exact.wins["A"] > exact.wins["B"]  # Ann wins the initiative ties
    assert exact.draw == 0


def test_simultaneous_blows_can_leave_nobody_standing() -> None:
    # rule: ODD-INIT-3: equal rolls and equal Dex act together; both can fall (a draw)
    setup = tiny_fight([("Ann", "A", 1, 10), ("Bob", "B", 1, 10)], max_rounds=2)
    exact = assert_fight_matches_engine(setup)
    # both act in the same slot 1 time in 10; both hit 1/4 of that in round 1
    assert exact.draw > 0


def test_one_against_two_picks_the_weakest_enemy() -> None:
    # rule: ODD-INIT-1..3 with three combatants, default tactics (fewest hit points first)
    setup = tiny_fight([("Ann", "A", 2, 10), ("Bob", "B", 1, 10), ("Cid", "B", 2, 12)], max_rounds=1)
    assert_fight_matches_engine(setup)


def test_group_initiative_over_two_rounds_one_against_two() -> None:
    # rule: ODD-INIT-4 (one d10 per side, ties act together, GAP-INIT-GROUP-TIE), ODD-ROUND-4
    fighters = [("Ann", "A", 2, 10), ("Bob", "B", 1, 10), ("Cid", "B", 1, 12)]
    assert_fight_matches_engine(tiny_fight(fighters, max_rounds=2, initiative="d10_group"))


def test_a_fumble_s_free_attack_back_equals_the_engine() -> None:
    # rule: MF-FUMBLE-2: a fumble gives the target a free attack on the fumbler (damage to the attacker)
    setup = tiny_fight([("Ann", "A", 2, 10), ("Bob", "B", 2, 10)], 2, fumbles="free_attack_or_ally_reroll")
    exact = assert_fight_matches_engine(setup)
    plain = odds.fight_odds(tiny_fight([("Ann", "A", 2, 10), ("Bob", "B", 2, 10)], 2), exact=True)
    assert exact.wins["A"] != plain.wins["A"]  # the attacks back change the answer


def test_the_fight_model_refuses_what_it_cannot_track() -> None:
    # rule: ODD-INIT-1 (six d10s: 10^6 combinations of initiative rolls a round), ODD-HP-1 (the
    # hit-point bound)
    big = tiny_fight([(f"F{i}", "AB"[i % 2], 5, 10) for i in range(6)], max_rounds=3)
    with pytest.raises(odds.OddsError, match="1000000 combinations of initiative rolls"):
        odds.fight_odds(big)
    wide = tiny_fight([("Ann", "A", 400, 10), ("Bob", "B", 400, 10)], max_rounds=3)
    with pytest.raises(odds.OddsError, match="bound"):
        odds.fight_odds(wide)


def test_a_sixty_hit_point_duel_sums_to_one() -> None:
    # rule: ODD-HP-1, ODD-ROUND-4: every fight ends in a win, a draw or the round limit
    setup = tiny_fight([("Ann", "A", 60, 10), ("Bob", "B", 60, 10)], max_rounds=100)
    result = odds.fight_odds(setup)
    total = sum(result.wins.values()) + result.draw + result.limit + result.unresolved
    assert result.unresolved < odds.FLOAT_CUTOFF
    assert total == pytest.approx(1, abs=1e-12)
    assert sum(result.rounds.values()) == pytest.approx(1, abs=1e-12)
    assert result.wins["A"] == pytest.approx(result.wins["B"], abs=1e-12)  # a mirror match
    assert result.states == 61 * 61


def test_only_attacks_have_odds() -> None:
    # rule: ODD-ACT-FREE-1: waiting rolls nothing, so it has no odds (the tracker shows none)
    state = odds.opening_state(make_setup(duel_data()))
    assert odds.action_odds(state, Wait("Hero")) is None


def test_pummels_deal_subdual_damage_that_knocks_out() -> None:
    # rule: ODD-PUMMEL-2, GAP-SUBDUAL: 1d2 subdual (+ Str); subdual at or above the hit points knocks out
    data = duel_data(subdual="on")
    state = odds.opening_state(make_setup(data), {"Hero": 9, "Orc": 3})
    result = assert_matches_engine(state, Attack("Hero", target="Orc", form=AttackForm.PUMMEL))
    assert result.subdual
    assert result.damage_on_hit == {2: Fraction(1, 2), 3: Fraction(1, 2)}  # 1d2 +1 Str
    assert result.drop_status == {"unconscious": result.hit / 2}


def test_knock_out_attempts_leave_the_target_unconscious() -> None:
    # rule: MF-KO-1: -2 to hit; a blow that brings the target to 0 leaves it unconscious at 0
    state = odds.opening_state(make_setup(duel_data(knockout="on")), {"Hero": 9, "Orc": 3})
    result = assert_matches_engine(state, Attack("Hero", target="Orc", knockout=True))
    assert result.needed == 14
    assert set(result.drop_status) == {"unconscious"}


@pytest.mark.parametrize("change", [{"maximise": True}, {"dice_multiplier": 2}, {"minimum": 4}])
def test_damage_plan_changes_reach_the_odds(monkeypatch: pytest.MonkeyPatch, change: dict[str, Any]) -> None:
    # rule: HR-HELPLESS-2 (maximised dice), MOD-BSTAB-2 (dice multiplied), GAP-MIN-DAMAGE (a minimum),
    # with GAP-CRIT-002 (a confirmed critical doubles the dice again)
    monkeypatch.setattr(registry, "DAMAGE_PLAN_RULES", [lambda ctx, plan: replace(plan, **change)])
    setup = make_setup(duel_data(critical_hits="confirm_16_20"))
    assert_matches_engine(odds.opening_state(setup), Attack("Hero", target="Orc"))


def test_the_fight_model_refuses_attacks_that_impose_conditions(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: HR-NET-1 kind of attacks (a condition on a hit): the chain tracks hit points only
    from referee.rules.attack import Effect

    monkeypatch.setattr(
        registry, "EFFECT_RULES", [lambda ctx: [("hit", Effect("entangled", "defender", None, "HR-NET-1"))]]
    )
    setup = tiny_fight([("Ann", "A", 2, 10), ("Bob", "B", 2, 10)], max_rounds=3)
    with pytest.raises(odds.OddsError, match="more than damage"):
        odds.fight_odds(setup, walk=False)
    assert odds.fight_odds(setup).path == "engine walk"  # small enough for the engine's own walk


def test_the_fight_model_refuses_steered_choices(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: ODD-GRAP-1: a steered grapple (a tactics override) holds its target: more than hit points change
    monkeypatch.setattr(
        engine_registry,
        "OVERRIDES",
        [
            lambda state, actor: (
                Attack(actor, target="Bob", form=AttackForm.GRAPPLE) if actor == "Ann" else None
            )
        ],
    )
    setup = tiny_fight([("Ann", "A", 2, 10), ("Bob", "B", 2, 10)], max_rounds=3)
    with pytest.raises(odds.OddsError, match="Bob is grappled"):
        odds.fight_odds(setup, walk=False)  # the chain's refusal (the engine walk: tests/odds/test_whole.py)


def test_too_many_hit_dice_are_refused_not_truncated(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: ODD-HD-2 (hit dice rolled at set-up): 4d8 is 4,096 sequences, over a limit of 1,000
    monkeypatch.setattr(odds_attack, "ENUMERATION_LIMIT", 1_000)
    data = angthar_data(goblin_hp=None)
    data["sides"][1]["combatants"][0]["hit_dice"] = "4d8"
    with pytest.raises(odds.OddsError, match="dice sequences"):
        odds.starting_hit_points(make_setup(data), "Goblin")
