"""Shared fixtures: encounter data built in code, and helpers to run fights with scripted dice."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.files import Setup, setup_from_data

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def referee(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the `referee` command as a user does: a real process, its exit status and output."""
    return subprocess.run(
        [sys.executable, "-c", "from referee.cli import main; main()", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def environment_the_command_leaves(argv: list[str], name: str, given: str | None) -> str | None:
    """The environment variable `name` as `referee.cli.main` leaves it for `argv`, in a fresh interpreter
    where it starts as `given` (None: not set)."""
    import os

    script = (
        "import os, sys\n"
        "from referee.cli import main\n"
        f"sys.argv = {['referee', *argv]!r}\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        f"print(repr(os.environ.get({name!r})))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != name}
    if given is not None:
        env[name] = given
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert done.stdout.strip(), done.stderr
    left: str | None = ast.literal_eval(done.stdout.splitlines()[-1])  # the repr printed above
    return left


def angthar_data(goblins: int = 1, goblin_hp: int | None = 4, **extra: Any) -> dict[str, Any]:
    """The first seed's sample combat: Angthar (5th-level barbarian, Str 14) against goblins (AC 12)."""
    goblin: dict[str, Any] = {
        "name": "Goblin",
        "hit_dice": "1d6",
        "ac": 12,
        "weapons": [{"name": "scimitar", "damage": "1d6"}],
    }
    if goblin_hp is not None:
        goblin["hp"] = goblin_hp
    if goblins > 1:
        goblin["count"] = goblins
    data: dict[str, Any] = {
        "name": "Angthar and the goblin",
        "ruleset": "odd",
        "sides": [
            {
                "name": "Village",
                "combatants": [
                    {
                        "name": "Angthar",
                        "level": 5,
                        "attack_bonus": 4,
                        "abilities": {"str": 14, "dex": 12, "con": 12, "int": 9, "wis": 10, "cha": 10},
                        "hp": 30,
                        "armour": "leather",
                        "weapons": ["battle axe"],
                    }
                ],
            },
            {"name": "Goblins", "combatants": [goblin]},
        ],
    }
    data.update(extra)
    return data


def make_setup(data: dict[str, Any]) -> Setup:
    return setup_from_data(data, "test encounter")


@pytest.fixture
def angthar() -> Setup:
    return make_setup(angthar_data())
