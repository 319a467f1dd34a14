"""Time, movement and charging in the ODD round (ODD-ROUND-2, ODD-MOVE-1..7, ODD-ACT-ATK, ODD-CHARGE-1..5).

Movement numbers are pure functions of feet; fractions are dropped everywhere (ODD-MOVE-3). Positions
are squares of a 5-ft grid (ODD-MOVE-4); the distance between two squares counts a diagonal step as
one square, as :func:`grid_distance` does. Without positions the referee states
distances in the action and the same functions decide.

The charge contributors apply only under ``charge = odd_damage_bonus``: a declared melee attack after
a straight run of base..jog feet (ODD-CHARGE-1/2), +2 damage (ODD-CHARGE-3), AC 4 worse for the whole
round (ODD-CHARGE-4), no +2 if the charged defender hit the charger first (ODD-CHARGE-5). The
``charging`` condition carries the charge's target and whether it was negated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from itertools import pairwise

from referee.checks import Modifier
from referee.errors import IllegalActionError
from referee.rules.attack import Effect, range_band
from referee.rules.context import AttackContext, AttackForm
from referee.rules.options import Charge
from referee.rules.view import CombatantView

# --- time (ODD-ROUND-2) -------------------------------------------------------------------------------

ROUND_SECONDS = 10
ROUNDS_PER_TURN = 6


def seconds(rounds: int) -> int:
    """ODD-ROUND-2: a round is 10 seconds."""
    return rounds * ROUND_SECONDS


def turns(rounds: int) -> tuple[int, int]:
    """ODD-ROUND-2: six rounds make a turn (about a minute): (whole turns, rounds left over)."""
    return divmod(rounds, ROUNDS_PER_TURN)


# --- movement rates -----------------------------------------------------------------------------------

PACES: dict[str, int] = {"walk": 1, "jog": 2, "run": 4}  # ODD-MOVE-2

# GAP-ENCUMBRANCE: the encumbrance section is missing; these factors are the documented default.
ENCUMBRANCE: dict[str, Fraction] = {
    "moderately_encumbered": Fraction(3, 4),
    "encumbered": Fraction(1, 2),
    "overloaded": Fraction(1, 4),
}

# Conditions that leave a creature "restrained or otherwise unable to move" (ODD-MOVE-7).
IMMOBILE = ("grappled", "bound", "held", "paralyzed", "paralyzed_fear", "entangled", "netted", "garrotted",
            "unconscious", "sleeping", "sleeping_natural")  # fmt: skip

MAX_REDUCTION = Fraction(3, 4)  # ODD-MOVE-6


def drop_fractions(feet: Fraction | int) -> int:
    """ODD-MOVE-3: drop all fractions, but never below 1 ft."""
    return max(1, int(feet))


# Rules that scale the rate (underwater, slowed, stunned): (factor, rule, reason) or None; listed in
# referee.rules.registry.RATE_RULES. A factor of 0: it cannot move at all this round (ODD-MOVE-7).
RateRule = Callable[[CombatantView], "tuple[Fraction, str, str] | None"]


def rate_factors(c: CombatantView) -> list[tuple[Fraction, str, str]]:
    from referee.rules import registry  # it lists rules of modules that import this one

    return [f for rule in registry.RATE_RULES if (f := rule(c)) is not None]


def base_rate(c: CombatantView) -> int:
    """ODD-MOVE-1: the listed rate, reduced by the heaviest encumbrance condition (GAP-ENCUMBRANCE),
    then by any listed rate rule (MOD-UW-2 underwater, MOD-COND-SLOWED)."""
    factors = [f for name, f in ENCUMBRANCE.items() if c.has(name)]
    rate = c.spec.move
    if factors and rate:
        rate = drop_fractions(rate * min(factors))
    for factor, _rule, _reason in rate_factors(c):
        rate = int(rate * factor) if factor else 0
    return rate


def pace_rate(rate: int, pace: str) -> int:
    """ODD-MOVE-2: walk = the rate, jog = 2×, run = 4×."""
    if pace not in PACES:
        raise IllegalActionError(f"pace {pace!r} is not one of: {', '.join(PACES)} (ODD-MOVE-2)")
    return rate * PACES[pace]


def parse_reduction(value: str | int | float | Fraction | None) -> Fraction:
    """A terrain reduction as a fraction of the rate: `1/2`, `0.75`, `50%` or 50 (percent)."""
    if value is None or value == 0:
        return Fraction(0)
    text = str(value).strip()
    try:
        if text.endswith("%"):
            found = Fraction(text[:-1]) / 100
        else:
            found = Fraction(text)
            if found > 1:
                found /= 100  # a whole number above 1 is a percentage
    except (ValueError, ZeroDivisionError):
        raise IllegalActionError(
            f"terrain reduction {value!r} is not a fraction like 1/2, 0.75 or 50%"
        ) from None
    if found < 0 or found >= 1:
        raise IllegalActionError(f"terrain reduction {value!r} must be at least 0 and below the whole rate")
    return found


def reduced_rate(rate: int, reduction: Fraction, restrained: bool = False) -> int:
    """ODD-MOVE-6: the referee may reduce the rate for terrain or injury, by at most three-quarters;
    ODD-MOVE-3: fractions dropped; ODD-MOVE-7: at least 5 ft unless restrained (TV-DER-03: 30 ft, 75% → 7 ft)."""
    if restrained:
        return 0
    if reduction > MAX_REDUCTION:
        raise IllegalActionError(
            f"a terrain reduction of {reduction} is more than three-quarters of the rate (ODD-MOVE-6)"
        )
    feet = drop_fractions(rate * (1 - reduction)) if rate else 0
    return max(5, feet)


def half_move(rate: int) -> int:
    """ODD-ACT-ATK: an attack allows half the movement rate, fractions dropped (25 ft → 12 ft)."""
    return rate // 2 if rate >= 2 else rate


def squares(feet: int) -> int:
    """ODD-MOVE-4: grid units (squares, hexes, inches) = feet ÷ 5, fractions dropped (12 ft → 2)."""
    return feet // 5


def is_restrained(c: CombatantView) -> bool:
    return any(c.has(name) for name in IMMOBILE) or any(f == 0 for f, _, _ in rate_factors(c))


def allowance(c: CombatantView, pace: str = "walk", reduction: Fraction = Fraction(0)) -> int:
    """How far `c` may move this round at a pace: ODD-MOVE-1, -2, -3, -6, -7 together."""
    restrained = is_restrained(c)
    return reduced_rate(pace_rate(base_rate(c), pace), reduction, restrained)


# --- the grid (ODD-MOVE-4, ODD-MOVE-5) ----------------------------------------------------------------

Point = tuple[int, int]


def grid_distance(a: CombatantView, b: CombatantView) -> int | None:
    """ODD-MOVE-4: squares of 5 ft; diagonal steps count as one square (an assumption). None off the grid."""
    if a.position is None or b.position is None:
        return None
    return feet_between(a.position, b.position)


def feet_between(a: Point, b: Point) -> int:
    """Distance in feet between two squares; a diagonal step counts as one square (5 ft)."""
    return 5 * max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def along_line(start: Point, goal: Point, steps: int) -> Point:
    """The square `steps` squares from `start` on the straight line to `goal` (never past it)."""
    span = max(abs(goal[0] - start[0]), abs(goal[1] - start[1]))
    if span == 0:
        return start
    t = Fraction(min(steps, span), span)
    return (start[0] + round(t * (goal[0] - start[0])), start[1] + round(t * (goal[1] - start[1])))


def adjacent_toward(start: Point, goal: Point) -> Point:
    """The square next to `goal` on the straight line from `start` (where a charge ends)."""
    span = max(abs(goal[0] - start[0]), abs(goal[1] - start[1]))
    return along_line(start, goal, max(0, span - 1))


def path_length(points: list[Point]) -> int:
    """ODD-MOVE-5: a move may turn corners; its length is the sum of its legs."""
    return sum(feet_between(a, b) for a, b in pairwise(points))


# --- charging (ODD-CHARGE-1..5) -----------------------------------------------------------------------


def charge_window(c: CombatantView) -> tuple[int, int]:
    """ODD-CHARGE-2: at least the base rate, at most the jogging rate (TV-000-09: Una 30..60 ft)."""
    rate = base_rate(c)
    return rate, pace_rate(rate, "jog")


def check_charge(c: CombatantView, distance: int) -> None:
    """Raise unless a charge over `distance` feet is allowed (ODD-CHARGE-2)."""
    low, high = charge_window(c)
    if is_restrained(c):
        raise IllegalActionError(f"{c.name} cannot move, so cannot charge (ODD-MOVE-7)")
    if not low <= distance <= high:
        raise IllegalActionError(
            f"{c.name} can charge only {low}-{high} ft (base to jog, ODD-CHARGE-2), not {distance} ft"
        )


def odd_charge(ctx: AttackContext) -> bool:
    return ctx.charge and ctx.ruleset.charge is Charge.ODD_DAMAGE_BONUS


def charge_allowed(ctx: AttackContext) -> None:
    """ODD-CHARGE-1: a charge is a melee attack after jogging or running; ODD-CHARGE-2: base..jog feet."""
    if not odd_charge(ctx):
        return
    if ctx.form is AttackForm.RANGED:
        raise IllegalActionError("a charge ends in a melee attack, not a missile (ODD-CHARGE-1)")
    check_charge(ctx.attacker, ctx.distance)


def melee_needs_reach(ctx: AttackContext) -> None:
    """ODD-ACT-ATK: a melee attack needs the foe within reach; to close further than half the movement
    rate the attacker must charge (ODD-CHARGE-1) or spend the round moving. On the grid the gap is the
    squares between them; without positions, the attack's distance (the encounter's, less what has been
    closed: the same rule either way)."""
    a, d = ctx.attacker.position, ctx.defender.position
    if ctx.is_ranged or ctx.charge or ctx.free_attack:
        return
    gap = feet_between(a, d) if a is not None and d is not None else ctx.distance
    reach = max(5, ctx.weapon.reach)
    if gap > reach:
        raise IllegalActionError(
            f"{ctx.defender.name} is {gap} ft from {ctx.attacker.name}, beyond the reach of its "
            f"{ctx.weapon.name} ({reach} ft); move or charge first (ODD-ACT-ATK)"
        )


def missile_in_range(ctx: AttackContext) -> None:
    """ODD-RANGED-3: beyond three range increments (long range) no missile attack is possible."""
    if not ctx.is_ranged or not ctx.weapon.range:
        return
    if range_band(ctx.weapon.range, ctx.distance) is None:
        raise IllegalActionError(
            f"{ctx.defender.name} is {ctx.distance} ft away, beyond the long range of {ctx.attacker.name}'s "
            f"{ctx.weapon.name} ({3 * ctx.weapon.range} ft, ODD-RANGED-3)"
        )


def charge_effects(ctx: AttackContext) -> Iterator[tuple[str, Effect]]:
    """ODD-CHARGE-4: the charger is `charging` (AC 4 worse) for the rest of the round, hit or miss —
    unless the charge was declared before the round's first action, which already set it."""
    if odd_charge(ctx) and not ctx.attacker.has("charging"):
        yield "attempt", Effect("charging", "attacker", 0, "ODD-CHARGE-4")


def charge_damage(ctx: AttackContext) -> Iterator[Modifier]:
    """ODD-CHARGE-3: +2 damage; ODD-CHARGE-5: none if the charged defender hit the charger first."""
    if not odd_charge(ctx):
        return
    cond = ctx.attacker.conditions.get("charging")
    if cond is not None and cond.data.get("negated"):
        yield Modifier(
            0, "ODD-CHARGE-5", f"charge negated: {cond.data.get('negated_by', 'the defender')} hit first"
        )
        return
    yield Modifier(2, "ODD-CHARGE-3", "charge")


def charger_exposed(ctx: AttackContext) -> Iterator[Modifier]:
    """ODD-CHARGE-4: a charger's AC is 4 worse for the whole round, also against first strikes and missiles."""
    if ctx.defender.has("charging") and ctx.ruleset.charge is Charge.ODD_DAMAGE_BONUS:
        yield Modifier(-4, "ODD-CHARGE-4", "charging this round")
