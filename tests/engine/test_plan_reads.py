"""engine/plan_reads.py: the recording stand-ins answer as the fight does and note each read once, and a
plan kept with its reads is the plan the rules give on the fight itself (ODD-ACT-ATK)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.dice import RandomDice
from referee.engine import plan_reads, resolve
from referee.engine.fight import Fight, run_fight
from referee.engine.state import FightState
from referee.files import load_encounter
from referee.rules import memo

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _caches_restored() -> Iterator[None]:
    before = memo.ENABLED
    yield
    memo.set_enabled(before)


def _in_action() -> Fight:
    fight = Fight(load_encounter(ROOT / "examples" / "mod_conditions.yaml"))
    dice = RandomDice(5)
    while fight.needs() != "action":
        fight.step(lambda s, a: pytest.fail("no action yet"), dice)
    return fight


def test_a_stand_in_answers_as_the_fighter_and_notes_each_read_once() -> None:
    state = _in_action().state
    name = next(iter(state.combatants))
    real = state.combatants[name]
    recorder = plan_reads.Recorder(state)
    person = recorder.person(name)
    for _ in range(3):  # asked again and again, as the rules do
        assert person.hp == real.hp
        assert person.has("prone") == real.has("prone")
        assert person.is_active() == real.is_active()
        assert person.spec is real.spec
        assert recorder.fight.round == state.round
        assert recorder.fight.setup is state.setup
    asked = [(who, what, args) for who, what, args, _answer in recorder.reads]
    assert asked == [(name, "hp", ()), (name, "conditions", ()), (name, "status", ()), (None, "round", ())]
    assert recorder.person(name) is person  # one stand-in per combatant: `is` holds between reads


def test_a_stand_in_keeps_no_dunder_of_the_fighter() -> None:
    state = _in_action().state
    name = next(iter(state.combatants))
    person = plan_reads.Recorder(state).person(name)
    assert person._name == name
    assert not any(k.startswith("__") for k in vars(person))
    with pytest.raises(AttributeError):
        person.no_such_attribute  # noqa: B018 - the fighter's own error


@pytest.mark.parametrize(
    "path",
    [ROOT / "benchmarks" / "data" / "melee_3v4.yaml", ROOT / "examples" / "mod_conditions.yaml"],
    ids=lambda p: p.stem,
)
def test_kept_plans_give_the_fights_the_rules_give_afresh(path: Path) -> None:
    """Many fights from cold caches, event by event, against the same fights with the caches off."""
    setup = load_encounter(path)
    memo.set_enabled(True)
    plan_reads.forget()
    resolve.forget_accounts()
    seeds = range(40)
    kept = [[e.to_dict() for e in run_fight(setup, RandomDice(s)).events] for s in seeds]
    memo.set_enabled(False)
    fresh = [[e.to_dict() for e in run_fight(setup, RandomDice(s)).events] for s in seeds]
    for seed, (a, b) in enumerate(zip(kept, fresh, strict=True)):
        assert a == b, f"seed {seed}"


def _recorded(state: FightState, name: str, *attributes: str) -> plan_reads.Recorder:
    """A recorder that has read these attributes of `name` (as a rule would)."""
    recorder = plan_reads.Recorder(state)
    person = recorder.person(name)
    for attribute in attributes:
        getattr(person, attribute)
    return recorder


def test_a_read_memo_answers_only_where_every_read_gives_the_same_answer() -> None:
    """ODD-ACT-ATK: an answer kept with its reads is served on another state only when each read agrees."""
    state = _in_action().state
    name = next(iter(state.combatants))
    memo_ = plan_reads.ReadMemo(paths=2, answers=None, budget=100)
    memo_.keep("key", _recorded(state, name, "hp", "status"), "answer", ())
    assert memo_.find("key", state) == "answer"
    assert memo_.find("another key", state) is None
    state.combatants[name].hp -= 1  # a read gives another answer: not this one
    assert memo_.find("key", state) is None
    memo_.keep("key", _recorded(state, name, "hp", "status"), "hurt", ())
    assert memo_.find("key", state) == "hurt" and memo_.count == 2
    state.combatants[name].hp += 1
    assert memo_.find("key", state) == "answer"


def test_a_read_memo_stays_within_its_bounds() -> None:
    """The oldest question list is dropped past `paths`, a list's answers forgotten past `answers`, and
    everything past `budget`; the count follows."""
    state = _in_action().state
    name = next(iter(state.combatants))
    person = state.combatants[name]
    memo_ = plan_reads.ReadMemo(paths=2, answers=3, budget=5)
    for attributes in (("hp",), ("status",), ("subdual",)):  # three question lists: the first dropped
        memo_.keep("key", _recorded(state, name, *attributes), attributes, ())
    assert [path.asks for path in memo_.kept["key"]] == [((name, "status", ()),), ((name, "subdual", ()),)]
    assert memo_.find("key", state) == ("status",) and memo_.count == 2
    memo_.forget()
    start = person.hp
    for step in range(3):
        person.hp = start + step
        memo_.keep("key", _recorded(state, name, "hp"), step, ())
    assert memo_.count == 3
    person.hp = start + 3  # the fourth answer of one list forgets its three
    memo_.keep("key", _recorded(state, name, "hp"), 3, ())
    assert memo_.find("key", state) == 3 and memo_.count == 1
    person.hp = start
    assert memo_.find("key", state) is None
    for step in range(6):  # the budget (5) spent at the fifth key: all forgotten, then kept afresh
        memo_.keep(("other", step), _recorded(state, name, "hp"), step, ())
    assert memo_.count == 2 and memo_.find(("other", 5), state) == 5
    assert memo_.find(("other", 0), state) is None and memo_.find("key", state) is None
    memo_.forget()
    assert memo_.kept == {} and memo_.count == 0 and memo_.find(("other", 5), state) is None
