"""Saving throws (GAP-SAVES) and their modifiers: MOD-COVER-1, MF-COVER-1, MF-COVER-2, MOD-COND-BLIND-1,
MOD-COND-UNSEEN, MOD-COND-CLIMB-1, MOD-COND-CLIMB-2, MOD-COND-FATIGUED, MOD-COND-EXHAUSTED, MOD-COVER-EVADE."""

from __future__ import annotations

from typing import Any

from referee.checks import Keep, Modifier
from referee.dice import DiceTape, ScriptedDice
from referee.engine.state import CombatantState, Condition, FightState
from referee.files import setup_from_data
from referee.rules.saves import (
    SaveCircumstances,
    class_save,
    evades_all_damage,
    luck_save,
    roll_save,
    save_modifiers,
    save_target,
)


def state_for(
    ruleset: str, conditions: list[str] | None = None, **kw: Any
) -> tuple[CombatantState, FightState]:
    me = {"name": "Hero", "level": 5, "hp": 20, "abilities": {"dex": 12, "con": 13}, **kw}
    me["conditions"] = conditions or []
    data = {
        "name": "t",
        "ruleset": ruleset,
        "sides": [{"name": "A", "combatants": [me]}, {"name": "B", "combatants": [{"name": "Orc", "hp": 5}]}],
    }
    state = FightState.initial(setup_from_data(data, "t"))
    for name in conditions or []:
        state["Hero"].conditions[name] = Condition(name)
    return state["Hero"], state


def test_save_table_by_level_gap_saves() -> None:
    # GAP-SAVES: level 1 → 15, 5 → 13, 10 → 9; monsters by hit dice
    assert [save_target(n) for n in (0, 1, 3, 5, 9, 10, 20)] == [16, 15, 15, 13, 11, 9, 5]
    hero, state = state_for("odd")
    check = class_save(hero, state.setup.ruleset)
    assert check.target == 13 and check.succeeds(13) and not check.succeeds(12)


def test_luck_save_roll_under_the_score() -> None:
    # GAP-SAVES: Luck (Con) = d20 <= Con 13
    hero, state = state_for("mf")
    check = luck_save(hero, "constitution", state.setup.ruleset)
    assert check.target == 13 and check.succeeds(13) and not check.succeeds(14)
    saved, natural = roll_save(check, DiceTape(ScriptedDice([7])))
    assert saved and natural == 7


def test_cover_conflict_on_saves_mod_cover_1_vs_mf_cover_1_2() -> None:
    # rule: MOD-COVER-1 (cover adds to saves, GAP-001-COVER: half +4; concealment adds nothing),
    # MF-COVER-1 (+2 Luck (Dex) at half cover), MF-COVER-2 (+4 at three quarters)
    hero, mod = state_for("mod")
    assert save_modifiers(hero, mod.setup.ruleset, SaveCircumstances(cover="half")) == [
        Modifier(4, "MOD-COVER-1", "half cover")
    ]
    hero, mf = state_for("mf")
    half = luck_save(hero, "dexterity", mf.setup.ruleset, SaveCircumstances(cover="half"))
    assert half.target == 12 + 2 and any(m.rule == "MF-COVER-1" for m in half.target_modifiers)
    three = luck_save(hero, "dexterity", mf.setup.ruleset, SaveCircumstances(cover="three_quarters"))
    assert three.target == 16 and any(m.rule == "MF-COVER-2" for m in three.target_modifiers)
    con = luck_save(hero, "constitution", mf.setup.ruleset, SaveCircumstances(cover="half"))
    assert con.target == 13  # only Luck (Dex) saves


def test_blind_minus_4_and_unseen_plus_4() -> None:
    # rule: MOD-COND-BLIND-1 (-4 on all saves), MOD-COND-UNSEEN (+4 against one that cannot see it)
    hero, state = state_for("mod", ["blind"])
    assert Modifier(-4, "MOD-COND-BLIND-1", "blind") in save_modifiers(
        hero, state.setup.ruleset, SaveCircumstances()
    )
    hero, state = state_for("mod", ["invisible"])
    mods = save_modifiers(hero, state.setup.ruleset, SaveCircumstances())
    assert mods == [Modifier(4, "MOD-COND-UNSEEN", "invisible to the source")]
    hero, state = state_for("mod")
    assert class_save(hero, state.setup.ruleset, SaveCircumstances(source_blind=True)).bonus == 4


def test_climbing_dodge_saves_and_fatigue() -> None:
    # rule: MOD-COND-CLIMB-1 (-2 to dodge), MOD-COND-CLIMB-2 (-1 on a slope), MOD-COND-FATIGUED,
    # MOD-COND-EXHAUSTED (-2 under conditions_fatigue = mod_fixed; nothing under odd)
    hero, state = state_for("mod", ["climbing", "fatigued"])
    rs = state.setup.ruleset
    assert sum(m.value for m in save_modifiers(hero, rs, SaveCircumstances(dodge=True))) == -4
    assert sum(m.value for m in save_modifiers(hero, rs, SaveCircumstances(dodge=True, slope=True))) == -3
    assert sum(m.value for m in save_modifiers(hero, rs, SaveCircumstances())) == -2
    hero, state = state_for("mod", ["exhausted"])
    assert save_modifiers(hero, state.setup.ruleset, SaveCircumstances()) == [
        Modifier(-2, "MOD-COND-EXHAUSTED", "exhausted")
    ]
    hero, state = state_for("odd", ["fatigued"])
    assert save_modifiers(hero, state.setup.ruleset, SaveCircumstances()) == []


def test_ninety_percent_cover_and_a_save_means_no_damage_tv_001_04() -> None:
    # rule: MOD-COVER-EVADE (TV-001-04): arrow slit (90%) and a saved throw → no damage; 75% → not
    _, state = state_for("mod")
    rs = state.setup.ruleset
    assert evades_all_damage("ninety", saved=True, ruleset=rs)
    assert not evades_all_damage("ninety", saved=False, ruleset=rs)
    assert not evades_all_damage("three_quarters", saved=True, ruleset=rs)


def test_save_with_disadvantage_keeps_the_lower_die() -> None:
    # GAP-ADV on a Luck save: 2d20 keep lowest of 15 and 9 → 9 <= 13 saved
    hero, state = state_for("mf")
    check = luck_save(hero, "constitution", state.setup.ruleset, keep=Keep.LOWEST)
    assert roll_save(check, DiceTape(ScriptedDice([15, 9]))) == (True, 9)
