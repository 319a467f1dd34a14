"""Drowning at the end of each round underwater (003's drowning: MF-DROWN-2, MF-DROWN-3, GAP-DROWN).

Who holds its breath and for how long is :mod:`referee.rules.environment`'s; the Luck (Con) save is
:func:`referee.rules.saves.luck_save`. This module rolls them and writes the events.
"""

from __future__ import annotations

from referee.dice import DiceSource, DiceTape
from referee.engine.events import Event, EventType, event
from referee.engine.state import CombatantState, FightState
from referee.rules.environment import breath_rounds, drowning_possible, holds_breath
from referee.rules.saves import luck_save


def drowning(state: FightState, dice: DiceSource) -> list[Event]:
    """At the end of each round underwater: the first time, fix each creature's breath (MF-DROWN-2,
    the d4 rolled now in file order); once it has run out, a Luck (Con) save, dying on a failure
    (MF-DROWN-3, repeated each round, GAP-DROWN)."""
    out: list[Event] = []
    if not drowning_possible(state):
        return out  # nobody holds a breath: no environment lookup per combatant
    rs = state.setup.ruleset
    for c in state.combatants.values():
        if not holds_breath(state, c):
            continue
        tape = DiceTape(dice)
        cond = c.conditions.get("holding_breath")
        if cond is None:
            d4 = tape.roll(4, f"breath {c.name}") if rs.drowning_fight_extra_d4 else 0
            breath = breath_rounds(c.spec.abilities.constitution, True, d4)
            out.append(
                event(EventType.CONDITION, state.round, target=c.name, dice=tape.take(), rule="MF-DROWN-2",
                      text=f"{c.name} holds its breath for {breath} rounds while fighting",
                      data={"condition": "holding_breath", "added": True, "until_round": None,
                            "extra": {"breath": breath, "since": 1}})
            )  # fmt: skip
            if state.round <= breath:
                continue
        else:
            breath = int(cond.data.get("breath", 0))
            if state.round - int(cond.data.get("since", 1)) + 1 <= breath:
                continue
        out += drowning_save(state, c, tape)
    return out


def drowning_save(state: FightState, c: CombatantState, tape: DiceTape) -> list[Event]:
    check = luck_save(c, "constitution", state.setup.ruleset)
    face = tape.roll(20, f"Luck (Con) save {c.name}")
    saved = check.succeeds(face)
    out = [
        event(EventType.CHECK, state.round, actor=c.name, dice=tape.take(), total=face,
              target_number=check.target, hit=saved, rule="MF-DROWN-3",
              text=f"out of breath: {check.breakdown([face])}", data={"check": "drowning"})
    ]  # fmt: skip
    if not saved:
        out.append(
            event(EventType.DEFEAT, state.round, target=c.name, rule="MF-DROWN-3",
                  text=f"{c.name} drowns", data={"status": "dead", "hp": c.hp})
        )  # fmt: skip
    return out
