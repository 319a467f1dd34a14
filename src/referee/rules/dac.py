"""Layered descending armour class: the fifth seed's model (DAC-*), as pure functions.

An AC is assembled from seven kinds of component (DAC-AC-4): Base, Natural Armour, Equipped Armour,
Deflection, Dodge, Enhancement and Circumstantial. With the notation of RULES.md section 6 (A armour
value, D usable Deflection, G Dodge after armour limits, E highest Enhancement, p(x) = max(0, -x)):

    total AC             = A - D - G - E             DAC-AC-TOTAL
    flatfooted AC        = A - E + p(G) + p(D)       DAC-AC-FLATFOOTED
    touch AC             = 10 - D - G - E_touch      DAC-AC-TOUCH
    flatfooted touch AC  = 10 - E_touch + p(G)       DAC-AC-FFTOUCH

Every target of a direct attack is defending, aware or not (DAC-DEF-1): an unaware one is flatfooted.
Changes to the attacker's situation stay to-hit modifiers, never AC (DAC-AC-3). A flatfooted defender
touched is at 10 only without Enhancement or a Dodge penalty (DAC-BASE-2, X-4: DAC-AC-FFTOUCH decides).
A creature without natural armour counts as natural armour 10 (DAC-NAT-2), which makes DAC-EQ-1 the
N = 10 case of DAC-EQ-2.

Components here are descending (lower is better): a bonus of +N is a Modifier of -N (DAC-AC-2).
:func:`armour_classes` gives the four values of a combatant (the `referee ac` command, the tracker);
:func:`components_for_attack` builds the AC of one attack from the same functions, adding what only an
attack knows: flatfootedness, shield uses spent this round, a declined deflection. Circumstantial
modifiers (Defence tags, darkness, an invisible attacker) are per-attack AC rules (listed in :mod:`referee.rules.registry`)
(DAC-CIRC-4), so they are never folded into the four recorded values.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from referee.checks import Modifier
from referee.model import ArmourSpec, Combatant, ShieldSpec
from referee.rules import abilities
from referee.rules.context import AttackContext, AttackForm, DefenceLoss
from referee.rules.options import ArmourClass as ArmourClassOption  # not armour_class.ArmourClass
from referee.rules.options import DacTouchEnhancement, DexLoss, InvisibleAttacker, Shields
from referee.rules.ruleset import Ruleset
from referee.vocabulary import parse_defence_tag as parse_defence_tag
from referee.vocabulary import roman as roman

if TYPE_CHECKING:
    from referee.rules.armour_class import ArmourClass
    from referee.rules.view import CombatantView

BASE_AC = 10  # DAC-BASE-1

# --- armour types (DAC-TYPE-NONE to DAC-TYPE-UNTOUCH) and their modifiers over natural armour
# (DAC-MOD-LIGHT to DAC-MOD-UNTOUCH)

# (lowest armour value of the band, type, rule); checked from the top. 10 is None (DAC-TYPE-NONE);
# above 10 is None too (GAP-TYPE-ABOVE-10: modifier 0).
_TYPE_BANDS: tuple[tuple[int, str, str], ...] = (
    (10, "none", "DAC-TYPE-NONE"),
    (7, "light", "DAC-TYPE-LIGHT"),
    (5, "medium", "DAC-TYPE-MEDIUM"),
    (1, "heavy", "DAC-TYPE-HEAVY"),
    (-3, "very heavy", "DAC-TYPE-VHEAVY"),
    (-5, "impenetrable", "DAC-TYPE-IMPEN"),
    (-9, "unbreakable", "DAC-TYPE-UNBREAK"),
)
TYPE_MODIFIERS: dict[str, tuple[int, str]] = {
    "none": (0, "DAC-TYPE-NONE"),
    "light": (1, "DAC-MOD-LIGHT"),
    "medium": (2, "DAC-MOD-MEDIUM"),
    "heavy": (3, "DAC-MOD-HEAVY"),
    "very heavy": (4, "DAC-MOD-VHEAVY"),
    "impenetrable": (5, "DAC-MOD-IMPEN"),
    "unbreakable": (6, "DAC-MOD-UNBREAK"),
    "untouchable": (7, "DAC-MOD-UNTOUCH"),
}
TYPE_ORDER = tuple(TYPE_MODIFIERS)  # lightest first


def armour_type(value: int) -> tuple[str, str]:
    """The type of an armour value and the rule that says so (DAC-TYPE-NONE to DAC-TYPE-UNTOUCH, also for worn armour: DAC-TYPE-USE)."""
    if value > BASE_AC:
        return "none", "GAP-TYPE-ABOVE-10"
    for lowest, name, rule in _TYPE_BANDS:
        if value >= lowest:
            return name, rule
    return "untouchable", "DAC-TYPE-UNTOUCH"


def type_modifier(value: int) -> tuple[int, str]:
    """mod(T) for armour of this value worn over natural armour (DAC-MOD-LIGHT to DAC-MOD-UNTOUCH)."""
    return TYPE_MODIFIERS[armour_type(value)[0]]


def is_heavier(a: str, b: str) -> bool:
    return TYPE_ORDER.index(a) > TYPE_ORDER.index(b)


# --- what the model reads from a combatant -----------------------------------------------------------------


@dataclass(frozen=True)
class Kit:
    """A combatant's protective gear at one moment: the spec and what the fight has done to it."""

    spec: Combatant
    armour_loss: int = 0  # HR-ARMDMG-1: DAC points the worn armour has lost to critical hits
    armour_destroyed: bool = False
    shield_destroyed: bool = False

    @classmethod
    def of(cls, who: Combatant | CombatantView) -> Kit:
        if isinstance(who, Combatant):
            return cls(who)
        return cls(who.spec, who.armour_loss, who.armour_destroyed, who.shield_destroyed)

    def suits(self) -> list[tuple[ArmourSpec, int]]:
        """Worn suits with their current value W (the main suit may be damaged or destroyed)."""
        out: list[tuple[ArmourSpec, int]] = []
        armour = self.spec.armour
        if armour is not None and not self.armour_destroyed:
            out.append((armour, _listed(armour) + self.armour_loss))
        out.extend((layer, _listed(layer)) for layer in self.spec.armour_layers)
        return out

    def shields(self) -> list[ShieldSpec]:
        """Shields carried; HR-ARMDMG-4's destroyed shield takes an off-hand one with it (an assumption)."""
        if self.shield_destroyed:
            return []
        return [s for s in (self.spec.shield, self.spec.off_hand_shield) if s is not None]

    def proficient(self, name: str) -> bool:
        return name in {_normal(p) for p in self.spec.proficiencies}


def _listed(armour: ArmourSpec) -> int:
    if armour.ac is not None:
        return armour.ac
    return BASE_AC - (armour.ac_bonus or 0)  # AAC = 20 - DAC (RULES.md 1.3)


def _normal(text: str) -> str:
    """`Armor_Training (medium)` → `armour training (medium)`; `shield defense` → `shield defence`."""
    text = re.sub(r"[_\-\s]+", " ", text.strip().lower())
    return text.replace("armor", "armour").replace("defense", "defence")


SHIELD_DEFENCE = "shield defence"  # +1 Deflect (GAP-SHIELD-USES, implied by TV-004-13)
TRAINING_MEDIUM = "armour training (medium)"  # keeps full Dodge in Medium armour (GAP-COMBAT-PROF)
TRAINING_HEAVY = "armour training (heavy)"  # keeps half Dodge in Heavy armour (GAP-COMBAT-PROF)


# --- A: base, natural and equipped armour (DAC-BASE-1, DAC-NAT-1 to DAC-NAT-3, DAC-EQ-1 to DAC-EQ-4) -------


class ArmourValue(NamedTuple):
    value: int
    parts: list[Modifier]
    worn_type: str  # heaviest worn suit's type, for the Dodge limits (GAP-NAT-DODGE: never natural armour)


def armour_value(kit: Kit) -> ArmourValue:
    """A: base 10, natural armour N, worn armour W, or min(W, N - mod(T)) for armour over natural armour."""
    spec = kit.spec
    suits = kit.suits()
    worn_type = "none"
    for _, w in suits:
        t = armour_type(w)[0]
        worn_type = t if is_heavier(t, worn_type) else worn_type
    if spec.ac is not None:
        return ArmourValue(spec.ac, [Modifier(spec.ac, "DAC-AC-1", "listed AC")], worn_type)
    natural = spec.natural_armour
    if not suits:
        if natural is None:
            return ArmourValue(BASE_AC, [Modifier(BASE_AC, "DAC-BASE-1", "base")], worn_type)
        kind = armour_type(natural)[0]
        return ArmourValue(natural, [Modifier(natural, "DAC-NAT-1", f"natural armour ({kind})")], worn_type)
    options = [(_over_natural(suit, w, natural), suit.name) for suit, w in suits]
    (value, parts), best = min(options, key=lambda o: o[0][0])  # DAC-EQ-4: only the best suit counts
    for _, name in options:
        if name != best:
            parts.append(Modifier(0, "DAC-EQ-4", f"{name} layered: only the best suit counts"))
    return ArmourValue(value, parts, worn_type)


def _over_natural(suit: ArmourSpec, w: int, natural: int | None) -> tuple[int, list[Modifier]]:
    """DAC-EQ-1 (no natural armour: W) or DAC-EQ-2: min(W, N - mod(T)); N = W takes the bonus (X-12)."""
    if natural is None:
        return w, [Modifier(w, "DAC-EQ-1", suit.name)]
    mod, rule = type_modifier(w)
    if w < natural - mod:
        return w, [Modifier(w, "DAC-EQ-2", f"{suit.name} (better than natural armour {natural})")]
    kind = armour_type(w)[0]
    return natural - mod, [
        Modifier(natural, "DAC-NAT-1", "natural armour"),
        Modifier(-mod, rule, f"{suit.name}: {kind} armour over natural armour (DAC-EQ-2)"),
    ]


# --- G: Dodge (DAC-DODGE-1 to DAC-DODGE-4) -----------------------------------------------------------------


def dodge_parts(kit: Kit, ruleset: Ruleset, worn_type: str, flatfooted: bool) -> list[Modifier]:
    """Dodge from Dex (GAP-DODGE); armour limits a bonus, never a penalty; flatfooted drops a bonus."""
    raw = abilities.modifier(kit.spec.abilities.dexterity, ruleset)
    if raw == 0:
        return []
    if raw < 0:
        if flatfooted and ruleset.dex_loss is not DexLoss.BONUS_ONLY:
            return [
                Modifier(0, "DAC-DODGE-4", f"flatfooted: Dodge {raw} dropped (dex_loss = whole_modifier)")
            ]
        return [Modifier(-raw, "DAC-DODGE-3", f"Dodge {raw} (a penalty always applies)")]
    if flatfooted:
        return [Modifier(0, "DAC-DODGE-4", f"flatfooted: no Dodge +{raw}")]
    kept, rule, why = _armour_limit(kit, raw, worn_type)
    return [Modifier(-kept, rule, why)]


def _armour_limit(kit: Kit, raw: int, worn: str) -> tuple[int, str, str]:
    """DAC-DODGE-2: Medium halves (round down), Heavy or more removes; GAP-COMBAT-PROF lifts the limit."""
    heavy_training = kit.proficient(TRAINING_HEAVY)
    if worn == "medium":
        if heavy_training or kit.proficient(TRAINING_MEDIUM):
            return raw, "GAP-COMBAT-PROF", f"Dodge +{raw} (armour training: full in medium armour)"
        return raw // 2, "DAC-DODGE-2", f"Dodge +{raw} halved in medium armour"
    if worn == "heavy" and heavy_training:
        return raw // 2, "GAP-COMBAT-PROF", f"Dodge +{raw} halved (armour training in heavy armour)"
    if worn not in {"none", "light"}:
        return 0, "DAC-DODGE-2", f"Dodge +{raw} lost in {worn} armour"
    return raw, "DAC-DODGE-1", "Dodge"


# --- D: Deflection (DAC-DEFL-1 to DAC-DEFL-5) --------------------------------------------------------------


def deflection_of(kit: Kit, shield: ShieldSpec) -> int:
    base = shield.deflection if shield.deflection is not None else (shield.bonus or 1)
    return base + (1 if kit.proficient(SHIELD_DEFENCE) else 0)


def deflection_parts(kit: Kit, shields: Sequence[ShieldSpec]) -> list[Modifier]:
    """The Deflection of the shields brought to bear (one, or two when circumstances allow: DAC-DEFL-5)."""
    parts: list[Modifier] = []
    for shield in shields:
        base = shield.deflection if shield.deflection is not None else (shield.bonus or 1)
        parts.append(Modifier(-base, "DAC-DEFL-1", f"{shield.name} deflection"))
        if kit.proficient(SHIELD_DEFENCE):
            parts.append(Modifier(-1, "DAC-DEFL-3", f"Shield Defence ({shield.name})"))
    if len(shields) > 1:
        parts.append(Modifier(0, "DAC-DEFL-5", "both shields brought to bear: each spends a use"))
    return parts


def uses_of(shield: ShieldSpec) -> int:
    """Uses per round (GAP-SHIELD-USES: small 1, medium 2, large 3, tower 3)."""
    return shield.uses if shield.uses is not None else (shield.attackers or 1)


# --- E: Enhancement (DAC-ENH-1 to DAC-ENH-3) ---------------------------------------------------------------


def enhancement_parts(kit: Kit, ruleset: Ruleset, touch: bool) -> list[Modifier]:
    """Only the highest Enhancement counts (DAC-ENH-2). Against touch, option `dac_touch_enhancement`:
    `exclude_armour` drops the worn armour's own Enhancement with the armour (X-2, X-3); `all` keeps it."""
    sources: list[tuple[int, str, bool]] = []  # (value, item, is worn armour)
    sources += [(suit.enhancement, suit.name, True) for suit, _ in kit.suits() if suit.enhancement]
    sources += [(s.enhancement, s.name, False) for s in kit.shields() if s.enhancement]
    sources += [(p.enhancement, p.name, False) for p in kit.spec.protection if p.enhancement]
    parts: list[Modifier] = []
    if touch and ruleset.dac_touch_enhancement is DacTouchEnhancement.EXCLUDE_ARMOUR:
        for value, name, _ in [s for s in sources if s[2]]:
            parts.append(Modifier(0, "DAC-ENH-3", f"{name} +{value} ignored with the armour (X-2)"))
        sources = [s for s in sources if not s[2]]
    if not sources:
        return parts
    best = max(sources, key=lambda s: s[0])
    rule = "DAC-ENH-2" if len(sources) > 1 else "DAC-ENH-1"
    parts.insert(0, Modifier(-best[0], rule, f"{best[1]} enhancement"))
    for value, name, _ in sources:
        if (value, name) != (best[0], best[1]):
            parts.append(Modifier(0, "DAC-ENH-2", f"{name} {value:+d} ignored: only the highest counts"))
    return parts


# --- assembling one AC -------------------------------------------------------------------------------------


def layered_components(
    kit: Kit,
    ruleset: Ruleset,
    *,
    flatfooted: bool = False,
    touch: bool = False,
    deflecting: Sequence[ShieldSpec] = (),
) -> list[Modifier]:
    """One AC in descending components: A (or 10 for touch), D from `deflecting`, G, E."""
    a = armour_value(kit)
    if touch:
        rule = "DAC-AC-FFTOUCH" if flatfooted else "DAC-AC-TOUCH"
        parts = [Modifier(BASE_AC, rule, "touch: base")]
        if a.value != BASE_AC:
            ignored = "DAC-EQ-3" if kit.suits() else "DAC-NAT-3"
            parts.append(Modifier(0, ignored, f"armour {a.value} ignored by touch"))
    else:
        parts = list(a.parts)
    parts += deflection_parts(kit, deflecting)
    if flatfooted and not deflecting and kit.shields():
        parts.append(Modifier(0, "DAC-DEFL-2", "flatfooted: no deflection"))
    if kit.spec.ac is None or touch:  # a listed AC already counts its Dex (as ODD-AC-1 does)
        parts += dodge_parts(kit, ruleset, a.worn_type, flatfooted)
    parts += enhancement_parts(kit, ruleset, touch)
    return parts


# --- the four recorded ACs ---------------------------------------------------------------------------------

KINDS = ("total", "flatfooted", "touch", "flatfooted_touch")


@dataclass(frozen=True)
class FourACs:
    """The four ACs of DAC-AC-TOTAL / -FLATFOOTED / -TOUCH / -FFTOUCH, each with its components."""

    convention: str
    total: int
    flatfooted: int
    touch: int
    flatfooted_touch: int
    breakdown: Mapping[str, tuple[Modifier, ...]] = field(default_factory=dict)

    def value(self, kind: str) -> int:
        return int(getattr(self, kind))

    def to_dict(self) -> dict[str, Any]:
        return {
            "convention": self.convention,
            **{kind: self.value(kind) for kind in KINDS},
            "breakdown": {kind: [m.to_dict() for m in parts] for kind, parts in self.breakdown.items()},
        }


def armour_classes(who: Combatant | CombatantView, ruleset: Ruleset) -> FourACs:
    """The four ACs of the layered model, in the ruleset's convention (ascending: AAC = 20 - DAC).

    Deflection is counted as usable (a fresh round, DAC-AC-TOTAL); circumstantial modifiers are not
    folded in (DAC-CIRC-4)."""
    from referee.rules.armour_class import ASCENDING, DESCENDING, to_descending

    kit = Kit.of(who)
    first = kit.shields()[:1]  # one shield in use (DAC-DEFL-5)
    built = {
        "total": layered_components(kit, ruleset, deflecting=first),
        "flatfooted": layered_components(kit, ruleset, flatfooted=True),
        "touch": layered_components(kit, ruleset, touch=True, deflecting=first),
        "flatfooted_touch": layered_components(kit, ruleset, flatfooted=True, touch=True),
    }
    descending = ruleset.armour_class is ArmourClassOption.DESCENDING
    if not descending:
        built = {kind: to_descending(parts) for kind, parts in built.items()}  # the map is its own inverse
    values = {kind: sum(m.value for m in parts) for kind, parts in built.items()}
    return FourACs(
        DESCENDING if descending else ASCENDING,
        breakdown={kind: tuple(parts) for kind, parts in built.items()},
        **values,
    )


# --- one attack --------------------------------------------------------------------------------------------


class AttackAC(NamedTuple):
    parts: list[Modifier]
    kind: str
    deflection_uses: int


def components_for_attack(ctx: AttackContext, lost: list[DefenceLoss]) -> AttackAC:
    """The descending AC components of this attack, its kind and the shield uses it spends.

    Flatfooted (GAP-FLATFOOTED) = any reason the defender loses Dex to AC on this attack: surprised,
    unaware, an invisible attacker, the referee's `flatfooted` flag, and the losses of 000/001."""
    kit = Kit.of(ctx.defender)
    touch = ctx.form is AttackForm.TOUCH
    reasons = [loss for loss in lost if loss.dex]
    flatfooted = bool(reasons)
    deflecting, notes, uses = _deflection_for_attack(ctx, kit, lost, flatfooted)
    parts = layered_components(kit, ctx.ruleset, flatfooted=flatfooted, touch=touch, deflecting=deflecting)
    if flatfooted:
        parts.append(Modifier(0, reasons[0].rule, f"flatfooted: {reasons[0].reason}"))
    parts += notes
    kind = {(False, False): "normal", (True, False): "flatfooted", (False, True): "touch"}.get(
        (flatfooted, touch), "flatfooted_touch"
    )
    return AttackAC(parts, kind, uses)


def _deflection_for_attack(
    ctx: AttackContext, kit: Kit, lost: list[DefenceLoss], flatfooted: bool
) -> tuple[list[ShieldSpec], list[Modifier], int]:
    """Which shields deflect this attack, notes on lost deflection, and how many uses it spends."""
    shields = kit.shields()
    if not shields:
        return [], [], 0
    if ctx.situation.has("shield_location"):
        # DAC-DEFL-2: the attack is aimed where the shield is fixed (a shield on the back against a rear
        # attack, a called shot at the shield arm): it counts even flatfooted or used up, spending nothing.
        return shields[:1], [Modifier(0, "DAC-DEFL-2", "attack at the shield's location")], 0
    if flatfooted:
        return [], [], 0  # DAC-DEFL-2 (noted by layered_components)
    shield_loss = next((loss for loss in lost if loss.shield), None)
    if shield_loss is not None:
        return [], [Modifier(0, shield_loss.rule, f"no shield: {shield_loss.reason}")], 0
    if ctx.ruleset.shields is Shields.ODD_ATTACKER_COUNT:
        from referee.rules.armour_class import shield_usable_odd

        if shield_usable_odd(ctx):
            return shields[:1], [], 0
        return [], [Modifier(0, "ODD-AC-SHIELD", f"{shields[0].name} already covers its attackers")], 0
    return _spend_uses(ctx, kit, shields)


def _spend_uses(
    ctx: AttackContext, kit: Kit, shields: list[ShieldSpec]
) -> tuple[list[ShieldSpec], list[Modifier], int]:
    """DAC-DEFL-3/4: uses per round spent on the first attacks, unless declined before the roll.

    A spent or declined deflection keeps Total AC and adds the lost bonus back as a circumstantial
    penalty (DAC-AC-SHIELDLOST). Two shields share one count of uses this round (a simplification:
    the first shield's uses go first, then the second's)."""
    used = ctx.defender.deflections_used
    first_uses = uses_of(shields[0])
    in_use = shields[0] if used < first_uses or len(shields) == 1 else shields[1]
    pool = sum(uses_of(s) for s in shields)
    lost_bonus = deflection_of(kit, in_use)
    if ctx.situation.has("decline_deflection"):
        return [in_use], [Modifier(lost_bonus, "DAC-DEFL-4", f"{in_use.name}: deflection declined")], 0
    if len(shields) > 1 and ctx.situation.has("both_shields") and used + 2 <= pool:
        return shields, [], 2  # DAC-DEFL-5: both brought to bear, a use of each
    if used < pool:
        return [in_use], [], 1
    return [in_use], [Modifier(lost_bonus, "DAC-AC-SHIELDLOST", f"{in_use.name} used up this round")], 0


def deflection_uses(ctx: AttackContext, ac: ArmourClass) -> int:
    """The uses of the defender's shields this attack spends (recorded on the attack event)."""
    return ac.deflection_uses


# --- circumstantial modifiers (DAC-CIRC-1 to DAC-CIRC-4, DAC-SPEC-INVIS) -----------------------------------
# Bonuses here are protection (positive = harder to hit); armour_class.py flips them for descending AC.

# Defence tags ("Defence IV [Giants]") are read on load by referee.vocabulary.parse_defence_tag.


def _creature(word: str) -> str:
    """`Giants` and `giant` name the same type (a plain trailing s is dropped: an assumption)."""
    word = " ".join(word.lower().split())
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def defence_tags(ctx: AttackContext) -> Iterator[Modifier]:
    """DAC-CIRC-2: Defence N [type] gives N against attackers of that type; only the highest tag counts."""
    kinds = {_creature(k) for k in ctx.attacker.spec.creature_types}
    matching = [d for d in ctx.defender.spec.defences if _creature(d.against) in kinds]
    if not matching:
        return
    best = max(matching, key=lambda d: d.value)
    yield Modifier(best.value, "DAC-CIRC-2", f"Defence {best.value} [{best.against}]")
    for other in matching:
        if other is not best:
            yield Modifier(
                0, "DAC-CIRC-2", f"Defence {other.value} [{other.against}]: only the highest counts"
            )


def invisible_attacker(ctx: AttackContext) -> bool:
    """`invisible_attacker = dac_flatfooted_minus_4`, and the defender does not see the attacker."""
    return (
        ctx.ruleset.invisible_attacker is InvisibleAttacker.DAC_FLATFOOTED_MINUS_4
        and ctx.attacker.has("invisible")
        and not ctx.situation.has("sees")
    )


def flatfooted_losses(ctx: AttackContext) -> Iterator[DefenceLoss]:
    """DAC-AC-FLATFOOTED: the referee's `flatfooted` flag; DAC-SPEC-INVIS: an unseen invisible attacker."""
    if ctx.situation.has("flatfooted"):
        yield DefenceLoss("dex", "DAC-AC-FLATFOOTED", "caught off guard")
    if invisible_attacker(ctx):
        yield DefenceLoss("dex", "DAC-SPEC-INVIS", "cannot see the invisible attacker")


def visibility(ctx: AttackContext) -> Iterator[Modifier]:
    """DAC-CIRC-3: in total darkness (flag `darkness`) or against an attacker at Visibility 0% (flag
    `visibility_0`, or an invisible attacker, DAC-SPEC-INVIS) the defender's AC is 4 worse. Counted once.

    Darkness and visibility are 004 circumstances: they apply with descending AC (the 004 model)."""
    if invisible_attacker(ctx):
        yield Modifier(-4, "DAC-SPEC-INVIS", "invisible attacker: Visibility 0% (DAC-CIRC-3)")
    elif ctx.descending and (ctx.situation.has("darkness") or ctx.situation.has("visibility_0")):
        yield Modifier(-4, "DAC-CIRC-3", "cannot see the attacker (darkness / Visibility 0%)")
