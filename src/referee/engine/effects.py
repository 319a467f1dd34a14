"""Area and referee effects with a saving throw: a spell, a breath, a trap applied to several targets.

:class:`AreaEffect` (kind ``effect``) is the first action to use the saves of :mod:`referee.rules.saves`:

- ODD-ATK-4: the effect itself is the referee's; the engine rolls its damage once (``damage``, a dice
  expression or a number) and applies it to every target in ``targets``.
- GAP-SAVES: each target saves (``save``: ``class`` for the save table, ``luck_dex``, ``luck_con``... for
  a Luck (X) save, ``none`` for no save); ``on_save`` is ``half`` (rounded down) or ``none`` (no damage).
- Save modifiers from :func:`referee.rules.saves.save_modifiers`: cover per target (``cover: {name:
  degree}``) under the ruleset's ``cover`` option (MOD-COVER-1 with GAP-001-COVER values, or MF-COVER-1 /
  MF-COVER-2 on Luck (Dex) saves), MOD-COND-BLIND-1, MOD-COND-UNSEEN (the actor is blind, or the target
  invisible; not for a trap, ``creature: false``), MOD-COND-CLIMB-1 / -2 (``dodge``, ``slope``), fatigue.
- MOD-COVER-EVADE: a target with 90% cover or better that saves takes no damage at all.

Dice order: the damage dice first (none for a number), then one save d20 per target in the listed order.
The effect is the actor's action for the round unless the referee makes it free (``free: true``: it
uses nobody's turn and can be applied whenever a round is running, like a trap going off).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

from referee.checks import Check, Modifier
from referee.dice import DiceSource, DiceTape, parse_dice, roll
from referee.engine.action_support import action_event, actor_state
from referee.engine.actions import Action
from referee.engine.events import Event, EventType, event
from referee.engine.resolve import damage_events
from referee.engine.state import CombatantState, FightState
from referee.errors import DiceError, IllegalActionError
from referee.rules import hit_points
from referee.rules.context import COVER_DEGREES, degree
from referee.rules.ruleset import Ruleset
from referee.rules.saves import (
    SaveCircumstances,
    class_save,
    evades_all_damage,
    luck_save,
    roll_save,
)

LUCK_SAVES = {
    "luck_str": "strength", "luck_dex": "dexterity", "luck_con": "constitution",
    "luck_int": "intelligence", "luck_wis": "wisdom", "luck_cha": "charisma",
}  # fmt: skip
SAVES = ("class", *LUCK_SAVES, "none")
ON_SAVE = ("half", "none")
MAX_TARGETS = 100


@dataclass(frozen=True)
class AreaEffect(Action):
    """ODD-ATK-4, GAP-SAVES, MOD-COVER-EVADE: the referee applies a spell, breath or trap to targets
    that each save; `damage` (dice or a number) is rolled once for all."""

    kind: ClassVar[str] = "effect"
    source: str = ""  # the spell, breath or trap
    targets: tuple[str, ...] = ()
    damage: str | int = 0
    save: str = "class"  # class (the save table), luck_dex, luck_con, ... or none
    on_save: str = "half"  # half or none
    cover: dict[str, str] = field(default_factory=dict)  # per target: quarter, half, 3/4, 90%, full
    subdual: bool = False
    free: bool = False  # the referee rules it uses nobody's turn (a trap going off)
    creature: bool = True  # a creature's spell, breath or item (MOD-COND-UNSEEN); false for a trap
    dodge: bool = True  # a save to dodge or evade (MOD-COND-CLIMB-1)
    slope: bool = False  # climbers on a severe slope (MOD-COND-CLIMB-2)

    @property
    def out_of_turn(self) -> bool:
        """A free effect goes through the fight's door for the referee's own acts (no one's turn)."""
        return self.free


@dataclass(frozen=True)
class _Plan:
    dice: str | None  # None: a fixed amount
    amount: int
    covers: dict[str, str]


def _plan(state: FightState, action: AreaEffect) -> _Plan:
    """Check every input before any die is rolled (IllegalActionError with a one-line message)."""
    what = f"effect {action.source!r}" if action.source else "an effect"
    if not action.source.strip():
        raise IllegalActionError("an effect needs its `source` (the spell, breath or trap)")
    if not action.targets:
        raise IllegalActionError(f"{what} needs at least one target")
    if len(action.targets) > MAX_TARGETS:
        raise IllegalActionError(f"{what}: at most {MAX_TARGETS} targets, not {len(action.targets)}")
    seen: set[str] = set()
    for name in action.targets:
        if not isinstance(name, str):
            raise IllegalActionError(f"{what}: a target is a combatant's name, not {name!r}")
        if name in seen:
            raise IllegalActionError(f"{what}: {name} is listed twice")
        seen.add(name)
        if state[name].status == hit_points.DEAD:
            raise IllegalActionError(f"{what}: {name} is already dead")
    if action.save not in SAVES:
        raise IllegalActionError(f"{what}: unknown save {action.save!r}; saves: {', '.join(SAVES)}")
    if action.on_save not in ON_SAVE:
        raise IllegalActionError(f"{what}: on_save must be half or none, not {action.on_save!r}")
    if not isinstance(action.cover, dict):
        raise IllegalActionError(f"{what}: cover is a mapping of target name to degree")
    covers: dict[str, str] = {}
    for name, value in action.cover.items():
        if name not in seen:
            raise IllegalActionError(f"{what}: cover given for {name!r}, which is not a target")
        try:
            covers[name] = degree(value, COVER_DEGREES, "cover")
        except ValueError as exc:
            raise IllegalActionError(f"{what}: {name}: {exc}") from None
    damage = action.damage
    if isinstance(damage, bool) or not isinstance(damage, int | str):
        raise IllegalActionError(f"{what}: damage is a dice expression or a whole number, not {damage!r}")
    if isinstance(damage, int):
        if damage < 0:
            raise IllegalActionError(f"{what}: damage must be 0 or more, not {damage}")
        return _Plan(None, damage, covers)
    try:
        expr = parse_dice(damage)
    except DiceError as exc:
        raise IllegalActionError(f"{what}: damage {damage!r}: {exc}") from None
    if expr.maximum < 0:
        raise IllegalActionError(f"{what}: damage {damage!r} can never be positive")
    return _Plan(expr.text, 0, covers)


def save_check(saver: CombatantState, save: str, ruleset: Ruleset, how: SaveCircumstances) -> Check:
    """GAP-SAVES: the class save (d20 + modifiers >= the table) or a Luck (X) save (d20 <= score)."""
    if save == "class":
        return class_save(saver, ruleset, how)
    return luck_save(saver, LUCK_SAVES[save], ruleset, how)


def _save_modifiers(check: Check, save: str) -> tuple[Modifier, ...]:
    """The modifiers of a save: added to the roll (class save) or to the score (Luck saves)."""
    if save == "class":
        return check.modifiers
    return tuple(m for m in check.target_modifiers if m.rule != "GAP-SAVES")


def _without_unseen(check: Check) -> Check:
    """A trap is no creature that could fail to see its victim: no MOD-COND-UNSEEN."""
    keep = tuple(m for m in check.modifiers if m.rule != "MOD-COND-UNSEEN")
    gone = sum(m.value for m in check.target_modifiers if m.rule == "MOD-COND-UNSEEN")
    targets = tuple(m for m in check.target_modifiers if m.rule != "MOD-COND-UNSEEN")
    return replace(check, modifiers=keep, target_modifiers=targets, target=check.target - gone)


def resolve_effect(state: FightState, action: AreaEffect, dice: DiceSource) -> list[Event]:
    actor = state[action.actor] if action.free else actor_state(state, action.actor)
    plan = _plan(state, action)
    r = state.round
    ruleset = state.setup.ruleset
    tape = DiceTape(dice)
    if plan.dice is not None:
        amount = max(0, roll(plan.dice, tape, f"{action.source} damage").total)
        how = f"{plan.dice} = {amount}"
    else:
        amount, how = plan.amount, str(plan.amount)
    damage_dice = tape.take()
    kind = " subdual" if action.subdual else ""
    text = f"{actor.name}: {action.source} on {', '.join(action.targets)} ({how}{kind} damage"
    text += ")" if action.save == "none" else f", {action.save} save for {action.on_save})"
    if action.free:
        text += " (free: no turn used)"
    start = action_event(state, actor.name, "ODD-ATK-4", text, kind="effect", source=action.source,
                         targets=list(action.targets), free=action.free, amount=amount)  # fmt: skip
    out = [replace(start, dice=damage_dice)]  # the damage dice come first (docs/conditions.md)
    for name in action.targets:
        target = state[name]
        cover = plan.covers.get(name, "none")
        saved = False
        if action.save != "none":
            how_saves = SaveCircumstances(
                cover=cover, dodge=action.dodge, source_blind=action.creature and actor.has("blind"),
                slope=action.slope,
            )  # fmt: skip
            check = save_check(target, action.save, ruleset, how_saves)
            if not action.creature:
                check = _without_unseen(check)
            saved, natural = roll_save(check, tape, f"{action.source} save {name}")
            mods = _save_modifiers(check, action.save)
            rules = ["GAP-SAVES", *dict.fromkeys(m.rule for m in mods)]
            out.append(
                event(EventType.CHECK, r, actor=name, target=name, dice=tape.take(), modifiers=mods,
                      total=natural + check.bonus, target_number=check.target, hit=saved, rule="GAP-SAVES",
                      text=f"{check.label} against {action.source}: {check.breakdown([natural])}",
                      data={"check": "save", "save": action.save, "source": action.source, "by": actor.name,
                            "cover": cover, "natural": natural, "rules": rules})
            )  # fmt: skip
        out += _damage(state, action, target, amount, cover, saved, ruleset)
    return out


def _damage(
    state: FightState,
    action: AreaEffect,
    target: CombatantState,
    amount: int,
    cover: str,
    saved: bool,
    ruleset: Ruleset,
) -> list[Event]:
    kind = " subdual" if action.subdual else ""
    rule = "ODD-ATK-4"
    if saved and evades_all_damage(cover, saved, ruleset):
        taken, rule = 0, "MOD-COVER-EVADE"
        why = f"saved behind {cover} cover: no damage at all"
    elif saved and action.on_save == "none":
        taken, why = 0, "saved: no damage"
    elif saved:
        taken, why = amount // 2, f"saved: half of {amount}"
    else:
        taken = amount
        why = "failed the save" if action.save != "none" else "no save"
    return damage_events(
        state, target, taken, round_no=state.round, by=action.actor, subdual=action.subdual,
        rule=rule, text=f"{taken}{kind} damage from {action.source} ({why})",
        extra={"source": action.source, "saved": saved, "cover": cover},
    )  # fmt: skip


__all__ = ["LUCK_SAVES", "ON_SAVE", "SAVES", "AreaEffect", "resolve_effect", "save_check"]
