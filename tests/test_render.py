"""The accounts of events: rich markup for the CLI, plain text and Markdown for the public face.

Every rendering cites the same rule IDs (here ODD-ROUND-1, ODD-INIT-1, ODD-BTH-1, ODD-MELEE-1/2,
ODD-ATK-2, ODD-HP-1).
"""

from __future__ import annotations

from rich.console import Console
from tests.conftest import ROOT

from referee import render
from referee.dice import DieRoll, RandomDice, ScriptedDice
from referee.engine.actions import Attack
from referee.engine.events import Event, EventType, event
from referee.engine.fight import Fight, run_fight
from referee.files import load_encounter

DUEL = ROOT / "examples" / "duel.yaml"


def duel_events() -> list[Event]:
    """Round 1 of the duel and Angthar's killing blow, with known dice (goblin 2 hp)."""
    fight = Fight(load_encounter(DUEL))
    fight.begin(ScriptedDice([2]))
    fight.start_round(ScriptedDice([8, 3]))
    fight.act(Attack("Angthar", target="Goblin"), ScriptedDice([12, 6]))
    return fight.events


def test_the_cli_lines_are_rich_markup_with_rules_and_dice() -> None:
    lines = [render.event_line(e) for e in duel_events()]
    assert "[bold cyan]— round 1 —[/bold cyan] [dim]\\[ODD-ROUND-1][/dim]" in lines
    assert (
        "[cyan]initiative: Angthar > Goblin[/cyan] [dim]\\[ODD-INIT-1][/dim] [dim](d10=8, d10=3)[/dim]"
        in lines
    )
    assert "[bold red]Goblin is dead[/bold red] [dim]\\[ODD-HP-1][/dim]" in lines
    assert (
        "Angthar attacks Goblin (battle axe): 1d20 12 +4 basic to-hit \\[ODD-BTH-1] +1 Str \\[ODD-MELEE-1]"
        " = 17 >= AC 12 → hit"
    ) in lines
    assert None in lines  # the action event without text says nothing


def test_plain_lines_say_the_same_without_markup() -> None:
    text = render.plain_account(duel_events())
    assert text.splitlines() == [
        "hit points: Angthar 30, Goblin 2 [ODD-HD-2] (d6=2)",
        "— round 1 — [ODD-ROUND-1]",
        "initiative: Angthar > Goblin [ODD-INIT-1] (d10=8, d10=3)",
        "Angthar attacks Goblin (battle axe): 1d20 12 +4 basic to-hit [ODD-BTH-1] +1 Str [ODD-MELEE-1]"
        " = 17 >= AC 12 → hit",
        "Goblin takes 1d8 +1 Str [ODD-MELEE-2] = 7 damage → -5 hp [ODD-ATK-2]",
        "Goblin is dead [ODD-HP-1]",
        "Village wins",
    ]


def test_the_rich_account_reads_as_the_plain_one() -> None:
    events = duel_events()
    assert render.rich_account(events).plain == render.plain_account(events)
    console = Console(record=True, width=300, color_system=None)
    console.print(render.rich_account(events))
    assert console.export_text().splitlines() == render.plain_account(events).splitlines()


def test_markdown_is_a_list_with_rules_as_code_and_dice_in_italics() -> None:
    lines = render.markdown_account(duel_events()).splitlines()
    assert lines[0] == "- hit points: Angthar 30, Goblin 2 `ODD-HD-2` *(d6=2)*"
    assert "- **— round 1 —** `ODD-ROUND-1`" in lines
    assert "- **Goblin is dead** `ODD-HP-1`" in lines
    assert "- Goblin takes 1d8 +1 Str \\[ODD-MELEE-2\\] = 7 damage → -5 hp `ODD-ATK-2`" in lines


def test_markdown_escapes_what_would_turn_into_emphasis_or_code() -> None:
    e = event(EventType.CONDITION, 1, target="the_*bold*_one", text="the_*bold*_one is `held`", rule="X-1")
    assert render.markdown_line(e) == "- the\\_\\*bold\\*\\_one is \\`held\\` `X-1`"
    assert render.plain_line(e) == "the_*bold*_one is `held` [X-1]"


def test_events_with_nothing_to_say_have_no_line() -> None:
    for e in (event(EventType.ROUND_END, 1, text="end of round 1"), event(EventType.ACTION, 1, actor="A")):
        assert render.event_parts(e) is None
        assert (
            render.plain_line(e) is None and render.markdown_line(e) is None and render.event_line(e) is None
        )


def test_a_rule_already_in_the_text_is_not_repeated() -> None:
    e = event(EventType.SURPRISE, 0, text="a free round (ODD-SURP-4)", rule="ODD-SURP-4")
    assert render.plain_line(e) == "a free round (ODD-SURP-4)"


def test_only_set_up_and_initiative_list_their_dice() -> None:
    roll = (DieRoll(20, 7, "attack"),)
    check = event(EventType.CHECK, 1, dice=roll, text="surprise check", rule="ODD-SURP-2")
    assert render.plain_line(check) == "surprise check [ODD-SURP-2]"
    setup = event(EventType.SETUP, 0, dice=(DieRoll(6, 4, "hit points"),), text="hit points: A 4")
    assert render.plain_line(setup) == "hit points: A 4 (d6=4)"


def test_print_fight_shows_the_account_the_table_and_the_verdict() -> None:
    setup = load_encounter(DUEL)
    result = run_fight(setup, RandomDice(1)).result()
    console = Console(record=True, width=200, color_system=None)
    render.print_fight(console, setup, result)
    out = console.export_text()
    assert out.startswith("Angthar and one goblin — ruleset odd")
    assert (
        "after the fight" in out
        and f" after {result.rounds} round{'s' if result.rounds != 1 else ''}." in out
    )


def test_print_catalog_lists_rows_under_their_titles() -> None:
    console = Console(record=True, width=200, color_system=None)
    render.print_catalog(console, {"weapons": [{"name": "club", "damage": "1d4"}], "empty": []})
    out = console.export_text()
    assert "weapons" in out and "club" in out and "empty" not in out


def test_what_decided_an_outcome_is_marked_in_every_account() -> None:
    # rule: ODD-MELEE-2 (issue 13: the damage that decided a defeat), ODD-AC-ARMOR (an AC component)
    strength = {"value": 1, "rule": "ODD-MELEE-2", "reason": "Str", "side": "damage"}
    hit = event(EventType.DAMAGE, 1, target="Goblin", text="1d8 +1 Str [ODD-MELEE-2] = 4 damage",
                rule="ODD-ATK-2", data={"hp_after": 0, "decisive": [strength]})  # fmt: skip
    assert render.plain_line(hit) == (
        "Goblin takes 1d8 +1 Str [ODD-MELEE-2] = 4 damage → 0 hp [ODD-ATK-2]; +1 Str [ODD-MELEE-2] decided it"
    )
    assert render.markdown_line(hit) == (
        "- Goblin takes 1d8 +1 Str \\[ODD-MELEE-2\\] = 4 damage → 0 hp `ODD-ATK-2`;"
        " +1 Str \\[ODD-MELEE-2\\] decided it"
    )
    assert render.rich_account([hit]).plain == render.plain_account([hit])
    leather = {"value": 2, "rule": "ODD-AC-ARMOR", "reason": "leather", "side": "AC"}
    miss = event(EventType.ATTACK, 1, actor="Goblin", target="Angthar", text="1d20 10 = 11 < AC 12 → miss",
                 data={"weapon": "scimitar", "form": "melee", "decisive": [leather]})  # fmt: skip
    assert render.plain_line(miss) == (
        "Goblin attacks Angthar (scimitar): 1d20 10 = 11 < AC 12 → miss; +2 leather [ODD-AC-ARMOR] (AC) decided it"
    )
    assert render.plain_line(replace_data(miss, decisive=[])) == (
        "Goblin attacks Angthar (scimitar): 1d20 10 = 11 < AC 12 → miss"
    )


def replace_data(e: Event, **data: object) -> Event:
    return event(e.type, e.round, actor=e.actor, target=e.target, text=e.text, data={**e.data, **data})
