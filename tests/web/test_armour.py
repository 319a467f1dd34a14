"""The referee's view's kept armour classes (src/referee/web/armour.py) are the ones the rules work out afresh.

Random steps, the engine's turns, undos, redos and table actions (conditions put on and taken off, hit points,
combatants added and removed) on encounters whose ACs move (shields facing this round's attackers, Dex lost
to conditions, charges, cover, descending AC); after each, every combatant's kept AC is compared with
``armour_class`` worked out on the fight itself, and the answer's ACs with a fresh fold's view worked out with
the caches off (rules: ODD-AC-1, ODD-AC-SHIELD, ODD-AC-DEX-1, MOD-COND-PRONE, ODD-CHARGE-4).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from tests.web.test_folds import change

from referee.rules import memo
from referee.web import armour, views
from referee.web.folds import Folded, folds_of

CONDITIONS = ["prone", "stunned", "blinded", "helpless", "invisible", "fatigued", "grappled", "held"]
EXAMPLES = ["mod_conditions.yaml", "skirmish.yaml", "preset_full.yaml", "charge.yaml", "fog_and_cover.yaml"]
# Dex and a shield: an AC that moves with conditions (Dex lost) and with this round's attackers (the shield)
SHIELDED: dict[str, Any] = {
    "name": "shielded",
    "sides": [
        {
            "name": "A",
            "combatants": [
                {
                    "name": "Ann", "hp": 40, "abilities": {"dexterity": 18}, "armour": "leather",
                    "shield": "shield", "weapons": ["long sword"],
                }
            ],
        },
        {"name": "B", "combatants": [{"name": "Orc", "count": 2, "hp": 20, "weapons": ["spear"]}]},
    ],
}  # fmt: skip


def checked(tracker: Any, eid: str, answer: dict[str, Any] | None) -> None:
    store = tracker.app.state.store
    folds = folds_of(store)
    with folds.lock(eid):
        state = folds.current(eid).fight.state
        for c in state.combatants.values():
            ctx = armour.context(state, c)
            fresh = None if ctx is None else armour.worked_out(ctx)
            assert armour.armour_class_of(state, c) == fresh, c.name
    if answer is None:
        return
    new = Folded.fold(*store.snapshot(eid))
    before = memo.set_enabled(False)
    try:
        expected = views.referee_view(new.row, new.fight, new.stored, [], new.tabled)
    finally:
        memo.set_enabled(before)
    if answer["version"] == new.row.version:
        shown = [{k: c[k] for k in ("name", "ac", "ac_why", "ac_change")} for c in answer["combatants"]]
        assert shown == [
            {k: c[k] for k in ("name", "ac", "ac_why", "ac_change")} for c in expected["combatants"]
        ]


def table_action(rng: random.Random, names: list[str], sides: list[str], i: int) -> dict[str, Any]:
    who = rng.choice(names)
    roll = rng.random()
    if roll < 0.45:
        return {"kind": "apply_condition", "actor": who, "condition": rng.choice(CONDITIONS), "rounds": 2}
    if roll < 0.65:
        return {"kind": "remove_condition", "actor": who, "condition": rng.choice(CONDITIONS)}
    if roll < 0.8:
        return {"kind": "adjust_hp", "target": who, "amount": rng.choice([-4, 3]), "reason": "test"}
    if roll < 0.9:
        joining = {"name": f"Extra {i}", "hp": 8, "ac": rng.choice([12, 15]), "weapons": ["dagger"]}
        return {"kind": "add_combatant", "actor": "", "side": rng.choice(sides), "combatant": joining}
    return {"kind": "remove_combatant", "target": who, "status": "fled"}


@pytest.mark.parametrize("example", [*EXAMPLES, "shielded"])
@pytest.mark.parametrize("seed", [1, 2])
def test_kept_armour_classes_equal_fresh_ones_after_random_steps(
    tracker: Any, example: str, seed: int
) -> None:
    # rule: ODD-AC-1, ODD-AC-SHIELD, ODD-AC-DEX-1, MOD-COND-PRONE, ODD-CHARGE-4
    armour.forget()
    rng = random.Random(seed)
    body = {"data": SHIELDED} if example == "shielded" else {"example": example}
    created = tracker.client.post("/api/encounters", json=body, headers=tracker.auth)
    assert created.status_code == 201, created.text
    eid = created.json()["id"]
    tabled = 0  # table actions taken (a refused one changes nothing)
    for i in range(45):
        state = tracker.state(eid)
        checked(tracker, eid, state)
        needs = state["needs"]
        names = [c["name"] for c in state["combatants"]]
        roll = rng.random()
        if roll < 0.08 and state["version"]:
            answer = change(tracker, eid, "undo", {})
        elif roll < 0.14:
            answer = change(tracker, eid, "redo", {}) if state["redo"] else None
        elif roll < 0.45 and needs not in ("begin", "over"):
            table = table_action(rng, names, state["sides"], i)
            answer = change(tracker, eid, "actions", {"action": table, "seed": i})
            tabled += answer is not None
        elif needs == "action":
            answer = change(tracker, eid, "engine", {"until": "actor", "seed": i})
        elif needs == "over":
            answer = change(tracker, eid, "undo", {})
        else:
            answer = change(tracker, eid, "steps", {"step": needs, "seed": i})
        checked(tracker, eid, answer)
    assert tabled >= 3, tabled


def test_an_ac_read_again_on_another_state_is_worked_out_anew_when_a_read_differs(tracker: Any) -> None:
    # rule: ODD-AC-DEX-1 (held: Dex lost, so what the AC read changed: not the kept AC)
    armour.forget()
    eid = tracker.create(SHIELDED)
    tracker.step(eid, "begin")
    tracker.step(eid, "round")
    folds = folds_of(tracker.app.state.store)
    state = folds.current(eid).fight.state
    before = armour.armour_class_of(state, state.combatants["Ann"])
    assert before is not None and before == armour.armour_class_of(state, state.combatants["Ann"])
    assert before.value == 16
    held = {"kind": "apply_condition", "actor": "Ann", "condition": "held", "rounds": 2}
    assert change(tracker, eid, "actions", {"action": held}) is not None
    state = folds.current(eid).fight.state
    after = armour.armour_class_of(state, state.combatants["Ann"])
    ctx = armour.context(state, state.combatants["Ann"])
    assert ctx is not None and after == armour.worked_out(ctx)
    assert after is not None and after.value == 13
    assert tracker.state(eid)["combatants"][0]["ac"] == 13
