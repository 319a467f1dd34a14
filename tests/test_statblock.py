"""Stat lines read into combatant fields (issue 15, item 2; GAP-STAT-LINE, ODD-ATK-3, ODD-BTH-2)."""

from __future__ import annotations

import pytest

from referee.statblock import Attack, StatBlockError, dice_of_range, parse_stat_block, split_blocks

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
        ("HD 1, Att claw claw bite", "'Att claw claw bite' counts attacks but the line gives no damage"),
        ("HD 1, hp 3, 4, 2", "'hp 3, 4, 2': one hit-point total per block"),
        ("HD 1, #AT 1", "'#AT 1' counts attacks but the line gives no damage"),
        ("HD 1, #AT 1, D by weapon", "damage 'by weapon' gives no dice"),
        ("HD 1, #AT 3, D 1-4/1-4", "3 attacks but 2 damages"),
        ("HD 1, D 1-1", "damage '1-1' gives no dice"),
        ("HD 5 (25hp), hp 20", "hit points twice"),
        ("HD 1, Att 1 × claw (1d4), #AT 1, D 1-4", "attacks twice"),
        ("HD 1, SZ Q", "'SZ Q': size is"),
        ("HD 1, Save maybe", "'Save maybe'"),
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


B2 = "(AC 6, HD 1-1, hp 3 each, #AT 1, D 1-6, MV 60' (20'), Save NM, ML 7)"
ADND = 'AC 5; MV 12"; HD 5; hp 30; #AT 3; D 1-6/1-6/2-12; SA hug; SD nil; MR standard; INT low; SZ L'


def test_the_classic_modules_form_counts_attacks_and_gives_damage_apart() -> None:
    """GAP-STAT-LINE: `#AT` and `D` (B/X modules, AD&D 1e) are one routine (ODD-ATK-3); a range of damage is
    the dice that roll it; a line in brackets is read without them; saving as a class is left out."""
    goblin = parse_stat_block(B2)
    assert (goblin.hit_dice, goblin.hp, goblin.ac_descending, goblin.move, goblin.morale) == (
        "1-1",
        3,
        6,
        15,
        7,
    )
    assert goblin.attacks == (Attack("attack", "1d6"),) and goblin.saves == {}
    bear = parse_stat_block(ADND)
    assert bear.attacks == (Attack("attack", "1d6", 2), Attack("attack 2", "2d6"))
    assert bear.fields()["attacks"] == ["attack", "attack", "attack 2"]
    assert (bear.hp, bear.move, bear.size) == (30, 30, "large")  # 12" is a human's rate; SZ L is Large
    assert parse_stat_block('HD 1, MV 9"').move == 22


@pytest.mark.parametrize(
    ("text", "attacks"),
    [
        ("HD 5, #AT 2 claws/1 bite, D 1-4/2-8", (Attack("claw", "1d4", 2), Attack("bite", "2d4"))),
        ("HD 5, #AT 2 claws, 1 bite, D 1-4/1-4/2-8", (Attack("claw", "1d4", 2), Attack("bite", "2d4"))),
        ("HD 1, #AT 2, D 1-6", (Attack("attack", "1d6", 2),)),
        ("HD 1, #AT 1 (weapon), D 1-8 (weapon)", (Attack("weapon", "1d8"),)),
        ("HD 1, #AT 1 bite, D 1-6 or by weapon", (Attack("bite", "1d6"),)),
        ("HD 4+1, #AT 1, D 2-7", (Attack("attack", "1d6+1"),)),
        (
            "HD 4, #AT 3, D 1-4/1-4+1/1-8+special",
            (Attack("attack", "1d4"), Attack("attack 2", "1d4+1"), Attack("attack 3", "1d8")),
        ),
        ("HD 1, #AT 1, D 1-4 + poison", (Attack("attack", "1d4"),)),
        ("HD 1, D 1d4+1", (Attack("attack", "1d4+1"),)),
        ("Hit Dice: 1; Attacks: 1 weapon; Damage: 1d6", (Attack("weapon", "1d6"),)),
    ],
)
def test_counted_attacks_and_their_damage(text: str, attacks: tuple[Attack, ...]) -> None:
    assert parse_stat_block(text).attacks == attacks


@pytest.mark.parametrize(
    ("low", "high", "dice"),
    [(1, 6, "1d6"), (2, 8, "2d4"), (3, 18, "3d6"), (2, 12, "2d6"), (1, 3, "1d3"), (2, 16, "2d8"),
     (1, 10, "1d10"), (3, 12, "3d4"), (2, 7, "1d6+1"), (4, 9, "1d6+3"), (2, 9, "1d8+1"), (1, 1, None),
     (1, 7, None)],
)  # fmt: skip
def test_a_range_of_damage_is_the_dice_that_roll_it(low: int, high: int, dice: str | None) -> None:
    """GAP-STAT-LINE: as many dice as the least roll (2-8: 2d4), else one die and a bonus (2-7: 1d6+1)."""
    assert dice_of_range(low, high) == dice


@pytest.mark.parametrize(
    "saves", ["Save F1", "Save NM", "SV F3", "Save As: Fighter: 1", "Save As: Normal Man"]
)
def test_saving_as_a_class_is_read_and_left_out(saves: str) -> None:
    assert parse_stat_block(f"HD 1, {saves}").saves == {}


def test_a_moldvay_entry_line_by_line_is_one_stat_line() -> None:
    text = "Goblin\nArmor Class: 6\nHit Dice: 1-1\nMove: 60' (20')\nAttacks: 1 weapon\nDamage: 1d6\n"
    text += "No. Appearing: 2-8 (6-60)\nSave As: Normal Man\nMorale: 7\nTreasure Type: (R) C\nAlignment: Chaotic\n"
    [(name, line)] = split_blocks(text)
    block = parse_stat_block(line)
    assert name == "Goblin" and block.attacks == (Attack("weapon", "1d6"),)
    assert (block.ac_descending, block.hit_dice, block.move, block.morale) == (6, "1-1", 15, 7)
