"""The suggested action's JSON, kept by what the action holds (views.action_dict), is ``to_dict`` of it.

Kept answers are keyed by every field's type and value, so actions equal in Python but not in JSON (1 and
True, a tuple and a frozenset, -0.0 and 0.0) never share one, and a caller's copy changes nothing kept
(rule: ODD-ACT-ATK, the engine's choice as `referee fight` makes it).
"""

from __future__ import annotations

import random

from referee.checks import Modifier
from referee.engine.actions import Attack, Wait
from referee.rules.context import AttackForm, Situation
from referee.web import views


def test_kept_action_dicts_are_to_dict_of_the_action() -> None:
    # rule: ODD-ACT-ATK
    rng = random.Random(5)
    for _ in range(400):
        situation = Situation(
            distance=rng.choice([None, 10, 30]),
            cover=rng.choice(["none", "half"]),
            modifiers=tuple(Modifier(rng.choice([-2, 1]), "ODD-SIT-1", "r") for _ in range(rng.randrange(2))),
            flags=frozenset(rng.sample(["rear", "flank", "higher"], rng.randrange(3))),
            rulings=tuple(rng.sample(["fog"], rng.randrange(2))),
        )
        action = Attack(
            actor=rng.choice(["Ann", "Orc 1"]), target=rng.choice(["Ann", "Orc 2"]),
            weapon=rng.choice([None, "spear"]), form=rng.choice([None, AttackForm.MELEE, AttackForm.RANGED]),
            charge=rng.random() < 0.3, situation=situation, targets=tuple(rng.sample(["Orc 1", "Orc 2"], rng.randrange(3))),
            extra_attacks=rng.choice([0, 1]),
        )  # fmt: skip
        assert views.action_dict(action) == action.to_dict()
    assert views.action_dict(Wait("Ann", "hides")) == Wait("Ann", "hides").to_dict()


def test_actions_equal_in_python_but_not_in_json_are_kept_apart() -> None:
    # rule: ODD-ACT-ATK
    one = Attack(actor="Ann", target="Orc", distance=1)
    true = Attack(actor="Ann", target="Orc", distance=True)  # type: ignore[arg-type]
    assert one == true
    assert views.action_dict(one)["distance"] == 1 and views.action_dict(true)["distance"] is True
    minus = Attack(actor="Ann", target="Orc", situation=Situation(modifiers=(Modifier(-0.0, "X", "r"),)))  # type: ignore[arg-type]
    assert views.action_dict(minus) == minus.to_dict()  # (a float: not kept, worked out each time)


def test_a_kept_action_dict_is_handed_out_as_a_copy() -> None:
    # rule: ODD-ACT-ATK
    action = Attack(actor="Ann", target="Orc")
    first = views.action_dict(action)
    first["situation"]["flags"].append("changed")
    first["kind"] = "changed"
    assert views.action_dict(action) == action.to_dict()
