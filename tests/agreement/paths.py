"""The three paths, run the same way for every agreement test: each gives the chance of every outcome
(a win per side, `draw` = no side left, `limit` = the round limit), or refuses with its one-line reason."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from tests.agreement.power import disagreements, fights_for

from referee import odds, sim
from referee.dice import RandomDice
from referee.engine.fight import Fight, run_fight
from referee.errors import RefereeError
from referee.exact_engine import exact_fight
from referee.files import setup_from_data
from referee.setup import Setup

Outcomes = dict[str, float]
EXACT_TOLERANCE = 1e-9  # two exact paths


def outcomes(wins: Mapping[str, object], draw: object, limit: object) -> Outcomes:
    """The chance of each way a fight can end, as floats keyed `win <side>`, `draw`, `limit`."""
    out = {f"win {side}": float(p) for side, p in wins.items()}  # type: ignore[arg-type]
    out["draw"] = float(draw)  # type: ignore[arg-type]
    out["limit"] = float(limit)  # type: ignore[arg-type]
    return out


def one_line(exc: RefereeError) -> str:
    """A refusal's reason, checked to be what the error contract promises: one non-empty line."""
    reason = str(exc)
    assert reason and "\n" not in reason, f"a refusal must give a one-line reason, not {reason!r}"
    return reason


@dataclass
class Record:
    """What each path said about one encounter: its answer, or why it refused (kept in the test report)."""

    name: str
    refusals: dict[str, str] = field(default_factory=dict)
    compared: list[str] = field(default_factory=list)

    def refused(self, path: str, reason: str) -> None:
        self.refusals[path] = reason

    def summary(self) -> str:
        refused = "; ".join(f"{p} refuses: {r}" for p, r in self.refusals.items()) or "no path refuses"
        return f"{self.name}: compared {', '.join(self.compared) or 'nothing'}; {refused}"


def exact_odds(setup: Setup, record: Record) -> Outcomes | None:
    """The Markov chain's exact odds (referee.odds.fight_odds), or None (the refusal recorded)."""
    try:
        chain = odds.fight_odds(setup)
    except RefereeError as exc:
        record.refused("exact odds", one_line(exc))
        return None
    return outcomes(chain.wins, chain.draw, chain.limit)


def exact_walk(setup: Setup, record: Record, max_work: int) -> Outcomes | None:
    """The exact walk of the event engine (referee.exact_engine), or None over its budget (recorded)."""
    try:
        walked = exact_fight(setup, max_work=max_work, max_sequences=max_work)
    except RefereeError as exc:
        record.refused("exact engine walk", one_line(exc))
        return None
    return outcomes(walked.wins, walked.draw, walked.limit)


def vectorised(setup: Setup, record: Record) -> bool:
    """Whether the fast simulator runs `setup` on its compiled tables; if not, why (recorded)."""
    compiled, reason = sim.plan_run(setup)
    if compiled is None:
        record.refused("fast simulator", f"falls back to the event engine: {reason}")
        assert reason and "\n" not in reason, reason
    return compiled is not None


def simulated(setup: Setup, fights: int, seed: int = 11) -> Outcomes:
    """The fast simulator's frequencies over `fights` fights."""
    result = sim.simulate(setup, fights, seed=seed)
    n = result.tally.fights
    assert n == fights
    wins = {side: result.win_rate(side) for side in setup.sides}
    return outcomes(wins, result.tally.draws / n, result.tally.round_limit / n)


def engine_fights(setup: Setup, fights: int, seed: int = 0) -> Outcomes:
    """The event engine's frequencies over `fights` random fights (run_fight with RandomDice)."""
    ends: dict[str, int] = {}
    for index in range(fights):
        fight = run_fight(setup, RandomDice(seed + index))
        reason = fight.events[-1].data.get("reason", "")
        key = (
            f"win {fight.state.winner}"
            if fight.state.winner
            else ("limit" if reason == "round limit" else "draw")
        )
        ends[key] = ends.get(key, 0) + 1
    wins = {side: ends.get(f"win {side}", 0) / fights for side in setup.sides}
    return outcomes(wins, ends.get("draw", 0) / fights, ends.get("limit", 0) / fights)


def assert_exact_paths_agree(first: Outcomes, second: Outcomes, what: str) -> None:
    off = {k: (first[k], second[k]) for k in first if abs(first[k] - second[k]) > EXACT_TOLERANCE}
    assert not off, f"{what} disagree: {off}"


def assert_sample_agrees(sampled: Outcomes, exact: Outcomes, fights: int, what: str) -> None:
    off = disagreements(sampled, exact, fights)
    assert not off, f"{what} disagree beyond 4.5 standard errors: " + "; ".join(off)


def compare_simulator(setup: Setup, exact: Outcomes, record: Record, against: str) -> None:
    """The fast simulator with enough fights to see a 2-point difference, against an exact answer."""
    n = fights_for(exact)
    assert_sample_agrees(simulated(setup, n), exact, n, f"{setup.name!r}: fast simulator vs {against}")
    record.compared.append(f"fast simulator ({n:,} fights) vs {against}")


def shorter(setup: Setup, max_rounds: int) -> Setup:
    """The same encounter cut to its first rounds (a walk of the engine stays small)."""
    return replace(setup, max_rounds=min(setup.max_rounds, max_rounds))


def with_fixed_hit_points(setup: Setup, seed: int = 1) -> Setup:
    """The same encounter with every combatant's hit points fixed as one roll gave them (ODD-HD-2)."""
    fight = Fight(setup)
    fight.begin(RandomDice(seed))
    hp = {c.name: c.hp for c in fight.state.combatants.values()}
    data = setup.to_dict()
    for side in data["sides"]:
        for c in side["combatants"]:
            c["hp"] = hp.get(c["name"], hp.get(f"{c['name']} 1"))  # `count: 2` names them "Orc 1", "Orc 2"
    data["max_rounds"] = setup.max_rounds
    return replace(setup_from_data(data, setup.name), name=f"{setup.name} (fixed hit points)")
