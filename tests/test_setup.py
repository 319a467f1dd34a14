"""The setup record: what is fixed before the first die (the combatants, sides and rules), in the model layer."""

from __future__ import annotations

import pytest
from tests.conftest import EXAMPLES

from referee import files
from referee.errors import IllegalActionError
from referee.files import load_encounter
from referee.setup import Setup


def test_the_loader_builds_the_model_layer_record() -> None:
    assert files.Setup is Setup  # the old import path still works
    setup = load_encounter(EXAMPLES / "duel.yaml")
    assert isinstance(setup, Setup)
    names = [c.name for c in setup.combatants]
    assert setup.combatant(names[0]).name == names[0]
    assert all(c.side != setup.combatant(names[0]).side for c in setup.enemies_of(names[0]))
    with pytest.raises(IllegalActionError, match="no combatant called 'Nobody'; combatants: "):
        setup.combatant("Nobody")


def test_to_dict_freezes_the_ruleset_in() -> None:
    setup = load_encounter(EXAMPLES / "house_rules_duel.yaml")
    data = setup.to_dict()
    assert data["ruleset"] == setup.ruleset.name
    assert data["options"] == setup.ruleset.overrides() and "critical_hits" in data["options"]
    assert all(type(v) is str for v in data["options"].values())  # plain words for YAML and JSON
