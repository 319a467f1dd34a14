"""The example encounters the agreement tests use, which path each takes, and comparisons with power:
how many fights see a 2-point difference at 4.5 standard errors, and the checks of a simulated result
against exact odds or against another sample."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import numpy as np
from tests.conftest import EXAMPLES

from referee import sim
from referee.files import Setup, load_encounter, read_yaml
from referee.rules.ruleset import PRESETS, Ruleset

Z = 4.5  # standard errors a difference may reach before a comparison fails
DIFFERENCE = 0.02  # the difference in a win rate every comparison must be able to see


def fights_to_see(p: float, difference: float = DIFFERENCE, z: float = Z) -> int:
    """Fights whose standard error puts `difference` at `z` standard errors for a rate near `p`."""
    return math.ceil(z * z * max(p * (1 - p), 1e-4) / (difference * difference))


def visible_difference(p: float, n: int, z: float = Z) -> float:
    """The smallest difference a rate near `p` from `n` fights shows at `z` standard errors."""
    return z * math.sqrt(max(p * (1 - p), 1e-4) / n)


def encounter_files() -> list[Path]:
    return sorted(
        p for p in EXAMPLES.glob("*.yaml") if isinstance(read_yaml(p), dict) and "sides" in read_yaml(p)
    )


def under(path: Path | str, preset: str) -> Setup:
    """An example under a preset, keeping the options the example itself sets."""
    base = load_encounter(EXAMPLES / path)
    return replace(base, ruleset=Ruleset.preset(preset).with_options(**base.ruleset.overrides()))


ALL_CASES = [(p.name, preset) for p in encounter_files() for preset in PRESETS]

# The cases the fast path plays (every other example and preset falls back to the event engine, and
# says why). Small ones are checked against the exact odds, the group fights against the engine.
VECTORISED_CASES = {
    *((example, preset) for example in ("angthar_and_the_goblins.yaml", "duel.yaml", "lucas_and_krieger.yaml",
      "overbear.yaml", "preset_full.yaml", "preset_mf.yaml", "pummel.yaml", "skirmish.yaml", "touch.yaml")
      for preset in PRESETS),
    *(("fog_and_cover.yaml", preset) for preset in PRESETS),
    *(("house_rules_duel.yaml", preset) for preset in PRESETS),
    *(("preset_hr.yaml", preset) for preset in PRESETS),
    *(("mod_conditions.yaml", preset) for preset in PRESETS),  # under `mod` segment delays (GAP-SEGMENTS)
    *(("owlbear.yaml", preset) for preset in PRESETS),  # a routine, one attack at a time (ODD-ATK-3)
    # drowning, an end of round that rolls dice, per round (MF-DROWN-2/3); under `mod` segment delays too
    *(("underwater.yaml", preset) for preset in PRESETS),
}  # fmt: skip
# Small cases the exact odds refuse but the fast path carries: the free round of surprise (ODD-SURP-4),
# armour damaged by criticals (HR-ARMDMG-1..4, the `hr` and `full` presets), subdual damage (GAP-SUBDUAL),
# conditions that come and go (a sleeper who wakes, MOD-COND-SLEEP-M), overbearing's subdual damage, a
# routine that moves on to another target when its target falls (ODD-ATK-3), deflections spent that a blow
# back meets (MF-FUMBLE-2 under `dac`).
# They are checked against the event engine.
EXACT_REFUSES = {
    (example, preset) for example, preset in VECTORISED_CASES
    if preset in {"hr", "full"} or (example, preset) == ("house_rules_duel.yaml", "dac")
    or example in {"overbear.yaml", "owlbear.yaml", "preset_full.yaml", "preset_hr.yaml", "preset_mf.yaml",
                   "pummel.yaml", "underwater.yaml"}
}  # fmt: skip
EXACT_COMBATANTS = 4  # the exact chain answers these in seconds (its real bound is odds.MAX_CELLS)
EXACT_CASES = sorted(
    c for c in VECTORISED_CASES - EXACT_REFUSES if len(under(*c).combatants) <= EXACT_COMBATANTS
)
ENGINE_CASES = sorted(VECTORISED_CASES - set(EXACT_CASES))
FALLBACK_CASES = [c for c in ALL_CASES if c not in VECTORISED_CASES]


def rounds_spread(result: sim.SimResult) -> float:
    """The standard deviation of the round a fight ended in."""
    rounds = result.tally.rounds
    mean = result.mean_rounds()
    return math.sqrt(
        float(((np.arange(rounds.size) - mean) ** 2 * rounds).sum()) / max(1, result.tally.fights)
    )


def assert_matches_exact(
    result: sim.SimResult, wins: Mapping[str, float], draw: float, limit: float, mean_rounds: float
) -> None:
    """Every side's win rate, the draws, the round limit and the mean rounds within Z standard errors
    of exact values (the sample's error alone: the exact side has none)."""
    n = result.tally.fights
    t = result.tally
    observed = {
        **{s: result.win_rate(s) for s in result.setup.sides},
        "draw": t.draws / n,
        "limit": t.round_limit / n,
    }
    for what, p in {**wins, "draw": draw, "limit": limit}.items():
        p = min(1.0, max(0.0, p))  # float sums may stray past 1 by an ulp
        se = math.sqrt(p * (1 - p) / n)
        assert abs(observed[what] - p) <= Z * se + 1e-9, (what, observed[what], p, n)
    se = rounds_spread(result) / math.sqrt(n)
    assert abs(result.mean_rounds() - mean_rounds) <= Z * se + 1e-9, (result.mean_rounds(), mean_rounds)


def assert_samples_agree(fast: sim.SimResult, slow: sim.SimResult) -> None:
    """Two samples of the same fights: win rates and mean rounds within Z standard errors of their
    difference (a rate's error has a floor of one fight in the smaller sample)."""
    n, m = fast.tally.fights, slow.tally.fights
    for side in fast.setup.sides:
        p = (fast.win_rate(side) * n + slow.win_rate(side) * m) / (n + m)
        se = math.sqrt((p * (1 - p) + 1 / min(n, m)) * (1 / n + 1 / m))
        assert abs(slow.win_rate(side) - fast.win_rate(side)) <= Z * se, (
            side,
            fast.win_rate(side),
            slow.win_rate(side),
        )
    spread = max(rounds_spread(fast), rounds_spread(slow), 1.0)
    se = spread * math.sqrt(1 / n + 1 / m)
    assert abs(slow.mean_rounds() - fast.mean_rounds()) <= Z * se, (fast.mean_rounds(), slow.mean_rounds())
