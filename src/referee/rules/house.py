"""The house-rules post (002, HR-*): movement with attacks, fighting withdrawal and attacks of opportunity,
casting on the move, the 002 charge, garrotte, nets, missile restrictions, missiles into melee, touch
attacks, helpless targets and armour damage.

Each rule is switched on by its ruleset option (RULES.md section 8); under another variant it is silent.
Assumptions beyond the post are named in comments (GAP-AOO, GAP-REAR-AC, GAP-ATTR-CHECK, GAP-NET-ESCAPE).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from referee.checks import Check, Compare, Modifier
from referee.dice import DiceTape
from referee.errors import IllegalActionError
from referee.rules import abilities, movement
from referee.rules.attack import Effect, double_damage, plan_attack
from referee.rules.context import AttackContext, AttackForm, DefenceLoss
from referee.rules.criticals import in_melee
from referee.rules.options import Charge, HelplessTargets, MissilesIntoMelee, MoveAndAttack, Prone
from referee.rules.ruleset import Ruleset
from referee.rules.view import CombatantView
from referee.rules.vocabulary import HELPLESS

if TYPE_CHECKING:
    from referee.rules import hooks
    from referee.rules.attack import DamagePlan

# --- Strength checks (GAP-ATTR-CHECK) ------------------------------------------------------------------


def strength_check(
    c: CombatantView, dice_count: int, tape: DiceTape, rule: str, purpose: str
) -> tuple[Check, int, bool]:
    """An Nd6 Strength check: success if the dice total is at most the Strength score (GAP-ATTR-CHECK)."""
    fight = c.fight  # MOD-COND-FATIGUED / -EXHAUSTED: the score is 2 lower while the condition lasts
    score = abilities.score(c, "strength", fight.setup.ruleset) if fight else c.spec.abilities.strength
    check = Check(
        label=f"{c.name} {dice_count}d6 Strength check ({purpose})",
        sides=6,
        count=dice_count,
        target=score,
        target_label="Str",
        target_modifiers=(Modifier(score, rule, "Strength score (GAP-ATTR-CHECK)"),),
        compare=Compare.AT_MOST,
        words=("success", "failure"),
    )
    faces = [tape.roll(6, f"{purpose}: Strength check") for _ in range(dice_count)]
    return check, sum(faces), check.succeeds(sum(faces))


def moved_feet(c: CombatantView) -> int:
    return c.moved_this_round


# --- HR-MOVE-1, HR-MOVE-2: half move and a single attack --------------------------------------------------


def half_move_attack(ctx: AttackContext) -> None:
    """HR-MOVE-1: up to half the movement rate and still attack. HR-MOVE-2: any movement leaves one attack."""
    if (
        ctx.ruleset.move_and_attack is not MoveAndAttack.HALF_MOVE_SINGLE_ATTACK
        or ctx.free_attack
        or ctx.charge
    ):
        return
    me = ctx.attacker
    moved = moved_feet(me)
    rate = movement.allowance(me)
    if moved > movement.half_move(rate):
        raise IllegalActionError(
            f"{me.name} moved {moved} ft, more than half its {rate} ft: no attack this round (HR-MOVE-1)"
        )
    attacked = any(me.name in c.attackers_this_round for c in ctx.state.combatants.values())
    if moved and attacked:
        raise IllegalActionError(f"{me.name} moved this round: one attack only (HR-MOVE-2)")


def attacks_allowed(ruleset: Ruleset, c: CombatantView, attacks: int) -> int:
    """HR-MOVE-2: a combatant that moves this round makes one attack, whatever its weapons or skills give."""
    if ruleset.move_and_attack is MoveAndAttack.HALF_MOVE_SINGLE_ATTACK and moved_feet(c) > 0:
        return min(1, attacks)
    return attacks


# --- HR-CAST-MOVE ------------------------------------------------------------------------------------------
# Casting on the move (option `move_and_cast`) is enforced where spells are cast: the CastSpell action of
# referee.engine.odd_actions (ODD-ACT-CAST-3 / HR-CAST-MOVE), so the rule lives in one place.
# The actions and round hooks of these rules (garrotte, nets, touch spells, armour damage, withdrawal)
# are referee.engine.house and referee.engine.withdrawal.


# --- HR-CHARGE-1..5 -------------------------------------------------------------------------------------


def hr_charge(ctx: AttackContext) -> bool:
    return ctx.charge and ctx.ruleset.charge is Charge.HR_TO_HIT_BONUS


def charge_allowed(ctx: AttackContext) -> None:
    """HR-CHARGE-3: never with a missile weapon. HR-CHARGE-1 (`charge_once_per_10_rounds`): one charge in
    any ten rounds (TV-DER-15: round 1 yes, round 5 no, round 11 yes)."""
    if not ctx.charge:
        return
    if hr_charge(ctx) and ctx.is_ranged:
        raise IllegalActionError(f"{ctx.attacker.name} cannot charge with a missile weapon (HR-CHARGE-3)")
    if hr_charge(ctx) and ctx.distance > ctx.attacker.spec.move:
        raise IllegalActionError(
            f"a charge covers at most the full movement rate, {ctx.attacker.spec.move} ft,"
            f" not {ctx.distance} ft (HR-CHARGE-2)"
        )
    last = ctx.attacker.last_charge_round
    if ctx.ruleset.charge_once_per_10_rounds and last is not None and ctx.round - last < 10:
        raise IllegalActionError(
            f"{ctx.attacker.name} charged in round {last}; next charge in round {last + 10} (HR-CHARGE-1)"
        )


def charge_to_hit(ctx: AttackContext) -> Iterator[Modifier]:
    """HR-CHARGE-2: a charge ends with one attack at +2 to hit (and no damage bonus)."""
    if hr_charge(ctx):
        yield Modifier(2, "HR-CHARGE-2", "charging")


def charged_this_round(c: CombatantView, round_no: int) -> bool:
    return c.last_charge_round == round_no


def charger_loses_dex(ctx: AttackContext) -> Iterator[DefenceLoss]:
    """HR-CHARGE-5: a charging character loses any Dex bonus to AC, for the round (interpretation)."""
    if ctx.ruleset.charge is Charge.HR_TO_HIT_BONUS and charged_this_round(ctx.defender, ctx.round):
        yield DefenceLoss("dex", "HR-CHARGE-5", "charging")


def receives_charge(ctx: AttackContext) -> bool:
    """HR-CHARGE-4: the weapons that can be set: two-handed weapons, polearms, spears, horns..."""
    w = ctx.weapon
    settable = w.set_vs_charge or w.two_handed or (w.natural and "horn" in w.name.lower())
    charging = charged_this_round(ctx.defender, ctx.round) or ctx.situation.has("receives_charge")
    return bool(settable and charging and ctx.is_melee)


def set_weapon_double(ctx: AttackContext, plan: DamagePlan) -> DamagePlan:
    """HR-CHARGE-4 (`charge_set_weapons_double`): a set weapon that hits the charger deals double damage,
    read as option `double_damage` says (the whole damage ×2 by default, or the dice ×2)."""
    if ctx.ruleset.charge_set_weapons_double and receives_charge(ctx):
        return double_damage(ctx, plan, "HR-CHARGE-4")
    return plan


# --- HR-HELPLESS-1..4 --------------------------------------------------------------------------------------


def helpless_by_hr(ctx: AttackContext) -> str | None:
    """The condition that makes the defender helpless under the 002 rules, if any.

    `helpless_targets = hr_auto_max_damage`: paralysed, bound, sleeping, unconscious, held (and prone
    when `prone = hr_helpless`); `prone = hr_helpless` alone makes prone count too (HR-HELPLESS-1).
    """
    prone_counts = ctx.ruleset.prone is Prone.HR_HELPLESS
    if ctx.ruleset.helpless_targets is HelplessTargets.HR_AUTO_MAX_DAMAGE:
        for name in sorted(HELPLESS):
            if ctx.defender.has(name):
                return name
    if prone_counts and ctx.defender.has("prone"):
        return "prone"
    return None


def is_proficient(ctx: AttackContext) -> bool:
    """HR-HELPLESS-2: proficiency with the weapon: the combatant's list, else its `proficient` flag."""
    spec = ctx.attacker.spec
    if spec.proficiencies:
        return ctx.weapon.name.lower() in {p.lower() for p in spec.proficiencies}
    return spec.proficient


def helpless_auto_hit(ctx: AttackContext) -> hooks.Verdict | None:
    """HR-HELPLESS-1: a melee attack on a helpless creature hits automatically; HR-HELPLESS-3: missiles roll."""
    why = helpless_by_hr(ctx)
    if why is None or ctx.is_ranged or ctx.form.is_unarmed_special:
        return None
    return (True, "HR-HELPLESS-1", f"target {why}")


def helpless_damage(ctx: AttackContext, plan: DamagePlan) -> DamagePlan:
    """HR-HELPLESS-2: maximum damage if proficient, else rolled. HR-HELPLESS-4: additive bonuses stay,
    multiplicative ones (a backstab multiplier) do not apply."""
    if helpless_auto_hit(ctx) is None:
        return plan
    return replace(plan, maximise=is_proficient(ctx), dice_multiplier=1, total_multiplier=1, doubled_by=())


# --- HR-GARROTE-1..6 ---------------------------------------------------------------------------------------


def is_garrotte(ctx: AttackContext) -> bool:
    return ctx.weapon.name.lower() in {"garrotte", "garrote"}


def garrotte_allowed(ctx: AttackContext) -> None:
    """HR-GARROTE-1: only from behind (the referee's `rear` flag). HR-GARROTE-5: a garrotter does nothing else."""
    if ctx.attacker.has("garrotting") and not ctx.free_attack:
        raise IllegalActionError(
            f"{ctx.attacker.name} is garrotting and can take no other action (HR-GARROTE-5)"
        )
    if is_garrotte(ctx) and not ctx.situation.has("rear"):
        raise IllegalActionError(
            "a garrotte is used only from behind: declare the `rear` flag (HR-GARROTE-1)"
        )


def garrotte_rear_ac(ctx: AttackContext) -> Iterator[DefenceLoss]:
    """HR-GARROTE-1 with GAP-REAR-AC: rear AC is AC without Dex and shield (no +2 unless `flank_and_rear = mod`)."""
    if is_garrotte(ctx):
        yield DefenceLoss("both", "HR-GARROTE-1", "rear AC (GAP-REAR-AC)")


# --- HR-NET-1, HR-NET-2 ---------------------------------------------------------------------------------


def is_net(ctx: AttackContext) -> bool:
    return ctx.weapon.name.lower() == "net"


def net_allowed(ctx: AttackContext) -> None:
    """HR-NET-1: a net reaches 30 ft (TV-DER-13: 30 allowed, 35 not). HR-NET-2: netted, no attack."""
    if ctx.attacker.has("netted"):
        raise IllegalActionError(
            f"{ctx.attacker.name} is netted and cannot attack until it breaks free (HR-NET-2)"
        )
    if is_net(ctx) and ctx.distance > 30:
        raise IllegalActionError(f"a net can be thrown up to 30 ft, not {ctx.distance} ft (HR-NET-1)")


def net_effects(ctx: AttackContext) -> Iterator[tuple[str, Effect]]:
    """HR-NET-1: a hit entangles the target until it breaks the net (HR-NET-2)."""
    if is_net(ctx):
        yield ("hit", Effect("netted", "defender", None, "HR-NET-1"))


def can_move(c: CombatantView) -> bool:
    """HR-NET-2: a netted creature cannot move (with every other immobile condition of ODD-MOVE-7);
    a garrotter holds its place (HR-GARROTE-5)."""
    return not (movement.is_restrained(c) or c.has("garrotting"))


# --- HR-MISSILE-1..3 ------------------------------------------------------------------------------------


def shooter_in_melee(ctx: AttackContext) -> bool:
    """In melee with some enemy: on the grid, or when the referee says so (the `in_melee` flag)."""
    if ctx.situation.has("in_melee"):
        return True
    me = ctx.attacker
    if me.position is None:
        return False
    return any(in_melee(ctx.state, me, foe) for foe in ctx.state.living_enemies(me.name) if foe.position)


def missile_allowed(ctx: AttackContext) -> None:
    """HR-MISSILE-1: no missile at a target within 5 ft (TV-DER-14). HR-MISSILE-2: leave melee first."""
    if not ctx.ruleset.missile_restrictions or not ctx.is_ranged:
        return
    if ctx.distance <= 5:
        raise IllegalActionError(
            f"missiles only at targets more than 5 ft away, not {ctx.distance} ft (HR-MISSILE-1)"
        )
    if shooter_in_melee(ctx) and not ctx.free_attack:
        raise IllegalActionError(
            f"{ctx.attacker.name} is in melee: move out of it before firing (HR-MISSILE-2)"
        )


def firing_effects(ctx: AttackContext) -> Iterator[tuple[str, Effect]]:
    """HR-MISSILE-3: firing a missile costs the Dex bonus to AC for the rest of the round (interpretation)."""
    firing = ctx.ruleset.missile_restrictions and ctx.is_ranged and not ctx.free_attack
    if firing and not ctx.attacker.has("firing_missile"):
        yield ("attempt", Effect("firing_missile", "attacker", 0, "HR-MISSILE-3"))


def shooter_loses_dex(ctx: AttackContext) -> Iterator[DefenceLoss]:
    """HR-MISSILE-3: a character who fired a missile this round has no Dex bonus to AC."""
    if ctx.ruleset.missile_restrictions and ctx.defender.has("firing_missile"):
        yield DefenceLoss("dex", "HR-MISSILE-3", "fired a missile this round")


# --- HR-MISSILE-4, HR-MISSILE-5: missiles into melee ----------------------------------------------------------


def second_roll_possible(ctx: AttackContext) -> bool:
    """HR-MISSILE-4/5 (`missiles_into_melee = hr_cover_second_roll`): a declared missile (not a free
    attack) at a target in a melee (flag `into_melee`) that the referee gives cover."""
    if ctx.ruleset.missiles_into_melee is not MissilesIntoMelee.HR_COVER_SECOND_ROLL or ctx.free_attack:
        return False
    return ctx.is_ranged and ctx.situation.has("into_melee") and ctx.situation.cover != "none"


def missed_only_for_cover(ctx: AttackContext, natural: int) -> bool:
    """HR-MISSILE-5: the missile would have hit without the melee cover (interpretation)."""
    uncovered = plan_attack(replace(ctx, situation=replace(ctx.situation, cover="none")))
    return uncovered.check.succeeds(natural)


def others_in_the_melee(ctx: AttackContext) -> list[str]:
    """HR-MISSILE-5: the other combatants in melee with the target, in file order."""
    return [
        c.name
        for c in ctx.state.active()
        if c.name not in {ctx.attacker.name, ctx.defender.name} and in_melee(ctx.state, c, ctx.defender)
    ]


# --- HR-TOUCH-1..4 -----------------------------------------------------------------------------------------


def touch_allowed(ctx: AttackContext) -> None:
    """HR-TOUCH-4: the quivering palm is not a touch attack; it uses the normal attack rules."""
    if ctx.form is AttackForm.TOUCH and "quivering palm" in ctx.weapon.name.lower():
        raise IllegalActionError(
            "the quivering palm is not a touch attack: make a normal attack (HR-TOUCH-4)"
        )


# --- HR-ARMDMG-1..5 ---------------------------------------------------------------------------------------


def armour_after_critical_hit(d: CombatantView) -> tuple[int, int, bool] | None:
    """HR-ARMDMG-1: a critical hit makes worn armour 1 AC worse (leather DAC 8 → 9, TV-002-01); HR-ARMDMG-3:
    non-magical armour that reaches DAC 10 is destroyed. (DAC now, DAC after, destroyed), or None when
    there is no armour left to damage."""
    armour = d.spec.armour
    if armour is None or d.armour_destroyed:
        return None
    dac_now = (armour.ac if armour.ac is not None else 10 - (armour.ac_bonus or 0)) + d.armour_loss
    dac_after = min(10, dac_now + 1)
    return dac_now, dac_after, dac_after >= 10 and not is_magical(armour)


def shield_takes_critical(d: CombatantView) -> bool:
    """HR-ARMDMG-4: a non-magical shield may take the loss instead (`sacrifice_shield`) and is destroyed."""
    shield = d.spec.shield
    return bool(
        d.spec.sacrifice_shield and shield is not None and not d.shield_destroyed and not is_magical(shield)
    )


def is_magical(item: Any) -> bool:
    return bool(getattr(item, "magical", False) or getattr(item, "enhancement", 0))


def armour_recovery(loss: int, days: int, magical: bool) -> int:
    """HR-ARMDMG-5: enchanted armour regains 1 AC a day (magic plate at AC 4 → AC 3 after 24 h, TV-002-02).
    HR-ARMDMG-2: ordinary armour keeps its loss until repaired. Returns the loss that remains."""
    if days < 0:
        raise IllegalActionError("days of rest cannot be negative")
    return max(0, loss - days) if magical else loss


# --- HR-WITHDRAW-1..3 and attacks of opportunity (GAP-AOO) ---------------------------------------------------


def withdraw_allowed(ctx: AttackContext) -> None:
    """HR-WITHDRAW-3: a creature that withdrew this round attacks nobody."""
    if ctx.attacker.has("withdrawing") and not ctx.free_attack:
        raise IllegalActionError(f"{ctx.attacker.name} withdrew this round and cannot attack (HR-WITHDRAW-3)")
