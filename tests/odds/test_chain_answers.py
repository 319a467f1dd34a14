"""The chain's answers stay what they were: stored answers (tests/odds/chain_answers.json, written by
the chain before its rounds were reused and its orders collapsed) for fights that exercise each part of
a round: rolled hit points and target choice, Dex ties and simultaneous slots, group initiative, first
strike in round 1, the shield's count of attackers, a fumble's free attack back, five units of
individual initiative.

    PYTHONPATH=src .venv/bin/python tests/odds/test_chain_answers.py   # rewrite the stored answers
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))

from tests.conftest import EXAMPLES, make_setup  # noqa: E402

from referee import odds  # noqa: E402
from referee.files import Setup, load_encounter  # noqa: E402

ANSWERS = Path(__file__).resolve().parent / "chain_answers.json"
DATA = ROOT / "tests" / "data"


def fighter(name: str, hp: int | str, dex: int = 10, **more: Any) -> dict[str, Any]:
    hit_points = {"hit_dice": hp} if isinstance(hp, str) else {"hp": hp}
    return {"name": name, "level": 1, **hit_points, "abilities": {"dex": dex}, "ac": 12,
            "weapons": [{"name": "club", "damage": "1d4"}], **more}  # fmt: skip


def fight(name: str, sides: dict[str, list[dict[str, Any]]], **options: Any) -> Callable[[], Setup]:
    data = {"name": name, "ruleset": "odd", "options": options,
            "sides": [{"name": s, "combatants": cs} for s, cs in sides.items()]}  # fmt: skip
    return lambda: make_setup(data)


def duel_60() -> Setup:
    def one(name: str, weapon: str) -> dict[str, Any]:
        return {"name": name, "level": 3, "attack_bonus": 2, "hp": 60, "abilities": {"str": 13, "dex": 11},
                "armour": "chain", "weapons": [weapon]}  # fmt: skip

    return make_setup(
        {"name": "60 HP duel", "ruleset": "odd",
         "sides": [{"name": "A", "combatants": [one("Ann", "long sword")]},
                   {"name": "B", "combatants": [one("Bob", "battle axe")]}]}
    )  # fmt: skip


CASES: dict[str, Callable[[], Setup]] = {
    **{
        name: (lambda path=EXAMPLES / f"{name}.yaml": load_encounter(path))
        for name in (
            "angthar_and_the_goblins",
            "duel",
            "fog_and_cover",
            "house_rules_duel",
            "lucas_and_krieger",
            "touch",
        )
    },
    "shield_knight_two_orcs": lambda: load_encounter(DATA / "shield_knight_two_orcs.yaml"),
    "duel_60": duel_60,
    "dex_ties_1_vs_2": fight(
        "ties",
        {"A": [fighter("Ann", 8, dex=12)], "B": [fighter("Bob", "1d4", dex=12), fighter("Cy", 3, dex=9)]},
    ),
    "group_2_vs_3": fight(
        "group",
        {"A": [fighter("Ann", 5), fighter("Abe", "1d4")], "B": [fighter(f"Orc {i}", 3) for i in (1, 2, 3)]},
        initiative="d10_group",
    ),
    "first_strike_ogre": fight(
        "ogre",
        {
            "Ogre": [fighter("Ogre", 14, size="large", weapons=[{"name": "club", "damage": "1d8"}])],
            "Men": [fighter("Ann", 5, dex=13), fighter("Bob", 4, dex=13)],
        },
        first_strike_reach_size=True,
    ),
    "five_units": fight(
        "five",
        {
            "A": [fighter("Ann", 3, dex=12), fighter("Abe", 2, dex=10)],
            "B": [fighter("Bo", 2, dex=10), fighter("Cy", 2, dex=11), fighter("Di", 2, dex=10)],
        },
    ),
}


def answer(setup: Setup) -> dict[str, Any]:
    result = odds.fight_odds(setup, walk=False)
    return {**result.to_dict(), "rounds": {str(n): float(p) for n, p in sorted(result.rounds.items())}}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_chain_gives_the_stored_answer(case: str) -> None:
    # rule: ODD-INIT-1..5, ODD-AC-SHIELD, MF-FUMBLE-2, GAP-HP-ZERO: the same answers to 1e-9
    stored = json.loads(ANSWERS.read_text())[case]
    now = answer(CASES[case]())
    assert now["states"] == stored["states"]
    for side, p in stored["wins"].items():
        assert now["wins"][side] == pytest.approx(p, abs=1e-9)
    for key in ("draw", "limit"):
        assert now[key] == pytest.approx(stored[key], abs=1e-9)
    rounds = set(now["rounds"]) | set(stored["rounds"])
    for n in rounds:
        assert now["rounds"].get(n, 0.0) == pytest.approx(stored["rounds"].get(n, 0.0), abs=1e-9), n


if __name__ == "__main__":
    ANSWERS.write_text(
        json.dumps({case: answer(make()) for case, make in sorted(CASES.items())}, indent=1) + "\n"
    )
