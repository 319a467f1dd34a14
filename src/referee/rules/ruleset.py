"""Rule variants as data: a frozen :class:`Ruleset` of named options, and presets.

Every conflict between the sources (RULES.md section 8) is an option whose variants are named after
their source. Rule modules read options (``ruleset["critical_hits"]``); they are never subclassed
per variant. A referee's house rules are a YAML file that starts from a preset and overrides options.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from referee.errors import OptionError


@dataclass(frozen=True)
class Variant:
    name: str
    source: str
    rules: tuple[str, ...]
    help: str


@dataclass(frozen=True)
class Option:
    """One ruleset option: its variants (named after their source) and a help line."""

    name: str
    help: str
    variants: tuple[Variant, ...]
    default: str

    def variant(self, name: str) -> Variant:
        for v in self.variants:
            if v.name == name:
                return v
        raise OptionError(
            f"option {self.name!r} has no variant {name!r}; choose one of: "
            + ", ".join(v.name for v in self.variants)
        )

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(v.name for v in self.variants)


def _v(name: str, source: str, rules: str, help: str) -> Variant:
    return Variant(name, source, tuple(rules.split()), help)


def _toggle(name: str, help: str, source: str, rules: str, default: str = "off") -> Option:
    return Option(
        name,
        help,
        (_v("off", "-", "", "not used"), _v("on", source, rules, help)),
        default,
    )


OPTIONS: dict[str, Option] = {
    o.name: o
    for o in [
        Option(
            "armour_class",
            "ascending or descending armour class",
            (
                _v("ascending", "000", "ODD-AC-1 ODD-AC-2", "hit if total >= AC; bonuses add to AC"),
                _v("descending", "004", "DAC-AC-1 DAC-AC-2", "lower is better; hit if d20 + mods + AC >= 20"),
            ),
            "ascending",
        ),
        Option(
            "ability_modifiers",
            "attribute modifier scale (X-10)",
            (
                _v(
                    "odd_table",
                    "000",
                    "ODD-MELEE-2 ODD-GRAP-2",
                    "3:-3 4-5:-2 6-8:-1 9-12:0 13-15:+1 16-17:+2 18+:+3",
                ),
                _v("half_score_minus_10", "003", "MF-CRIT-2", "floor((score - 10) / 2)"),
            ),
            "odd_table",
        ),
        Option(
            "initiative",
            "order of action and ties",
            (
                _v("d10_individual", "000", "ODD-INIT-1 ODD-INIT-2 ODD-INIT-3", "d10 each; ties by Dex"),
                _v("d10_group", "000", "ODD-INIT-4", "one d10 per side"),
                _v(
                    "segments_with_delays",
                    "001",
                    "MOD-UW-3 MOD-COND-ENC-1 MOD-COND-ENC-3 MOD-COND-STUN-2",
                    "d10 each, acting in segment 11 - roll, delays push actions later",
                ),
            ),
            "d10_individual",
        ),
        _toggle(
            "first_strike_reach_size",
            "first round: long reach or Large attacks a smaller foe first",
            "000",
            "ODD-INIT-5 ODD-INIT-6",
            "on",
        ),
        Option(
            "surprise",
            "surprise procedure",
            (
                _v(
                    "wisdom_check_free_round",
                    "000",
                    "ODD-SURP-1 ODD-SURP-2 ODD-SURP-4 ODD-SURP-5",
                    "free round",
                ),
                _v(
                    "bonus_round_with_advantage",
                    "003",
                    "MF-SURP-1 MF-SURP-2",
                    "free round; the ambusher's first attack with advantage",
                ),
            ),
            "wisdom_check_free_round",
        ),
        Option(
            "move_and_cast",
            "may a caster move in the round it casts",
            (
                _v("forbidden", "000", "ODD-ACT-CAST-3", "no movement when casting"),
                _v("half_move_single_round_spell", "002", "HR-CAST-MOVE", "half move with a one-round spell"),
            ),
            "forbidden",
        ),
        Option(
            "move_and_attack",
            "movement allowed with an attack",
            (
                _v("half_move", "000", "ODD-ACT-ATK ODD-ATK-3", "half move and attack"),
                _v("half_move_single_attack", "002", "HR-MOVE-1 HR-MOVE-2", "half move caps attacks at one"),
            ),
            "half_move",
        ),
        _toggle(
            "aerial_mid_move", "flyers may attack part way through a one-direction move", "003", "MF-AIR-2"
        ),
        _toggle(
            "fighting_withdrawal",
            "leaving melee at more than half move provokes attacks of opportunity",
            "002",
            "HR-WITHDRAW-1 HR-WITHDRAW-2 HR-WITHDRAW-3",
        ),
        Option(
            "charge",
            "what a charge does",
            (
                _v(
                    "odd_damage_bonus",
                    "000",
                    "ODD-CHARGE-1 ODD-CHARGE-3 ODD-CHARGE-4 ODD-CHARGE-5",
                    "+2 damage, AC 4 worse",
                ),
                _v(
                    "hr_to_hit_bonus",
                    "002",
                    "HR-CHARGE-2 HR-CHARGE-3 HR-CHARGE-5",
                    "+2 to hit, loses Dex to AC",
                ),
            ),
            "odd_damage_bonus",
        ),
        _toggle(
            "charge_set_weapons_double", "set weapons deal double damage to a charger", "002", "HR-CHARGE-4"
        ),
        _toggle("charge_once_per_10_rounds", "one charge in any ten rounds", "002", "HR-CHARGE-1"),
        _toggle(
            "aerial_surprise_charge",
            "a flyer's charge doubles damage against the surprised",
            "003",
            "MF-AIR-4",
        ),
        Option(
            "cover",
            "cover bonuses to AC",
            (
                _v(
                    "odd_quarters",
                    "000",
                    "ODD-COVER-25 ODD-COVER-50 ODD-COVER-75 ODD-COVER-100",
                    "+2/+4/+6/+10",
                ),
                _v(
                    "mod_percent",
                    "001",
                    "MOD-COVER-1 MOD-COVER-25 MOD-COVER-50 MOD-COVER-75 MOD-COVER-90",
                    "25/50/75/90%",
                ),
                _v(
                    "mf_half_three_quarters",
                    "003",
                    "MF-COVER-1 MF-COVER-2 MF-COVER-3",
                    "half +2, 3/4 +4, full: no attack",
                ),
            ),
            "odd_quarters",
        ),
        Option(
            "concealment",
            "concealment (aiming hampered)",
            (
                _v(
                    "odd_to_hit",
                    "000",
                    "ODD-SIT-CONC ODD-SIT-CONC-25 ODD-SIT-CONC-50 ODD-SIT-CONC-75 ODD-SIT-CONC-100",
                    "-2/-4/-6/-10 to hit",
                ),
                _v("mod_percent_ac", "001", "MOD-COVER-1 MOD-FOG-1", "concealment % as an AC bonus"),
                _v("mf_miss_chance", "003", "MF-VIS-1 MF-VIS-2 MF-VIS-5", "33% / 66% miss chance"),
            ),
            "odd_to_hit",
        ),
        Option(
            "miss_chance_dice",
            "how a miss chance is rolled (X-11)",
            (
                _v("d100", "003", "MF-VIS-5", "d100: miss on <= 33 / <= 66"),
                _v("d6", "003", "MF-VIS-1 MF-VIS-2", "d6: miss on 1-2 / 1-4"),
            ),
            "d100",
        ),
        Option(
            "invisibility",
            "attacking an invisible creature",
            (
                _v("odd_minus_10", "000", "ODD-SIT-INVIS ODD-SIT-4", "-10 to hit"),
                _v("mod_minus_4", "001", "MOD-COND-INVIS-1 MOD-COND-INVIS-2 MOD-COND-INVIS-3", "-4 to hit"),
                _v("mf_miss_chance", "003", "MF-VIS-2 MF-VIS-3 MF-VIS-5", "66% miss chance if located"),
            ),
            "odd_minus_10",
        ),
        Option(
            "invisible_attacker",
            "defending against an invisible attacker",
            (
                _v("odd_dex_lost", "000", "ODD-AC-DEX-2", "defender loses Dex to AC"),
                _v("mf_advantage", "003", "MF-VIS-6", "the invisible attacker rolls with advantage"),
                _v("dac_flatfooted_minus_4", "004", "DAC-SPEC-INVIS", "flatfooted AC, 4 worse"),
            ),
            "odd_dex_lost",
        ),
        Option(
            "blindness",
            "blind creatures",
            (
                _v(
                    "odd",
                    "000",
                    "ODD-SIT-PRONE ODD-SIT-INVIS",
                    "blind defender +5 to be hit; blind attacker -10",
                ),
                _v(
                    "mod",
                    "001",
                    "MOD-COND-BLIND-1 MOD-COND-BLIND-2",
                    "blind: -4 to hit, AC 4 worse, -4 saves",
                ),
            ),
            "odd",
        ),
        Option(
            "prone",
            "attacking a prone creature",
            (
                _v("odd_plus_5", "000", "ODD-SIT-PRONE ODD-SIT-DEFENCELESS", "+5 (+10 if defenceless)"),
                _v(
                    "mod_melee_plus4_missile_minus2",
                    "001",
                    "MOD-COND-PRONE",
                    "melee +4, missile -2, no Dex/shield",
                ),
                _v("mf_plus_2", "003", "MF-POS-2 MF-POS-3", "+2; attacking while prone -2"),
                _v("hr_helpless", "002", "HR-HELPLESS-1", "prone is helpless: melee hits automatically"),
            ),
            "odd_plus_5",
        ),
        Option(
            "stunned",
            "attacking a stunned creature",
            (
                _v("odd_plus_2", "000", "ODD-SIT-STUN", "+2 to hit"),
                _v(
                    "mod_plus_4", "001", "MOD-COND-STUN-1 MOD-COND-STUN-2", "+4, no Dex or shield, no actions"
                ),
            ),
            "odd_plus_2",
        ),
        Option(
            "higher_ground",
            "fighting from higher ground",
            (
                _v("odd_plus_1", "000", "ODD-SIT-LOWER", "+1 against a lower defender"),
                _v("mod_cliff_2_slope_1", "001", "MOD-HIGH-1 MOD-HIGH-2", "cliff +2/-2, slope +1/-1"),
                _v("mf_nebulous_1", "003", "MF-OTHER-1", "+1 / -1"),
            ),
            "odd_plus_1",
        ),
        Option(
            "flank_and_rear",
            "flank and rear attacks",
            (
                _v("odd_dex_only", "000", "ODD-AC-DEX-2", "rear: defender loses Dex"),
                _v(
                    "mod",
                    "001",
                    "MOD-FLANK-1 MOD-FLANK-2 MOD-REAR-1 MOD-REAR-2 MOD-BSTAB-1",
                    "flank no shield; rear +2",
                ),
                _v("mf_plus_1", "003", "MF-POS-1", "flanking +1 to hit"),
            ),
            "odd_dex_only",
        ),
        Option(
            "helpless_targets",
            "attacking a helpless creature",
            (
                _v("odd_plus_10", "000", "ODD-SIT-DEFENCELESS ODD-GRAP-3", "+10 to hit"),
                _v(
                    "mod_coup_de_grace",
                    "001",
                    "MOD-HELPLESS-MELEE MOD-HELPLESS-MISSILE",
                    "melee coup de grace; missile +4",
                ),
                _v(
                    "hr_auto_max_damage",
                    "002",
                    "HR-HELPLESS-1 HR-HELPLESS-2 HR-HELPLESS-3 HR-HELPLESS-4",
                    "auto hit, max damage",
                ),
            ),
            "odd_plus_10",
        ),
        Option(
            "grapple_state",
            "what being held means",
            (
                _v("odd_held_defenceless", "000", "ODD-GRAP-3 ODD-GRAP-4", "held: prone and defenceless"),
                _v(
                    "mod_grappled_plus_4",
                    "001",
                    "MOD-COND-GRAPPLED-1 MOD-COND-GRAPPLED-2",
                    "outsiders +4, random grappler",
                ),
            ),
            "odd_held_defenceless",
        ),
        Option(
            "natural_rolls",
            "natural 1 and 20 on attack rolls",
            (
                _v("none", "000", "ODD-ATK-1", "no special meaning"),
                _v(
                    "auto_hit_miss",
                    "002",
                    "HR-NAT-1 MF-CRIT-1 MF-FUMBLE-1",
                    "natural 20 hits, natural 1 misses",
                ),
            ),
            "none",
        ),
        Option(
            "critical_hits",
            "critical hits",
            (
                _v("none", "000", "ODD-ATK-1", "no criticals"),
                _v(
                    "confirm_16_20",
                    "002",
                    "HR-CRIT-1",
                    "natural 20 then d20 16-20: damage dice doubled (GAP-CRIT-002)",
                ),
                _v(
                    "max_plus_half_level",
                    "003",
                    "MF-CRIT-1 MF-CRIT-2",
                    "natural 20: maximum damage + ceil(level/2)",
                ),
                _v(
                    "confirm_16_20_max_plus_half_level",
                    "002+003",
                    "HR-CRIT-1 MF-CRIT-2",
                    "confirmed, then maximum + ceil(level/2)",
                ),
            ),
            "none",
        ),
        Option(
            "fumbles",
            "fumbles",
            (
                _v("none", "000", "ODD-ATK-1", "no fumbles"),
                _v(
                    "confirm_1_5", "002", "HR-FUMBLE-1", "natural 1 then d20 1-5: a fumble, no further effect"
                ),
                _v(
                    "free_attack_or_ally_reroll",
                    "003",
                    "MF-FUMBLE-1 MF-FUMBLE-2 MF-FUMBLE-3",
                    "free attack or ally re-roll",
                ),
            ),
            "none",
        ),
        _toggle(
            "armour_damage",
            "critical hits damage armour",
            "002",
            "HR-ARMDMG-1 HR-ARMDMG-3 HR-ARMDMG-4 HR-ARMDMG-5",
        ),
        Option(
            "touch_ac",
            "what a touch attack's AC counts",
            (
                _v("odd_dex_magic", "000", "ODD-TOUCH-1 ODD-AC-MAGIC-2", "10 + Dex + protective magic"),
                _v("hr_dex_cover", "002", "HR-TOUCH-1", "10 + Dex + cover"),
                _v(
                    "dac_layered",
                    "004",
                    "DAC-AC-TOUCH DAC-AC-FFTOUCH DAC-ENH-3",
                    "10 - deflection - dodge - enhancement",
                ),
            ),
            "odd_dex_magic",
        ),
        Option(
            "dac_touch_enhancement",
            "which enhancement counts against touch attacks (X-2)",
            (
                _v("exclude_armour", "004", "DAC-ENH-3", "armour's own enhancement ignored with the armour"),
                _v("all", "004", "DAC-ENH-3", "literal: the highest enhancement of any source"),
            ),
            "exclude_armour",
        ),
        Option(
            "shields",
            "how shields protect",
            (
                _v("odd_attacker_count", "000", "ODD-AC-SHIELD", "+1 against 1/2/3 attackers a round"),
                _v(
                    "dac_uses_per_round",
                    "004",
                    "DAC-DEFL-1 DAC-DEFL-3 DAC-DEFL-4",
                    "deflection with uses per round",
                ),
            ),
            "odd_attacker_count",
        ),
        Option(
            "dex_loss",
            "what losing Dex to AC drops",
            (
                _v("whole_modifier", "000", "ODD-AC-DEX-2", "bonus or penalty dropped"),
                _v("bonus_only", "004", "DAC-DODGE-3 DAC-DODGE-4", "only a bonus is dropped"),
            ),
            "whole_modifier",
        ),
        Option(
            "missiles_into_melee",
            "missiles that miss, and shooting into melee",
            (
                _v("odd_stray", "000", "ODD-RANGED-4 ODD-RANGED-5", "misses fly on"),
                _v(
                    "hr_cover_second_roll",
                    "002",
                    "HR-MISSILE-4 HR-MISSILE-5",
                    "melee cover; second roll on others",
                ),
            ),
            "odd_stray",
        ),
        _toggle(
            "missile_restrictions",
            "no missiles within 5 ft or from melee; firing loses Dex",
            "002",
            "HR-MISSILE-1 HR-MISSILE-2 HR-MISSILE-3",
        ),
        Option(
            "underwater",
            "fighting underwater",
            (
                _v(
                    "mod_penalties",
                    "001",
                    "MOD-UW-1 MOD-UW-2 MOD-UW-3 MOD-UW-4 MOD-UW-5 MOD-UW-6 MOD-UW-7",
                    "-4/-2 by swimmer",
                ),
                _v("mf_weapon_types", "003", "MF-UW-1 MF-UW-2", "piercing normal, slashing disadvantage"),
            ),
            "mod_penalties",
        ),
        _toggle(
            "subdual", "pummel and overbear deal subdual damage", "000", "ODD-PUMMEL-2 ODD-OVERB-3", "on"
        ),
        _toggle("knockout", "knock-out attempts at -2", "003", "MF-KO-1 MF-KO-2"),
        Option(
            "modifier_stacking",
            "how modifiers combine",
            (
                _v("cumulative", "000", "ODD-SIT-3 MOD-HIGH-1", "all listed modifiers add"),
                _v("referee_decides", "003", "MF-OTHER-2", "the referee picks"),
                _v("typed", "004", "DAC-ENH-2 DAC-CIRC-1 DAC-CIRC-2", "highest of a type"),
            ),
            "cumulative",
        ),
        Option(
            "situational_scale",
            "size of the referee's free modifiers",
            (
                _v(
                    "odd_easy_difficult_heroic",
                    "000",
                    "ODD-SIT-2",
                    "easy up to 5, difficult 6-10, heroic 11+",
                ),
                _v("mf_plus_minus_1", "003", "MF-OTHER-1", "+1 or -1 each"),
            ),
            "odd_easy_difficult_heroic",
        ),
        Option(
            "ac_floor",
            "lowest possible armour class",
            (
                _v("min_1", "000", "ODD-AC-2", "ascending AC never below 1"),
                _v("none", "004", "DAC-TYPE-UNTOUCH", "no floor"),
            ),
            "min_1",
        ),
        Option(
            "zero_hp",
            "what 0 hit points means (GAP-HP-ZERO)",
            (
                _v(
                    "monsters_die_characters_fall",
                    "gap",
                    "ODD-HP-1",
                    "monsters die at 0; characters fall, die at -10",
                ),
                _v("die_at_zero", "gap", "ODD-HP-1", "everyone dies at 0"),
            ),
            "monsters_die_characters_fall",
        ),
        _toggle(
            "drowning_fight_extra_d4", "+1d4 rounds of breath also while fighting", "003", "MF-DROWN-2", "on"
        ),
        Option(
            "conditions_fatigue",
            "fatigue and exhaustion",
            (
                _v("odd_referee", "000", "ODD-AC-COND", "referee sets the effect"),
                _v("mod_fixed", "001", "MOD-COND-FATIGUED MOD-COND-EXHAUSTED", "-2 to hit, damage, saves"),
            ),
            "odd_referee",
        ),
        _toggle(
            "grapple_adds_bth",
            "the referee allows BTH on grapple, pummel and overbear",
            "000",
            "ODD-GRAP-1 ODD-PUMMEL-1 ODD-OVERB-1",
        ),
        Option(
            "round_timing",
            "abstract rounds or segments",
            (
                _v("abstract", "000", "ODD-ROUND-3", "no segments"),
                _v("segments", "001", "MOD-UW-3 MOD-COND-STUN-2", "10 segments a round"),
            ),
            "abstract",
        ),
    ]
}


PRESETS: dict[str, dict[str, str]] = {
    "odd": {},
    "mod": {
        "initiative": "segments_with_delays",
        "round_timing": "segments",
        "cover": "mod_percent",
        "concealment": "mod_percent_ac",
        "invisibility": "mod_minus_4",
        "blindness": "mod",
        "prone": "mod_melee_plus4_missile_minus2",
        "stunned": "mod_plus_4",
        "higher_ground": "mod_cliff_2_slope_1",
        "flank_and_rear": "mod",
        "helpless_targets": "mod_coup_de_grace",
        "grapple_state": "mod_grappled_plus_4",
        "dex_loss": "bonus_only",
        "underwater": "mod_penalties",
        "conditions_fatigue": "mod_fixed",
    },
    "hr": {
        "move_and_cast": "half_move_single_round_spell",
        "move_and_attack": "half_move_single_attack",
        "fighting_withdrawal": "on",
        "charge": "hr_to_hit_bonus",
        "charge_set_weapons_double": "on",
        "charge_once_per_10_rounds": "on",
        "prone": "hr_helpless",
        "helpless_targets": "hr_auto_max_damage",
        "natural_rolls": "auto_hit_miss",
        "critical_hits": "confirm_16_20",
        "fumbles": "confirm_1_5",
        "armour_damage": "on",
        "touch_ac": "hr_dex_cover",
        "missiles_into_melee": "hr_cover_second_roll",
        "missile_restrictions": "on",
        "dex_loss": "bonus_only",
    },
    "mf": {
        "ability_modifiers": "half_score_minus_10",
        "surprise": "bonus_round_with_advantage",
        "aerial_mid_move": "on",
        "aerial_surprise_charge": "on",
        "cover": "mf_half_three_quarters",
        "concealment": "mf_miss_chance",
        "invisibility": "mf_miss_chance",
        "invisible_attacker": "mf_advantage",
        "prone": "mf_plus_2",
        "higher_ground": "mf_nebulous_1",
        "flank_and_rear": "mf_plus_1",
        "natural_rolls": "auto_hit_miss",
        "critical_hits": "max_plus_half_level",
        "fumbles": "free_attack_or_ally_reroll",
        "underwater": "mf_weapon_types",
        "knockout": "on",
        "modifier_stacking": "referee_decides",
        "situational_scale": "mf_plus_minus_1",
    },
    "dac": {
        "armour_class": "descending",
        "touch_ac": "dac_layered",
        "shields": "dac_uses_per_round",
        "dex_loss": "bonus_only",
        "invisible_attacker": "dac_flatfooted_minus_4",
        "modifier_stacking": "typed",
        "ac_floor": "none",
    },
    # A sensible combined game: ODD's core, 001's positions and conditions, 002's natural rolls,
    # confirmed criticals, armour damage, withdrawal and casting on the move, 003's critical damage,
    # knock-outs and ambush advantage. Every choice is explained in docs/rulesets.md.
    "full": {
        "flank_and_rear": "mod",
        "stunned": "mod_plus_4",
        "grapple_state": "odd_held_defenceless",
        "conditions_fatigue": "mod_fixed",
        "natural_rolls": "auto_hit_miss",
        "critical_hits": "confirm_16_20_max_plus_half_level",
        "fumbles": "confirm_1_5",
        "armour_damage": "on",
        "fighting_withdrawal": "on",
        "move_and_cast": "half_move_single_round_spell",
        "knockout": "on",
        "surprise": "bonus_round_with_advantage",
    },
}

PRESET_ALIASES: dict[str, str] = {
    "000": "odd",
    "001": "mod",
    "002": "hr",
    "003": "mf",
    "004": "dac",
    "descending": "dac",
    "house": "hr",
    "combined": "full",
}


def _word(value: Any) -> str:
    """YAML reads `on`/`off` as booleans; options spell them as words."""
    if value is True:
        return "on"
    if value is False:
        return "off"
    return str(value)


@dataclass(frozen=True)
class Ruleset:
    """A frozen choice of one variant per option. Build with :meth:`preset` or :meth:`from_options`."""

    name: str = "odd"
    values: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        resolved = {name: option.default for name, option in OPTIONS.items()}
        for key, value in self.values.items():
            if key not in OPTIONS:
                raise OptionError(
                    f"unknown ruleset option {key!r}; valid options: {', '.join(sorted(OPTIONS))}"
                )
            OPTIONS[key].variant(str(value))
            resolved[key] = str(value)
        object.__setattr__(self, "values", MappingProxyType(resolved))

    def __getitem__(self, option: str) -> str:
        try:
            return self.values[option]
        except KeyError:
            raise OptionError(f"unknown ruleset option {option!r}") from None

    def is_on(self, option: str) -> bool:
        return self[option] == "on"

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def __repr__(self) -> str:
        changed = self.overrides()
        return (
            f"Ruleset.preset({self.name!r}).with_options({changed!r})"
            if changed
            else f"Ruleset.preset({self.name!r})"
        )

    def overrides(self) -> dict[str, str]:
        """Options that differ from this ruleset's preset."""
        base = Ruleset.preset(self.name) if self.name in PRESETS else Ruleset()
        return {k: v for k, v in self.values.items() if base.values[k] != v}

    @classmethod
    def preset(cls, name: str) -> Ruleset:
        key = PRESET_ALIASES.get(name, name)
        if key not in PRESETS:
            raise OptionError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}")
        return cls(key, MappingProxyType(dict(PRESETS[key])))

    def with_options(self, **changes: Any) -> Ruleset:
        changes = {key: _word(value) for key, value in changes.items()}
        for key, value in changes.items():
            if key not in OPTIONS:
                raise OptionError(
                    f"unknown ruleset option {key!r}; valid options: {', '.join(sorted(OPTIONS))}"
                )
            OPTIONS[key].variant(str(value))
        return Ruleset(self.name, MappingProxyType({**self.values, **changes}))

    def to_dict(self) -> dict[str, Any]:
        return {"preset": self.name, "options": dict(self.values)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ruleset:
        return cls.preset(str(data.get("preset", "odd"))).with_options(**dict(data.get("options", {})))


def load_ruleset(
    spec: str, overrides: Mapping[str, Any] | None = None, base_dir: Path | None = None
) -> Ruleset:
    """A preset name, or a path to a house-rules YAML file (`preset:` + `options:`), plus overrides."""
    from referee.files import load_ruleset_file

    key = PRESET_ALIASES.get(spec, spec)
    if key in PRESETS:
        ruleset = Ruleset.preset(key)
    else:
        path = Path(spec)
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        if not path.exists():
            raise OptionError(f"ruleset {spec!r} is neither a preset ({', '.join(PRESETS)}) nor a file")
        ruleset = load_ruleset_file(path)
    if overrides:
        ruleset = ruleset.with_options(**{str(k): v for k, v in overrides.items()})
    return ruleset
