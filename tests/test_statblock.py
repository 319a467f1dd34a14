"""Stat lines read into combatant fields (issue 15, item 2; GAP-STAT-LINE, ODD-ATK-3, ODD-BTH-2)."""

from __future__ import annotations

import pytest

from referee.statblock import Attack, StatBlockError, parse_stat_block, split_blocks

OSE = (
    "AC 5 [14], HD 5 (25hp), Att 2 × claw (1d4), 1 × bite (1d8), THAC0 15 [+4], MV 120' (40'),"
    " SV D10 W11 P12 B13 S14 (3), ML 9, AL Neutral"
)
SW = "HD 4; AC 4[15]; Atk 2 claws (1d3), 1 bite (1d6); Move 14; Save 13; AL C; CL/XP 6/400"


def test_the_ose_form_gives_every_field() -> None:
    block = parse_stat_block(OSE)
    assert (block.hit_dice, block.hp) == ("5", 25)
    assert (block.ac_descending, block.ac_ascending) == (5, 14)
    assert block.attacks == (Attack("claw", "1d4", 2), Attack("bite", "1d8", 1))
    assert block.attack_bonus == 4
    assert block.move == 30  # 120' a turn is a human's rate: the engine's 30 ft a round (ODD-MOVE-1)
    assert block.saves == {"death": 10, "wands": 11, "paralysis": 12, "breath": 13, "spells": 14}
    assert block.morale == 9


def test_the_swords_and_wizardry_form_gives_every_field() -> None:
    block = parse_stat_block(SW)
    assert (block.hit_dice, block.hp, block.ac_descending, block.ac_ascending) == ("4", None, 4, 15)
    assert block.attacks == (Attack("claw", "1d3", 2), Attack("bite", "1d6", 1))  # "claws" is the claw
    assert block.attack_bonus is None  # the ruleset's rule decides (ODD-BTH-2)
    assert block.move == 35 and block.saves == {"save": 13} and block.morale is None


def test_fields_are_an_attack_routine_and_ac_in_the_rulesets_convention() -> None:
    """ODD-ATK-3: claw, claw, bite as one routine; "5 [14]" is 14 ascending and 5 descending."""
    fields = parse_stat_block(OSE).fields(descending=False)
    assert fields["attacks"] == ["claw", "claw", "bite"]
    assert fields["weapons"] == [
        {"name": "claw", "damage": "1d4", "natural": True},
        {"name": "bite", "damage": "1d8", "natural": True},
    ]
    assert fields["ac"] == 14 and fields["attack_bonus"] == 4 and fields["hit_dice"] == "5"
    assert parse_stat_block(OSE).fields(descending=True)["ac"] == 5


def test_one_notation_gives_the_other_as_the_books_print_it() -> None:
    """GAP-STAT-LINE: ascending = 19 - descending."""
    assert parse_stat_block("AC 6, HD 1").ac(descending=False) == 13
    assert parse_stat_block("AC [13], HD 1").ac(descending=True) == 6


@pytest.mark.parametrize(
    ("text", "hit_dice", "hp"),
    [
        ("HD ½", "1d4", None),
        ("HD 1-1", "1-1", None),
        ("HD 4+1* (19hp)", "4+1", 19),
        ("HD 1d4hp", "1d4", None),
    ],
)
def test_hit_dice_forms(text: str, hit_dice: str, hp: int | None) -> None:
    block = parse_stat_block(text)
    assert (block.hit_dice, block.hp) == (hit_dice, hp)


def test_fly_and_swim_rates_and_thac0_alone() -> None:
    block = parse_stat_block("HD 3, MV 90' (30') / 180' (60') flying, THAC0 17")
    assert (block.move, block.fly, block.attack_bonus) == (22, 45, 2)
    assert parse_stat_block("HD 2, Move 6/18 (flying)").fly == 45
    assert parse_stat_block("HD 2, MV 60' (20') / swim 120' (40')").swim == 30


def test_damage_with_a_special_effect_keeps_its_dice() -> None:
    block = parse_stat_block("HD 1, Att 1 × weapon (1d6 or by weapon), 1 × sting (1d4 + poison)")
    assert block.attacks == (Attack("weapon", "1d6"), Attack("sting", "1d4"))


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("AC 5 [14], HD five", "'HD five'"),
        ("AC five, HD 1", "'AC five'"),
        ("HD 1, Att claw claw bite", "'claw claw bite'"),
        ("HD 1, Att 1d3/1d3/1d6", "not damage split by '/'"),
        ("HD 1, MV fast", "movement 'fast'"),
        ("HD 1, SV good", "'SV good'"),
        ("HD 1, ML 20", "'ML 20'"),
        ("HD 1, Speed 12", "'Speed 12'"),
        ("HD 1, HD 2", "'HD' twice"),
        ("", "empty"),
    ],
)
def test_a_part_that_cannot_be_read_is_named(text: str, named: str) -> None:
    with pytest.raises(StatBlockError, match=named):
        parse_stat_block(text)


def test_pasted_text_splits_into_named_paragraphs() -> None:
    text = f"Owlbear\n{OSE[:40]}\n{OSE[40:]}\n\n\nGhoul:\n{SW}\n"
    assert split_blocks(text) == [("Owlbear", f"{OSE[:40]} {OSE[40:]}"), ("Ghoul", SW)]
    with pytest.raises(StatBlockError, match="own first line"):
        split_blocks(OSE)
