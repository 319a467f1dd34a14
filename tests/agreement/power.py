"""How many fights an agreement test needs, and the test itself (docs/testing.md, "Agreement").

A sampled path (the fast simulator, the event engine's random fights) agrees with an exact answer `p`
when its frequency is within Z standard errors of `p`: |p̂ − p| ≤ Z·√(p(1−p)/n), Z = 4.5 (a false alarm
about once in 150,000 comparisons). The number of fights is chosen so that the test has the *power* to
fail when a path is SHIFT = 2 points off: if the path's true chance is q = p ± SHIFT, then p̂ is about
normal with mean q and standard deviation √(q(1−q)/n), and the test rejects with probability POWER (90%)
once √n·SHIFT ≥ Z·√(p(1−p)) + z_POWER·√(q(1−q)).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from statistics import NormalDist

Z = 4.5  # standard errors a sampled frequency may be off and still agree
SHIFT = 0.02  # the difference every comparison must be able to see
POWER = 0.9  # the chance of seeing it
EPSILON = 1e-12  # rounding of the exact chances (floats)


def _spread(p: float) -> float:
    return math.sqrt(max(p * (1 - p), 0.0))


def fights_for_power(p: float, shift: float = SHIFT, z: float = Z, power: float = POWER) -> int:
    """Fights needed so that a frequency whose true chance is `p ± shift` fails the Z-SE test around `p`
    with probability at least `power` (the worse of the two directions)."""
    z_power = NormalDist().inv_cdf(power)
    needed = 1.0
    for q in (p - shift, p + shift):
        if 0.0 <= q <= 1.0:
            needed = max(needed, ((z * _spread(p) + z_power * _spread(q)) / shift) ** 2)
    return math.ceil(needed)


def fights_for(exact: Mapping[str, float], shift: float = SHIFT) -> int:
    """Fights for a whole comparison: enough for the outcome that needs the most."""
    return max(fights_for_power(p, shift) for p in exact.values())


def rejection_chance(p: float, q: float, n: int, z: float = Z) -> float:
    """The chance (normal approximation) that n fights of a path whose true chance is q fail the test around p."""
    limit = z * _spread(p) / math.sqrt(n)
    if _spread(q) == 0:
        return 1.0 if abs(q - p) > limit + EPSILON else 0.0
    sd = _spread(q) / math.sqrt(n)
    normal = NormalDist(q, sd)
    return normal.cdf(p - limit) + 1 - normal.cdf(p + limit)


def disagreements(
    sampled: Mapping[str, float], exact: Mapping[str, float], n: int, z: float = Z
) -> list[str]:
    """Each outcome whose sampled frequency is more than z standard errors from its exact chance."""
    out = []
    for outcome, p in exact.items():
        seen = sampled.get(outcome, 0.0)
        limit = z * _spread(p) / math.sqrt(n) + EPSILON
        if abs(seen - p) > limit:
            out.append(f"{outcome}: {seen:.4f} in {n:,} fights, exact {p:.4f} (±{limit:.4f})")
    return out
