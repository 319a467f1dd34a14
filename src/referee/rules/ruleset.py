"""Rule variants as data: a frozen :class:`Ruleset` of named options.

Every conflict between the sources (RULES.md section 8) is an option whose variants are named after
their source: an enum in :mod:`referee.rules.options`, listed with help and rule IDs in
:mod:`referee.rules.option_catalogue`; the presets are in :mod:`referee.rules.presets`. Rule modules
read options through typed attributes (``ruleset.critical_hits is CriticalHits.CONFIRM_16_20``,
``ruleset.knockout`` for an on/off option); they are never subclassed per variant. ``ruleset["name"]``
gives the same member by the option's name.

A referee's house rules are a YAML file that starts from a preset and overrides options; reading it is
:func:`referee.files.load_ruleset`'s job (this module builds rulesets from presets and mappings only).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Generic, TypeVar, cast, overload

from referee.errors import OptionError
from referee.rules.option_catalogue import OPTIONS as OPTIONS
from referee.rules.option_catalogue import Option as Option
from referee.rules.option_catalogue import Variant as Variant
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
from referee.rules.presets import PRESET_ALIASES as PRESET_ALIASES
from referee.rules.presets import PRESETS as PRESETS

E = TypeVar("E", bound=OptionValue)


def option(name: str) -> Option:
    """The catalogue entry of an option, or a one-line error listing the valid ones."""
    try:
        return OPTIONS[name]
    except KeyError:
        raise OptionError(
            f"unknown ruleset option {name!r}; valid options: {', '.join(sorted(OPTIONS))}"
        ) from None


class _Choice(Generic[E]):
    """Typed read access to one option: ``ruleset.critical_hits`` is a :class:`CriticalHits` member."""

    def __init__(self, kind: type[E]) -> None:
        self.kind = kind
        self.option = ""

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self.option = name

    @overload
    def __get__(self, ruleset: None, owner: type[Any] | None = None) -> _Choice[E]: ...
    @overload
    def __get__(self, ruleset: Ruleset, owner: type[Any] | None = None) -> E: ...
    def __get__(self, ruleset: Ruleset | None, owner: type[Any] | None = None) -> _Choice[E] | E:
        if ruleset is None:
            return self
        return cast(E, ruleset.values[self.option])


class _Switch:
    """Typed read access to an on/off option: ``ruleset.knockout`` is ``True`` when it is on."""

    kind = Toggle

    def __init__(self) -> None:
        self.option = ""

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self.option = name

    @overload
    def __get__(self, ruleset: None, owner: type[Any] | None = None) -> _Switch: ...
    @overload
    def __get__(self, ruleset: Ruleset, owner: type[Any] | None = None) -> bool: ...
    def __get__(self, ruleset: Ruleset | None, owner: type[Any] | None = None) -> _Switch | bool:
        if ruleset is None:
            return self
        return ruleset.values[self.option] is Toggle.ON


# Which option an enum belongs to (Toggle is shared by every on/off option, so it names none).
_OPTION_OF_KIND: dict[type[OptionValue], str] = {
    o.kind: o.name for o in OPTIONS.values() if o.kind is not Toggle
}


@dataclass(frozen=True)
class Ruleset:
    """A frozen choice of one variant per option. Build with :meth:`preset` or :meth:`from_dict`."""

    name: str = "odd"
    values: Mapping[str, OptionValue] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        resolved = {name: o.default for name, o in OPTIONS.items()}
        for key, value in self.values.items():
            resolved[key] = option(key).member(value)
        object.__setattr__(self, "values", MappingProxyType(resolved))
        for name, value in resolved.items():  # read as plain attributes: the engine asks very often
            access = type(self).__dict__.get(name)
            if isinstance(access, _Choice):
                object.__setattr__(self, name, value)
            elif isinstance(access, _Switch):
                object.__setattr__(self, name, value is Toggle.ON)

    armour_class = _Choice(ArmourClass)
    ability_modifiers = _Choice(AbilityModifiers)
    initiative = _Choice(Initiative)
    first_strike_reach_size = _Switch()
    surprise = _Choice(Surprise)
    move_and_cast = _Choice(MoveAndCast)
    move_and_attack = _Choice(MoveAndAttack)
    aerial_mid_move = _Switch()
    fighting_withdrawal = _Switch()
    charge = _Choice(Charge)
    charge_set_weapons_double = _Switch()
    charge_once_per_10_rounds = _Switch()
    aerial_surprise_charge = _Switch()
    double_damage = _Choice(DoubleDamage)
    cover = _Choice(Cover)
    concealment = _Choice(Concealment)
    miss_chance_dice = _Choice(MissChanceDice)
    invisibility = _Choice(Invisibility)
    invisible_attacker = _Choice(InvisibleAttacker)
    blindness = _Choice(Blindness)
    prone = _Choice(Prone)
    stunned = _Choice(Stunned)
    higher_ground = _Choice(HigherGround)
    flank_and_rear = _Choice(FlankAndRear)
    helpless_targets = _Choice(HelplessTargets)
    grapple_state = _Choice(GrappleState)
    natural_rolls = _Choice(NaturalRolls)
    critical_hits = _Choice(CriticalHits)
    fumbles = _Choice(Fumbles)
    armour_damage = _Switch()
    touch_ac = _Choice(TouchAc)
    dac_touch_enhancement = _Choice(DacTouchEnhancement)
    shields = _Choice(Shields)
    dex_loss = _Choice(DexLoss)
    missiles_into_melee = _Choice(MissilesIntoMelee)
    missile_restrictions = _Switch()
    underwater = _Choice(Underwater)
    subdual = _Switch()
    knockout = _Switch()
    modifier_stacking = _Choice(ModifierStacking)
    situational_scale = _Choice(SituationalScale)
    ac_floor = _Choice(AcFloor)
    zero_hp = _Choice(ZeroHp)
    finish_fallen = _Choice(FinishFallen)
    drowning_fight_extra_d4 = _Switch()
    conditions_fatigue = _Choice(ConditionsFatigue)
    grapple_adds_bth = _Switch()
    round_timing = _Choice(RoundTiming)

    def __getitem__(self, name: str) -> OptionValue:
        """The chosen variant of the named option (an enum member; it equals its spelling)."""
        return self.values[option(name).name]

    def is_on(self, name: str) -> bool:
        """Whether an on/off option is on (an option with other variants is refused)."""
        entry = option(name)
        if entry.kind is not Toggle:
            raise OptionError(f"option {name!r} is not on/off; its variants: {', '.join(entry.names)}")
        return self.values[name] is Toggle.ON

    def uses(self, variant: OptionValue) -> bool:
        """Whether this ruleset chose `variant` for its option: ``ruleset.uses(Blindness.MOD)``."""
        name = _OPTION_OF_KIND.get(type(variant))
        if name is None:
            raise OptionError(f"{variant!r} names no single option; use is_on(option) for on/off options")
        return self.values[name] is variant

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
        """Options that differ from this ruleset's preset, spelt as in a file."""
        base = Ruleset.preset(self.name) if self.name in PRESETS else Ruleset()
        return {k: v.value for k, v in self.values.items() if base.values[k] is not v}

    @classmethod
    def preset(cls, name: str) -> Ruleset:
        key = PRESET_ALIASES.get(name, name)
        if key not in PRESETS:
            raise OptionError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}")
        return cls(key, MappingProxyType(dict(PRESETS[key])))

    def with_options(self, **changes: Any) -> Ruleset:
        """A copy with some options changed: members, their spellings, or YAML's true/false for on/off."""
        checked = {key: option(key).member(value) for key, value in changes.items()}
        return Ruleset(self.name, MappingProxyType({**self.values, **checked}))

    def to_dict(self) -> dict[str, Any]:
        return {"preset": self.name, "options": {k: v.value for k, v in self.values.items()}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ruleset:
        """`{preset: odd, options: {critical_hits: max_plus_half_level}}` (a house-rules file's content)."""
        return cls.preset(str(data.get("preset", "odd"))).with_options(
            **{str(k): v for k, v in dict(data.get("options") or {}).items()}
        )


def preset_or_options(spec: str, overrides: Mapping[str, Any] | None = None) -> Ruleset:
    """A preset by name or alias, with overrides; anything else is refused naming the presets."""
    key = PRESET_ALIASES.get(spec, spec)
    if key not in PRESETS:
        raise OptionError(f"ruleset {spec!r} is neither a preset ({', '.join(PRESETS)}) nor a file")
    ruleset = Ruleset.preset(key)
    return ruleset.with_options(**{str(k): v for k, v in overrides.items()}) if overrides else ruleset
