"""Exact odds of one declared attack, enumerated from the engine's own attack roll.

The engine plans the attack as an :class:`~referee.rules.attack.AttackPlan`; the chance of each outcome
of the roll comes from running :func:`rules.attack_roll.roll_attack` — the d20 (two under advantage,
GAP-ADV), the confirmation dice (HR-CRIT-1, HR-FUMBLE-1), the miss-chance die (MF-VIS-5, X-11) — on every
sequence of faces (:func:`referee.chance.distribution`), and the damage of each hit from
:func:`rules.attack_roll.roll_damage` the same way. Both are looked up as module attributes at call
time, so a house rule written there reaches the odds. The sum of a plain damage expression of more
than a few dice is the one fast path (icepool, :mod:`referee.odds.dice`). Probabilities are
:class:`fractions.Fraction`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any, overload

from referee import chance
from referee.dice import DiceSource, parse_dice
from referee.engine import resolve as engine
from referee.engine.actions import Action, Attack
from referee.engine.state import CombatantState, FightState
from referee.odds.errors import OddsError
from referee.rules import attack_roll
from referee.rules.attack import AttackPlan
from referee.rules.ruleset import Ruleset

ENUMERATION_LIMIT = chance.DEFAULT_LIMIT  # dice sequences one exact walk may visit
SMALL_WALK = 216  # damage dice sequences (3d6) walked through the engine's roll rather than icepool's sum


@dataclass(frozen=True)
class Outcome:
    """What the attack roll did (the fields of the engine's AttackOutcome, without the natural)."""

    hit: bool
    critical: bool = False
    fumble: bool = False
    missed_by_chance: bool = False


def distribution_of(fn: Callable[[DiceSource], Any], what: str) -> dict[Any, Fraction]:
    """:func:`chance.distribution`, refusing (OddsError) past the enumeration limit."""
    try:
        return chance.distribution(fn, ENUMERATION_LIMIT, what)
    except chance.TooManyOutcomes as exc:
        raise OddsError(f"{exc}; use `referee sim` instead") from None


def procedures() -> tuple[Callable[..., Any], ...]:
    """The procedures :mod:`rules.attack_roll` holds now: part of every memo key (held, so never
    mistaken for another), so a step replaced there (another confirmation procedure) is never answered
    from an old result."""
    return tuple(v for v in vars(attack_roll).values() if callable(v))


@lru_cache(maxsize=512)
def _roll_distribution(
    plan: AttackPlan, _procedures: tuple[Callable[..., Any], ...]
) -> dict[attack_roll.AttackOutcome, Fraction]:
    return distribution_of(lambda dice: attack_roll.roll_attack(plan, dice), f"{plan.attacker}'s attack roll")


def roll_outcomes(plan: AttackPlan) -> dict[attack_roll.AttackOutcome, Fraction]:
    """Every result of the engine's attack roll for this plan (naturals included), with its chance;
    memoised per plan (and per set of procedures)."""
    return _roll_distribution(plan, procedures())


def attack_outcomes(plan: AttackPlan) -> dict[Outcome, Fraction]:
    """Every outcome of the attack roll with its chance, as :func:`rules.attack_roll.roll_attack`
    rolls it: the d20 (two under advantage), then a confirmation d20 (HR-CRIT-1, HR-FUMBLE-1), then
    the miss-chance die (MF-VIS-5, X-11)."""
    out: dict[Outcome, Fraction] = {}
    for rolled, p in roll_outcomes(plan).items():
        outcome = Outcome(rolled.hit, rolled.critical, rolled.fumble, rolled.missed_by_chance)
        out[outcome] = out.get(outcome, Fraction(0)) + p
    return out


@lru_cache(maxsize=1024)
def _damage_distribution(
    plan: AttackPlan, outcome: attack_roll.AttackOutcome, _procedures: tuple[Callable[..., Any], ...]
) -> dict[int, Fraction]:
    expr, maximise, mods = attack_roll.damage_recipe(plan, outcome.critical)
    if attack_roll.roll_damage is not _ROLL_DAMAGE:  # a house rule replaced the procedure: walk it
        return distribution_of(
            lambda dice: int(attack_roll.roll_damage(plan, outcome, dice)[0]), f"{plan.attacker}'s damage"
        )
    # the fast path for pure sums: roll_damage is this sum (or its maximum) plus the modifiers
    if maximise:
        return {attack_roll.damage_amount(plan, parse_dice(expr).maximum, mods): Fraction(1)}
    if math.prod(g.sides**g.count for g in parse_dice(expr).groups()) <= SMALL_WALK:
        # a few dice: walking the engine's own roll takes well under a millisecond, importing icepool
        # about 30 ms of a one-shot `referee odds`; in icepool's order (by amount)
        return dict(sorted(distribution_of(
            lambda dice: int(attack_roll.roll_damage(plan, outcome, dice)[0]), f"{plan.attacker}'s damage"
        ).items()))  # fmt: skip
    from referee.odds.dice import dice_die, die_fractions  # icepool: a whole fight's odds do not need it

    return die_fractions(dice_die(expr).map(lambda total: attack_roll.damage_amount(plan, total, mods)))


_ROLL_DAMAGE = attack_roll.roll_damage  # the procedure the fast path stands for


def outcome_damage(plan: AttackPlan, outcome: attack_roll.AttackOutcome) -> dict[int, Fraction]:
    """Damage of a hit as :func:`rules.attack_roll.roll_damage` rolls it for this outcome."""
    if plan.damage.none:
        return {0: Fraction(1)}
    return _damage_distribution(plan, outcome, procedures())


def hit_damage(plan: AttackPlan, critical: bool) -> dict[int, Fraction]:
    """Damage of a hit (or a critical hit): dice, or their maximum (MF-CRIT-1, HR-HELPLESS-2), doubled
    dice (GAP-CRIT-002), modifiers, the minimum — from the engine's own roll of the damage."""
    outcome = attack_roll.AttackOutcome(
        natural=20 if critical else 0, hit=True, critical=critical, fumble=False, missed_by_chance=False
    )
    return outcome_damage(plan, outcome)


@dataclass(frozen=True)
class ActionOdds:
    """The exact odds of one declared attack. Probabilities are Fractions."""

    attacker: str
    target: str
    weapon: str
    form: str
    needed: int | None  # lowest natural roll that hits (None: automatic, or nothing hits)
    hit: Fraction
    critical: Fraction
    fumble: Fraction
    missed_by_chance: Fraction
    damage_on_hit: Mapping[int, Fraction]  # damage given a hit (criticals included)
    damage: Mapping[int, Fraction]  # damage of the action overall (0 = a miss, or a hit without damage)
    expected_damage: Fraction
    drop: Fraction  # chance the action takes the target out from its current hit points
    drop_status: Mapping[str, Fraction] = field(default_factory=dict)  # ... as "unconscious" / "dead"
    subdual: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: probabilities as decimals."""
        return {
            "attacker": self.attacker,
            "target": self.target,
            "weapon": self.weapon,
            "form": self.form,
            "needed": self.needed,
            "hit": float(self.hit),
            "crit": float(self.critical),
            "fumble": float(self.fumble),
            "missed_by_chance": float(self.missed_by_chance),
            "damage": {str(k): float(v) for k, v in sorted(self.damage.items())},
            "damage_on_hit": {str(k): float(v) for k, v in sorted(self.damage_on_hit.items())},
            "expected_damage": float(self.expected_damage),
            "drop": float(self.drop),
            "drop_status": {k: float(v) for k, v in sorted(self.drop_status.items())},
            "subdual": self.subdual,
        }


@lru_cache(maxsize=512)
def _roll_summary(
    plan: AttackPlan, _procedures: tuple[Callable[..., Any], ...]
) -> tuple[dict[int, Fraction], tuple[Fraction, Fraction, Fraction, Fraction]]:
    """What the plan's roll and damage give whatever the target's hit points: the chance of a hit
    dealing each amount, and the chances of a hit, a critical, a fumble, a miss by chance (memoised per
    plan: one attack's odds at each of the target's starting hit points share one plan)."""
    rolled = roll_outcomes(plan)
    hits: dict[int, Fraction] = {}  # amount → chance of a hit dealing it
    for outcome, p in rolled.items():
        if outcome.hit:
            for amount, q in outcome_damage(plan, outcome).items():
                hits[amount] = hits.get(amount, Fraction(0)) + p * q

    def chance_of(test: Callable[[attack_roll.AttackOutcome], bool]) -> Fraction:
        return sum((p for o, p in rolled.items() if test(o)), Fraction(0))

    chances = (
        chance_of(lambda o: o.hit), chance_of(lambda o: o.critical), chance_of(lambda o: o.fumble),
        chance_of(lambda o: o.missed_by_chance),
    )  # fmt: skip
    return hits, chances


def plan_odds(plan: AttackPlan, target: CombatantState, ruleset: Ruleset) -> ActionOdds:
    """Exact odds of a planned attack against `target` as it stands now."""
    hits, (hit, critical, fumble, missed_by_chance) = _roll_summary(plan, procedures())
    statuses = drop_statuses(plan, target, ruleset, hits)
    if plan.damage.knockout:  # what the target takes depends on its hit points (MF-KO-1)
        hits = _dealt(hits, target, plan)
    on_hit = {amount: p / hit for amount, p in hits.items()}
    overall = dict(hits)
    if hit < 1:
        overall[0] = overall.get(0, Fraction(0)) + 1 - hit
    return ActionOdds(
        attacker=plan.attacker,
        target=plan.defender,
        weapon=plan.weapon,
        form=plan.form.value,
        needed=None if plan.check.automatic is not None else plan.check.needed(),
        hit=hit,
        critical=critical,
        fumble=fumble,
        missed_by_chance=missed_by_chance,
        damage_on_hit=dict(sorted(on_hit.items())),
        damage=dict(sorted(overall.items())),
        expected_damage=sum((v * p for v, p in overall.items()), Fraction(0)),
        drop=sum(statuses.values(), Fraction(0)),
        drop_status=statuses,
        subdual=plan.damage.subdual,
    )


def _dealt(damage: Mapping[int, Fraction], target: CombatantState, plan: AttackPlan) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for amount, p in damage.items():
        dealt = engine.damage_dealt(target.hp, amount, plan.damage.subdual, plan.damage.knockout)
        out[dealt] = out.get(dealt, Fraction(0)) + p
    return dict(sorted(out.items()))


def drop_statuses(
    plan: AttackPlan, target: CombatantState, ruleset: Ruleset, damage: Mapping[int, Fraction]
) -> dict[str, Fraction]:
    """The chance of each status the damage of the hits (`damage`: amount → chance of a hit dealing it)
    leaves the target in, when it is a change (a DEFEAT event): :func:`engine.resolve.damage_dealt` and
    :func:`engine.resolve.defeat_status`, as the engine's damage events use them."""
    out: dict[str, Fraction] = {}
    subdual, knockout = plan.damage.subdual, plan.damage.knockout
    if plan.damage.none:
        return out  # no damage event at all
    for amount, p in damage.items():
        dealt = engine.damage_dealt(target.hp, amount, subdual, knockout)
        status = engine.defeat_status(target, dealt, subdual, knockout, ruleset)
        if status is not None:
            out[status] = out.get(status, Fraction(0)) + p
    return out


@overload
def action_odds(state: FightState, action: Attack) -> ActionOdds: ...


@overload
def action_odds(state: FightState, action: Action) -> ActionOdds | None: ...


def action_odds(state: FightState, action: Action) -> ActionOdds | None:
    """Exact odds of a declared attack in the fight as it stands (the web tracker asks before each action);
    None for an action that is not an attack.

    Raises IllegalActionError, like the engine, if the attack cannot be made.
    """
    if not isinstance(action, Attack):
        return None
    _ctx, plan = engine.plan_declared_attack(state, action)
    return plan_odds(plan, state[plan.defender], state.setup.ruleset)
