"""Every ruleset option as an enum: its variants are members named after their source (RULES.md section 8).

Each conflict between the sources is one option; each of its variants is a member of the option's enum,
carrying the source it comes from, the rule IDs behind it and a help line: ``CriticalHits.CONFIRM_16_20``
is HR-CRIT-1's confirmed critical. Rule modules compare members (``ruleset.critical_hits is
CriticalHits.CONFIRM_16_20``), so a misspelt variant is a type error, not a silent ``False``. The on/off
options share :class:`Toggle`; their source and rules are given in the catalogue
(:data:`referee.rules.option_catalogue.OPTIONS`).

Members are ``StrEnum`` s and equal their spelling (``CriticalHits.NONE == "none"``), which is what files,
JSON and the CLI show. Comparing a member with a string that is none of its option's variants raises
:class:`~referee.errors.OptionError` at once.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Self

from referee.errors import OptionError


class OptionValue(StrEnum):
    """One variant of one option: its spelling (the value), the source it comes from, its rules, a help line."""

    source: str
    rules: tuple[str, ...]
    help: str

    def __new__(cls, value: str, source: str = "-", rules: str = "", help: str = "") -> Self:
        member = str.__new__(cls, value)
        member._value_ = value
        member.source = source
        member.rules = tuple(rules.split())
        member.help = help
        return member

    def __eq__(self, other: object) -> bool:
        if other.__class__ is str and other in type(self)._value2member_map_:  # the common case, first
            return str.__eq__(self, other)
        if isinstance(other, OptionValue):
            return self is other  # members of two options never stand for the same variant
        if isinstance(other, str):
            if other not in type(self)._value2member_map_:
                raise OptionError(
                    f"{other!r} is not a variant of {type(self).option_name()}; choose one of: "
                    + ", ".join(m.value for m in type(self))
                )
            return str.__eq__(self, other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return str.__hash__(self)

    @classmethod
    def option_name(cls) -> str:
        """The option this enum is for, as files spell it: `CriticalHits` → `critical_hits`."""
        return re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()


class Toggle(OptionValue):
    """An option that is on or off; what "on" means is the option's help (e.g. `knockout`: MF-KO-1)."""

    OFF = "off"
    ON = "on"

    @classmethod
    def option_name(cls) -> str:
        return "an on/off option"


class ArmourClass(OptionValue):
    """`armour_class`: ascending or descending armour class."""

    ASCENDING = "ascending", "000", "ODD-AC-1 ODD-AC-2", "hit if total >= AC; bonuses add to AC"
    DESCENDING = "descending", "004", "DAC-AC-1 DAC-AC-2", "lower is better; hit if d20 + mods + AC >= 20"


class AbilityModifiers(OptionValue):
    """`ability_modifiers`: attribute modifier scale (X-10)."""

    ODD_TABLE = (
        "odd_table",
        "000",
        "ODD-MELEE-2 ODD-GRAP-2",
        "3:-3 4-5:-2 6-8:-1 9-12:0 13-15:+1 16-17:+2 18+:+3",
    )
    HALF_SCORE_MINUS_10 = "half_score_minus_10", "003", "MF-CRIT-2", "floor((score - 10) / 2)"


class Initiative(OptionValue):
    """`initiative`: order of action and ties."""

    D10_INDIVIDUAL = "d10_individual", "000", "ODD-INIT-1 ODD-INIT-2 ODD-INIT-3", "d10 each; ties by Dex"
    D10_GROUP = "d10_group", "000", "ODD-INIT-4", "one d10 per side"
    SEGMENTS_WITH_DELAYS = (
        "segments_with_delays",
        "001",
        "MOD-UW-3 MOD-COND-ENC-1 MOD-COND-ENC-3 MOD-COND-STUN-2",
        "d10 each, acting in segment 11 - roll, delays push actions later",
    )


class Surprise(OptionValue):
    """`surprise`: surprise procedure."""

    WISDOM_CHECK_FREE_ROUND = (
        "wisdom_check_free_round",
        "000",
        "ODD-SURP-1 ODD-SURP-2 ODD-SURP-4 ODD-SURP-5",
        "free round",
    )
    BONUS_ROUND_WITH_ADVANTAGE = (
        "bonus_round_with_advantage",
        "003",
        "MF-SURP-1 MF-SURP-2",
        "free round; the ambusher's first attack with advantage",
    )


class MoveAndCast(OptionValue):
    """`move_and_cast`: may a caster move in the round it casts."""

    FORBIDDEN = "forbidden", "000", "ODD-ACT-CAST-3", "no movement when casting"
    HALF_MOVE_SINGLE_ROUND_SPELL = (
        "half_move_single_round_spell",
        "002",
        "HR-CAST-MOVE",
        "half move with a one-round spell",
    )


class MoveAndAttack(OptionValue):
    """`move_and_attack`: movement allowed with an attack."""

    HALF_MOVE = "half_move", "000", "ODD-ACT-ATK ODD-ATK-3", "half move and attack"
    HALF_MOVE_SINGLE_ATTACK = (
        "half_move_single_attack",
        "002",
        "HR-MOVE-1 HR-MOVE-2",
        "half move caps attacks at one",
    )


class Charge(OptionValue):
    """`charge`: what a charge does."""

    ODD_DAMAGE_BONUS = (
        "odd_damage_bonus",
        "000",
        "ODD-CHARGE-1 ODD-CHARGE-3 ODD-CHARGE-4 ODD-CHARGE-5",
        "+2 damage, AC 4 worse",
    )
    HR_TO_HIT_BONUS = (
        "hr_to_hit_bonus",
        "002",
        "HR-CHARGE-2 HR-CHARGE-3 HR-CHARGE-5",
        "+2 to hit, loses Dex to AC",
    )


class DoubleDamage(OptionValue):
    """`double_damage`: how "double damage" is read (HR-CHARGE-4 set weapons, MF-AIR-4 aerial charge)."""

    TOTAL = "total", "002", "HR-CHARGE-4 MF-AIR-4", "the whole damage (dice and modifiers) counts twice"
    DICE = "dice", "gap", "HR-CHARGE-4 MF-AIR-4", "the damage dice are doubled, modifiers count once"


class Cover(OptionValue):
    """`cover`: cover bonuses to AC."""

    ODD_QUARTERS = (
        "odd_quarters",
        "000",
        "ODD-COVER-25 ODD-COVER-50 ODD-COVER-75 ODD-COVER-100",
        "+2/+4/+6/+10",
    )
    MOD_PERCENT = (
        "mod_percent",
        "001",
        "MOD-COVER-1 MOD-COVER-25 MOD-COVER-50 MOD-COVER-75 MOD-COVER-90",
        "25/50/75/90%",
    )
    MF_HALF_THREE_QUARTERS = (
        "mf_half_three_quarters",
        "003",
        "MF-COVER-1 MF-COVER-2 MF-COVER-3",
        "half +2, 3/4 +4, full: no attack",
    )


class Concealment(OptionValue):
    """`concealment`: concealment (aiming hampered)."""

    ODD_TO_HIT = (
        "odd_to_hit",
        "000",
        "ODD-SIT-CONC ODD-SIT-CONC-25 ODD-SIT-CONC-50 ODD-SIT-CONC-75 ODD-SIT-CONC-100",
        "-2/-4/-6/-10 to hit",
    )
    MOD_PERCENT_AC = "mod_percent_ac", "001", "MOD-COVER-1 MOD-FOG-1", "concealment % as an AC bonus"
    MF_MISS_CHANCE = "mf_miss_chance", "003", "MF-VIS-1 MF-VIS-2 MF-VIS-5", "33% / 66% miss chance"


class MissChanceDice(OptionValue):
    """`miss_chance_dice`: how a miss chance is rolled (X-11)."""

    D100 = "d100", "003", "MF-VIS-5", "d100: miss on <= 33 / <= 66"
    D6 = "d6", "003", "MF-VIS-1 MF-VIS-2", "d6: miss on 1-2 / 1-4"


class Invisibility(OptionValue):
    """`invisibility`: attacking an invisible creature."""

    ODD_MINUS_10 = "odd_minus_10", "000", "ODD-SIT-INVIS ODD-SIT-4", "-10 to hit"
    MOD_MINUS_4 = "mod_minus_4", "001", "MOD-COND-INVIS-1 MOD-COND-INVIS-2 MOD-COND-INVIS-3", "-4 to hit"
    MF_MISS_CHANCE = "mf_miss_chance", "003", "MF-VIS-2 MF-VIS-3 MF-VIS-5", "66% miss chance if located"


class InvisibleAttacker(OptionValue):
    """`invisible_attacker`: defending against an invisible attacker."""

    ODD_DEX_LOST = "odd_dex_lost", "000", "ODD-AC-DEX-2", "defender loses Dex to AC"
    MF_ADVANTAGE = "mf_advantage", "003", "MF-VIS-6", "the invisible attacker rolls with advantage"
    DAC_FLATFOOTED_MINUS_4 = "dac_flatfooted_minus_4", "004", "DAC-SPEC-INVIS", "flatfooted AC, 4 worse"


class Blindness(OptionValue):
    """`blindness`: blind creatures."""

    ODD = "odd", "000", "ODD-SIT-PRONE ODD-SIT-INVIS", "blind defender +5 to be hit; blind attacker -10"
    MOD = "mod", "001", "MOD-COND-BLIND-1 MOD-COND-BLIND-2", "blind: -4 to hit, AC 4 worse, -4 saves"


class Prone(OptionValue):
    """`prone`: attacking a prone creature."""

    ODD_PLUS_5 = "odd_plus_5", "000", "ODD-SIT-PRONE ODD-SIT-DEFENCELESS", "+5 (+10 if defenceless)"
    MOD_MELEE_PLUS4_MISSILE_MINUS2 = (
        "mod_melee_plus4_missile_minus2",
        "001",
        "MOD-COND-PRONE",
        "melee +4, missile -2, no Dex/shield",
    )
    MF_PLUS_2 = "mf_plus_2", "003", "MF-POS-2 MF-POS-3", "+2; attacking while prone -2"
    HR_HELPLESS = "hr_helpless", "002", "HR-HELPLESS-1", "prone is helpless: melee hits automatically"


class Stunned(OptionValue):
    """`stunned`: attacking a stunned creature."""

    ODD_PLUS_2 = "odd_plus_2", "000", "ODD-SIT-STUN", "+2 to hit"
    MOD_PLUS_4 = "mod_plus_4", "001", "MOD-COND-STUN-1 MOD-COND-STUN-2", "+4, no Dex or shield, no actions"


class HigherGround(OptionValue):
    """`higher_ground`: fighting from higher ground."""

    ODD_PLUS_1 = "odd_plus_1", "000", "ODD-SIT-LOWER", "+1 against a lower defender"
    MOD_CLIFF_2_SLOPE_1 = "mod_cliff_2_slope_1", "001", "MOD-HIGH-1 MOD-HIGH-2", "cliff +2/-2, slope +1/-1"
    MF_NEBULOUS_1 = "mf_nebulous_1", "003", "MF-OTHER-1", "+1 / -1"


class FlankAndRear(OptionValue):
    """`flank_and_rear`: flank and rear attacks."""

    ODD_DEX_ONLY = "odd_dex_only", "000", "ODD-AC-DEX-2", "rear: defender loses Dex"
    MOD = (
        "mod",
        "001",
        "MOD-FLANK-1 MOD-FLANK-2 MOD-REAR-1 MOD-REAR-2 MOD-BSTAB-1",
        "flank no shield; rear +2",
    )
    MF_PLUS_1 = "mf_plus_1", "003", "MF-POS-1", "flanking +1 to hit"


class HelplessTargets(OptionValue):
    """`helpless_targets`: attacking a helpless creature."""

    ODD_PLUS_10 = "odd_plus_10", "000", "ODD-SIT-DEFENCELESS ODD-GRAP-3", "+10 to hit"
    MOD_COUP_DE_GRACE = (
        "mod_coup_de_grace",
        "001",
        "MOD-HELPLESS-MELEE MOD-HELPLESS-MISSILE",
        "melee coup de grace; missile +4",
    )
    HR_AUTO_MAX_DAMAGE = (
        "hr_auto_max_damage",
        "002",
        "HR-HELPLESS-1 HR-HELPLESS-2 HR-HELPLESS-3 HR-HELPLESS-4",
        "auto hit, max damage",
    )


class GrappleState(OptionValue):
    """`grapple_state`: what being held means."""

    ODD_HELD_DEFENCELESS = (
        "odd_held_defenceless",
        "000",
        "ODD-GRAP-3 ODD-GRAP-4",
        "held: prone and defenceless",
    )
    MOD_GRAPPLED_PLUS_4 = (
        "mod_grappled_plus_4",
        "001",
        "MOD-COND-GRAPPLED-1 MOD-COND-GRAPPLED-2",
        "outsiders +4, random grappler",
    )


class NaturalRolls(OptionValue):
    """`natural_rolls`: natural 1 and 20 on attack rolls."""

    NONE = "none", "000", "ODD-ATK-1", "no special meaning"
    AUTO_HIT_MISS = (
        "auto_hit_miss",
        "002",
        "HR-NAT-1 MF-CRIT-1 MF-FUMBLE-1",
        "natural 20 hits, natural 1 misses",
    )


class CriticalHits(OptionValue):
    """`critical_hits`: critical hits."""

    NONE = "none", "000", "ODD-ATK-1", "no criticals"
    CONFIRM_16_20 = (
        "confirm_16_20",
        "002",
        "HR-CRIT-1",
        "natural 20 then d20 16-20: damage dice doubled (GAP-CRIT-002)",
    )
    MAX_PLUS_HALF_LEVEL = (
        "max_plus_half_level",
        "003",
        "MF-CRIT-1 MF-CRIT-2",
        "natural 20: maximum damage + ceil(level/2)",
    )
    CONFIRM_16_20_MAX_PLUS_HALF_LEVEL = (
        "confirm_16_20_max_plus_half_level",
        "002+003",
        "HR-CRIT-1 MF-CRIT-2",
        "confirmed, then maximum + ceil(level/2)",
    )


class Fumbles(OptionValue):
    """`fumbles`: fumbles."""

    NONE = "none", "000", "ODD-ATK-1", "no fumbles"
    CONFIRM_1_5 = "confirm_1_5", "002", "HR-FUMBLE-1", "natural 1 then d20 1-5: a fumble, no further effect"
    FREE_ATTACK_OR_ALLY_REROLL = (
        "free_attack_or_ally_reroll",
        "003",
        "MF-FUMBLE-1 MF-FUMBLE-2 MF-FUMBLE-3",
        "free attack or ally re-roll",
    )


class TouchAc(OptionValue):
    """`touch_ac`: what a touch attack's AC counts."""

    ODD_DEX_MAGIC = "odd_dex_magic", "000", "ODD-TOUCH-1 ODD-AC-MAGIC-2", "10 + Dex + protective magic"
    HR_DEX_COVER = "hr_dex_cover", "002", "HR-TOUCH-1", "10 + Dex + cover"
    DAC_LAYERED = (
        "dac_layered",
        "004",
        "DAC-AC-TOUCH DAC-AC-FFTOUCH DAC-ENH-3",
        "10 - deflection - dodge - enhancement",
    )


class DacTouchEnhancement(OptionValue):
    """`dac_touch_enhancement`: which enhancement counts against touch attacks (X-2)."""

    EXCLUDE_ARMOUR = "exclude_armour", "004", "DAC-ENH-3", "armour's own enhancement ignored with the armour"
    ALL = "all", "004", "DAC-ENH-3", "literal: the highest enhancement of any source"


class Shields(OptionValue):
    """`shields`: how shields protect."""

    ODD_ATTACKER_COUNT = "odd_attacker_count", "000", "ODD-AC-SHIELD", "+1 against 1/2/3 attackers a round"
    DAC_USES_PER_ROUND = (
        "dac_uses_per_round",
        "004",
        "DAC-DEFL-1 DAC-DEFL-3 DAC-DEFL-4",
        "deflection with uses per round",
    )


class DexLoss(OptionValue):
    """`dex_loss`: what losing Dex to AC drops."""

    WHOLE_MODIFIER = "whole_modifier", "000", "ODD-AC-DEX-2", "bonus or penalty dropped"
    BONUS_ONLY = "bonus_only", "004", "DAC-DODGE-3 DAC-DODGE-4", "only a bonus is dropped"


class MissilesIntoMelee(OptionValue):
    """`missiles_into_melee`: missiles that miss, and shooting into melee."""

    ODD_STRAY = "odd_stray", "000", "ODD-RANGED-4 ODD-RANGED-5", "misses fly on"
    HR_COVER_SECOND_ROLL = (
        "hr_cover_second_roll",
        "002",
        "HR-MISSILE-4 HR-MISSILE-5",
        "melee cover; second roll on others",
    )


class Underwater(OptionValue):
    """`underwater`: fighting underwater."""

    MOD_PENALTIES = (
        "mod_penalties",
        "001",
        "MOD-UW-1 MOD-UW-2 MOD-UW-3 MOD-UW-4 MOD-UW-5 MOD-UW-6 MOD-UW-7",
        "-4/-2 by swimmer",
    )
    MF_WEAPON_TYPES = "mf_weapon_types", "003", "MF-UW-1 MF-UW-2", "piercing normal, slashing disadvantage"


class ModifierStacking(OptionValue):
    """`modifier_stacking`: how modifiers combine."""

    CUMULATIVE = "cumulative", "000", "ODD-SIT-3 MOD-HIGH-1", "all listed modifiers add"
    REFEREE_DECIDES = "referee_decides", "003", "MF-OTHER-2", "the referee picks"
    TYPED = "typed", "004", "DAC-ENH-2 DAC-CIRC-1 DAC-CIRC-2", "highest of a type"


class SituationalScale(OptionValue):
    """`situational_scale`: size of the referee's free modifiers."""

    ODD_EASY_DIFFICULT_HEROIC = (
        "odd_easy_difficult_heroic",
        "000",
        "ODD-SIT-2",
        "easy up to 5, difficult 6-10, heroic 11+",
    )
    MF_PLUS_MINUS_1 = "mf_plus_minus_1", "003", "MF-OTHER-1", "+1 or -1 each"


class AcFloor(OptionValue):
    """`ac_floor`: lowest possible armour class."""

    MIN_1 = "min_1", "000", "ODD-AC-2", "ascending AC never below 1"
    NONE = "none", "004", "DAC-TYPE-UNTOUCH", "no floor"


class ZeroHp(OptionValue):
    """`zero_hp`: what 0 hit points means (GAP-HP-ZERO)."""

    MONSTERS_DIE_CHARACTERS_FALL = (
        "monsters_die_characters_fall",
        "gap",
        "ODD-HP-1",
        "monsters die at 0; characters fall, die at -10",
    )
    DIE_AT_ZERO = "die_at_zero", "gap", "ODD-HP-1", "everyone dies at 0"


class FinishFallen(OptionValue):
    """`finish_fallen`: whether the default tactics strike enemies who are down but not dead (unconscious,
    GAP-HP-ZERO) — a coup de grâce (MOD-HELPLESS-MELEE, GAP-COUP) or an automatic hit (HR-HELPLESS-1) where
    the ruleset has one. With it on, a side left standing fights on until its fallen enemies are dead or
    the round limit comes."""

    OFF = "off", "000", "ODD-HP-1 ODD-ROUND-4", "foes leave the fallen alone; one side standing wins at once"
    WHEN_NO_STANDING_ENEMY = (
        "when_no_standing_enemy",
        "gap",
        "HR-HELPLESS-1 MOD-HELPLESS-MELEE GAP-COUP",
        "once no enemy stands, the winners strike the fallen until they are dead",
    )
    ALWAYS = (
        "always",
        "gap",
        "HR-HELPLESS-1 MOD-HELPLESS-MELEE GAP-COUP",
        "the fallen count as targets at once (fewest hit points first: they go first)",
    )


class ConditionsFatigue(OptionValue):
    """`conditions_fatigue`: fatigue and exhaustion."""

    ODD_REFEREE = "odd_referee", "000", "ODD-AC-COND", "referee sets the effect"
    MOD_FIXED = "mod_fixed", "001", "MOD-COND-FATIGUED MOD-COND-EXHAUSTED", "-2 to hit, damage, saves"


class RoundTiming(OptionValue):
    """`round_timing`: abstract rounds or segments."""

    ABSTRACT = "abstract", "000", "ODD-ROUND-3", "no segments"
    SEGMENTS = "segments", "001", "MOD-UW-3 MOD-COND-STUN-2", "10 segments a round"
