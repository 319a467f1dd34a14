"""Choices for combatants nobody steers (a whole fight from `referee fight`, simulations).

The rule is deliberately simple and documented: attack the living enemy with the fewest hit points
(ties: the first in the encounter file), with the first carried weapon that can legally reach it
(a missile weapon at range, a melee weapon otherwise), in the circumstances of its `tactic`'s situation;
if no attack is legal, the refusal is recorded with its rule (MOD-UW-1, HR-MISSILE-1, MF-VIS-3...) and it
waits (:mod:`referee.engine.refusals`)."""

from __future__ import annotations

from referee.engine.actions import Action, Attack, Wait
from referee.engine.caches import late, planned, within_step  # planned: reused by the resolver
from referee.engine.state import CombatantState, FightState
from referee.errors import IllegalActionError
from referee.rules import hit_points, targeting
from referee.rules.context import Situation
from referee.rules.options import FinishFallen

# Rules that force a different choice (a held creature tries to break free, ODD-GRAP-4) are listed in
# referee.engine.registry.OVERRIDES (which imports this module, so it is read when choosing); the
# first that returns an action wins.


def fallen_enemies(state: FightState, actor: str) -> list[CombatantState]:
    """`actor`'s enemies who are down but not dead (unconscious, GAP-HP-ZERO, GAP-SUBDUAL)."""
    side = state[actor].side
    return [c for c in state.combatants.values() if c.side != side and c.status == hit_points.UNCONSCIOUS]


def target_enemies(state: FightState, actor: str) -> list[CombatantState]:
    """The enemies the default tactics may strike (:func:`rules.targeting.target_pool`): the standing
    ones, and under option `finish_fallen` the fallen too (HR-HELPLESS-1, MOD-HELPLESS-MELEE)."""
    finish = state.setup.ruleset.finish_fallen
    standing = state.living_enemies(actor)
    if finish is FinishFallen.OFF:
        return standing  # the default: exactly the fights as before the option existed
    return targeting.target_pool(standing, fallen_enemies(state, actor), finish)


def fallen_to_finish(state: FightState) -> bool:
    """Whether the one side left standing still has fallen enemies to strike (option `finish_fallen`):
    then the fight goes on (:func:`rules.turns.fight_end`)."""
    if state.setup.ruleset.finish_fallen is FinishFallen.OFF:
        return False
    left = state.sides_standing()
    if len(left) != 1:
        return False
    winners = [c for c in state.active() if c.side == left[0]]
    return bool(fallen_enemies(state, winners[0].name))


def file_order(state: FightState) -> dict[str, int]:
    """Each combatant's place in the encounter file (ties of the target priority go to the first)."""
    combatants = state.setup.combatants
    found = _ORDERS.get(id(combatants))
    if found is None or found[0] is not combatants or len(found[1]) != len(combatants):
        if len(_ORDERS) >= 256:
            _ORDERS.clear()
        found = _ORDERS[id(combatants)] = (combatants, {c.name: i for i, c in enumerate(combatants)})
    return found[1]


# id(the setup's list of combatants) -> (that list, its names' places); the list is kept with its places
# so that its id stays its own, and a list grown since (a latecomer joins) is counted again
_ORDERS: dict[int, tuple[object, dict[str, int]]] = {}


def choose_target(state: FightState, actor: str) -> str | None:
    """The default target (:func:`rules.targeting.choose_target`): fewest hit points, ties first in file;
    among the standing enemies, and the fallen ones under option `finish_fallen`."""
    return within_step(state, ("target", actor), lambda: _default_target(state, actor))


def _default_target(state: FightState, actor: str) -> str | None:
    order = file_order(state)
    return targeting.choose_target(
        [(c.name, c.hp, c.subdual, order[c.name]) for c in target_enemies(state, actor)]
    )


def default_attack(
    state: FightState, actor: str, target: str, weapon: str | None, situation: Situation
) -> Attack:
    """The attack the default tactics declare (`actor` at `target` with `weapon`, in `situation`): one
    record per step for the same declaration, so that the closing-in check and the choice share its plan."""
    return within_step(
        state, ("attack", actor, target, weapon, situation),
        lambda: Attack(actor, target=target, weapon=weapon, situation=situation),
    )  # fmt: skip


def choose_action(state: FightState, actor: str) -> Action:
    for override in late("registry").OVERRIDES:
        action: Action | None = override(state, actor)
        if action is not None:
            return action
    target = choose_target(state, actor)
    if target is None:
        return Wait(actor, "has no enemy left to fight")
    me = state[actor]
    # the tactic's circumstances are never dropped (odd_tactics imports this module)
    situation = late("odd_tactics").standing_situation(state, me)
    choices = late("routines").weapon_choices(me.spec)  # the whole routine first (ODD-ATK-3)
    refusals: list[tuple[Attack, IllegalActionError]] = []
    for weapon in choices:
        candidate = default_attack(state, actor, target, weapon, situation)
        try:
            planned(state, candidate)  # kept for the resolver (engine/caches.py)
        except IllegalActionError as exc:
            refusals.append((candidate, exc))
            continue
        return candidate
    refused_instead = late("refusals").refused_instead
    first, error = refusals[0]  # the first weapon's refusal names its rule (MOD-UW-1, HR-MISSILE-1...)
    instead: Action = refused_instead(actor, first, error, Wait(actor, "has no legal attack"))
    return instead
