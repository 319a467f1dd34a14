"""ODD special unarmed attacks: grapple, pummel, overbear, touch (ODD-UNARMED-1/2, ODD-GRAP-1..4,
ODD-PUMMEL-1/2, ODD-OVERB-1..5, ODD-TOUCH-1).

The armour classes (grapple 15 + Str + Dex ± size, overbear 15 + Str ± size, touch 10 + Dex + magic)
are built in :mod:`referee.rules.armour_class`; the 1d2 subdual damage and the optional basic to-hit
bonus in :mod:`referee.rules.hooks` and :mod:`referee.rules.attack`. This module adds what the
maneuvers *do*: the hold and what a held creature may do, the overbearer's exposure, the knock-down,
the size limit, and which attacks are pummelling at all.

A hold (option ``grapple_state = odd_held_defenceless``) is a set of conditions: the held creature is
``grappled``, ``prone`` and ``defenceless`` (attackers +10, ODD-SIT-DEFENCELESS) until it breaks free;
the holder is ``grappling``. The ``grappled`` condition's source names the holder.
"""

from __future__ import annotations

from collections.abc import Iterator

from referee.checks import Modifier
from referee.errors import IllegalActionError
from referee.model import UNARMED, Weapon
from referee.rules.attack import Effect
from referee.rules.context import AttackContext, AttackForm, DefenceLoss
from referee.rules.options import GrappleState

HOLD_CONDITIONS = ("grappled", "prone", "defenceless")


def holds_odd(ctx: AttackContext) -> bool:
    return ctx.ruleset.grapple_state is GrappleState.ODD_HELD_DEFENCELESS


def holds_mod(ctx: AttackContext) -> bool:
    """Option ``grapple_state = mod_grappled_plus_4``: a hold makes both grapplers `grappled` / `grappling`."""
    return ctx.ruleset.grapple_state is GrappleState.MOD_GRAPPLED_PLUS_4


def holder_of(ctx: AttackContext) -> str | None:
    """The name of the creature holding the attacker, if the attacker is held."""
    cond = ctx.attacker.conditions.get("grappled")
    return None if cond is None else cond.source


def is_breaking_free(ctx: AttackContext) -> bool:
    """ODD-GRAP-4: a held creature grappling its holder is trying to break the hold."""
    return ctx.form is AttackForm.GRAPPLE and holder_of(ctx) == ctx.defender.name


# --- who may attack how -----------------------------------------------------------------------------


def held_creature_only_breaks_free(ctx: AttackContext) -> None:
    """ODD-GRAP-3: a held creature cannot act except to try to break the hold (ODD-GRAP-4)."""
    holder = holder_of(ctx)
    if holder is None or not holds_odd(ctx) or ctx.free_attack:
        return
    if not is_breaking_free(ctx):
        raise IllegalActionError(
            f"{ctx.attacker.name} is held by {holder} and can only try to break the hold "
            f"(a grapple against {holder}, ODD-GRAP-3, ODD-GRAP-4)"
        )


def overbear_size_limit(ctx: AttackContext) -> None:
    """ODD-OVERB-4: no overbearing a defender two or more size steps larger than the attacker."""
    if ctx.form is not AttackForm.OVERBEAR:
        return
    steps = int(ctx.defender.spec.size) - int(ctx.attacker.spec.size)
    if steps >= 2:
        raise IllegalActionError(
            f"{ctx.attacker.name} ({ctx.attacker.spec.size.name.lower()}) cannot overbear "
            f"{ctx.defender.name} ({ctx.defender.spec.size.name.lower()}), {steps} sizes larger (ODD-OVERB-4)"
        )


def natural_weapons_never_pummel(ctx: AttackContext) -> None:
    """ODD-UNARMED-2: a monk's strikes and monsters' natural weapons are never pummelling."""
    if ctx.form is AttackForm.PUMMEL and (
        ctx.weapon.natural or (ctx.attacker.spec.is_monster and ctx.weapon == UNARMED)
    ):
        raise IllegalActionError(
            f"{ctx.attacker.name}'s {ctx.weapon.name} is a natural weapon: it attacks as melee, never as a pummel "
            "(ODD-UNARMED-2)"
        )


def default_form(is_monster: bool, weapon: Weapon) -> AttackForm:
    """ODD-UNARMED-1/2: natural weapons (and a monster's bare attacks) are melee; a character without a
    weapon who punches or kicks is pummelling."""
    if weapon.is_ranged:
        return AttackForm.RANGED
    if not is_monster and weapon.name == UNARMED.name and weapon == UNARMED:  # the name first: cheap
        return AttackForm.PUMMEL
    return AttackForm.MELEE


# --- what the maneuvers do ----------------------------------------------------------------------------


def maneuver_effects(ctx: AttackContext) -> Iterator[tuple[str, Effect]]:
    """ODD-GRAP-3: a grapple hit holds the defender (prone, defenceless) until broken; ODD-OVERB-3: an
    overbear hit knocks it prone to the end of the round; ODD-OVERB-5: trying to overbear exposes the
    attacker (AC 2 worse) to the end of the round."""
    if ctx.form is AttackForm.GRAPPLE and holds_odd(ctx) and not is_breaking_free(ctx):
        for name in HOLD_CONDITIONS:
            if not ctx.defender.has(name):
                yield "hit", Effect(name, "defender", None, "ODD-GRAP-3")
        yield "hit", Effect("grappling", "attacker", None, "ODD-GRAP-3")
    elif ctx.form is AttackForm.GRAPPLE and holds_mod(ctx) and not is_breaking_free(ctx):
        # MOD-COND-GRAPPLED-1: "assuming one creature has a hold established": the hit establishes it; both
        # are then in the grapple (+4 to be hit by outsiders, who strike one at random: MOD-COND-GRAPPLED-2)
        if not ctx.defender.has("grappled"):
            yield "hit", Effect("grappled", "defender", None, "MOD-COND-GRAPPLED-1")
        if not ctx.attacker.has("grappling"):
            yield "hit", Effect("grappling", "attacker", None, "MOD-COND-GRAPPLED-1")
    if ctx.form is AttackForm.OVERBEAR:
        yield "attempt", Effect("overbearing", "attacker", 0, "ODD-OVERB-5")
        if not ctx.defender.has("prone"):
            yield "hit", Effect("prone", "defender", 0, "ODD-OVERB-3")


def overbearer_exposed(ctx: AttackContext) -> Iterator[Modifier]:
    """ODD-OVERB-5: a creature that tried to overbear this round has AC 2 worse, hit or miss."""
    if ctx.defender.has("overbearing"):
        yield Modifier(-2, "ODD-OVERB-5", "tried to overbear this round")


def held_loses_dex(ctx: AttackContext) -> Iterator[DefenceLoss]:
    """ODD-GRAP-3 with ODD-AC-DEX-2: a held creature is restrained and cannot react, so it loses Dex."""
    if ctx.defender.has("grappled") and holds_odd(ctx):
        yield DefenceLoss("dex", "ODD-GRAP-3", "held in a grapple")
