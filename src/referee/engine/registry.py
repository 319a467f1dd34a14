"""The one list of the engine's actions and hooks, in order.

Nothing registers itself by being imported: an action kind, its resolver, and every hook are plain
names in their modules, and count once listed here. Order matters where several answer: hooks run
in the listed order (their events come in that order), the first override that chooses an action
wins. The rule functions the attack planner asks are listed in :mod:`referee.rules.registry`.

Modules: :mod:`~referee.engine.resolve` (attack, wait), :mod:`~referee.engine.moves` (move, charge),
:mod:`~referee.engine.odd_actions` (cast, items, abilities, checked attack, maneuver, quick, extra),
:mod:`~referee.engine.odd_hooks` (holds, bare hands, stray missiles), :mod:`~referee.engine.odd_tactics`
(unsteered choices), :mod:`~referee.engine.conditions` (apply / remove a condition, grapples, segment
delays), :mod:`~referee.engine.fumbles` (free attacks after a fumble), :mod:`~referee.engine.house` and
:mod:`~referee.engine.withdrawal` (HR rules), :mod:`~referee.engine.drowning`, :mod:`~referee.engine.effects`
(area effects with saves), :mod:`~referee.engine.table_actions` (the referee's table actions: hit points by
hand, latecomers, leaving, reveal, own conditions, notes, free rolls).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from referee.engine import odd_hooks

if TYPE_CHECKING:
    from referee.dice import DiceSource
    from referee.engine import resolve
    from referee.engine.actions import Action, Attack
    from referee.engine.events import Event
    from referee.engine.odd_actions import CastCheck
    from referee.engine.state import CombatantState, FightState
    from referee.model import Weapon
    from referee.rules.attack import AttackPlan
    from referee.rules.context import AttackContext, AttackForm

    Resolver = Callable[[FightState, Any, DiceSource], list[Event]]
    RoundHook = Callable[[FightState, DiceSource], list[Event]]
    AfterAttack = Callable[
        [FightState, AttackContext, AttackPlan, resolve.AttackOutcome, DiceSource], list[Event]
    ]
    AfterAction = Callable[[FightState, Action, list[Event]], list[Event]]
    FormRule = Callable[[CombatantState, Weapon, AttackForm], AttackForm]
    Retarget = Callable[[FightState, Attack, DiceSource], "tuple[str, list[Event]] | None"]
    Override = Callable[[FightState, str], "Action | None"]

    RESOLVERS: dict[type[Action], Resolver]
    ACTION_TYPES: dict[str, type[Action]]
    RETARGET_RULES: tuple[Retarget, ...]
    AFTER_ATTACK: tuple[AfterAttack, ...]
    AFTER_ACTION: tuple[AfterAction, ...]
    START_OF_ROUND: tuple[RoundHook, ...]
    END_OF_ROUND: tuple[RoundHook, ...]
    OVERRIDES: tuple[Override, ...]
    CAST_CHECKS: tuple[CastCheck, ...]

# Refine the form of an attack declared without one (a character's bare hands pummel, ODD-UNARMED-2).
FORM_RULES: tuple[FormRule, ...] = (odd_hooks.bare_hands_pummel,)

_LISTING = threading.RLock()


_ACTION_LISTS = ("RESOLVERS", "ACTION_TYPES")


def __getattr__(name: str) -> Any:
    # The other lists are made when one of them is first read (each is complete when read): the hooks'
    # lists together, and the action kinds' (RESOLVERS, ACTION_TYPES) with every module that defines
    # one. One attack's odds read only the form rules; a whole fight's odds the hooks and
    # `resolver(Attack)`, and need none of the modules of the other actions.
    if name.isupper():
        with _LISTING:
            for listed, value in (_action_lists() if name in _ACTION_LISTS else _hook_lists()).items():
                globals().setdefault(listed, value)  # a list a caller set before stays
        if name in globals():
            return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def resolver(kind: type[Action]) -> Resolver | None:
    """The function that resolves an action of this kind (None: no rule does), as RESOLVERS lists it;
    before RESOLVERS is made, attacking and waiting are answered from its first entries alone."""
    listed: dict[type[Action], Resolver] | None = globals().get("RESOLVERS")
    if listed is None:
        plain = _plain_resolvers()
        if kind in plain:
            return plain[kind]
        listed = __getattr__("RESOLVERS")
    return listed.get(kind)


def _plain_resolvers() -> dict[type[Action], Resolver]:
    """The first entries of RESOLVERS: attacking and waiting (engine/resolve.py); made once."""
    if not _PLAIN:
        from referee.engine import resolve
        from referee.engine.actions import Attack, Wait

        _PLAIN.update({Attack: resolve.resolve_attack, Wait: resolve.resolve_wait})
    return _PLAIN


_PLAIN: dict[type[Action], Resolver] = {}


def _action_lists() -> dict[str, Any]:
    """RESOLVERS and ACTION_TYPES, the modules they name imported (once: the module keeps them)."""
    from referee.engine import (
        conditions,
        effects,
        house,
        moves,
        odd_actions,
        refusals,
        table_actions,
        withdrawal,
    )

    # Every action kind and the function that resolves it into events (ODD-ACT-1 and the rules' own acts).
    RESOLVERS: dict[type[Action], Resolver] = {
        **_plain_resolvers(),  # a copy: RESOLVERS is the list callers may change
        house.Escape: house.resolve_escape,
        house.ResetGarrotte: house.resolve_reset,
        withdrawal.Withdraw: withdrawal.resolve_withdraw,
        moves.Move: moves.resolve_move,
        moves.MoveAttack: moves.resolve_move_attack,
        moves.Charge: moves.resolve_charge,
        odd_actions.CastSpell: odd_actions.resolve_cast,
        odd_actions.UseItem: odd_actions.resolve_use_item,
        odd_actions.UseAbility: odd_actions.resolve_use_ability,
        odd_actions.CheckedAttack: odd_actions.resolve_checked_attack,
        odd_actions.DefensiveManeuver: odd_actions.resolve_maneuver,
        odd_actions.QuickAct: odd_actions.resolve_quick,
        odd_actions.ExtraAction: odd_actions.resolve_extra,
        conditions.ApplyCondition: conditions.resolve_apply,
        conditions.RemoveCondition: conditions.resolve_remove,
        effects.AreaEffect: effects.resolve_effect,
        refusals.Refused: refusals.resolve_refused,
        # the referee's table actions, in nobody's turn (engine/table_actions.py)
        table_actions.AdjustHp: table_actions.resolve_adjust_hp,
        table_actions.AddCombatant: table_actions.resolve_add,
        table_actions.RemoveCombatant: table_actions.resolve_remove,
        table_actions.Reveal: table_actions.resolve_reveal,
        table_actions.Hide: table_actions.resolve_reveal,
        table_actions.Mark: table_actions.resolve_mark,
        table_actions.Unmark: table_actions.resolve_unmark,
        table_actions.Note: table_actions.resolve_note,
        table_actions.FreeRoll: table_actions.resolve_roll,
    }

    # The actions by `kind`, as the tracker's forms and the JSON API name them.
    ACTION_TYPES: dict[str, type[Action]] = {cls.kind: cls for cls in RESOLVERS}
    return {"RESOLVERS": RESOLVERS, "ACTION_TYPES": ACTION_TYPES}


def _hook_lists() -> dict[str, Any]:
    """The lists of hooks, the modules they name imported (once)."""
    from referee.engine import conditions, drowning, fumbles, house, moves, odd_hooks, odd_tactics

    # Send a declared attack at another target (an outsider striking into a grapple, MOD-COND-GRAPPLED-2).
    RETARGET_RULES: tuple[Retarget, ...] = (conditions.random_grappler,)

    # Events after an attack (fumbles, garrottes, stray missiles, armour damage...), in this order.
    AFTER_ATTACK: tuple[AfterAttack, ...] = (
        fumbles.fumble_events,
        house.garrotte_after_attack,
        house.second_roll_events,
        house.touch_after_attack,
        house.armour_after_critical,
        moves.charge_negation,
        odd_hooks.break_free,
        odd_hooks.stray_missiles,
        conditions.wake_sleepers,
        conditions.called_shot_result,
    )

    # Events after any action (a charged touch spell lost to another action, HR-TOUCH-3).
    AFTER_ACTION: tuple[AfterAction, ...] = (house.touch_lost,)

    # At the start of each round, after initiative (scripted charges, segment delays).
    START_OF_ROUND: tuple[RoundHook, ...] = (
        odd_tactics.declare_scripted_charges,
        conditions.segment_delays,
    )

    # At the end of each round, before ROUND_END (garrotte counts, holds without holder, drowning).
    END_OF_ROUND: tuple[RoundHook, ...] = (
        house.garrotte_end_of_round,
        odd_hooks.holds_without_holder,
        drowning.drowning,
    )

    # Choices that override the default tactics for unsteered combatants; the first that chooses wins.
    OVERRIDES: tuple[Override, ...] = (
        conditions.unable_to_act,  # before any other choice: it cannot act at all
        house.held_choices,
        odd_tactics.held_tries_to_break_free,
        odd_tactics.caster_keeps_casting,
        odd_tactics.scripted_maneuver,
        odd_tactics.close_in,
    )

    # Checks on a spell as its casting starts (MOD-COND-BLIND-2, MOD-COND-DEAF).
    CAST_CHECKS: tuple[CastCheck, ...] = (conditions.spell_checks,)
    return {
        "RETARGET_RULES": RETARGET_RULES,
        "AFTER_ATTACK": AFTER_ATTACK,
        "AFTER_ACTION": AFTER_ACTION,
        "START_OF_ROUND": START_OF_ROUND,
        "END_OF_ROUND": END_OF_ROUND,
        "OVERRIDES": OVERRIDES,
        "CAST_CHECKS": CAST_CHECKS,
    }
