"""The armour classes the referee's view shows, each kept with exactly what it read of the fight.

Every state the tracker answers with shows each combatant's AC against an ordinary blow from the first
enemy (:func:`referee.web.views.display_ac`), and a step changes few of the things an AC reads (the target's
hit points, who has acted): worked out afresh for every combatant of every answer, the ACs were the largest
part of the referee's view (issue 12). As the engine does for attack plans (engine/plan_reads.py), an AC is
worked out once with the fight behind recording stand-ins, which note every attribute read and method asked,
and kept with that list of reads; the AC of a later state (of this fight or another of the same setup) is
the kept one when every read gives the same answer there, so it is the AC the rules would work out (one
memo of a rule by what it read, :class:`referee.engine.plan_reads.ReadMemo`, for plans and ACs alike). The
combatants' names are in the key too: a combatant added by the referee is a new fight for every rule.
``REFEREE_ENGINE_CACHES=off`` (:mod:`referee.rules.memo`) works every AC out afresh.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from referee.engine.plan_reads import ReadMemo, Unkept, behind_stand_ins
from referee.engine.state import CombatantState, FightState
from referee.errors import RefereeError
from referee.model import UNARMED
from referee.rules import memo
from referee.rules.context import AttackContext, AttackForm, Situation

if TYPE_CHECKING:
    from referee.rules.armour_class import ArmourClass

REFUSED = (RefereeError, LookupError, ValueError, TypeError)  # an AC that cannot be worked out: none shown
# by (setup, names, defender, its sheet, enemy, its sheet): 8 lists of reads for one combatant and enemy,
# 4,096 ACs in all (then all are forgotten: memory stays bounded)
_KEPT = ReadMemo(paths=8, answers=None, budget=4_096)


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
    known = _KEPT.find(key, state)
    if known is not None:
        return known  # type: ignore[no-any-return]
    from referee.rules.armour_class import armour_class

    with behind_stand_ins(ctx) as (watched, recorder):
        try:
            found = armour_class(watched)
        except (Unkept, *REFUSED):
            found = None
    if found is None or recorder.unkept:
        # a read that cannot be compared, or a refusal: worked out on the fight itself, not kept
        return worked_out(ctx)
    _KEPT.keep(key, recorder, found, (state.setup, c.spec, enemy.spec))  # their ids are in the key
    return found


def forget() -> None:
    """Forget every kept AC (tests)."""
    _KEPT.forget()
