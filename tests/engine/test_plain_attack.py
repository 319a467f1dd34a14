"""engine/plain_attack.py: the lane's attacks serve kept events (per face, per hit, per round, told for
one plan and served to another that differs only in the names) that are the events the procedures give
afresh (ODD-ATK-1, ODD-ATK-2, ODD-HP-1)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.dice import RandomDice
from referee.engine import plan_reads, resolve
from referee.engine.events import EventType, at_round, event, renamed_at, with_names
from referee.engine.fight import run_fight
from referee.files import load_encounter
from referee.rules import memo
from referee.setup import Setup

ROOT = Path(__file__).resolve().parents[2]
MELEE = ROOT / "benchmarks" / "data" / "melee_3v4.yaml"  # four orcs: families of plans and twin sheets


@pytest.fixture(autouse=True)
def _caches_restored() -> Iterator[None]:
    before = memo.ENABLED
    yield
    memo.set_enabled(before)


def _logs(setup: Setup, seeds: list[int], cached: bool) -> list[list[dict[str, Any]]]:
    memo.set_enabled(cached)
    return [[e.to_dict() for e in run_fight(setup, RandomDice(0).reseed(s)).events] for s in seeds]


def _forget() -> None:
    plan_reads.forget()
    resolve.forget_accounts()


@pytest.mark.parametrize("path", [MELEE, ROOT / "examples" / "skirmish.yaml"], ids=lambda p: p.stem)
def test_served_events_are_the_events_worked_out_afresh(path: Path) -> None:
    """From cold caches, then warm and in another order: every event as the procedures give it."""
    setup = load_encounter(path)
    seeds = list(range(60))
    fresh = _logs(setup, seeds, cached=False)
    _forget()
    cold = _logs(setup, seeds, cached=True)
    warm = _logs(setup, seeds[::-1], cached=True)[::-1]
    for seed in seeds:
        assert cold[seed] == fresh[seed], f"seed {seed}, cold"
        assert warm[seed] == fresh[seed], f"seed {seed}, warm"


def test_a_family_shares_a_hits_rolled_damage() -> None:
    """ODD-ATK-2: the four orcs' spears roll the same damage for the same faces: worked out once for
    the family (the plans equal but for the names) and kept there."""
    setup = load_encounter(MELEE)
    _forget()
    _logs(setup, list(range(20)), cached=True)
    shared = 0
    by_family: dict[int, dict[Any, Any]] = {}
    for account in resolve._ACCOUNTS.values():
        family = account.told.get("family")
        if family is None or family[1] is None:
            continue
        for key, value in account.told.items():
            if isinstance(key, tuple) and key[0] == "rolled":
                assert family[1][key] is value  # told once for the family, served to each plan
                seen = by_family.setdefault(id(family[1]), {})
                shared += key in seen
                seen.setdefault(key, value)
    assert shared  # some plan was served what another plan of its family rolled


def test_renamed_at_is_with_names_then_at_round() -> None:
    e = event(EventType.ATTACK, 2, actor="Orc", target="Brenna", text="d20 7", data={"hit": False})
    for actor, target, r in [
        ("Orc", "Brenna", 2),
        ("Orc 2", "Brenna", 2),
        ("Orc", "Tomas", 5),
        ("A", "B", 1),
    ]:
        made = renamed_at(e, actor, target, r)
        assert made == at_round(with_names(e, actor, target), r)
        assert (made is e) == (actor == "Orc" and target == "Brenna" and r == 2)


def test_a_twin_is_told_its_own_defeat() -> None:
    """ODD-HP-1: a hit told for one orc is served to its twins; a DEFEAT that followed is asked of the
    procedure for the orc at hand (its text names it), and is the DEFEAT the fight without caches has."""
    from referee.engine import plain_attack

    setup = load_encounter(MELEE)
    _forget()
    plain_attack._FAMILIES.clear()
    seeds = list(range(30))
    cold = _logs(setup, seeds, cached=True)
    defeats = [
        value
        for key, (_ruleset, told, _twin) in plain_attack._FAMILIES.items()
        if key[-1] == "twins" and told is not None
        for value in told.values()
        if value[1]
    ]
    assert defeats  # some hit on an orc that killed it was kept for its twins
    fresh = _logs(setup, seeds, cached=False)
    assert cold == fresh
    assert {e["target"] for log in fresh for e in log if e["type"] == "defeat"} >= {"Orc 1", "Orc 2"}
