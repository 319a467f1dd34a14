"""Fields worked out when first read (referee/deferred.py): an INITIATIVE event's rule and text, a rolled
order's rule and notes (ODD-INIT-1..6). A fight's engine never reads them; a reader gets what an eager
record would hold, in every form (attribute, ==, repr, to_dict, replace, copy, deepcopy)."""

from __future__ import annotations

import copy
import pickle
import threading
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from referee.deferred import PENDING, defer, deferrable
from referee.dice import DiceTape, RandomDice
from referee.engine.events import Event, EventType
from referee.engine.fight import initiative_account, run_fight
from referee.files import load_encounter
from referee.rules import initiative

MELEE = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "melee_3v4.yaml"


def _initiative_events(seed: int) -> list[Event]:
    return [
        e for e in run_fight(load_encounter(MELEE), RandomDice(seed)).events if e.type is EventType.INITIATIVE
    ]


def test_a_played_fight_never_reads_an_initiative_account() -> None:
    # rule: ODD-INIT-1: the engine plays on the order alone; the rule and the text wait for a reader
    events = [e for seed in range(20) for e in _initiative_events(seed)]
    assert events
    assert all(PENDING in vars(e) and "text" not in vars(e) and "rule" not in vars(e) for e in events)


def test_the_account_read_is_the_eager_one() -> None:
    # rule: ODD-INIT-1, ODD-INIT-2, ODD-INIT-3: text and rule as explain_order and the slots tell them
    melee = load_encounter(MELEE)
    source = RandomDice(4)
    seen_rules = set()
    for number in range(1, 60):
        tape = DiceTape(source)
        found = initiative.roll_initiative(melee.ruleset, list(melee.combatants), melee.sides, number, tape)
        rule, notes = initiative.explain_order(melee.ruleset, _rolls_of(found, melee), found.first_strike)
        assert (found.rule, found.notes) == (rule, notes)
        assert PENDING not in vars(found)
        seen_rules.add(rule)
    assert {"ODD-INIT-1", "ODD-INIT-2"} <= seen_rules  # some rounds tie, some do not


def _rolls_of(found: initiative.Initiative, melee: object) -> list[initiative.UnitRoll]:
    dex = {c.name: c.abilities.dexterity for c in melee.combatants}  # type: ignore[attr-defined]
    return [initiative.UnitRoll(u, face, (face, dex[u])) for u, face in found.rolls.items()]


def test_every_reader_sees_the_values() -> None:
    events = _initiative_events(7)
    for e in events:
        lazy = [copy.copy(e)]  # (an event neither pickles nor deep-copies: its data is a mappingproxy)
        eager = Event(**{name: getattr(e, name) for name in Event.__dataclass_fields__})
        assert "text" in vars(eager) and PENDING not in vars(eager)
        assert e.text.startswith("initiative: ") and e.rule in {"ODD-INIT-1", "ODD-INIT-2", "ODD-INIT-3"}
        assert e == eager and e.to_dict() == eager.to_dict() and repr(e) == repr(eager)
        for other in lazy:
            assert other == eager
        assert replace(e, round=9).text == e.text


def test_a_rolled_order_pickled_or_copied_holds_its_values() -> None:
    melee = load_encounter(MELEE)
    for seed in range(10):
        made = [
            initiative.roll_initiative(
                melee.ruleset, list(melee.combatants), melee.sides, 2, RandomDice(seed)
            )
            for _ in range(4)
        ]
        copies = [made[1], pickle.loads(pickle.dumps(made[2])), copy.deepcopy(made[3])]
        assert PENDING in vars(made[1]) and not any(PENDING in vars(c) for c in copies[1:])
        for other in copies:
            assert (other.rule, other.notes, other.order) == (made[0].rule, made[0].notes, made[0].order)


def test_the_text_is_the_slots_then_the_notes() -> None:
    # rule: ODD-INIT-2: a tie broken by Dex is told after the slots
    found = initiative.Initiative(
        order=[["Ilse"], ["Brenna"], ["Orc 1"]], rolls={"Ilse": 9, "Brenna": 9, "Orc 1": 3},
        rule="ODD-INIT-2", notes=("tie Brenna = Ilse at 9: higher Dex first (Ilse Dex 15, Brenna Dex 11) [ODD-INIT-2]",),
    )  # fmt: skip
    assert initiative_account(found) == (
        "ODD-INIT-2",
        "initiative: Ilse > Brenna > Orc 1; tie Brenna = Ilse at 9: higher Dex first (Ilse Dex 15, Brenna Dex 11)"
        " [ODD-INIT-2]",
    )


def test_a_procedure_replaced_later_does_not_change_an_order_rolled(monkeypatch: pytest.MonkeyPatch) -> None:
    # rule: ODD-INIT-1: the recipe is the procedure as it was when the order was rolled
    melee = load_encounter(MELEE)
    found = initiative.roll_initiative(melee.ruleset, list(melee.combatants), melee.sides, 2, RandomDice(1))
    monkeypatch.setattr(initiative, "explain_order", lambda *args: ("HOUSE", ("replaced",)))
    assert found.rule != "HOUSE" and "replaced" not in found.notes


@dataclass(frozen=True)
class _Record:
    name: str
    told: str = "never"
    count: int = 0


deferrable(_Record, ("told", "count"))


def test_defer_on_any_frozen_dataclass() -> None:
    asked = []

    def recipe() -> tuple[str, int]:
        asked.append(1)
        return "late", 3

    record = _Record("a")
    assert (record.told, _Record.told) == ("never", "never")  # an eager record and the class: the default
    defer(record, ("told", "count"), recipe)
    assert not asked
    assert record.count == 3 and record.told == "late" and len(asked) == 1  # both at once, asked once
    assert record == _Record("a", "late", 3)
    with pytest.raises(AttributeError, match="no attribute 'other'"):
        record.other  # type: ignore[attr-defined]  # noqa: B018


def test_threads_reading_at_once_all_see_the_value() -> None:
    records = []
    for _ in range(200):
        record = _Record("b")
        defer(record, ("told", "count"), lambda: ("late", 1))
        records.append(record)
    seen: list[str] = []
    start = threading.Barrier(4)

    def read() -> None:
        start.wait()
        seen.extend(r.told for r in records)

    threads = [threading.Thread(target=read) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == ["late"] * 800


def test_an_initiative_event_is_freed_without_the_collector() -> None:
    # its recipe holds the order's recipe, not the order (which keeps the event): no reference cycle
    import gc
    import weakref

    from referee.engine.fight import Fight

    melee = load_encounter(MELEE)
    fight = Fight(melee)
    dice = RandomDice(3)
    fight.begin(dice)
    enabled = gc.isenabled()
    gc.disable()
    try:
        made = fight.initiative_event(2, dice)
        gone = weakref.ref(made)
        del made
        assert gone() is None
    finally:
        if enabled:
            gc.enable()


def test_a_recipe_of_a_record_does_not_hold_it() -> None:
    import weakref

    from referee.deferred import recipe_of

    record = _Record("c")
    defer(record, ("told", "count"), lambda: ("late", 2))
    recipe = recipe_of(record, ("told", "count"))
    eager = recipe_of(_Record("d", "now", 5), ("told", "count"))
    gone = weakref.ref(record)
    del record
    assert gone() is None
    assert tuple(recipe()) == ("late", 2) and tuple(eager()) == ("now", 5)
