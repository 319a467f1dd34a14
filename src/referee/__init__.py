"""referee: a combat rules engine for old-school fantasy role-playing games.

The public face (:mod:`referee.api`)::

    import referee
    fight = referee.Fight.from_file("examples/duel.yaml", seed=3)
    fight.begin()
    fight.start_round()
    step = fight.act(referee.Attack("Angthar", target="Goblin"))
    print(step)

Importing the package is cheap: the names below are imported on first use (PEP 562), so the
`referee` command starts without loading the engine, numpy or pydantic. Every action kind the
engine registers is reachable by its class name (``referee.Charge``, ``referee.Move`` ...).
"""

from __future__ import annotations

import importlib

from referee.errors import (
    DiceError,
    DiceExhaustedError,
    EncounterFileError,
    IllegalActionError,
    OptionError,
    RefereeError,
    StoreError,
)

__version__ = "0.1.0"

TYPE_CHECKING = False  # not typing's: importing typing would double the cost of `import referee`
if TYPE_CHECKING:
    from typing import Any

    from referee.api import CombatantSnapshot, Fight, Step, describe
    from referee.chance import DieRequest
    from referee.dice import DiceSource, RandomDice, ScriptedDice
    from referee.engine.actions import Action, Attack, Wait
    from referee.files import load_encounter
    from referee.odds import ActionOdds
    from referee.rules.context import AttackForm
    from referee.rules.ruleset import Ruleset
    from referee.setup import Setup

# name → the module it comes from, imported when the name is first asked for
_LAZY = {
    "Fight": "referee.api",
    "Step": "referee.api",
    "CombatantSnapshot": "referee.api",
    "describe": "referee.api",
    "DieRequest": "referee.chance",
    "DiceSource": "referee.dice",
    "RandomDice": "referee.dice",
    "ScriptedDice": "referee.dice",
    "Action": "referee.engine.actions",
    "Attack": "referee.engine.actions",
    "Wait": "referee.engine.actions",
    "Setup": "referee.setup",
    "load_encounter": "referee.files",
    "ActionOdds": "referee.odds",
    "Ruleset": "referee.rules.ruleset",
    "AttackForm": "referee.rules.context",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    else:
        value = _registered_action(name)
        if value is None:
            raise AttributeError(f"module 'referee' has no attribute {name!r}")
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY, *_action_names()})


def _registered_action(name: str) -> type[Action] | None:
    """An action class the engine's registry (:mod:`referee.engine.registry`) lists, by its class name
    (Charge, Move, Withdraw...)."""
    if not name[:1].isupper():
        return None
    return _action_classes().get(name)


def _action_classes() -> dict[str, type[Action]]:
    registry = importlib.import_module("referee.engine.registry").ACTION_TYPES  # the engine's one list
    return {cls.__name__: cls for cls in registry.values()}


def _action_names() -> list[str]:
    return list(_action_classes())


__all__ = [
    "Action",
    "ActionOdds",
    "Attack",
    "AttackForm",
    "CombatantSnapshot",
    "DiceError",
    "DiceExhaustedError",
    "DiceSource",
    "DieRequest",
    "EncounterFileError",
    "Fight",
    "IllegalActionError",
    "OptionError",
    "RandomDice",
    "RefereeError",
    "Ruleset",
    "ScriptedDice",
    "Setup",
    "Step",
    "StoreError",
    "Wait",
    "__version__",
    "describe",
    "load_encounter",
]
