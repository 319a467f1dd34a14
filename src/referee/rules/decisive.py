"""What decided an outcome: the modifiers whose removal alone would have changed it (issue 13, item 12).

An attack's decisive modifiers are those whose removal alone flips hit and miss. They are found by
asking the one truth, :meth:`referee.checks.Check.succeeds`, about the same natural roll on a check with
that modifier taken away; nothing here restates the comparison. Two kinds of modifier count:

- the to-hit modifiers (ODD-BTH-1, ODD-MELEE-1, ODD-RANGED-3, the referee's ODD-SIT-1 ...);
- the components of the armour class (ODD-AC-ARMOR, ODD-AC-SHIELD, ODD-AC-DEX-1, DAC-DODGE-1 ...), each
  as the breakdown lists it in the AC's own convention. Without one, the AC is summed again from the
  others (the ODD-AC-2 floor applies) and the check's target moves as the AC's target number does: the AC itself
  when ascending, 20 - AC when descending (GAP-DESC-TOHIT). The first component is the AC's base (10,
  a listed AC, DAC-BASE-1 armour A), not a modifier. A component is taken out as listed: the AC is not
  rebuilt by its rules (under DAC-ENH-2 a lesser enhancement that would then count stays out).

Nothing is decisive when no modifier could change the verdict: an automatic result (HR-HELPLESS-1), a
natural 20 or 1 that hits or misses by itself (HR-NAT-1, MF-CRIT-1, MF-FUMBLE-1: ``succeeds`` ignores the
modifiers), a hit lost to the miss-chance die (MF-VIS-5), or a miss by the roll when a miss chance
applies (without the modifier the roll would hit, but the miss-chance die was never rolled, so the
verdict would not certainly change). Under advantage or disadvantage (GAP-ADV) the kept die is the
natural roll, and stays kept without the modifier.

A hit's decisive damage modifiers are those whose removal alone would have left the target as it was
(still standing): the damage is recomputed from the same dice with :func:`attack_roll.damage_amount`,
so the minimum damage (GAP-MIN-DAMAGE) and "double damage" (HR-CHARGE-4) apply as they did.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from referee.checks import Check, Modifier
from referee.dice import DieRoll, ScriptedDice, parse_dice, roll
from referee.rules import attack_roll, memo
from referee.rules.armour_class import ArmourClass
from referee.rules.attack import AttackPlan
from referee.rules.attack_roll import AttackOutcome
from referee.rules.ruleset import Ruleset

TO_HIT = "to-hit"  # a modifier of the attack roll
ARMOUR = "AC"  # a component of the defender's armour class
DAMAGE = "damage"  # a modifier of a hit's damage


@dataclass(frozen=True)
class Decisive:
    """A modifier that decided an outcome, and which side of the roll it acted on."""

    modifier: Modifier
    side: str = TO_HIT

    def to_dict(self) -> dict[str, object]:
        """`{rule, value, reason, side}`: the modifier as the event lists it, and where it acted."""
        return {**self.modifier.to_dict(), "side": self.side}

    def __str__(self) -> str:
        """`+1 Str [ODD-MELEE-1]`, or `+1 shield [ODD-AC-SHIELD] (AC)` for an armour-class component."""
        m = self.modifier
        text = f"{m.value:+d} {m.reason} [{m.rule}]"
        return f"{text} (AC)" if self.side == ARMOUR else text


# --- the attack roll ------------------------------------------------------------------------------


def without_modifier(check: Check, index: int) -> Check:
    """The check with its `index`-th to-hit modifier taken away."""
    return replace(check, modifiers=check.modifiers[:index] + check.modifiers[index + 1 :])


def without_ac_component(check: Check, ac: ArmourClass, index: int, ruleset: Ruleset) -> Check:
    """The check against the armour class assembled again without its `index`-th component.

    The target moves by as much as the AC's target number does (ArmourClass.to_hit_target: the AC, or
    20 - AC when descending), so anything else that built the target stays as it was."""
    from referee.rules.armour_class import _assemble  # the one assembler of an AC value (ODD-AC-2 floor)

    parts = ac.components[:index] + ac.components[index + 1 :]
    rebuilt = _assemble(list(parts), ac.convention, ac.kind, ruleset)
    target = check.target + rebuilt.to_hit_target - ac.to_hit_target
    shown = rebuilt.value if check.shown_target is not None else None
    return replace(check, target=target, target_modifiers=parts, shown_target=shown)


def check_decisive(
    check: Check, natural: int, ac: ArmourClass | None = None, ruleset: Ruleset | None = None
) -> tuple[Decisive, ...]:
    """The modifiers (and, given the AC and ruleset, AC components) whose removal alone would flip
    ``check.succeeds(natural)``, in the order the check and the AC list them. Zero entries never flip."""
    verdict = check.succeeds(natural)
    found = [
        Decisive(m)
        for i, m in enumerate(check.modifiers)
        if m.value and _reduced(check, None, i, None).succeeds(natural) != verdict
    ]
    if ac is not None and ruleset is not None:
        found += [
            Decisive(m, ARMOUR)
            for i, m in enumerate(ac.components)
            if i and m.value and _reduced(check, ac, i, ruleset).succeeds(natural) != verdict
        ]
    return tuple(found)


def _reduced(check: Check, ac: ArmourClass | None, index: int, ruleset: Ruleset | None) -> Check:
    """:func:`without_modifier` (no `ac`) or :func:`without_ac_component`: frozen values of frozen values,
    made once per check and component (every natural roll of one attack asks for the same ones), unless
    the engine's caches are off."""
    if not memo.ENABLED:
        return _reduce(check, ac, index, ruleset)
    key = (id(check), id(ac), index, id(ruleset))
    found = _REDUCED.get(key)
    if found is None or found[0] is not check or found[1] is not ac or found[2] is not ruleset:
        if len(_REDUCED) >= 8192:
            _REDUCED.clear()
        found = _REDUCED[key] = (check, ac, ruleset, _reduce(check, ac, index, ruleset))
    return found[3]


def _reduce(check: Check, ac: ArmourClass | None, index: int, ruleset: Ruleset | None) -> Check:
    if ac is None or ruleset is None:
        return without_modifier(check, index)
    return without_ac_component(check, ac, index, ruleset)


# (id(check), id(ac), index, id(ruleset)) -> (check, ac, ruleset, the check without that part): the values
# are kept so that their ids stay theirs
_REDUCED: dict[tuple[int, int, int, int], tuple[Check, ArmourClass | None, Ruleset | None, Check]] = {}


def attack_decisive(plan: AttackPlan, outcome: AttackOutcome, ruleset: Ruleset) -> tuple[Decisive, ...]:
    """What decided a rolled attack's hit or miss (see the module's description for what never is)."""
    if plan.check.automatic is not None or not outcome.faces:
        return ()  # an automatic result: no roll, nothing a modifier changes (HR-HELPLESS-1)
    if outcome.missed_by_chance:
        return ()  # the miss-chance die took the hit away (MF-VIS-5), not a modifier
    if plan.miss_chance and not outcome.hit:
        return ()  # without a penalty the roll would hit, but the miss-chance die would still be rolled
    return check_decisive(plan.check, outcome.natural, plan.armour_class, ruleset)


# --- the damage of a hit --------------------------------------------------------------------------


def damage_base(plan: AttackPlan, critical: bool, dice: Sequence[DieRoll]) -> int:
    """The dice part of a hit's damage (before modifiers, minimum and multiplier), replayed from the
    damage dice it rolled: the same expression and maximum as :func:`attack_roll.roll_damage`."""
    expr, maximise, _ = attack_roll.damage_recipe(plan, critical)
    if maximise:
        return parse_dice(expr).maximum
    if not memo.ENABLED:
        return roll(expr, ScriptedDice([d.value for d in dice]), "damage").total
    faces = tuple(d.value for d in dice)
    key = (expr, faces)  # the total of an expression's dice read from these faces: asked once
    found = _BASES.get(key)
    if found is None:
        if len(_BASES) >= 8192:
            _BASES.clear()
        found = _BASES[key] = roll(expr, ScriptedDice(faces), "damage").total
    return found


# (a dice expression, the faces of its dice) -> its total
_BASES: dict[tuple[str, tuple[int, ...]], int] = {}


def damage_decisive(
    plan: AttackPlan,
    base: int,
    modifiers: Sequence[Modifier],
    stays: Callable[[int], bool],
) -> tuple[Decisive, ...]:
    """The damage modifiers whose removal alone would have left the target as it was.

    `stays(amount)` says whether the target would be left as it was (standing) by that much damage;
    if it is even with every modifier, nothing decided a defeat."""
    mods = tuple(modifiers)
    if stays(attack_roll.damage_amount(plan, base, mods)):
        return ()
    return tuple(
        Decisive(m, DAMAGE)
        for i, m in enumerate(mods)
        if m.value and stays(attack_roll.damage_amount(plan, base, mods[:i] + mods[i + 1 :]))
    )


# --- after the fight: the rules that decided the most outcomes --------------------------------------


@dataclass(frozen=True)
class WhyRow:
    """One rule (with its reason) and how many outcomes it decided in a fight."""

    rule: str
    reason: str
    outcomes: int

    def to_dict(self) -> dict[str, object]:
        return {"rule": self.rule, "reason": self.reason, "outcomes": self.outcomes}


def tally(decided: Iterable[Sequence[Mapping[str, Any]]]) -> list[WhyRow]:
    """Count, over the outcomes' `decisive` lists, how many outcomes each (rule, reason) decided;
    the most first, then by rule ID. A rule that decided one outcome twice counts once."""
    counts: dict[tuple[str, str], int] = {}
    for entries in decided:
        for key in {(str(e["rule"]), str(e["reason"])) for e in entries}:
            counts[key] = counts.get(key, 0) + 1
    rows = [WhyRow(rule, reason, n) for (rule, reason), n in counts.items()]
    return sorted(rows, key=lambda r: (-r.outcomes, r.rule, r.reason))


def describe(entries: Iterable[Mapping[str, Any]]) -> str:
    """`+4 basic to-hit [ODD-BTH-1] and +1 Str [ODD-MELEE-1] decided it` for an event's `decisive`
    list (as its JSON holds it), or empty when nothing did."""
    names = [str(Decisive(Modifier.from_dict(dict(e)), str(e.get("side", TO_HIT)))) for e in entries]
    if not names:
        return ""
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return f"{listed} decided it"
