"""Exact odds of one declared attack, and of a whole small fight, from the engine's own objects.

One attack: the engine plans it as an :class:`~referee.rules.attack.AttackPlan`; this module reads that
plan and asks the same functions the live roll asks (:meth:`Check.succeeds`, the critical plan's
``may_be_critical`` / ``critical_confirmed``, :func:`engine.resolve.miss_chance_die`,
:func:`engine.resolve.damage_recipe`, :func:`engine.resolve.damage_amount`,
:func:`hit_points.status_after_damage`), so the odds cannot drift from the rules. Dice distributions
come from icepool, which stays inside this module. Probabilities are :class:`fractions.Fraction`.

A whole fight: :func:`fight_odds` runs a Markov chain over the combatants' hit points (see
``docs/odds.md`` for the model and its bound).
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache
from types import MappingProxyType
from typing import Any, TypeVar, overload

import icepool
import numpy as np
import numpy.typing as npt

from referee.checks import Check, Keep
from referee.dice import DiceGroup, DiceSource, parse_dice
from referee.engine import resolve as engine
from referee.engine.actions import Action, Attack, Wait
from referee.engine.events import EventType, event
from referee.engine.state import CombatantState, FightState
from referee.errors import RefereeError
from referee.files import Setup
from referee.rules import hit_points
from referee.rules.attack import AttackPlan
from referee.rules.ruleset import Ruleset

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # d20 pins a retired parser package that warns on import
    import d20

T = TypeVar("T")

ENUMERATION_LIMIT = 200_000  # dice sequences :func:`enumerate_dice` walks before giving up


class OddsError(RefereeError, ValueError):
    """The exact odds cannot be computed for this question (too large, or beyond the model)."""


# --- dice as exact distributions --------------------------------------------------------------------


@lru_cache(maxsize=1024)
def dice_die(text: str) -> icepool.Die[int]:
    """The exact distribution of a dice expression (cached by its text).

    Walks d20's syntax tree as :func:`referee.dice.roll` does: each dice group is ``count @ d(sides)``
    or icepool's keep-highest / keep-lowest; + - * and floor division act on whole distributions.
    """
    expr = parse_dice(text)
    groups = iter(expr.groups())  # the groups in the tree's left-to-right order
    return _die_of(expr.node, groups)


def _die_of(node: Any, groups: Iterator[DiceGroup]) -> icepool.Die[int]:
    ast = d20.ast
    if isinstance(node, ast.Literal):
        return icepool.Die([int(node.value)])
    if isinstance(node, ast.Dice | ast.OperatedDice):
        group = next(groups)
        die = icepool.d(group.sides)
        if group.keep > 0:
            return die.highest(group.count, group.keep)
        if group.keep < 0:
            return die.lowest(group.count, -group.keep)
        return group.count @ die
    if isinstance(node, ast.Parenthetical | ast.AnnotatedNumber):
        return _die_of(node.value, groups)
    if isinstance(node, ast.UnOp):
        inner = _die_of(node.value, groups)
        return inner if node.op == "+" else -inner
    left = _die_of(node.left, groups)
    right = _die_of(node.right, groups)
    ops: dict[str, Callable[[icepool.Die[int], icepool.Die[int]], icepool.Die[int]]] = {
        "+": lambda a, b: a + b,
        "-": lambda a, b: a - b,
        "*": lambda a, b: a * b,
        "/": lambda a, b: a // b,  # referee.dice divides with floor division too
    }
    return ops[node.op](left, right)


def die_fractions(die: icepool.Die[int]) -> dict[int, Fraction]:
    total = die.denominator()
    return {int(outcome): Fraction(quantity, total) for outcome, quantity in die.items()}


def natural_die(check: Check) -> icepool.Die[int] | None:
    """The natural result of a check's roll: one die, 2d20 keep highest / lowest (GAP-ADV), or a sum."""
    if check.automatic is not None:
        return None
    die = icepool.d(check.sides)
    if check.keep is Keep.HIGHEST:
        return die.highest(2)
    if check.keep is Keep.LOWEST:
        return die.lowest(2)
    return check.count @ die


def enumerate_dice(fn: Callable[[DiceSource], T], limit: int = ENUMERATION_LIMIT) -> dict[T, Fraction]:
    """Run `fn` on every sequence of die results it can ask for; the exact distribution of its result.

    A chance-node walk: each run replays a prefix of faces and shows 1 for every further die; the next
    run raises the last die that can still go up. Works for any function whose dice requests depend only
    on earlier results (the engine's procedures). Raises OddsError after `limit` sequences.
    """
    counts: dict[T, dict[int, int]] = {}  # result → {1 / chance of one sequence: sequences}
    prefix: list[int] = []
    for _ in range(limit):
        source = _PrefixDice(prefix)
        result = fn(source)
        by_weight = counts.setdefault(result, {})
        span = math.prod(source.sides)
        by_weight[span] = by_weight.get(span, 0) + 1
        faces, dice = source.faces, source.sides
        while faces and faces[-1] == dice[len(faces) - 1]:
            faces.pop()
        if not faces:
            return {
                r: sum((Fraction(n, span) for span, n in w.items()), Fraction(0)) for r, w in counts.items()
            }
        prefix = [*faces[:-1], faces[-1] + 1]
    raise OddsError(f"more than {limit} dice sequences to enumerate; use `referee sim` instead")


class _PrefixDice:
    def __init__(self, prefix: Sequence[int]) -> None:
        self.prefix = prefix
        self.faces: list[int] = []
        self.sides: list[int] = []

    def roll(self, sides: int, purpose: str) -> int:
        index = len(self.faces)
        face = self.prefix[index] if index < len(self.prefix) else 1
        self.faces.append(face)
        self.sides.append(sides)
        return face


# --- one attack ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What the attack roll did (the fields of the engine's AttackOutcome, without the natural)."""

    hit: bool
    critical: bool = False
    fumble: bool = False
    missed_by_chance: bool = False


def attack_outcomes(plan: AttackPlan) -> dict[Outcome, Fraction]:
    """Every outcome of the attack roll with its chance, as :func:`engine.resolve.roll_attack` rolls it:
    the d20 (two under advantage), then a confirmation d20 (HR-CRIT-1, HR-FUMBLE-1), then the
    miss-chance die (MF-VIS-5, X-11)."""
    check, crit = plan.check, plan.critical
    out: dict[Outcome, Fraction] = {}

    def add(outcome: Outcome, p: Fraction) -> None:
        if p:
            out[outcome] = out.get(outcome, Fraction(0)) + p

    naturals = natural_die(check)
    rolls = die_fractions(naturals) if naturals is not None else {0: Fraction(1)}
    confirm_crit = _chance(crit.critical_confirmed, 20) if crit.confirms_critical else Fraction(1)
    confirm_fumble = _chance(crit.fumble_confirmed, 20) if crit.confirms_fumble else Fraction(1)
    missed = Fraction(0)
    if plan.miss_chance:
        sides, threshold = engine.miss_chance_die(plan.miss_chance, plan.miss_dice)
        missed = _chance(lambda face: face <= threshold, sides)
    for natural, p in rolls.items():
        hit = check.succeeds(natural)
        rolled = naturals is not None
        if not hit:
            fumble = confirm_fumble if rolled and crit.may_be_fumble(natural, hit) else Fraction(0)
            add(Outcome(False, fumble=True), p * fumble)
            add(Outcome(False), p * (1 - fumble))
            continue
        critical = confirm_crit if rolled and crit.may_be_critical(natural, check.sides, hit) else Fraction(0)
        add(Outcome(False, missed_by_chance=True), p * missed)
        add(Outcome(True, critical=True), p * (1 - missed) * critical)
        add(Outcome(True), p * (1 - missed) * (1 - critical))
    return out


def _chance(passes: Callable[[int], bool], sides: int) -> Fraction:
    return Fraction(sum(1 for face in range(1, sides + 1) if passes(face)), sides)


def hit_damage(plan: AttackPlan, critical: bool) -> dict[int, Fraction]:
    """Damage of a hit (or a critical hit) as :func:`engine.resolve.roll_damage` finds it: dice, or their
    maximum (MF-CRIT-1, HR-HELPLESS-2), doubled dice (GAP-CRIT-002), modifiers, the minimum."""
    if plan.damage.none:
        return {0: Fraction(1)}
    expr, maximise, mods = engine.damage_recipe(plan, critical)
    base = icepool.Die([parse_dice(expr).maximum]) if maximise else dice_die(expr)
    return die_fractions(base.map(lambda total: engine.damage_amount(plan, total, mods)))


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


def plan_odds(plan: AttackPlan, target: CombatantState, ruleset: Ruleset) -> ActionOdds:
    """Exact odds of a planned attack against `target` as it stands now."""
    outcomes = attack_outcomes(plan)
    hit = sum((p for o, p in outcomes.items() if o.hit), Fraction(0))
    hits: dict[int, Fraction] = {}  # amount → chance of a hit dealing it
    for outcome, p in outcomes.items():
        if outcome.hit:
            for amount, q in hit_damage(plan, outcome.critical).items():
                hits[amount] = hits.get(amount, Fraction(0)) + p * q
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
        critical=sum((p for o, p in outcomes.items() if o.critical), Fraction(0)),
        fumble=sum((p for o, p in outcomes.items() if o.fumble), Fraction(0)),
        missed_by_chance=sum((p for o, p in outcomes.items() if o.missed_by_chance), Fraction(0)),
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


# --- an encounter before its first die -----------------------------------------------------------------


_STARTING_HP: dict[tuple[str, tuple[tuple[str, str], ...]], dict[int, Fraction]] = {}


def starting_hit_points(setup: Setup, name: str) -> dict[int, Fraction]:
    """A combatant's hit points at set-up, exactly as the engine's set-up step fixes them (ODD-HD-2).

    Cached by the combatant's whole description and the ruleset (5d8 hit dice are 32,768 sequences).
    """
    from referee.engine.fight import Fight

    combatant = setup.combatant(name)
    key = (combatant.model_dump_json(), tuple(sorted(setup.ruleset.values.items())))
    if key not in _STARTING_HP:
        alone = replace(setup, combatants=(combatant,), surprise=None)

        def hp(dice: DiceSource) -> int:
            return int(Fight(alone).begin(dice)[0].data["hp"][name])

        _STARTING_HP[key] = enumerate_dice(hp)
    return dict(_STARTING_HP[key])


def opening_state(setup: Setup, hp: Mapping[str, int] | None = None) -> FightState:
    """The state at the start of round 1 with the given (or the highest possible) hit points.

    The engine's own set-up event is used (its starting conditions and all), with the hit points set.
    """
    from referee.engine.fight import Fight

    chosen = dict(hp or {})
    for c in setup.combatants:
        if c.name not in chosen:
            chosen[c.name] = max(starting_hit_points(setup, c.name))
    first = Fight(replace(setup, surprise=None)).begin(_Ones())[0]
    state = FightState.initial(setup)
    state.apply(replace(first, data=MappingProxyType({**first.data, "hp": chosen})))
    state.apply(event(EventType.ROUND_START, 1, data={"order": [[c.name for c in setup.combatants]]}))
    return state


class _Ones:
    def roll(self, sides: int, purpose: str) -> int:
        return 1


def encounter_action_odds(setup: Setup, action: Attack) -> ActionOdds:
    """Odds of an attack at the start of the encounter; the drop chance is averaged over the target's
    starting hit points when they are rolled."""
    state = opening_state(setup)
    odds = action_odds(state, action)
    drop: dict[str, Fraction] = {}
    for hp, p in starting_hit_points(setup, odds.target).items():
        at = action_odds(opening_state(setup, {odds.target: hp}), action)
        for status, q in at.drop_status.items():
            drop[status] = drop.get(status, Fraction(0)) + p * q
    return replace(odds, drop=sum(drop.values(), Fraction(0)), drop_status=drop)


# --- a whole fight: a Markov chain over hit points ----------------------------------------------------

MAX_FIGHTERS = 4  # combatants in a fight whose exact odds we compute
MAX_CELLS = 100_000  # hit-point combinations (the product of each combatant's max HP + 1)
FLOAT_CUTOFF = 1e-18  # in floating point, stop once less than this chance is still fighting

Array = npt.NDArray[Any]


@dataclass(frozen=True)
class FightOdds:
    """Exact chances of a whole fight under the default tactics (floats, or Fractions when `exact`)."""

    wins: Mapping[str, Any]
    draw: Any  # no side left standing
    limit: Any  # the round limit ended the fight
    rounds: Mapping[int, Any]  # the round the fight ended in
    states: int  # hit-point combinations in the chain
    unresolved: Any = 0  # floats only: the mass still fighting when it fell under FLOAT_CUTOFF
    exact: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "wins": {side: float(p) for side, p in self.wins.items()},
            "draw": float(self.draw),
            "limit": float(self.limit),
            "rounds": {str(n): float(p) for n, p in sorted(self.rounds.items()) if p},
            "states": self.states,
            "unresolved": float(self.unresolved),
        }


@dataclass
class _Chain:
    """The fixed parts of the chain: who, their hit-point axes, the damage kernels, the masks."""

    setup: Setup
    names: list[str]
    sides: list[int]  # side index of each combatant
    size: list[int]  # max HP + 1 per axis (index 0 = down)
    kernels: dict[tuple[int, int], Array]  # (attacker, target) → K[new hp, old hp]
    targets: dict[tuple[int, int], Array]  # (attacker, target) → cells where tactics pick that target
    active: list[Array]  # per combatant: cells where it is active
    hp: dict[str, dict[int, Fraction]]  # starting hit points of each combatant
    orders: dict[tuple[frozenset[int], int], _Orders] = field(default_factory=dict)
    masks: dict[tuple[tuple[int, ...], tuple[bool, ...]], Array] = field(default_factory=dict)
    enemies: dict[int, list[int]] = field(default_factory=dict)  # the targets each one can attack
    always: dict[int, bool] = field(default_factory=dict)  # one enemy, picked wherever it is active
    exact: bool = False

    def mask(self, who: Sequence[int], pattern: Sequence[bool]) -> Array:
        """Cells where each of `who` is active or not, as `pattern` says (cached)."""
        key = (tuple(who), tuple(pattern))
        if key not in self.masks:
            mask = np.ones(self.size, dtype=bool)
            for i, up in zip(who, pattern, strict=True):
                mask &= self.active[i] if up else ~self.active[i]
            self.masks[key] = mask
        return self.masks[key]


def fight_odds(setup: Setup, *, exact: bool = False) -> FightOdds:
    """Exact odds of a small fight run by :func:`engine.fight.run_fight` with the default tactics.

    The state between rounds is every combatant's hit points; each round enumerates the initiative
    outcomes (:func:`engine.fight.roll_initiative`) and each actor's attack under the default tactics,
    with the damage distributions of :func:`plan_odds`. `exact=True` computes in Fractions (small
    fights); otherwise in double precision. Raises OddsError for fights beyond the model or the bound.
    """
    chain = _build_chain(setup, exact)
    zero = Fraction(0) if exact else 0.0
    mass = _initial_mass(chain)
    status = _standing(chain)  # side index of the winner, -1 = nobody, -2 = still fighting
    wins = [zero] * len(setup.sides)
    draw = limit = zero
    rounds: dict[int, Any] = {}
    unresolved = zero
    for number in range(1, setup.max_rounds + 1):
        if not mass.any():
            break
        if not exact and mass.sum() < FLOAT_CUTOFF:
            unresolved = mass.sum()  # below double precision of the results: stop (docs/odds.md)
            break
        mass = _play_round(chain, mass, number)
        ended = zero
        for side in range(len(setup.sides)):
            p = mass[status == side].sum()
            wins[side] += p
            ended += p
        p = mass[status == -1].sum()
        draw += p
        ended += p
        mass = np.where(status == -2, mass, 0)
        if number == setup.max_rounds:
            left = mass.sum()
            limit += left
            ended += left
        rounds[number] = ended
    return FightOdds(
        wins=dict(zip(setup.sides, wins, strict=True)),
        draw=draw,
        limit=limit,
        rounds=rounds,
        states=int(np.prod(chain.size)),
        unresolved=unresolved,
        exact=exact,
    )


def _build_chain(setup: Setup, exact: bool) -> _Chain:
    names = [c.name for c in setup.combatants]
    if len(names) > MAX_FIGHTERS:
        raise OddsError(
            f"exact fight odds are computed for at most {MAX_FIGHTERS} combatants, not {len(names)};"
            " use `referee sim`"
        )
    timed = [c.name for c in setup.combatants if c.condition_rounds]
    if timed:
        raise OddsError(f"{timed[0]} starts with conditions that end during the fight; use `referee sim`")
    if setup.surprise is not None and setup.surprise.possible and setup.surprise.sides:
        raise OddsError(
            "exact fight odds do not model surprise (ODD-SURP-1 to ODD-SURP-5); use `referee sim`"
        )
    hp = {n: starting_hit_points(setup, n) for n in names}
    size = [max(hp[n]) + 1 for n in names]
    cells = int(np.prod(size))
    if cells > MAX_CELLS:
        raise OddsError(
            f"{cells} hit-point combinations is over the exact-odds bound of {MAX_CELLS}; use `referee sim`"
        )
    sides = [setup.sides.index(c.side) for c in setup.combatants]
    grid = np.indices(size)
    active = [grid[i] > 0 for i in range(len(names))]
    chain = _Chain(setup, names, sides, size, {}, {}, active, hp, exact=exact)
    _check_round_hooks(setup)
    _plan_attacks(chain)
    return chain


def _probe(setup: Setup, hp: Mapping[str, int], number: int = 1) -> FightState:
    state = opening_state(setup, hp)
    if number > 1:
        state.apply(event(EventType.ROUND_START, number, data={"order": [list(hp)]}))
    return state


def _check_round_hooks(setup: Setup) -> None:
    """The chain tracks hit points only: hooks that act at the start or end of a round are refused."""
    from referee.engine import fight

    state = _probe(setup, {c.name: 1000 for c in setup.combatants})
    for hooks in (fight.START_OF_ROUND, fight.END_OF_ROUND):
        for hook in hooks:
            try:
                acted = bool(hook(state, _NoDice()))
            except _NeedsDie:
                acted = True
            if acted:
                raise OddsError(f"a round hook acts in this encounter ({hook.__name__}); use `referee sim`")


class _NeedsDie(Exception):
    pass


class _NoDice:
    def roll(self, sides: int, purpose: str) -> int:
        raise _NeedsDie(purpose)


def _plan_attacks(chain: _Chain) -> None:
    """For each attacker and each enemy: the default tactics' attack, its plan and damage kernel.

    The plan must not depend on hit points or the round (checked on two probe states); the attack
    must change nothing but hit points (checked by resolving it on a spread of natural rolls).
    """
    from referee.engine import tactics

    setup = chain.setup
    for a, name in enumerate(chain.names):
        for t, target in enumerate(chain.names):
            if chain.sides[a] == chain.sides[t]:
                continue
            probes: list[tuple[FightState, Attack, AttackPlan] | None] = []
            for number, low in ((1, 1), (2, 2)):
                hp = {n: 1000 for n in chain.names}
                hp[target] = low
                state = _probe(setup, hp, number)
                action = tactics.choose_action(state, name)
                if isinstance(action, Wait):
                    probes.append(None)  # no legal attack on this enemy: the tactics wait
                    continue
                if type(action) is not Attack or action.target != target:
                    raise OddsError(
                        f"{name}'s default action is not a plain attack ({action.kind}); use `referee sim`"
                    )
                plan = engine.plan_declared_attack(state, action)[1]
                probes.append((state, action, plan))
            if probes[0] is None or probes[1] is None:
                if probes[0] != probes[1]:
                    raise OddsError(
                        f"{name}'s choice against {target} changes during the fight; use `referee sim`"
                    )
                continue
            plan = probes[0][2]
            if probes[0][1] != probes[1][1] or _plan_key(plan) != _plan_key(probes[1][2]):
                raise OddsError(f"{name}'s attack on {target} changes during the fight; use `referee sim`")
            _check_only_hit_points(probes[0][0], probes[0][1])
            odds = plan_odds(plan, probes[0][0][target], setup.ruleset)
            if plan.damage.subdual or plan.damage.knockout:
                raise OddsError(f"{name}'s attack deals subdual or knock-out damage; use `referee sim`")
            chain.kernels[(a, t)] = _kernel(odds.damage, chain.size[t], chain.exact)
    _target_masks(chain)


def _plan_key(plan: AttackPlan) -> tuple[Any, ...]:
    return (
        plan.check,
        plan.damage,
        plan.critical,
        plan.miss_chance,
        plan.miss_dice,
        plan.on_hit,
        plan.on_attempt,
    )


_HIT_POINT_EVENTS = {EventType.ACTION, EventType.ATTACK, EventType.DAMAGE, EventType.DEFEAT}


def _check_only_hit_points(state: FightState, action: Attack) -> None:
    """Resolve the attack for every natural roll (with confirmations and other dice at both ends):
    any event beyond attack, damage and defeat means it changes more than hit points."""
    for natural in (1, 2, 10, 11, 19, 20):
        for rest in (1, 20):
            dice = _ScriptThen([natural], rest)
            for e in engine.resolve(state, action, dice):
                if e.type not in _HIT_POINT_EVENTS or (e.type is EventType.ACTION and e.data.get("free")):
                    raise OddsError(
                        f"{action.actor}'s attack can do more than damage ({e.type.value}: {e.text});"
                        " use `referee sim`"
                    )


class _ScriptThen:
    def __init__(self, first: list[int], then: int) -> None:
        self.first, self.then = list(first), then

    def roll(self, sides: int, purpose: str) -> int:
        return self.first.pop(0) if self.first and self.first[0] <= sides else min(self.then, sides)


def _kernel(damage: Mapping[int, Fraction], size: int, exact: bool) -> Array:
    """K[new, old]: the chance an active target at `old` hit points is left at `new` (0 = down)."""
    kernel = np.zeros((size, size), dtype=object if exact else float)
    if exact:
        kernel[...] = Fraction(0)
    for old in range(size):
        for amount, p in damage.items():
            new = max(0, old - amount) if old > 0 else 0
            kernel[new, old] += p if exact else float(p)
    return kernel


def _target_masks(chain: _Chain) -> None:
    """Where the default tactics pick each enemy: fewest hit points, ties by file order
    (:func:`tactics.choose_target`, asked once per combination of the enemies' hit points)."""
    from referee.engine import tactics

    state = _probe(chain.setup, {n: 1 for n in chain.names})
    for a, name in enumerate(chain.names):
        enemies = [t for t in range(len(chain.names)) if chain.sides[t] != chain.sides[a]]
        masks = {t: np.zeros(chain.size, dtype=bool) for t in enemies}
        for hps in itertools.product(*(range(chain.size[t]) for t in enemies)):
            for t, hp in zip(enemies, hps, strict=True):
                c = state[chain.names[t]]
                c.hp, c.status = hp, hit_points.ACTIVE if hp > 0 else hit_points.DEAD
            choice = tactics.choose_target(state, name)
            if choice is None:
                continue
            index: list[Any] = [slice(None)] * len(chain.names)
            for t, hp in zip(enemies, hps, strict=True):
                index[t] = hp
            masks[chain.names.index(choice)][tuple(index)] = True
        for t in enemies:
            if (a, t) in chain.kernels:
                chain.targets[(a, t)] = masks[t]
        chain.enemies[a] = [t for t in enemies if (a, t) in chain.kernels]
        chain.always[a] = len(chain.enemies[a]) == 1 and bool(
            np.array_equal(masks[chain.enemies[a][0]], chain.active[chain.enemies[a][0]])
        )


def _initial_mass(chain: _Chain) -> Array:
    hp = chain.hp
    mass: Array = np.array(Fraction(1) if chain.exact else 1.0, dtype=object if chain.exact else float)
    for name in chain.names:
        axis = np.zeros(max(hp[name]) + 1, dtype=object if chain.exact else float)
        if chain.exact:
            axis[...] = Fraction(0)
        for value, p in hp[name].items():
            axis[value] = p if chain.exact else float(p)
        mass = np.multiply.outer(mass, axis)
    return mass


def _standing(chain: _Chain) -> Array:
    """Per cell: the index of the one side still standing, -1 if none, -2 if two or more."""
    standing = np.zeros(chain.size, dtype=int)
    winner = np.full(chain.size, -1, dtype=int)
    for side in range(len(chain.setup.sides)):
        up = np.zeros(chain.size, dtype=bool)
        for i, s in enumerate(chain.sides):
            if s == side:
                up |= chain.active[i]
        standing += up
        winner = np.where(up, side, winner)
    return np.where(standing >= 2, -2, winner)


@dataclass
class _Orders:
    """Orders of action as a trie: orders sharing their first slots play those slots once."""

    end: Any = 0  # chance of the orders that end here
    next: dict[tuple[int, ...], _Orders] = field(default_factory=dict)

    def add(self, slots: Sequence[tuple[int, ...]], p: Any) -> None:
        node = self
        for slot in slots:
            node = node.next.setdefault(slot, _Orders())
        node.end += p


def _orders(chain: _Chain, active: frozenset[int], number: int) -> _Orders:
    """The distribution of the order of action for these active combatants (cached per active set)."""
    from referee.engine.fight import roll_initiative
    from referee.rules import initiative

    # the round matters only through first strike in round 1, unless delay rules are registered
    first_strike = number == 1 and chain.setup.ruleset.is_on("first_strike_reach_size")
    key = (active, number if initiative.DELAY_RULES else int(first_strike))
    if key not in chain.orders:
        specs = [c for i, c in enumerate(chain.setup.combatants) if i in active]

        def order(dice: DiceSource) -> tuple[tuple[int, ...], ...]:
            slots = roll_initiative(chain.setup, specs, number, dice)[0]
            return tuple(tuple(chain.names.index(n) for n in slot) for slot in slots)

        trie = _Orders(Fraction(0) if chain.exact else 0.0)
        for slots, p in enumerate_dice(order).items():
            trie.add(slots, p if chain.exact else float(p))
        chain.orders[key] = trie
    return chain.orders[key]


def _play_round(chain: _Chain, mass: Array, number: int) -> Array:
    out = np.zeros_like(mass)
    fighting = len(chain.names)
    for pattern in itertools.product((False, True), repeat=fighting):
        active = frozenset(i for i in range(fighting) if pattern[i])
        if len({chain.sides[i] for i in active}) < 2:
            continue  # no fight in these cells (they were absorbed already)
        piece = np.where(chain.mask(range(fighting), pattern), mass, 0)
        if piece.any():
            out = out + _play_orders(chain, piece, _orders(chain, active, number))
    return out


def _play_orders(chain: _Chain, mass: Array, node: _Orders) -> Array:
    """The mass after every order below `node`, each weighted by its chance."""
    out: Array = mass * node.end
    for slot, child in node.next.items():
        out = out + _play_orders(chain, _play_slot(chain, mass, list(slot)), child)
    return out


def _play_slot(chain: _Chain, mass: Array, slot: list[int]) -> Array:
    """Everyone in the slot who is active when it begins acts, in order (ODD-INIT-3: one downed by an
    earlier actor of the same slot still acts)."""
    if len(slot) == 1:
        acting = np.where(chain.active[slot[0]], mass, 0)
        return mass - acting + _attack(chain, acting, slot[0])
    out = np.zeros_like(mass)
    for pattern in itertools.product((False, True), repeat=len(slot)):
        piece = np.where(chain.mask(slot, pattern), mass, 0)
        for i, up in zip(slot, pattern, strict=True):
            if up:
                piece = _attack(chain, piece, i)
        out = out + piece
    return out


def _attack(chain: _Chain, mass: Array, a: int) -> Array:
    """Combatant `a` attacks the enemy the tactics pick in each cell (cells with none are unchanged)."""
    enemies = chain.enemies[a]
    if len(enemies) == 1 and chain.always[a]:
        # one enemy, attacked wherever it stands; where it is down the kernel changes nothing
        return _along(chain, mass, a, enemies[0])
    out = mass
    for t in enemies:
        aimed = mass * chain.targets[(a, t)]
        out = out - aimed + _along(chain, aimed, a, t)
    return out


def _along(chain: _Chain, mass: Array, a: int, t: int) -> Array:
    """K[new, old] applied along the target's hit-point axis."""
    moved: Array = np.swapaxes(mass, t, -1) @ chain.kernels[(a, t)].T
    return np.swapaxes(moved, -1, t)
