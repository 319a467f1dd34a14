"""The engine's caches (engine/caches.py, rules/memo.py) change how fast a fight is played, never what
happens in it: every example fights event for event alike with them on and off (ODD-ACT-ATK: the attack
resolved is the one the tactics checked; the setup's environment, e.g. MOD-FOG-1 and 003's underwater,
is the same parsed once or per check)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.dice import RandomDice
from referee.engine import caches
from referee.engine.fight import Fight, run_fight
from referee.errors import EncounterFileError
from referee.files import load_encounter
from referee.rules import memo
from referee.setup import Setup

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.yaml"))
SEEDS = (0, 1, 2, 7, 42)


def _setup(path: Path) -> Setup:
    try:
        return load_encounter(path)
    except EncounterFileError as exc:  # a file that is not a whole encounter (a house-rules sheet)
        pytest.skip(f"{path.name} is not an encounter: {exc}")


def _log(setup: Setup, seed: int, cached: bool) -> dict[str, Any]:
    before = memo.set_enabled(cached)
    try:
        return run_fight(setup, RandomDice(seed)).result().to_dict()
    finally:
        memo.set_enabled(before)


@pytest.fixture(autouse=True)
def _caches_restored() -> Iterator[None]:
    before = memo.ENABLED
    yield
    memo.set_enabled(before)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_fights_alike_with_and_without_caches(path: Path) -> None:
    setup = _setup(path)
    for seed in SEEDS:
        assert _log(setup, seed, cached=True) == _log(setup, seed, cached=False), f"seed {seed}"


def test_plans_are_reused_only_within_a_step_of_the_state_being_stepped() -> None:
    setup = load_encounter(EXAMPLES[0].parent / "duel.yaml")
    fight = Fight(setup)
    dice = RandomDice(3)
    fight.step(lambda s, a: pytest.fail("no action before the first round"), dice)
    assert getattr(caches._local, "step", None) is None  # nothing kept between steps
    memo.set_enabled(True)
    while fight.needs() != "action":
        fight.step(lambda s, a: pytest.fail("no action yet"), dice)
    from referee.engine import tactics

    seen: list[int] = []

    def choose(state: Any, actor: str) -> Any:
        action = tactics.choose_action(state, actor)
        step = caches._step_of(state)
        assert step is not None
        seen.append(len(step.declared) + len(step.plans))  # planned while choosing: kept for the resolver
        return action

    fight.step(choose, dice)
    assert seen and seen[0] >= 1
    assert getattr(caches._local, "step", None) is None


def test_a_changed_environment_mapping_is_parsed_again() -> None:
    memo.set_enabled(True)
    data: dict[str, Any] = {"fog": "typical"}
    assert memo.environment(data).fog == "typical"
    data["fog"] = "none"  # changed in place: the kept answer is not used
    assert memo.environment(data).fog == "none"


def test_a_kept_plan_serves_only_a_fight_whose_reads_give_the_same_answers() -> None:
    """ODD-ACT-ATK: a kept plan is reused only where everything it read is the same; a condition put on
    the defender (prone, stunned: MOD-COND-PRONE, MOD-COND-STUN-1) or hit points lost give the plan the rules give there."""
    from referee.engine import plan_reads
    from referee.engine.actions import Attack
    from referee.engine.events import EventType, event
    from referee.engine.resolve import attack_context
    from referee.rules.attack import plan_attack

    memo.set_enabled(True)
    plan_reads.forget()
    setup = load_encounter(EXAMPLES[0].parent / "mod_conditions.yaml")
    fight = Fight(setup)
    dice = RandomDice(5)
    while fight.needs() != "action":
        fight.step(lambda s, a: pytest.fail("no action yet"), dice)
    state = fight.state
    attacker = next(c for c in state.active() if state.living_enemies(c.name))
    defender = state.living_enemies(attacker.name)[0]
    action = Attack(attacker.name, target=defender.name)
    first = plan_reads.recorded_plan(attack_context(state, action))
    assert plan_reads.recorded_plan(attack_context(state, action)) is first  # kept, and served
    for condition in ("prone", "stunned", "blind"):
        state.apply(
            event(EventType.CONDITION, state.round, target=defender.name, data={"condition": condition})
        )
        ctx = attack_context(state, action)
        assert plan_reads.recorded_plan(ctx) == plan_attack(ctx), condition
    state.apply(event(EventType.DAMAGE, state.round, target=defender.name, damage=1))
    ctx = attack_context(state, action)
    assert plan_reads.recorded_plan(ctx) == plan_attack(ctx)


@pytest.mark.parametrize("name", ["duel.yaml", "preset_hr.yaml", "fog_and_cover.yaml"])
def test_kept_attack_events_are_the_events_worked_out_afresh(name: str) -> None:
    """ODD-ATK-1, ODD-ATK-2: an attack's ATTACK, DAMAGE and DEFEAT events are kept per plan and roll
    (engine/resolve.py) and served to later fights; each served event equals the one the rules give
    afresh, and serving really happens (the same event object in two fights' logs)."""
    from referee.engine import resolve

    setup = load_encounter(EXAMPLES[0].parent / name)
    memo.set_enabled(True)
    resolve.forget_accounts()
    seeds = range(30)
    first = [run_fight(setup, RandomDice(s)).events for s in seeds]
    again = [run_fight(setup, RandomDice(s)).events for s in seeds]  # from the kept events
    fresh = [_log(setup, s, cached=False)["events"] for s in seeds]
    assert [[e.to_dict() for e in log] for log in again] == fresh
    served = {id(e) for log in first for e in log if e.type.value in {"attack", "damage"}}
    assert any(id(e) in served for log in again for e in log)


def test_a_kept_refusal_keeps_no_fight_alive(tmp_path: Path) -> None:
    # rule: MF-OTHER-1 (a referee's modifier beyond ±1 is refused under `mf`): the refusal is kept with
    # the plan and raised again in every fight; raising the kept instance itself chained each fight's
    # frames onto its traceback, and a long simulation grew by about 50 kB a fight
    import gc
    import weakref

    text = (EXAMPLES[0].parent / "pummel.yaml").read_text().replace("ruleset: odd", "ruleset: mf")
    (tmp_path / "pummel_mf.yaml").write_text(text)
    setup = load_encounter(tmp_path / "pummel_mf.yaml")
    sources = [RandomDice(seed) for seed in range(40)]
    gone = [weakref.ref(source) for source in sources]
    for source in sources:
        run_fight(setup, source)
    del sources, source
    gc.collect()
    assert sum(ref() is not None for ref in gone) == 0
