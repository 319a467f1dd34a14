"""The catalogue of ruleset options: each option's name, help line, enum, variants and default.

`referee rules` and docs/rulesets.md show this catalogue; :class:`~referee.rules.ruleset.Ruleset` checks
every value against it. The variants of an option are the members of its enum
(:mod:`referee.rules.options`), in the order they are defined.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from referee.errors import OptionError
from referee.rules.options import (
    AbilityModifiers,
    AcFloor,
    ArmourClass,
    Blindness,
    Charge,
    Concealment,
    ConditionsFatigue,
    Cover,
    CriticalHits,
    DacTouchEnhancement,
    DexLoss,
    DoubleDamage,
    FinishFallen,
    FlankAndRear,
    Fumbles,
    GrappleState,
    HelplessTargets,
    HigherGround,
    Initiative,
    Invisibility,
    InvisibleAttacker,
    MissChanceDice,
    MissilesIntoMelee,
    ModifierStacking,
    MoveAndAttack,
    MoveAndCast,
    NaturalRolls,
    OptionValue,
    Prone,
    RoundTiming,
    Shields,
    SituationalScale,
    Stunned,
    Surprise,
    Toggle,
    TouchAc,
    Underwater,
    ZeroHp,
)


@dataclass(frozen=True)
class Variant:
    """One variant as the catalogue shows it (`referee rules`, docs/rulesets.md)."""

    name: str
    source: str
    rules: tuple[str, ...]
    help: str


@dataclass(frozen=True)
class Option:
    """One ruleset option: its enum, its variants (named after their source), its default and a help line."""

    name: str
    help: str
    kind: type[OptionValue]
    variants: tuple[Variant, ...]
    default: OptionValue

    def variant(self, name: str) -> Variant:
        for v in self.variants:
            if v.name == name:
                return v
        raise self._refused(name)

    def member(self, value: Any) -> OptionValue:
        """The member a file or a caller means: a member of this option, its spelling, or YAML's true/false
        for `on`/`off`. Anything else is refused, naming the option and its variants."""
        if isinstance(value, OptionValue):
            if not isinstance(value, self.kind):
                raise OptionError(
                    f"option {self.name!r} takes a {self.kind.__name__} ({', '.join(self.names)}),"
                    f" not {type(value).__name__}.{value.name}"
                )
            return value
        if isinstance(value, bool):
            value = "on" if value else "off"  # YAML reads `on`/`off` as booleans
        text = str(value)
        if text not in self.names:
            raise self._refused(text)
        return self.kind(text)

    def _refused(self, name: str) -> OptionError:
        return OptionError(
            f"option {self.name!r} has no variant {str(name)!r}; choose one of: " + ", ".join(self.names)
        )

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(v.name for v in self.variants)


def _choice(name: str, help: str, default: OptionValue) -> Option:
    kind = type(default)
    variants = tuple(Variant(m.value, m.source, m.rules, m.help) for m in kind)
    return Option(name, help, kind, variants, default)


def _toggle(name: str, help: str, source: str, rules: str, default: Toggle = Toggle.OFF) -> Option:
    variants = (Variant("off", "-", (), "not used"), Variant("on", source, tuple(rules.split()), help))
    return Option(name, help, Toggle, variants, default)


OPTIONS: dict[str, Option] = {
    o.name: o
    for o in [
        _choice("armour_class", "ascending or descending armour class", ArmourClass.ASCENDING),
        _choice("ability_modifiers", "attribute modifier scale (X-10)", AbilityModifiers.ODD_TABLE),
        _choice("initiative", "order of action and ties", Initiative.D10_INDIVIDUAL),
        _toggle(
            "first_strike_reach_size",
            "first round: long reach or Large attacks a smaller foe first",
            "000",
            "ODD-INIT-5 ODD-INIT-6",
            Toggle.ON,
        ),
        _choice("surprise", "surprise procedure", Surprise.WISDOM_CHECK_FREE_ROUND),
        _choice("move_and_cast", "may a caster move in the round it casts", MoveAndCast.FORBIDDEN),
        _choice("move_and_attack", "movement allowed with an attack", MoveAndAttack.HALF_MOVE),
        _toggle(
            "aerial_mid_move", "flyers may attack part way through a one-direction move", "003", "MF-AIR-2"
        ),
        _toggle(
            "fighting_withdrawal",
            "leaving melee at more than half move provokes attacks of opportunity",
            "002",
            "HR-WITHDRAW-1 HR-WITHDRAW-2 HR-WITHDRAW-3",
        ),
        _choice("charge", "what a charge does", Charge.ODD_DAMAGE_BONUS),
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
        _choice("double_damage", 'how "double damage" is read', DoubleDamage.TOTAL),
        _choice("cover", "cover bonuses to AC", Cover.ODD_QUARTERS),
        _choice("concealment", "concealment (aiming hampered)", Concealment.ODD_TO_HIT),
        _choice("miss_chance_dice", "how a miss chance is rolled (X-11)", MissChanceDice.D100),
        _choice("invisibility", "attacking an invisible creature", Invisibility.ODD_MINUS_10),
        _choice(
            "invisible_attacker", "defending against an invisible attacker", InvisibleAttacker.ODD_DEX_LOST
        ),
        _choice("blindness", "blind creatures", Blindness.ODD),
        _choice("prone", "attacking a prone creature", Prone.ODD_PLUS_5),
        _choice("stunned", "attacking a stunned creature", Stunned.ODD_PLUS_2),
        _choice("higher_ground", "fighting from higher ground", HigherGround.ODD_PLUS_1),
        _choice("flank_and_rear", "flank and rear attacks", FlankAndRear.ODD_DEX_ONLY),
        _choice("helpless_targets", "attacking a helpless creature", HelplessTargets.ODD_PLUS_10),
        _choice("grapple_state", "what being held means", GrappleState.ODD_HELD_DEFENCELESS),
        _choice("natural_rolls", "natural 1 and 20 on attack rolls", NaturalRolls.NONE),
        _choice("critical_hits", "critical hits", CriticalHits.NONE),
        _choice("fumbles", "fumbles", Fumbles.NONE),
        _toggle(
            "armour_damage",
            "critical hits damage armour",
            "002",
            "HR-ARMDMG-1 HR-ARMDMG-3 HR-ARMDMG-4 HR-ARMDMG-5",
        ),
        _choice("touch_ac", "what a touch attack's AC counts", TouchAc.ODD_DEX_MAGIC),
        _choice(
            "dac_touch_enhancement",
            "which enhancement counts against touch attacks (X-2)",
            DacTouchEnhancement.EXCLUDE_ARMOUR,
        ),
        _choice("shields", "how shields protect", Shields.ODD_ATTACKER_COUNT),
        _choice("dex_loss", "what losing Dex to AC drops", DexLoss.WHOLE_MODIFIER),
        _choice(
            "missiles_into_melee", "missiles that miss, and shooting into melee", MissilesIntoMelee.ODD_STRAY
        ),
        _toggle(
            "missile_restrictions",
            "no missiles within 5 ft or from melee; firing loses Dex",
            "002",
            "HR-MISSILE-1 HR-MISSILE-2 HR-MISSILE-3",
        ),
        _choice("underwater", "fighting underwater", Underwater.MOD_PENALTIES),
        _toggle(
            "subdual", "pummel and overbear deal subdual damage", "000", "ODD-PUMMEL-2 ODD-OVERB-3", Toggle.ON
        ),
        _toggle("knockout", "knock-out attempts at -2", "003", "MF-KO-1 MF-KO-2"),
        _choice("modifier_stacking", "how modifiers combine", ModifierStacking.CUMULATIVE),
        _choice(
            "situational_scale",
            "size of the referee's free modifiers",
            SituationalScale.ODD_EASY_DIFFICULT_HEROIC,
        ),
        _choice("ac_floor", "lowest possible armour class", AcFloor.MIN_1),
        _choice("zero_hp", "what 0 hit points means (GAP-HP-ZERO)", ZeroHp.MONSTERS_DIE_CHARACTERS_FALL),
        _choice(
            "finish_fallen",
            "default tactics strike unconscious enemies (HR-HELPLESS-1, MOD-HELPLESS-MELEE)",
            FinishFallen.OFF,
        ),
        _toggle(
            "drowning_fight_extra_d4",
            "+1d4 rounds of breath also while fighting",
            "003",
            "MF-DROWN-2",
            Toggle.ON,
        ),
        _choice("conditions_fatigue", "fatigue and exhaustion", ConditionsFatigue.ODD_REFEREE),
        _toggle(
            "grapple_adds_bth",
            "the referee allows BTH on grapple, pummel and overbear",
            "000",
            "ODD-GRAP-1 ODD-PUMMEL-1 ODD-OVERB-1",
        ),
        _choice("round_timing", "abstract rounds or segments", RoundTiming.ABSTRACT),
    ]
}
