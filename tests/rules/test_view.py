"""The read-only views rules read of a fight (src/referee/rules/view.py), and that rules need no engine."""

from __future__ import annotations

import subprocess
import sys

from tests.odd_helpers import encounter, fighter, give, orc, plan, state_of

from referee.rules.view import CombatantView, ConditionView, FightView, SetupView


def test_the_engine_state_is_a_fight_view() -> None:
    # rule: ODD-AC-SHIELD, DAC-DEFL-1: attackers this round and shield uses are declared inputs of the view
    state = state_of(encounter([fighter()], [orc()]))
    give(state, "Orc", "prone")
    assert isinstance(state, FightView)
    assert isinstance(state.setup, SetupView)
    assert isinstance(state["Ann"], CombatantView)
    assert isinstance(state["Orc"].conditions["prone"], ConditionView)


def test_rules_plan_an_attack_from_the_view() -> None:
    # rule: ODD-MELEE-1: the planner reads the fight only through its view
    state = state_of(encounter([fighter()], [orc()]))
    p = plan(state, "Ann", "Orc")
    assert p.attacker == "Ann" and p.defender == "Orc"


def test_rules_and_their_registry_import_no_engine() -> None:
    # rule: every rule module, and the list of them, loads without the engine, the loader or a user interface
    code = (
        "import sys, referee.rules.registry, referee.rules.initiative, referee.rules.saves\n"
        "bad = sorted(m for m in sys.modules if m.startswith(('referee.engine', 'referee.files', 'referee.web',"
        " 'referee.cli', 'referee.sim', 'referee.odds', 'referee.commands')))\n"
        "print(','.join(bad))\n"
    )
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == ""
