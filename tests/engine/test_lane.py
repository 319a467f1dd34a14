"""The lane (engine/lane.py, engine/plain_attack.py) takes the plain steps of a fight without the layers and
changes nothing of it: every example fights event for event alike with the lane and without it (ODD-ACT-ATK,
ODD-INIT-1, ODD-ATK-2: the same attack, the same dice, the same events), including the fights it leaves to
the ordinary step (conditions, grids, routines, tactics)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from referee.dice import RandomDice, ScriptedDice
from referee.engine import lane, registry
from referee.engine.fight import run_fight
from referee.errors import EncounterFileError
from referee.files import load_encounter
from referee.rules import attack_roll
from referee.setup import Setup

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = [*sorted((ROOT / "examples").glob("*.yaml")), ROOT / "benchmarks" / "data" / "melee_3v4.yaml"]
SEEDS = (0, 3, 11, 42)


def _setup(path: Path) -> Setup:
    try:
        return load_encounter(path)
    except EncounterFileError as exc:  # a file that is not a whole encounter (a house-rules sheet)
        pytest.skip(f"{path.name} is not an encounter: {exc}")


def _log(setup: Setup, seed: int) -> dict[str, Any]:
    return run_fight(setup, RandomDice(seed)).result().to_dict()


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_fights_alike_with_and_without_the_lane(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup = _setup(path)
    with_lane = [_log(setup, seed) for seed in SEEDS]
    monkeypatch.setattr(lane, "lane_for", lambda setup, choose: None)
    assert [_log(setup, seed) for seed in SEEDS] == with_lane


def test_the_plain_duel_takes_the_lane() -> None:
    setup = load_encounter(ROOT / "examples" / "duel.yaml")
    assert lane.lane_for(setup, None) is not None


def test_a_changed_list_of_hooks_turns_the_lane_off(monkeypatch: pytest.MonkeyPatch) -> None:
    setup = load_encounter(ROOT / "examples" / "duel.yaml")
    monkeypatch.setattr(registry, "AFTER_ATTACK", (*registry.AFTER_ATTACK,))
    assert lane.lane_for(setup, None) is None


def test_another_chooser_takes_the_ordinary_step() -> None:
    setup = load_encounter(ROOT / "examples" / "duel.yaml")
    assert lane.lane_for(setup, lambda state, actor: pytest.fail("not asked")) is None


def test_scripted_dice_give_the_same_fight_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    """ODD-ATK-2: the attack d20, then the damage dice, in the order the procedures ask for them."""
    setup = load_encounter(ROOT / "examples" / "duel.yaml")
    script = [4, 7, 3, 20, 8, 1, 12, 5, 9, 2, 17, 6, 14, 3, 10, 1, 19, 4]
    with_lane = run_fight(setup, ScriptedDice(script, then=RandomDice(5))).result().to_dict()
    monkeypatch.setattr(lane, "lane_for", lambda setup, choose: None)
    assert run_fight(setup, ScriptedDice(script, then=RandomDice(5))).result().to_dict() == with_lane


def test_a_replaced_roll_is_used_by_the_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    """A house rule that replaces the damage roll (rules/attack_roll.py) is what the lane's hits roll."""
    setup = load_encounter(ROOT / "examples" / "duel.yaml")

    def at_least_three(plan: Any, outcome: Any, dice: Any) -> tuple[int, Any, str]:
        amount, mods, how = original(plan, outcome, dice)
        return max(3, amount), mods, how

    original = attack_roll.roll_damage
    monkeypatch.setattr(attack_roll, "roll_damage", at_least_three)
    damage = [
        e["damage"]
        for seed in SEEDS
        for e in _log(setup, seed)["events"]
        if e["type"] == "damage" and e.get("rule") == "ODD-ATK-2"
    ]
    assert damage and min(damage) >= 3


def test_attacks_told_for_one_orc_are_served_to_the_others_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: ODD-ATK-2, ODD-ACT-ATK (four orcs' attacks on Brenna differ only in the attacker's name)
    from referee.engine import plain_attack
    from referee.rules import memo

    if not memo.ENABLED:
        pytest.skip("the engine's caches are off (REFEREE_ENGINE_CACHES=off): no families")
    setup = load_encounter(ROOT / "benchmarks" / "data" / "melee_3v4.yaml")
    plain_attack._FAMILIES.clear()
    with_lane = [_log(setup, seed) for seed in range(40)]
    attacks = [told for _, told, sheet in plain_attack._FAMILIES.values() if sheet is None]
    hits = [told for _, told, sheet in plain_attack._FAMILIES.values() if sheet is not None]
    assert 0 < len(attacks) < 16  # 3 x 4 + 4 x 3 pairs of names, fewer families
    assert 0 < len(hits) < 24  # each defender: its attackers' plans, the orcs' as one
    assert all(attacks) and all(hits)
    monkeypatch.setattr(lane, "lane_for", lambda setup, choose: None)
    assert [_log(setup, seed) for seed in range(40)] == with_lane


def test_a_replaced_roll_procedure_turns_the_lane_off(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: ODD-ATK-2 (a house rule's damage roll is the one rolled: the fight takes the ordinary step)
    setup = load_encounter(ROOT / "examples" / "duel.yaml")
    monkeypatch.setattr(attack_roll, "roll_damage", lambda plan, outcome, dice: (1, (), "1"))
    assert lane.lane_for(setup, None) is None


def test_the_duel_set_up_and_initiative_are_told_by_faces_as_the_procedures_tell_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # rule: ODD-HD-1, ODD-INIT-1, ODD-INIT-2, ODD-INIT-3 (the same dice, the same events, in every round)
    from referee.rules import memo

    if not memo.ENABLED:
        pytest.skip("the engine's caches are off (REFEREE_ENGINE_CACHES=off): no lane")
    setup = load_encounter(ROOT / "examples" / "duel.yaml")
    found = lane.lane_for(setup, None)
    assert found is not None
    found.orders.clear()
    found.setups.clear()
    with_lane = [_log(setup, seed) for seed in range(60)]
    assert found.orders  # told by faces, and served again
    assert 0 < len(found.setups) <= 6  # the goblin's 1d6 hit points (ODD-HD-1), Angthar's fixed 30
    melee = lane.lane_for(load_encounter(ROOT / "benchmarks" / "data" / "melee_3v4.yaml"), None)
    assert melee is not None and melee.hit_dice() is None  # four orcs' hit dice: too many ways to keep
    monkeypatch.setattr(lane, "lane_for", lambda setup, choose: None)
    assert [_log(setup, seed) for seed in range(60)] == with_lane


def test_a_replaced_initiative_roll_is_rolled_in_the_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: ODD-INIT-1 (a house rule's initiative roll, d10 + 1 here, is the one rolled)
    from referee.rules import initiative

    setup = load_encounter(ROOT / "examples" / "duel.yaml")
    real = initiative.roll_unit
    asked: list[str] = []

    def plus_one(ruleset: Any, unit: str, members: Any, number: int, dice: Any) -> Any:
        asked.append(unit)
        made = real(ruleset, unit, members, number, dice)
        return initiative.UnitRoll(made.unit, made.face, (made.key[0] + 1, *made.key[1:]))

    monkeypatch.setattr(initiative, "roll_unit", plus_one)
    assert lane.lane_for(setup, None) is not None  # the attacks still take the lane
    [_log(setup, seed) for seed in range(10)]
    assert len(asked) >= 20  # each round's two rolls by the house rule


def test_a_hit_on_a_twin_is_told_once_and_served_with_the_names(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: ODD-ATK-2, ODD-HP-1 (the same damage on each of four orcs equal but for the name)
    from referee.engine import plain_attack
    from referee.rules import memo

    if not memo.ENABLED:
        pytest.skip("the engine's caches are off (REFEREE_ENGINE_CACHES=off): no families")
    setup = load_encounter(ROOT / "benchmarks" / "data" / "melee_3v4.yaml")
    orcs = [c for c in setup.combatants if c.side == "Orcs"]
    assert all(plain_attack._twin(setup, c) is orcs[0] for c in orcs)
    assert all(plain_attack._twin(setup, c) is None for c in setup.combatants if c.side == "Party")
    plain_attack._FAMILIES.clear()
    with_lane = [_log(setup, seed) for seed in range(40)]
    twins = [told for key, (_, told, _sheet) in plain_attack._FAMILIES.items() if key[-1] == "twins"]
    assert twins and any(twins)  # the party's hits on the orcs, told once for the four
    # the DAMAGE only, and whether a DEFEAT followed (its text names the orc: asked for the orc at hand)
    assert all(e.type == "damage" and isinstance(dead, bool) for told in twins for e, dead in told.values())
    monkeypatch.setattr(lane, "lane_for", lambda setup, choose: None)
    assert [_log(setup, seed) for seed in range(40)] == with_lane


def _three_sides() -> Setup:
    from tests.conftest import make_setup

    def side(name: str, people: list[tuple[str, int, str]]) -> dict[str, Any]:
        return {
            "name": name,
            "combatants": [
                {
                    "name": who,
                    "level": 1,
                    "hp": hp,
                    "ac": 12,
                    "weapons": [{"name": "blade", "damage": damage}],
                }
                for who, hp, damage in people
            ],
        }

    return make_setup(
        {
            "name": "three sides",
            "ruleset": "odd",
            "sides": [
                side("Red", [("Red 1", 7, "1d6"), ("Red 2", 4, "1d8")]),
                side("Blue", [("Blue 1", 6, "1d6"), ("Blue 2", 9, "1d4")]),
                side("Green", [("Green 1", 8, "1d6")]),
            ],
        }
    )


def test_three_sides_choose_their_targets_alike_with_and_without_the_lane(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ODD-ACT-ATK, ODD-ATK-2: a hit on one side's combatant changes the default target of the sides it is an
    enemy of, not its own side's (which reads only its enemies): with three sides, every fight the same."""
    setup = _three_sides()
    seeds = range(40)
    with_lane = [_log(setup, seed) for seed in seeds]
    monkeypatch.setattr(lane, "lane_for", lambda setup, choose: None)
    assert [_log(setup, seed) for seed in seeds] == with_lane
    assert len({str(fight["winner"]) for fight in with_lane}) > 1  # the fights go several ways
