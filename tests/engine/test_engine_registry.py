"""The one list of the engine's actions and hooks (src/referee/engine/registry.py)."""

from __future__ import annotations

import subprocess
import sys

from referee.engine import registry
from referee.engine.actions import Action, action_from_dict


def _all_actions(cls: type[Action]) -> set[type[Action]]:
    found = set()
    for sub in cls.__subclasses__():
        if sub.__module__.startswith("referee."):
            found |= {sub, *_all_actions(sub)}
    return found


def test_every_action_kind_has_one_resolver() -> None:
    # rule: ODD-ACT-1: every kind of action the engine defines can be resolved and rebuilt from its dict
    listed = set(registry.RESOLVERS)  # read first: the registry imports the modules it lists
    assert _all_actions(Action) == listed
    assert len(registry.ACTION_TYPES) == len(registry.RESOLVERS)
    for kind, cls in registry.ACTION_TYPES.items():
        assert cls.kind == kind
        assert type(action_from_dict({"kind": kind, "actor": "Ann"})) is cls


def test_hooks_are_listed_once() -> None:
    for hooks in (
        registry.AFTER_ATTACK, registry.AFTER_ACTION, registry.START_OF_ROUND, registry.END_OF_ROUND,
        registry.OVERRIDES, registry.FORM_RULES, registry.RETARGET_RULES, registry.CAST_CHECKS,
    ):  # fmt: skip
        assert len(set(hooks)) == len(hooks)


def test_a_creature_that_cannot_act_is_asked_first() -> None:
    # rule: MOD-COND-STUN-1: an unsteered creature whose condition forbids acting waits, before any other choice
    assert registry.OVERRIDES[0].__name__ == "unable_to_act"


def test_the_first_list_read_is_complete() -> None:
    # rule: ODD-ACT-1: the lists are made when first read (one attack's odds need only the form rules, a
    # whole fight's the hooks and the attack's resolver); in a fresh interpreter the first read of a hook
    # list finds every hook, and the first of the action kinds' finds every action kind
    code = """
import sys
from referee.engine import registry
assert "referee.engine.conditions" not in sys.modules
hooks = registry.AFTER_ATTACK
assert len(hooks) == 10 and len(registry.START_OF_ROUND) == 2 and len(registry.OVERRIDES) == 6
from referee.engine import fight, resolve
from referee.engine.actions import Action, Attack, Wait
assert fight.START_OF_ROUND is registry.START_OF_ROUND and fight.END_OF_ROUND is registry.END_OF_ROUND
assert registry.resolver(Attack) is resolve.resolve_attack and registry.resolver(Wait) is resolve.resolve_wait
assert "referee.engine.table_actions" not in sys.modules  # the other actions' modules: not yet
listed = set(registry.RESOLVERS)
def every(cls):
    return {s for sub in cls.__subclasses__() for s in (sub, *every(sub))}
assert every(Action) == listed, every(Action) ^ listed
assert registry.AFTER_ATTACK is hooks and registry.RESOLVERS[Attack] is registry.resolver(Attack)
from referee.engine.table_actions import Note
assert registry.resolver(Note) is registry.RESOLVERS[Note]
"""
    subprocess.run([sys.executable, "-c", code], check=True)
