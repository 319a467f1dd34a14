"""ODD situational modifiers (the list of ODD-SIT-3, ODD-SIT-4), cover (ODD-COVER-25..100) and referee
rulings (ODD-SIT-1, ODD-SIT-2).

Each contributor applies only when the ruleset option it belongs to has the ODD variant; the other
variants live in other modules. The listed modifiers are cumulative (ODD-SIT-3): every one that fits
is added to the roll.

Where the attack's circumstances come from:

- the defender's and attacker's conditions (names in :mod:`referee.rules.vocabulary`): ``prone``,
  ``defenceless``, ``blind``, ``stunned``, ``cowering``, ``invisible``, ``mounted``;
- the :class:`~referee.rules.context.Situation` the referee gives: ``cover``, ``concealment``,
  ``modifiers``, ``ac_modifiers`` and these flags:

  ``higher``            the attacker is above the defender (ODD-SIT-LOWER)
  ``mounted``           the attacker fights from a mount (ODD-SIT-MOUNT-M / -R)
  ``unstable``          the attacker stands on an unstable platform (same rules)
  ``attacker_in_cover`` the cover shelters the attacker, not the defender (ODD-COVER-MELEE)
  ``no_attack_from_cover`` the referee rules the sheltering attacker may not attack (ODD-COVER-NOATK)
  ``undetected``        the attacker does not know the defender is there (ODD-SIT-4)
"""

from __future__ import annotations

from collections.abc import Iterator

from referee.checks import Modifier
from referee.errors import IllegalActionError
from referee.rules.context import AttackContext, AttackForm
from referee.rules.options import (
    Blindness,
    Concealment,
    Cover,
    HelplessTargets,
    HigherGround,
    Invisibility,
    Prone,
    Stunned,
    TouchAc,
)
from referee.vocabulary import BANDS, ruling_band  # ODD-SIT-2: the referee's magnitude guide

# ODD-COVER-25..100: AC bonus by degree of cover.
COVER_BONUS: dict[str, tuple[int, str]] = {
    "quarter": (2, "ODD-COVER-25"),
    "half": (4, "ODD-COVER-50"),
    "three_quarters": (6, "ODD-COVER-75"),
    "full": (10, "ODD-COVER-100"),
}

# ODD-SIT-CONC-25..100: to-hit penalty by degree of concealment (examples from the seed).
CONCEALMENT_PENALTY: dict[str, tuple[int, str, str]] = {
    "quarter": (-2, "ODD-SIT-CONC-25", "defender 1/4 concealed (light fog)"),
    "half": (-4, "ODD-SIT-CONC-50", "defender 1/2 concealed (dense fog)"),
    "three_quarters": (-6, "ODD-SIT-CONC-75", "defender 3/4 concealed (near darkness)"),
    "full": (-10, "ODD-SIT-CONC-100", "defender completely concealed"),
}


# --- to-hit -----------------------------------------------------------------------------------------


def prone_blind_or_defenceless(ctx: AttackContext) -> Iterator[Modifier]:
    """ODD-SIT-PRONE: +5 against a prone or blind defender (counted once); ODD-SIT-DEFENCELESS: +10
    against a prone and defenceless one, replacing the +5 (interpretation, GAP-INTERPRETATIONS)."""
    d = ctx.defender
    if (
        d.has("prone")
        and d.has("defenceless")
        and ctx.ruleset.helpless_targets is HelplessTargets.ODD_PLUS_10
    ):
        yield Modifier(10, "ODD-SIT-DEFENCELESS", "defender prone and defenceless")
        return
    prone = d.has("prone") and ctx.ruleset.prone is Prone.ODD_PLUS_5
    blind = d.has("blind") and ctx.ruleset.blindness is Blindness.ODD
    if prone or blind:
        yield Modifier(5, "ODD-SIT-PRONE", "defender prone" if prone else "defender blind")


def lower_elevation(ctx: AttackContext) -> Iterator[Modifier]:
    """ODD-SIT-LOWER: +1 when the defender is lower than the attacker (flag `higher`, GAP-HIGH-GROUND-000)."""
    if ctx.situation.has("higher") and ctx.ruleset.higher_ground is HigherGround.ODD_PLUS_1:
        yield Modifier(1, "ODD-SIT-LOWER", "defender at lower elevation")


def stunned_or_cowering(ctx: AttackContext) -> Iterator[Modifier]:
    """ODD-SIT-STUN: +2 when the defender is stunned or cowering."""
    if ctx.ruleset.stunned is not Stunned.ODD_PLUS_2:
        return
    for name in ("stunned", "cowering"):
        if ctx.defender.has(name):
            yield Modifier(2, "ODD-SIT-STUN", f"defender {name}")
            return


def invisible_or_blind_attacker(ctx: AttackContext) -> Iterator[Modifier]:
    """ODD-SIT-INVIS: -10 when the defender is invisible or the attacker is blind (counted once)."""
    invisible = ctx.defender.has("invisible") and ctx.ruleset.invisibility is Invisibility.ODD_MINUS_10
    blind = ctx.attacker.has("blind") and ctx.ruleset.blindness is Blindness.ODD
    if invisible or blind:
        yield Modifier(-10, "ODD-SIT-INVIS", "defender invisible" if invisible else "attacker blind")


def mount_or_unstable_platform(ctx: AttackContext) -> Iterator[Modifier]:
    """ODD-SIT-MOUNT-M: -2 in melee, ODD-SIT-MOUNT-R: -4 at range, from a mount or unstable platform.

    No other source has a variant of this rule, so it applies under every ruleset.
    """
    where = "mount" if ctx.attacker.has("mounted") or ctx.situation.has("mounted") else None
    if where is None and ctx.situation.has("unstable"):
        where = "unstable platform"
    if where is None:
        return
    if ctx.is_ranged:
        yield Modifier(-4, "ODD-SIT-MOUNT-R", f"ranged attack from a {where}")
    else:
        yield Modifier(-2, "ODD-SIT-MOUNT-M", f"melee attack from a {where}")


def concealment(ctx: AttackContext) -> Iterator[Modifier]:
    """ODD-SIT-CONC: concealment hampers aim (a to-hit penalty; cover raises AC instead); one degree applies."""
    if ctx.ruleset.concealment is not Concealment.ODD_TO_HIT or ctx.situation.concealment == "none":
        return
    value, rule, reason = CONCEALMENT_PENALTY[ctx.situation.concealment]
    yield Modifier(value, rule, reason)


# --- armour class -----------------------------------------------------------------------------------


def cover_bonus(degree: str) -> tuple[int, str]:
    """ODD-COVER-25/50/75/100: +2/+4/+6/+10 AC. Refuses degrees the ODD table does not have."""
    if degree == "none":
        return 0, ""
    if degree not in COVER_BONUS:
        raise IllegalActionError(
            f"cover {degree!r} is not an ODD degree (ODD-COVER-25..100): quarter, half, three_quarters, full"
        )
    return COVER_BONUS[degree]


def odd_cover(ctx: AttackContext) -> Iterator[Modifier]:
    """ODD-COVER-25..100 against missiles and in melee; ODD-COVER-MELEE: in melee the cover protects both.

    When the cover shelters the attacker (flag `attacker_in_cover`) it still protects the defender in
    melee (both are on either side of it) but not against a missile shot out of cover. A touch attack
    ignores cover under ODD-TOUCH-1.
    """
    if ctx.ruleset.cover is not Cover.ODD_QUARTERS or ctx.situation.cover == "none":
        return
    if ctx.form is AttackForm.TOUCH and ctx.ruleset.touch_ac is TouchAc.ODD_DEX_MAGIC:
        return
    bonus, rule = cover_bonus(ctx.situation.cover)
    if ctx.situation.has("attacker_in_cover"):
        if ctx.is_ranged:
            return
        yield Modifier(
            bonus, "ODD-COVER-MELEE", f"{ctx.situation.cover.replace('_', ' ')} cover between them ({rule})"
        )
        return
    yield Modifier(bonus, rule, f"{ctx.situation.cover.replace('_', ' ')} cover")


def referee_ac_adjustments(ctx: AttackContext) -> Iterator[Modifier]:
    """ODD-AC-SIT / ODD-MANEUVER-1: the referee's own AC adjustments for this attack (rusted armour -1...)."""
    yield from ctx.situation.ac_modifiers


def defensive_maneuver(ctx: AttackContext) -> Iterator[Modifier]:
    """ODD-MANEUVER-1: a defensive maneuver adjusts the defender's AC for the round (amount set by the referee)."""
    cond = ctx.defender.conditions.get("maneuvering")
    if cond is not None:
        amount = int(cond.data.get("ac", 0))
        if amount:
            yield Modifier(amount, "ODD-MANEUVER-1", str(cond.data.get("reason", "defensive maneuver")))


# --- who may attack ---------------------------------------------------------------------------------


def must_know_defender(ctx: AttackContext) -> None:
    """ODD-SIT-4: an attack needs the attacker to know the defender is there (its square need not be known)."""
    if ctx.situation.has("undetected") and ctx.ruleset.invisibility is Invisibility.ODD_MINUS_10:
        raise IllegalActionError(
            f"{ctx.attacker.name} does not know {ctx.defender.name} is there and cannot attack it (ODD-SIT-4)"
        )


def cover_bars_attack(ctx: AttackContext) -> None:
    """ODD-COVER-NOATK: the referee may rule that a creature sheltering behind cover cannot attack."""
    if ctx.situation.has("no_attack_from_cover"):
        raise IllegalActionError(
            f"the referee rules {ctx.attacker.name} cannot attack from behind cover (ODD-COVER-NOATK)"
        )


# --- referee rulings (ODD-SIT-1, ODD-SIT-2) ---------------------------------------------------------


def ruling(value: int, reason: str, band: str | None = None) -> Modifier:
    """ODD-SIT-1: a referee's to-hit modifier for a situation no rule covers, labelled with its band.

    A band given by the referee must be one of easy/difficult/heroic and fit the magnitude (ODD-SIT-2).
    """
    found = ruling_band(value)
    if band is not None:
        if band not in BANDS:
            raise IllegalActionError(f"ruling band {band!r} is not one of: {', '.join(BANDS)} (ODD-SIT-2)")
        if band != found:
            raise IllegalActionError(
                f"a {value:+d} ruling is {found}, not {band} (ODD-SIT-2: easy ±5, difficult ±6-10, heroic ±11+)"
            )
    if not reason.strip():
        raise IllegalActionError("a referee ruling needs a reason (ODD-SIT-1)")
    return Modifier(value, "ODD-SIT-1", f"{reason.strip()} ({found}, ODD-SIT-2)")
