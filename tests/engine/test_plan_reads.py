"""engine/plan_reads.py: the recording stand-ins answer as the fight does and note each read once, and a
plan kept with its reads is the plan the rules give on the fight itself (ODD-ACT-ATK)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.dice import RandomDice
from referee.engine import plan_reads, resolve
from referee.engine.fight import Fight, run_fight
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
