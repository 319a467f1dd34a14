"""The armour classes the referee's view shows, each kept with exactly what it read of the fight.

Every state the tracker answers with shows each combatant's AC against an ordinary blow from the first
enemy (:func:`referee.web.views.display_ac`), and a step changes few of the things an AC reads (the target's
hit points, who has acted): worked out afresh for every combatant of every answer, the ACs were the largest
part of the referee's view (issue 12). As the engine does for attack plans (engine/plan_reads.py), an AC is
worked out once with the fight behind recording stand-ins, which note every attribute read and method asked,
and kept with that list of reads; the AC of a later state (of this fight or another of the same setup) is
the kept one when every read gives the same answer there, so it is the AC the rules would work out. The
combatants' names are in the key too: a combatant added by the referee is a new fight for every rule.
``REFEREE_ENGINE_CACHES=off`` (:mod:`referee.rules.memo`) works every AC out afresh.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable
from dataclasses import replace
from typing import TYPE_CHECKING

from referee.engine.plan_reads import ReadPath, Recorder, Unkept, path_for
from referee.engine.state import CombatantState, FightState
from referee.errors import RefereeError
from referee.model import UNARMED
from referee.rules import memo
from referee.rules.context import AttackContext, AttackForm, Situation

if TYPE_CHECKING:
    from referee.rules.armour_class import ArmourClass

REFUSED = (RefereeError, LookupError, ValueError, TypeError)  # an AC that cannot be worked out: none shown
_PATHS = 8  # different lists of reads kept for one combatant and enemy
_BUDGET = 4_096  # ACs kept in all (then all are forgotten: memory stays bounded)

# (setup, names, defender, its sheet, enemy, its sheet) -> (the objects whose ids are in the key, paths);
# a path's answers -> the AC
_kept: dict[Hashable, tuple[tuple[object, ...], list[ReadPath]]] = {}
_count = 0
_lock = threading.Lock()  # requests run in a thread pool


def context(state: FightState, c: CombatantState) -> AttackContext | None:
    """An ordinary melee blow at `c` from the first combatant of another side (None: nobody is)."""
    enemy = next((o for o in state.combatants.values() if o.side != c.side), None)
    if enemy is None:
        return None
    return AttackContext(
        state, enemy, c, UNARMED, AttackForm.MELEE, Situation(), distance=state.setup.distance
    )


def worked_out(ctx: AttackContext) -> ArmourClass | None:
    """The AC of `ctx` from the rules, afresh."""
    from referee.rules.armour_class import armour_class

    try:
        return armour_class(ctx)
    except REFUSED:
        return None


def armour_class_of(state: FightState, c: CombatantState) -> ArmourClass | None:
    """:func:`worked_out` of :func:`context`: a kept AC whose reads all give the same answers here, else
    worked out with its reads noted and kept."""
    ctx = context(state, c)
    if ctx is None:
        return None
    enemy = ctx.attacker
    people = state.combatants
    if not memo.ENABLED or people.get(c.name) is not c or people.get(enemy.name) is not enemy:
        return worked_out(ctx)
    key = (id(state.setup), tuple(people), c.name, id(c.spec), enemy.name, id(enemy.spec))
    with _lock:
        kept = _kept.get(key)
        paths = tuple(kept[1]) if kept is not None else ()
    for path in paths:
        answers = path.answers(state)
        if answers is not None:
            known = path.by_answers.get(answers)
            if known is not None:
                return known  # type: ignore[return-value]
    recorder = Recorder(state)
    watched = replace(
        ctx, state=recorder.fight, attacker=recorder.person(enemy.name), defender=recorder.person(c.name)
    )
    from referee.rules.armour_class import armour_class

    try:
        found = armour_class(watched)
    except (Unkept, *REFUSED):
        # a read that cannot be compared, or a refusal: worked out on the fight itself, not kept
        return worked_out(ctx)
    if recorder.unkept:
        return worked_out(ctx)
    _keep(key, (state.setup, c.spec, enemy.spec), recorder, found)
    return found


def _keep(key: Hashable, alive: tuple[object, ...], recorder: Recorder, found: ArmourClass) -> None:
    global _count
    asks = tuple((who, name, args) for who, name, args, _ in recorder.reads)
    answers = tuple(answer for *_, answer in recorder.reads)
    with _lock:
        if _count >= _BUDGET:
            _kept.clear()
            _count = 0
        kept = _kept.get(key)
        if kept is None:
            kept = _kept[key] = (alive, [])  # the setup and sheets held, so their ids stay theirs
        path, dropped = path_for(kept[1], asks, alive, _PATHS)
        _count -= dropped
        if answers not in path.by_answers:
            _count += 1
        path.by_answers[answers] = found  # type: ignore[assignment]


def forget() -> None:
    """Forget every kept AC (tests; the budget spent)."""
    global _count
    with _lock:
        _kept.clear()
        _count = 0
