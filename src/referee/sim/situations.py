"""Where an attack is made, as the attack tables name it (:class:`Situation`), the probe state that stands
for it (``outcomes.probe_state``) and the attack the default tactics choose there (:func:`planned`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from referee.engine import outcomes
from referee.engine.actions import Attack, Wait
from referee.engine.refusals import Refused
from referee.engine.resolve import attack_context
from referee.engine.tactics import choose_action
from referee.errors import IllegalActionError
from referee.files import Setup
from referee.rules.attack import AttackPlan, plan_attack
from referee.sim import blow_backs
from referee.sim.tables import Unsupported


def plan_key(plan: AttackPlan) -> tuple[Any, ...]:
    """What makes two attacks resolve alike (names aside)."""
    c = plan.check
    return (
        plan.weapon, plan.form, tuple(m.value for m in c.modifiers), c.target, c.natural, c.keep, c.automatic,
        c.compare, c.sides, c.count, plan.damage, plan.critical, plan.miss_chance, plan.miss_dice,
        plan.on_hit, plan.on_attempt, plan.deflection_used,
    )  # fmt: skip


def effects(plan: AttackPlan) -> str:
    """The conditions an attack imposes, as a short list: `grappled on Hob until removed (ODD-GRAP-3)`."""
    parts = []
    for when, effects in (("on a hit", plan.on_hit), ("when tried", plan.on_attempt)):
        for e in effects:
            until = (
                "until removed" if e.rounds is None
                else "to the end of the round" if e.rounds == 0
                else "for 1 more round" if e.rounds == 1 else f"for {e.rounds} more rounds"
            )  # fmt: skip
            parts.append(f"{e.condition} on the {e.who} {when}, {until}, {e.rule}")
    return "; ".join(parts)


@dataclass(frozen=True)
class Situation:
    """Where an attack is made (see the module docstring)."""

    attacker: str
    target: str
    earlier: tuple[str, ...]
    caught: bool | None = None  # None: a round of initiative; else the free round, target surprised?
    spent: int = 0
    marks: tuple[outcomes.Mark, outcomes.Mark] | None = None  # the target's and the attacker's states
    round_no: int = 1  # 1: round 1; 2: every later round (checked on others); the free round: 0
    down: tuple[str, ...] = ()  # fallen before the round: the attacker's named target, when not this one
    step: int = 0  # the attack of a routine (ODD-ATK-3, sim/routine_steps.py): 0, the first
    primary: str | None = None  # a later step's: the fallen target it moved on from (None: continues)
    spent_back: int = 0  # deflections the attacker has spent this round, on the target's attack (DAC-DEFL-3)
    own: int = 0  # J: the attacker's own attackers this round, its first other foes (sim/blow_backs.py)

    def probe(self, setup: Setup, number: int, hp: int = 1, own: tuple[str, ...] | None = None) -> Any:
        """The probe state; the target has `hp` (1: it is the one to hit, the tactics' choice). A later
        step of a routine on its target finds the attacker among the target's attackers, after the
        `earlier` ones (ODD-AC-SHIELD); one that moved on finds the first target down. Deflections the
        attacker has spent (a blow back meets them, MF-FUMBLE-2) were spent on the target's attack on it.
        The attacker's own attackers are its first `self.own` other foes (and the target, where it spent
        the attacker's deflections); `own`: those instead (sim/blow_backs.py checks what they change)."""
        surprised = None if self.caught is None else ([self.target] if self.caught else [])
        marks = {} if self.marks is None else {self.attacker: self.marks[1], self.target: self.marks[0]}
        earlier = {self.target: self.earlier}
        down = self.down
        if self.step and self.primary is None:
            earlier = {self.target: (*self.earlier, self.attacker)}
        elif self.primary is not None:
            earlier = {self.primary: (self.attacker,), **earlier}
            down = (*down, self.primary)
        spent = {self.target: self.spent}
        if self.own or self.spent_back:
            foes = blow_backs.own_foes(setup, self.attacker, self.target)[: self.own]
            earlier = {**earlier, self.attacker: (*foes, self.target) if self.spent_back else foes}
            spent = {**spent, self.attacker: self.spent_back}
        if own is not None:
            earlier = {**earlier, self.attacker: own}
        return outcomes.probe_state(setup, {self.target: hp}, number, earlier, surprised, spent, marks, down)

    def first_step(self) -> Situation:
        """Where the routine began: the target it was declared at, before the attacker struck it."""
        target = self.primary if self.primary is not None else self.target
        earlier = () if self.primary is not None else self.earlier
        spent = 0 if self.primary is not None else self.spent
        return replace(self, target=target, earlier=earlier, spent=spent, step=0, primary=None)


def planned(
    setup: Setup, where: Situation, number: int, own: tuple[str, ...] | None = None
) -> tuple[Any, Any]:
    """The tactics' action when the target is the one to hit, and its plan (None: waits); `own`: the
    attacker's own attackers this round (the tables' have none)."""
    state = where.probe(setup, number, own=own)
    action = choose_action(state, where.attacker)
    if isinstance(action, Refused) and isinstance(action.action, Wait | Attack):
        # a tactic the rules refuse (MF-OTHER-1, MF-COVER-3...): the engine writes a free note and takes
        # the legal action instead (engine/refusals.py), which is what the tables play
        action = action.action
    if isinstance(action, Wait):
        return state, None
    if not isinstance(action, Attack) or action.target != where.target:
        raise Unsupported(
            f"the tactics give {where.attacker} a {action.kind} action, not a plain attack on {where.target}"
        )
    try:
        plan = plan_attack(attack_context(state, action))
    except IllegalActionError:
        return state, None
    return state, (action, plan)


def step_key(found: tuple[Any, Attack, AttackPlan | None] | None) -> Any:
    """What tells a routine step's plans apart between rounds (None: no routine; "lost": no attack)."""
    if found is None:
        return None
    return "lost" if found[2] is None else plan_key(found[2])
