"""Conditions of 001 (001's conditions, helpless targets), attack position (flank, rear and backstab), called shots,
segment delays and the referee's apply/remove actions. Dice are scripted: the engine's contract is
(pick die of a grapple), attack d20 (two under advantage), miss-chance die, damage dice.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from referee.checks import Modifier
from referee.dice import ScriptedDice
from referee.engine.actions import Attack, action_from_dict
from referee.engine.conditions import ApplyCondition, RemoveCondition
from referee.engine.events import Event, EventType
from referee.engine.fight import Fight
from referee.engine.resolve import attack_context, resolve
from referee.engine.state import FightState
from referee.engine.tactics import choose_action
from referee.errors import EncounterFileError, IllegalActionError
from referee.files import setup_from_data
from referee.rules import conditions
from referee.rules.conditions import (
    backstab_multiplier,
    bind_segments,
    blind_spell_allowed,
    deaf_failure_chance,
    sleeper_surprise_modifier,
)
from referee.rules.context import Situation

# Hero: no bonuses (BTH 0, Str/Dex 10). Orc: AC 15 = 10 + leather 2 + Dex 16 (+2) + medium shield 1.


def hero(name: str = "Hero", **kw: Any) -> dict[str, Any]:
    return {"name": name, "level": 1, "attack_bonus": 0, "hp": 40, "weapons": ["spear", "short bow"], **kw}


def orc(name: str = "Orc", **kw: Any) -> dict[str, Any]:
    return {
        "name": name, "kind": "monster", "hit_dice": 1, "attack_bonus": 0, "hp": 40,
        "abilities": {"dex": 16}, "armour": "leather", "shield": "medium shield", "weapons": ["spear"], **kw,
    }  # fmt: skip


def encounter(
    ruleset: str, heroes: list[dict[str, Any]], foes: list[dict[str, Any]], **extra: Any
) -> dict[str, Any]:
    return {
        "name": "test",
        "ruleset": ruleset,
        "options": extra.pop("options", {"first_strike_reach_size": "off"}),
        "sides": [{"name": "Heroes", "combatants": heroes}, {"name": "Foes", "combatants": foes}],
        **extra,
    }


def started(data: dict[str, Any], initiative: list[int] | None = None) -> Fight:
    fight = Fight(setup_from_data(data, "test"))
    fight.begin(ScriptedDice([]))
    count = sum(len(s["combatants"]) for s in data["sides"])
    fight.start_round(ScriptedDice(initiative or [10 - i for i in range(count)]))
    return fight


def duel(
    ruleset: str, hero_kw: dict[str, Any] | None = None, orc_kw: dict[str, Any] | None = None, **extra: Any
) -> Fight:
    return started(encounter(ruleset, [hero(**(hero_kw or {}))], [orc(**(orc_kw or {}))], **extra))


def of(events: list[Event], kind: EventType) -> list[Event]:
    return [e for e in events if e.type is kind]


def attack(
    state: FightState, dice: list[int], actor: str = "Hero", target: str = "Orc", **kw: Any
) -> list[Event]:
    return resolve(state, Attack(actor, target=target, **kw), ScriptedDice(dice))


def swing(state: FightState, dice: list[int], *flags: str, **kw: Any) -> Event:
    situation = Situation(flags=frozenset(flags)) if flags else Situation()
    return of(attack(state, dice, situation=situation, **kw), EventType.ATTACK)[0]


def shoot(state: FightState, dice: list[int], *flags: str) -> Event:
    return swing(state, dice, *flags, weapon="short bow", distance=30)


def rules_of(e: Event) -> set[str]:
    return {m.rule for m in e.modifiers}


# --- MOD-GEN-1: three channels ----------------------------------------------------------------------------


def test_channels_stay_apart_mod_gen_1() -> None:
    # rule: MOD-GEN-1 — a blind defender's -4 is in its AC (11 = 15 - 4), not in the attacker's roll
    fight = duel("mod", orc_kw={"conditions": ["blind"]})
    roll = swing(fight.state, [10, 1])
    assert roll.total == 10 and roll.target_number == 11
    assert "MOD-COND-BLIND-1" not in rules_of(roll)
    assert any(c["rule"] == "MOD-COND-BLIND-1" and c["value"] == -4 for c in roll.data["ac_components"])


# --- prone (conflict `prone`) ----------------------------------------------------------------------------


def test_prone_conflict_mod_melee_plus4_missile_minus2_vs_odd_plus5() -> None:
    # rule: MOD-COND-PRONE — melee +4, AC 15 → 12 (no Dex, no shield); missile -2
    fight = duel("mod", orc_kw={"conditions": ["prone"]})
    melee = swing(fight.state, [8, 1])
    assert Modifier(4, "MOD-COND-PRONE", "target prone") in melee.modifiers
    assert melee.total == 12 and melee.target_number == 12 and melee.hit
    missile = shoot(fight.state, [8, 1])
    assert Modifier(-2, "MOD-COND-PRONE", "target prone") in missile.modifiers
    assert missile.total == 6
    # the same swing under odd: ODD-SIT-PRONE +5 and the orc keeps Dex and shield (AC 15): 8 + 5 = 13, a miss
    odd = duel("odd", orc_kw={"conditions": ["prone"]})
    roll = swing(odd.state, [8, 1])
    assert "MOD-COND-PRONE" not in rules_of(roll) and roll.total == 13 and roll.target_number == 15
    assert not roll.hit


# --- stunned (conflict `stunned`) ------------------------------------------------------------------------


def test_stunned_conflict_mod_plus_4_no_dex_shield_vs_odd_plus_2() -> None:
    # rule: MOD-COND-STUN-1 — +4, AC 12 under mod; ODD-SIT-STUN +2 against AC 15 under odd
    mod = swing(duel("mod", orc_kw={"conditions": ["stunned"]}).state, [8, 1])
    assert Modifier(4, "MOD-COND-STUN-1", "target stunned") in mod.modifiers
    assert (mod.total, mod.target_number, mod.hit) == (12, 12, True)
    odd = swing(duel("odd", orc_kw={"conditions": ["stunned"]}).state, [8, 1])
    assert (odd.total, odd.target_number, odd.hit) == (10, 15, False)


def test_stunned_creature_cannot_act_mod_cond_stun_1() -> None:
    # rule: MOD-COND-STUN-1 — no actions: an attack is refused, the default tactic waits
    fight = duel("mod", hero_kw={"conditions": ["stunned"]})
    with pytest.raises(IllegalActionError, match="MOD-COND-STUN-1"):
        attack(fight.state, [20, 6])
    assert choose_action(fight.state, "Hero").kind == "wait"


def test_stun_into_next_round_delays_mod_cond_stun_2() -> None:
    # rule: MOD-COND-STUN-2 — a stun ending in segment 3: the creature acts after 3 + 1d6 segments
    fight = Fight(setup_from_data(encounter("mod", [hero()], [orc()]), "t"))
    fight.begin(ScriptedDice([]))
    fight.start_round(ScriptedDice([9, 5]))
    fight.act(ApplyCondition("Hero", condition="stunned", rounds=2, ends_segment=3), ScriptedDice([]))
    attack(fight.state, [1, 1])  # the hero may still act now: the stun "ends" (STUN-2 data)
    fight.state.acted = {"Hero", "Orc"}
    fight.end_round(ScriptedDice([]))
    events = fight.start_round(ScriptedDice([9, 5, 4]))  # initiative 9 and 5, then 1d6 = 4
    delay = next(e for e in events if e.rule == "GAP-SEGMENTS")
    assert delay.data["delays"] == {"Hero": 7}  # 3 + 4
    assert fight.state.order == [["Orc"], ["Hero"]]  # 9 - 7 = 2 < 5


# --- blind (conflict `blindness`) ----------------------------------------------------------------------


def test_blind_attacker_minus_4_mod_cond_blind_1_vs_odd_minus_10() -> None:
    # rule: MOD-COND-BLIND-1 — the blind attacker -4; ODD-SIT-INVIS: -10 under odd
    mod = swing(duel("mod", hero_kw={"conditions": ["blind"]}).state, [15, 1])
    assert Modifier(-4, "MOD-COND-BLIND-1", "blind") in mod.modifiers and mod.total == 11
    odd = swing(duel("odd", hero_kw={"conditions": ["blind"]}).state, [15, 1])
    assert odd.total == 5 and "MOD-COND-BLIND-1" not in rules_of(odd)


def test_blind_caster_area_and_touch_only_tv_001_06() -> None:
    # rule: MOD-COND-BLIND-2 (TV-001-06): fireball (area) and cure light wounds (touch) yes, targeted no
    state = duel("mod", hero_kw={"conditions": ["blind"]}).state
    rs = state.setup.ruleset
    blind_spell_allowed(state["Hero"], "area", rs)
    blind_spell_allowed(state["Hero"], "touch", rs)
    with pytest.raises(IllegalActionError, match="MOD-COND-BLIND-2"):
        blind_spell_allowed(state["Hero"], "target", rs)
    blind_spell_allowed(state["Orc"], "target", rs)  # not blind


# --- invisible (conflict `invisibility`) ---------------------------------------------------------------


def test_invisible_mod_minus_4_only_when_detected() -> None:
    # rule: MOD-COND-INVIS-1 (only while attacking or detected), MOD-COND-INVIS-2 (-4)
    fight = duel("mod", orc_kw={"conditions": ["invisible"]})
    with pytest.raises(IllegalActionError, match="MOD-COND-INVIS-1"):
        swing(fight.state, [15, 1])
    roll = swing(fight.state, [15, 1], "detected")
    assert Modifier(-4, "MOD-COND-INVIS-2", "target invisible") in roll.modifiers and roll.total == 11


def test_invisible_never_from_flank_or_rear_unless_seen_mod_cond_invis_3() -> None:
    # rule: MOD-COND-INVIS-3
    fight = duel("mod", orc_kw={"conditions": ["invisible"]})
    fight.state["Orc"].surprised = True
    with pytest.raises(IllegalActionError, match="MOD-COND-INVIS-3"):
        swing(fight.state, [15, 1], "detected", "rear")
    roll = swing(fight.state, [15, 1], "detected", "rear", "sees")
    assert roll.total == 15 - 4 + 2


def test_invisible_conflict_mf_miss_chance_tv_003_01() -> None:
    # rule: MF-VIS-2, MF-VIS-5 (TV-003-01): located, hit, d100 77 > 66 → the hit stands; 50 → miss
    fight = duel("mf", orc_kw={"conditions": ["invisible"]})
    hit = swing(fight.state, [18, 77, 3], "located")
    assert hit.hit and "MOD-COND-INVIS-2" not in rules_of(hit) and hit.total == 18
    assert [d.sides for d in hit.dice] == [20, 100]
    missed = swing(fight.state, [18, 50], "located")
    assert not missed.hit and missed.data["missed_by_chance"]
    with pytest.raises(IllegalActionError, match="MF-VIS-3"):
        swing(fight.state, [18, 77, 3])


# --- restraint: bound, entangled, casting, overloaded, off balance, slowed --------------------------------


@pytest.mark.parametrize(
    ("condition", "rule", "bonus", "ac"),
    [
        ("bound", "MOD-COND-BOUND", 4, 12),
        ("entangled", "MOD-COND-ENTANGLED", 4, 12),
        ("casting", "MOD-COND-CASTING", 4, 12),
        ("overloaded", "MOD-COND-ENC-3", 2, 15),
        ("off_balance", "MOD-COND-OFFBAL", 2, 15),
        ("slowed", "MOD-COND-SLOWED", 4, 15),
    ],
)
def test_attackers_bonus_and_defence_loss(condition: str, rule: str, bonus: int, ac: int) -> None:
    # rule: MOD-COND-BOUND, MOD-COND-ENTANGLED, MOD-COND-CASTING (+4, no Dex/shield: AC 12);
    # MOD-COND-ENC-3, MOD-COND-OFFBAL (+2), MOD-COND-SLOWED (+4), AC unchanged
    roll = swing(duel("mod", orc_kw={"conditions": [condition]}).state, [10, 1])
    assert Modifier(bonus, rule, f"target {condition}") in roll.modifiers
    assert roll.total == 10 + bonus and roll.target_number == ac


def test_slowed_attacks_every_other_round_gap_slowed() -> None:
    # rule: MOD-COND-SLOWED with GAP-SLOWED: round 1 yes, round 2 no, round 3 yes
    fight = duel("mod", hero_kw={"conditions": ["slowed"]})
    assert of(attack(fight.state, [1, 1]), EventType.ATTACK)
    fight.state.round = 2
    with pytest.raises(IllegalActionError, match="MOD-COND-SLOWED"):
        attack(fight.state, [1, 1])
    fight.state.round = 3
    assert of(attack(fight.state, [1, 1]), EventType.ATTACK)


# --- the creature's own penalties ---------------------------------------------------------------------------


def test_climbing_minus_2_slope_minus_1_natural_climber_keeps_dex() -> None:
    # rule: MOD-COND-CLIMB-1 (-2 to hit and damage), MOD-COND-CLIMB-2 (halved on a slope),
    # MOD-COND-CLIMB-3 (no Dex unless the referee rules a natural climber)
    fight = duel("mod", hero_kw={"conditions": ["climbing"]}, orc_kw={"conditions": ["climbing"]})
    events = attack(fight.state, [15, 5])
    roll, damage = of(events, EventType.ATTACK)[0], of(events, EventType.DAMAGE)[0]
    assert Modifier(-2, "MOD-COND-CLIMB-1", "climbing") in roll.modifiers
    assert roll.total == 13 and roll.target_number == 13  # AC 15 - Dex 2 (shield kept)
    assert damage.damage == 3  # 1d6 = 5, -2
    slope = swing(fight.state, [15, 5], "slope", "natural_climber")
    assert Modifier(-1, "MOD-COND-CLIMB-2", "climbing on a severe slope") in slope.modifiers
    assert slope.total == 14 and slope.target_number == 15


def test_fatigue_conflict_mod_fixed_minus_2_vs_odd_referee() -> None:
    # rule: MOD-COND-FATIGUED, MOD-COND-EXHAUSTED (-2 to hit and damage, and every ability score -2: the
    # hero's Str 10 becomes 8, -1) under conditions_fatigue=mod_fixed: d20 18 - 1 - 2 = 15 vs AC 15; 5 - 3 = 2
    for name, rule in (("fatigued", "MOD-COND-FATIGUED"), ("exhausted", "MOD-COND-EXHAUSTED")):
        fight = duel("mod", hero_kw={"conditions": [name]})
        events = attack(fight.state, [18, 5], situation=Situation(flags=frozenset({"self_defence"})))
        assert Modifier(-2, rule, name) in of(events, EventType.ATTACK)[0].modifiers
        assert of(events, EventType.ATTACK)[0].total == 15
        assert of(events, EventType.DAMAGE)[0].damage == 2
    odd = duel("odd", hero_kw={"conditions": ["fatigued"]})  # ODD-AC-COND: the referee decides
    assert swing(odd.state, [15, 5]).total == 15


def test_exhausted_only_defends_itself_mod_cond_exhausted() -> None:
    # rule: MOD-COND-EXHAUSTED — no physical activity unless defending itself
    fight = duel("mod", hero_kw={"conditions": ["exhausted"]})
    with pytest.raises(IllegalActionError, match="MOD-COND-EXHAUSTED"):
        attack(fight.state, [15, 5])
    fight.push(attack(fight.state, [10, 1], actor="Orc", target="Hero"))  # the orc attacks it...
    assert of(attack(fight.state, [15, 5]), EventType.ATTACK)  # ...so it may strike back


@pytest.mark.parametrize(
    ("name", "value"), [("intoxicated_slight", 0), ("intoxicated_moderate", -1), ("intoxicated_great", -5)]
)
def test_intoxication_mod_cond_intox(name: str, value: int) -> None:
    # rule: MOD-COND-INTOX: +0 / -1 / -5 (GAP-INTOX: no ability effects)
    roll = swing(duel("mod", hero_kw={"conditions": [name]}).state, [12, 1])
    assert roll.total == 12 + value


def test_deafened_spell_failure_tv_der_10() -> None:
    # rule: MOD-COND-DEAF (TV-DER-10): 3 segments → 10%, 4 segments → 20%
    assert deaf_failure_chance(3) == 10
    assert deaf_failure_chance(4) == 20
    assert conditions.CONDITION_TABLE["deafened"].rule == "MOD-COND-DEAF"


@pytest.mark.parametrize(
    ("name", "rule", "what"),
    [
        ("nauseated", "MOD-COND-NAUSEA", "cannot act"),
        ("paralyzed_fear", "MOD-COND-PARA-1", "cannot act"),
        ("paralyzed", "MOD-COND-PARA-2", "purely mental"),
        ("held", "MOD-COND-HELD", "purely mental"),
        ("sleeping", "MOD-COND-SLEEP-M", "cannot act"),
        ("unconscious", "MOD-COND-UNCON", "cannot act"),
    ],
)
def test_action_limits(name: str, rule: str, what: str) -> None:
    # rule: MOD-COND-NAUSEA, MOD-COND-PARA-1 (not even mental), MOD-COND-PARA-2 and MOD-COND-HELD
    # (mental only), MOD-COND-SLEEP-M, MOD-COND-UNCON
    fight = duel("odd", hero_kw={"conditions": [name]})
    with pytest.raises(IllegalActionError, match=f"{what}.*{rule}"):
        attack(fight.state, [20, 6])


# --- helpless targets (conflict `helpless_targets`) ----------------------------------------------------------


def test_helpless_conflict_mod_coup_de_grace_vs_odd_plus_10() -> None:
    # rule: MOD-HELPLESS-MELEE with GAP-COUP: a held orc is hit automatically for maximum damage (6);
    # MOD-COND-HELD. Under odd (ODD-SIT-DEFENCELESS) nothing automatic: the d20 is rolled.
    fight = duel("mod", orc_kw={"conditions": ["held"]})
    events = attack(fight.state, [])  # no dice at all
    roll = of(events, EventType.ATTACK)[0]
    assert roll.hit and roll.data["automatic"] is True and not roll.dice
    assert of(events, EventType.DAMAGE)[0].damage == 6
    odd = duel("odd", orc_kw={"conditions": ["held"]})
    assert swing(odd.state, [3, 2]).data["automatic"] is None


def test_helpless_missile_plus_4_no_dex_shield() -> None:
    # rule: MOD-HELPLESS-MISSILE — +4, AC 12; applies to natural sleepers too
    for name in ("paralyzed", "sleeping", "unconscious", "sleeping_natural"):
        roll = shoot(duel("mod", orc_kw={"conditions": [name]}).state, [8, 1])
        assert Modifier(4, "MOD-HELPLESS-MISSILE", f"missile at a {name} target") in roll.modifiers
        assert (roll.total, roll.target_number) == (12, 12)


def test_natural_sleeper_melee_auto_hit_rolled_damage_mod_cond_sleep_n_2() -> None:
    # rule: MOD-COND-SLEEP-N-2 — automatic hit, damage rolled (1d6 = 2), and the wound wakes it: a natural
    # sleeper sleeps only "until noise occurs" (MOD-COND-SLEEP-N-1), not the magical sleep's MOD-COND-SLEEP-M
    fight = duel("mod", orc_kw={"conditions": ["sleeping_natural"]})
    events = attack(fight.state, [2])
    assert of(events, EventType.ATTACK)[0].data["automatic"] is True
    assert of(events, EventType.DAMAGE)[0].damage == 2
    woke = of(events, EventType.CONDITION)
    assert woke and woke[0].data["added"] is False and woke[0].rule == "MOD-COND-SLEEP-N-1"


def test_magical_sleeper_woken_by_a_wound_mod_cond_sleep_m() -> None:
    # rule: MOD-COND-SLEEP-M — wounding wakes it (an arrow, 1d6 = 3); waking without damage takes 10 segments
    fight = duel("mod", orc_kw={"conditions": ["sleeping"]})
    fight.push(attack(fight.state, [15, 3], weapon="short bow", distance=30))
    assert not fight.state["Orc"].has("sleeping")
    assert conditions.WAKE_SEGMENTS == 10


def test_bind_in_10_segments_mod_helpless_bind() -> None:
    # rule: MOD-HELPLESS-BIND — held, paralysed, magical sleep, unconscious: 10 segments; awake: no
    for name in ("held", "paralyzed", "sleeping", "unconscious"):
        state = duel("mod", orc_kw={"conditions": [name]}).state
        assert bind_segments(state["Orc"], state.setup.ruleset) == 10
    state = duel("mod").state
    assert bind_segments(state["Orc"], state.setup.ruleset) is None


def test_sleeper_easier_to_surprise_mod_cond_sleep_n_1() -> None:
    # rule: MOD-COND-SLEEP-N-1 with GAP-SURPRISE-PCT: +20% = -4 on the sleeper's Wisdom check
    state = duel("mod", orc_kw={"conditions": ["sleeping_natural"]}).state
    assert sleeper_surprise_modifier(state["Orc"]) == Modifier(
        -4, "MOD-COND-SLEEP-N-1", "asleep (+20% to be surprised)"
    )
    assert sleeper_surprise_modifier(state["Hero"]) is None


# --- grapples (conflict `grapple_state`) ----------------------------------------------------------------------


def grapple(ruleset: str = "mod") -> Fight:
    data = encounter(ruleset, [hero(), hero("Ally")], [orc(), orc("Troll")])
    fight = started(data, [10, 9, 8, 7])
    fight.act(ApplyCondition("Orc", condition="grappled", by="Ally"), ScriptedDice([]))
    fight.act(ApplyCondition("Ally", condition="grappling", by="Orc"), ScriptedDice([]))
    return fight


def test_grappled_outsiders_plus_4_no_dex_shield_mod_cond_grappled_1() -> None:
    # rule: MOD-COND-GRAPPLED-1 — an outsider (the troll) +4 against the grappling Ally (AC 10, nothing to lose)
    fight = grapple()
    events = attack(fight.state, [1, 10, 1], actor="Troll", target="Ally")  # d2 = 1 picks Ally (file order)
    roll = of(events, EventType.ATTACK)[0]
    assert Modifier(4, "MOD-COND-GRAPPLED-1", "target grappling") in roll.modifiers and roll.total == 14
    # inside the grapple no bonus: the orc attacks its own grappler
    inside = of(attack(fight.state, [10, 1], actor="Orc", target="Ally"), EventType.ATTACK)[0]
    assert "MOD-COND-GRAPPLED-1" not in rules_of(inside)


def test_outsider_strikes_a_random_grappler_mod_cond_grappled_2() -> None:
    # rule: MOD-COND-GRAPPLED-2 — the Hero aims at the Orc; d2 = 1 → Ally (the first in file order) is struck
    fight = grapple()
    events = attack(fight.state, [1, 12, 3])
    pick = of(events, EventType.CHECK)[0]
    assert pick.rule == "MOD-COND-GRAPPLED-2" and pick.dice[0].sides == 2 and pick.data["declared"] == "Orc"
    roll = of(events, EventType.ATTACK)[0]
    assert roll.target == "Ally" and roll.total == 16
    events = attack(fight.state, [2, 12, 3])
    assert of(events, EventType.ATTACK)[0].target == "Orc"
    # against the orc: 12 + 4 vs AC 12 (leather 2, no Dex, no shield)
    assert of(events, EventType.ATTACK)[0].target_number == 12


# --- attack position (conflict `flank_and_rear`) ----------------------------------------------------------------


def test_rear_conflict_mod_plus_2_no_dex_shield_vs_odd_dex_only() -> None:
    # rule: MOD-REAR-1 (+2, AC 12), MOD-REAR-2 (only surrounded, fleeing or surprised);
    # ODD-AC-DEX-2 under odd: no bonus, only Dex lost (AC 13)
    fight = duel("mod")
    with pytest.raises(IllegalActionError, match="MOD-REAR-2"):
        swing(fight.state, [10, 1], "rear")
    roll = swing(fight.state, [10, 1], "rear", "fleeing")
    assert Modifier(2, "MOD-REAR-1", "rear attack") in roll.modifiers
    assert (roll.total, roll.target_number) == (12, 12)
    odd = swing(duel("odd").state, [10, 1], "rear")
    assert (odd.total, odd.target_number) == (10, 13)


def test_flank_needs_two_attackers_and_drops_the_shield() -> None:
    # rule: MOD-FLANK-2 (only if another opponent attacks it), MOD-FLANK-1 (no shield: AC 14)
    data = encounter("mod", [hero(), hero("Ally")], [orc()])
    fight = started(data, [10, 9, 8])
    with pytest.raises(IllegalActionError, match="MOD-FLANK-2"):
        swing(fight.state, [10, 1], "flank")
    fight.push(attack(fight.state, [1], actor="Ally"))
    roll = swing(fight.state, [10, 1], "flank")
    assert roll.target_number == 14 and roll.total == 10


def test_backstab_needs_surprise_plus_4_and_multiplies_dice() -> None:
    # rule: MOD-BSTAB-1 (surprise, +4, no Dex/shield), MOD-BSTAB-2 with GAP-BACKSTAB: level 5 → ×3 → 3d6
    fight = duel("mod", hero_kw={"level": 5, "attack_bonus": 0})
    with pytest.raises(IllegalActionError, match="MOD-BSTAB-1"):
        swing(fight.state, [10, 1], "backstab")
    fight.state["Orc"].surprised = True
    events = attack(fight.state, [10, 2, 3, 4], situation=Situation(flags=frozenset({"backstab"})))
    roll = of(events, EventType.ATTACK)[0]
    assert Modifier(4, "MOD-BSTAB-1", "backstab") in roll.modifiers and (roll.total, roll.target_number) == (
        14,
        12,
    )
    damage = of(events, EventType.DAMAGE)[0]
    assert damage.damage == 9 and len(damage.dice) == 3
    assert [backstab_multiplier(n) for n in (1, 4, 5, 8, 9, 12, 13, 20)] == [2, 2, 3, 3, 4, 4, 5, 5]


# --- called shots -----------------------------------------------------------------------------------------------


def test_called_shot_only_on_a_natural_20_mod_called_2() -> None:
    # rule: MOD-CALLED-1 (the referee's modifiers), MOD-CALLED-2 (natural 20 or wasted; no normal damage)
    fight = duel("odd")
    eye = Situation(
        modifiers=(Modifier(-4, "MOD-CALLED-1", "the dragon's eye"),), flags=frozenset({"called_shot"})
    )
    events = attack(fight.state, [20], situation=eye)
    assert not of(events, EventType.DAMAGE)
    result = of(events, EventType.CHECK)[0]
    assert result.rule == "MOD-CALLED-2" and result.hit is True
    assert Modifier(-4, "MOD-CALLED-1", "the dragon's eye") in of(events, EventType.ATTACK)[0].modifiers
    events = attack(fight.state, [19], situation=eye)
    assert of(events, EventType.CHECK)[0].hit is False and "wasted" in of(events, EventType.CHECK)[0].text


# --- delays (MOD-COND-ENC-1 to MOD-COND-ENC-3, initiative `segments_with_delays`) ------------------------------------------------


def test_encumbrance_delays_segments() -> None:
    # rule: MOD-COND-ENC-1 (1d6 segments), MOD-COND-ENC-2 (no delay), MOD-COND-ENC-3 (6 segments)
    data = encounter("mod", [hero(conditions=["encumbered"]), hero("Ally", conditions=["moderately_encumbered"])],
                     [orc(conditions=["overloaded"])])  # fmt: skip
    fight = Fight(setup_from_data(data, "t"))
    fight.begin(ScriptedDice([]))
    events = fight.start_round(ScriptedDice([10, 8, 9, 5]))  # d10s 10, 8, 9 then the hero's 1d6 = 5
    delay = next(e for e in events if e.rule == "GAP-SEGMENTS")
    assert delay.data["delays"] == {"Hero": 5, "Orc": 6}
    assert fight.state.order == [["Ally"], ["Hero"], ["Orc"]]  # 8, 10 - 5 = 5, 9 - 6 = 3
    # under odd's d10 initiative nothing is delayed
    odd = Fight(setup_from_data({**data, "ruleset": "odd"}, "t"))
    odd.begin(ScriptedDice([]))
    assert not [e for e in odd.start_round(ScriptedDice([10, 8, 9])) if e.rule == "GAP-SEGMENTS"]


# --- the referee's actions and initial conditions -----------------------------------------------------------------


def test_apply_and_remove_condition_actions_expire_by_themselves() -> None:
    # rule: MOD-COND-PRONE applied by the referee for this round only; removed on request
    fight = duel("mod")
    action = action_from_dict({"kind": "apply_condition", "actor": "Orc", "condition": "prone", "rounds": 1})
    events = fight.act(action, ScriptedDice([]))
    assert events[0].data["until_round"] == 1 and fight.state["Orc"].has("prone")
    assert fight.next_actor() == "Hero"  # it used nobody's turn
    fight.state.acted = {"Hero", "Orc"}
    fight.end_round(ScriptedDice([]))
    assert not fight.state["Orc"].has("prone")
    fight.start_round(ScriptedDice([9, 2]))
    fight.act(ApplyCondition("Orc", condition="held"), ScriptedDice([]))
    assert fight.state["Orc"].conditions["held"].until_round is None
    fight.act(RemoveCondition("Orc", condition="held"), ScriptedDice([]))
    assert not fight.state["Orc"].has("held")
    with pytest.raises(IllegalActionError, match="unknown condition"):
        fight.act(ApplyCondition("Orc", condition="petrified"), ScriptedDice([]))
    with pytest.raises(IllegalActionError, match="not held"):
        fight.act(RemoveCondition("Orc", condition="held"), ScriptedDice([]))


def test_initial_condition_with_rounds_from_the_encounter_file() -> None:
    # rule: MOD-COND-STUN-1 — `{name: stunned, rounds: 2}` lasts to the end of round 2
    fight = duel("mod", orc_kw={"conditions": [{"name": "stunned", "rounds": 2}, "prone"]})
    assert fight.state["Orc"].conditions["stunned"].until_round == 2
    assert fight.state["Orc"].conditions["prone"].until_round is None
    with pytest.raises(EncounterFileError, match="unknown condition 'stuned'"):
        setup_from_data(encounter("mod", [hero()], [orc(conditions=["stuned"])]), "t")


def test_condition_applied_between_rounds_counts_from_the_next_round() -> None:
    # rule: MOD-COND-SLOWED applied after round 1 ended, for 2 rounds: rounds 2 and 3 (until_round 3);
    # GAP-SLOWED: it attacks in round 2, not in round 3
    fight = duel("mod")
    fight.state.acted = {"Hero", "Orc"}
    fight.end_round(ScriptedDice([]))
    assert fight.needs() == "round"
    fight.act(ApplyCondition("Hero", condition="slowed", rounds=2), ScriptedDice([]))
    slowed = fight.state["Hero"].conditions["slowed"]
    assert slowed.until_round == 3 and slowed.data["since"] == 2
    fight.start_round(ScriptedDice([9, 2]))
    assert of(attack(fight.state, [1, 1]), EventType.ATTACK)
    fight.state.round = 3
    with pytest.raises(IllegalActionError, match="GAP-SLOWED"):
        attack(fight.state, [1, 1])


def test_grapple_state_conflict_odd_has_no_random_grappler() -> None:
    # conflict `grapple_state`: under odd (ODD-GRAP-3) the Hero's blow lands on the orc it aims at, with no
    # pick die and no MOD-COND-GRAPPLED-1 bonus: d20 12 against AC 13 (held: no Dex under ODD, shield kept)
    fight = grapple("odd")
    events = attack(fight.state, [12, 3])
    assert not of(events, EventType.CHECK)
    roll = of(events, EventType.ATTACK)[0]
    assert roll.target == "Orc" and "MOD-COND-GRAPPLED-1" not in rules_of(roll)
    assert (roll.total, roll.target_number) == (12, 13)


def test_overloaded_cannot_charge_mod_cond_enc_3() -> None:
    # rule: MOD-COND-ENC-3 — no charge when overloaded (the same charge is fine without the load)
    fight = duel("mod", hero_kw={"conditions": ["overloaded"], "weapons": ["long sword"]})
    ctx = attack_context(fight.state, Attack("Hero", target="Orc", distance=30))
    with pytest.raises(IllegalActionError, match="MOD-COND-ENC-3"):
        conditions.overloaded_cannot_charge(replace(ctx, charge=True))
    conditions.overloaded_cannot_charge(ctx)


def _caster(condition: str, ruleset: str = "mod") -> Fight:
    from tests.conftest import make_setup

    data = {
        "ruleset": ruleset,
        "sides": [
            {"name": "A", "combatants": [{"name": "Mage", "hp": 6, "level": 3, "conditions": [condition]}]},
            {"name": "B", "combatants": [{"name": "Orc", "hp": 5, "hit_dice": 1}]},
        ],
    }
    fight = Fight(make_setup(data))
    fight.begin(ScriptedDice([]))
    fight.start_round(ScriptedDice([9, 1]))
    return fight


def test_deafened_caster_may_lose_a_verbal_spell() -> None:
    # rule: MOD-COND-DEAF (TV-DER-10): one round (10 segments) → 20%; d100 20 fails, 21 works; 3 segments → 10%
    from referee.engine.odd_actions import CastSpell

    fight = _caster("deafened")
    events = fight.act(CastSpell("Mage", spell="sleep", delivery="area"), ScriptedDice([20]))
    check = next(e for e in events if e.rule == "MOD-COND-DEAF")
    assert (check.total, check.target_number, check.hit) == (20, 20, False)
    fight = _caster("deafened")
    events = fight.act(CastSpell("Mage", spell="sleep", delivery="area"), ScriptedDice([21]))
    assert not [e for e in events if e.rule == "MOD-COND-DEAF"]
    fight = _caster("deafened")
    events = fight.act(CastSpell("Mage", spell="light", delivery="area", segments=3), ScriptedDice([11]))
    assert not [e for e in events if e.rule == "MOD-COND-DEAF"]
    fight = _caster("deafened")
    events = fight.act(CastSpell("Mage", spell="command", verbal=False), ScriptedDice([]))
    assert events[0].text.startswith("Mage casts command")


def test_blind_caster_cannot_target_a_spell() -> None:
    # rule: MOD-COND-BLIND-2 (TV-001-06): area and touch spells are fine, a chosen target is not
    from referee.engine.odd_actions import CastSpell
    from referee.errors import IllegalActionError

    fight = _caster("blind")
    with pytest.raises(IllegalActionError, match="MOD-COND-BLIND-2"):
        fight.act(CastSpell("Mage", spell="magic missile", target="Orc"), ScriptedDice([]))
    events = fight.act(CastSpell("Mage", spell="fireball", delivery="area"), ScriptedDice([]))
    assert events[0].text.startswith("Mage casts fireball")
    odd = _caster("blind", ruleset="odd")
    odd.act(CastSpell("Mage", spell="magic missile", target="Orc"), ScriptedDice([]))  # 000 has no such limit


def test_paired_conditions_are_not_applied_by_hand() -> None:
    # a garrotte hold arises from a garrotte attack (HR-GARROTE-2); applying it with no victim once broke
    # the round-end count (found by the random-fight invariants)
    from referee.errors import IllegalActionError

    fight = _caster("fatigued")
    with pytest.raises(IllegalActionError, match="ties two combatants"):
        fight.act(
            action_from_dict({"kind": "apply_condition", "actor": "Mage", "condition": "garrotting"}),
            ScriptedDice([]),
        )
    events = fight.act(
        action_from_dict({"kind": "apply_condition", "actor": "Mage", "condition": "grappled", "by": "Orc"}),
        ScriptedDice([]),
    )
    assert events[0].data["condition"] == "grappled"  # MOD-COND-GRAPPLED-2 links grapplers with `by`
