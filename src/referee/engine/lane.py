"""The plain attack step without the layers: the same choice, the same dice, the same events.

Most steps of an unsteered fight are one combatant attacking the weakest enemy with its weapon, while
nobody has a condition and nobody stands on a grid. Taken the ordinary way (:meth:`Fight.step`), such a
step passes six tactics overrides, the closing-in check, the target choice, the plan lookup twice, the
resolver's dispatch, the retarget rules and ten after-attack hooks, each finding nothing to do. This
module takes it directly: :func:`lane_for` decides once per setup whether the lane may play its fights
at all (the default tactics and the engine's own lists of hooks, no `tactic`, no grid), and
:meth:`Lane.play` plays such a fight to its end in one loop, checking before any die is rolled that each
step is such a step (no combatant with a condition, a single attack); any other step is left to
:meth:`Fight.step`, unchanged. Where a few combatants fight, the set-up's hit points and each round's
initiative are told by their dice (:meth:`Lane.told_setup`, :meth:`Lane.initiative`), as plain attacks are.

Why skipping is safe, hook by hook, for a melee or missile attack with no situation and no conditions
anywhere: the overrides answer only to conditions (unable to act, held, netted, garrotting, casting) or a
`tactic`; closing in chooses nothing when the default attack is legal (it is what the lane attacks
with); the retarget rule (MOD-COND-GRAPPLED-2) needs a grapple, and a touch spell's loss (HR-TOUCH-3) a
charged touch. After the roll, every after-attack hook answers only to a fumble or a critical (MF-FUMBLE-2,
HR-ARMDMG-1: then the lane runs them all, :func:`referee.engine.resolve.attack_events`), to a condition
(garrotte, charging, sleeping, a hold), a situation flag (into melee, called shot, stray) or grid
positions (stray missiles, GAP-STRAY). The plans, the rolls and the events are the engine's own
(:func:`attack_context`, :mod:`referee.engine.plan_reads`, :func:`attack_events`): the lane only leaves
out the calls that answer nothing. ``REFEREE_ENGINE_CACHES=off`` turns it off with the caches, so that
tests/engine/test_engine_caches.py compares every example both ways.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from referee.dice import DiceSource, ScriptedDice, parse_dice
from referee.engine import conditions, house, odd_hooks, odd_tactics, plan_reads, registry, tactics
from referee.engine.actions import Action, Attack
from referee.engine.caches import late
from referee.engine.events import Event, EventType, at_round
from referee.engine.odd_tactics import NO_SITUATION
from referee.engine.plain_attack import plain_attack_events, unreplaced
from referee.engine.resolve import attack_form, off_grid_gap, resolve_attack
from referee.engine.routines import weapon_choices
from referee.engine.state import ACTIVE, CombatantState, FightState
from referee.errors import IllegalActionError
from referee.model import Weapon
from referee.rules import hit_points, initiative, memo, targeting, turns
from referee.rules.context import AttackContext, AttackForm
from referee.rules.options import FinishFallen
from referee.rules.options import Initiative as InitiativeOption
from referee.setup import Setup

if TYPE_CHECKING:
    from referee.engine.fight import Fight
    from referee.engine.registry import RoundHook

# The lists the reasons above were checked against: a list changed since (a test, a plug-in) turns the
# lane off for every setup, and the ordinary step plays.
_CHECKED = (
    registry.OVERRIDES,
    registry.AFTER_ATTACK,
    registry.AFTER_ACTION,
    registry.RETARGET_RULES,
    registry.FORM_RULES,
    registry.START_OF_ROUND,
    registry.END_OF_ROUND,
)


class Lane:
    """What the lane keeps for one setup: each combatant's weapons to try, the weapon and form of each
    declared attack at each distance."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self.order = {c.name: i for i, c in enumerate(setup.combatants)}
        # combatants with one attack an action (a routine is left to the ordinary step, ODD-ATK-3)
        self.weapons: dict[str, list[str | None]] = {
            c.name: weapon_choices(c) for c in setup.combatants if len(c.attacks) <= 1
        }
        self.forms: dict[tuple[str, str | None, str, int], tuple[Weapon, AttackForm] | None] = {}
        # (attacker, weapon, defender, distance) -> the context last made for it (its fight's) and the
        # number its plans are kept under (plan_reads.declared_number)
        self.contexts: dict[tuple[str, str | None, str, int], tuple[AttackContext, int | None]] = {}
        self.numbers: dict[tuple[str, str | None, str, int], int | None] = {}
        self.start_hooks, self.quiet_end_hooks = _round_hooks(setup)
        # each combatant's initiative die as roll_unit labels it, and the INITIATIVE events told by faces
        self.labels = {c.name: initiative.die_label(c.name) for c in setup.combatants}
        self.setups: dict[tuple[int, ...], Event] = {}
        self.recipe: object = _MISSING
        self.orders: dict[tuple[tuple[str, ...], tuple[int, ...], int | str], Event] = {}

    def told_setup(self, fight: Fight, dice: DiceSource) -> Event:
        """The SETUP event (:meth:`Fight.setup_event`, ODD-HD-1, ODD-HD-2): where the hit dice of the setup
        come up a few ways (a duel's goblin: six), their faces are drawn here in the order
        :func:`referee.rules.hit_points.roll_hit_points` draws them and the event told for the same faces
        served; faces not seen yet are handed to the procedure itself (:class:`ScriptedDice`)."""
        recipe = self.hit_dice()
        if recipe is None:
            return fight.setup_event(dice)
        draw = dice.roll
        faces = tuple([draw(sides, purpose) for sides, purpose in recipe])
        found = self.setups.get(faces)
        if found is None:
            found = fight.setup_event(ScriptedDice(faces))
            if len(self.setups) >= 4096:
                self.setups.clear()
            self.setups[faces] = found
        return found

    def hit_dice(self) -> tuple[tuple[int, str], ...] | None:
        """The dice the set-up's hit points draw, in order, as (sides, purpose); None when the procedure is
        not the one imported, a roll is not a plain sum (its dice could depend on the faces) or the faces
        come up too many ways to be worth keeping. Found by asking the procedure with a source that notes
        what it draws (every face a 1), once per setup."""
        if hit_points.roll_hit_points is not _ROLL_HP:
            return None
        if self.recipe is _MISSING:
            probe = _Probe()
            ways = 1
            for c in self.setup.combatants:
                if c.hp is None and c.hp_dice and parse_dice(c.hp_dice).plain is None:
                    probe.asked = None
                    break
                hit_points.roll_hit_points(c, probe)
            if probe.asked is not None:
                for sides, _ in probe.asked:
                    ways *= sides
            self.recipe = tuple(probe.asked) if probe.asked is not None and ways <= _SETUP_WAYS else None
        return self.recipe  # type: ignore[return-value]

    def initiative(self, fight: Fight, number: int, dice: DiceSource) -> Event:
        """Round `number`'s INITIATIVE event (:meth:`Fight.initiative_event`, ODD-INIT-1..6): with a few
        combatants active and the procedures as imported (one d10 each, no segment delays, no group
        initiative: :meth:`play` asks when the fight begins), the d10s are drawn here in the order :func:`referee.rules.initiative.roll_initiative`
        draws them (the active combatants in file order) and the event told for the same combatants, faces
        and round is served; faces not seen yet are handed to the procedure itself (:class:`ScriptedDice`),
        so the rule stays in one place. With more combatants the same faces seldom come up twice: asked
        the ordinary way."""
        active = tuple([c.name for c in fight.state.combatants.values() if c.status == ACTIVE])
        if len(active) > _FEW:  # the procedures were checked unreplaced when the fight began (play)
            return fight.initiative_event(number, dice)
        labels = self.labels
        faces = tuple([dice.roll(10, labels[name]) for name in active])
        orders = self.orders
        found = orders.get((active, faces, number))
        if found is None:
            # the same in any round but the first (first strike, ODD-INIT-5) but for its round number
            base = orders.get((active, faces, _FIRST if number == 1 else _LATER))
            if base is None:
                base = fight.initiative_event(number, ScriptedDice(faces))
            found = at_round(base, number)
            if len(orders) >= 4096:
                orders.clear()
            orders[active, faces, _FIRST if number == 1 else _LATER] = base
            orders[active, faces, number] = found
        return found

    def play(
        self, fight: Fight, dice: DiceSource, pick: Callable[[FightState, str], Action], limit: int
    ) -> None:
        """Play `fight` to its end, as :func:`referee.engine.fight.run_fight`'s loop of :meth:`Fight.step`
        would: the set-up, each round's start and end and each plain attack here, any other step by
        :meth:`Fight.step` (`pick` choosing), the same events in the same order. After more than `limit`
        steps, the bug guard's error (a fight must end).

        One loop for the whole fight, so that what a step cannot have changed is not asked again (a round's
        start or end that tells only its marker and order changes nothing asked here): whether anybody has
        a condition or a grid position (:func:`_quiet`) is asked after a step only if one of its events
        could give one (a CONDITION, a SETUP, an ACTION with a position or a latecomer), each side's default
        target only after a step that changed hit points or a status (a miss changes neither), and the
        fight's end (:meth:`Fight._maybe_end`, ODD-ROUND-4) only after a plain attack that defeated
        somebody or while fewer than two sides stand: in the middle of a round, with two sides or more
        standing and nobody's status changed, the fight goes on (:func:`referee.rules.turns.goes_on`)."""
        ordinary = fight.step
        log = fight.events.append
        setup = self.setup
        # the initiative by faces where a few combatants fight (with more, the same faces seldom come up),
        # while the procedures are the ones imported: asked once a fight, as the lane's lists are
        few = len(setup.combatants) <= _FEW and _initiative_unreplaced(setup)
        initiative = self.initiative if few else None
        quiet: bool | None = None  # None: to be asked again
        contested = False  # two sides or more standing since the last end check (False: not known)
        # each side's default target while nobody's hit points or status change (a miss changes neither)
        chosen: dict[str, str | None] = {}
        steps = 0
        while fight.state.phase != "over":
            state = fight.state
            if state.phase != "rounds" or not memo.ENABLED or state.setup is not setup:
                if state.phase == "setup" and memo.ENABLED and state.setup is setup:
                    if fight.events:  # begun, no free round: the first round (what Fight.step takes then)
                        fight.open_round(dice, self.start_hooks, initiative)
                    else:
                        fight.begin(dice, self.told_setup)
                else:  # the end, or a setup changed since (a latecomer)
                    ordinary(pick, dice)
                quiet, contested = None, False
                chosen.clear()
            elif not state.order and not state.free_round:
                # what Fight.step takes then; the marker and the order change no condition, hit points or
                # status: what was known stays known unless a start-of-round hook told something
                if len(fight.open_round(dice, self.start_hooks, initiative)) != 2:
                    quiet, contested = None, False
                    chosen.clear()
            else:
                actor = state.next_actor()
                if quiet is None:
                    quiet = _quiet(state)
                if actor is None:
                    if quiet:  # no condition to answer to or to expire
                        ended = fight.close_round(dice, self.quiet_end_hooks, expiry=False)
                    else:
                        ended = fight.close_round(dice, late("registry").END_OF_ROUND)
                    if len(ended) != 1:  # more than the marker: a hook's, an expiry's or the fight's end
                        quiet, contested = None, False
                        chosen.clear()
                else:
                    weapons = self.weapons.get(actor)
                    events = (
                        self.attack(state, actor, weapons, dice, chosen)
                        if quiet and weapons is not None
                        else None
                    )
                    if events is None:  # not a plain attack: the ordinary step's
                        ordinary(pick, dice)
                        quiet, contested = None, False
                        chosen.clear()
                    else:
                        state.apply_logged(events, log)  # Fight.push_step, the end asked below
                        defeated = False
                        for e in events:
                            kind = e.type
                            if kind is _ATTACK:
                                continue
                            if kind is _ACTION:
                                data = e.data
                                if "position" in data or "joins" in data:
                                    quiet = None
                                continue
                            if kind is _DAMAGE or kind is _DEFEAT:
                                # its target's hit points or status changed: the sides it is an enemy of
                                # choose afresh; its own side's choice reads only its enemies
                                hurt = e.target
                                if hurt is None:
                                    chosen.clear()
                                else:
                                    _forget_choices_against(chosen, state.combatants[hurt].side)
                                defeated = defeated or kind is _DEFEAT
                            else:
                                chosen.clear()
                                quiet = None  # a fumble's or a critical's consequences (their hooks)
                        if defeated or quiet is None or not contested:
                            fight._maybe_end()
                            contested = state.phase != "over" and state.several_sides_standing()
            steps += 1
            if steps > limit:  # a bug guard: a fight must end (round limit)
                raise RuntimeError("fight did not end")

    def attack(
        self,
        state: FightState,
        actor: str,
        weapons: list[str | None],
        dice: DiceSource,
        chosen: dict[str, str | None],
    ) -> list[Event] | None:
        """The events of `actor`'s plain attack on the default target in a state where nobody has a condition
        or a grid position, dice drawn; None (no die drawn) when it is not such a step. `chosen`: the target
        of each side, kept by the caller while no hit points or status change (what the choice reads)."""
        attacker = state.combatants[actor]
        side = attacker.side
        if side in chosen:
            target = chosen[side]
        else:
            target = chosen[side] = self.target(state, side)
        if target is None:
            return None
        defender = state.combatants[target]
        distance = off_grid_gap(state, attacker, defender)  # no grid: the gap left (ODD-ACT-ATK)
        contexts = self.contexts
        for weapon in weapons:
            key = (actor, weapon, target, distance)
            made = contexts.get(key)
            if (
                made is None
                or (ctx := made[0]).state is not state
                or ctx.attacker is not attacker
                or ctx.defender is not defender
            ):
                found = self.form(attacker, weapon, target, distance)
                if found is None:
                    continue
                # the same declaration in the same fight: the same frozen context (it reads the state live)
                ctx = _context(state, attacker, defender, found[0], found[1], distance)
                if len(contexts) >= 4096:
                    contexts.clear()
                made = contexts[key] = (ctx, self.number(key, ctx))
            try:
                declared = made[1]
                plan = (
                    plan_reads.declared_plan(ctx, declared, quiet=True)  # _quiet(state): the caller's
                    if declared is not None
                    else plan_reads.recorded_plan(ctx)
                )
            except IllegalActionError:
                continue
            return plain_attack_events(state, ctx, plan, dice)
        return None  # no legal attack: closing in or a refusal, the ordinary step's

    def number(self, key: tuple[str, str | None, str, int], ctx: AttackContext) -> int | None:
        """The number the plans of `ctx` are kept under (:func:`plan_reads.declared_number`): the same in
        every fight of the setup, as its declaration is (the setup, the sheets, the weapon, the form and
        the distance of `key`, no situation, no charge, not free)."""
        found = self.numbers.get(key, _MISSING)
        if found is _MISSING:
            declaration = plan_reads.declaration(ctx)
            found = None if declaration is None else plan_reads.declared_number(ctx, declaration)
            if len(self.numbers) >= 4096:
                self.numbers.clear()
            self.numbers[key] = found
        return found  # type: ignore[return-value]

    def form(
        self, attacker: CombatantState, weapon: str | None, target: str, distance: int
    ) -> tuple[Weapon, AttackForm] | None:
        """The weapon and form of the attack declared with `weapon` at `distance` (:func:`attack_form`, which
        reads only the sheet), or None when it is refused; worked out once per declaration and distance."""
        key = (attacker.name, weapon, target, distance)
        found = self.forms.get(key, _MISSING)
        if found is _MISSING:
            try:
                named = attacker.spec.weapon(weapon)
                found = (named, attack_form(attacker, named, None, distance))
            except IllegalActionError:
                found = None
            if len(self.forms) >= 4096:
                self.forms.clear()
                self.numbers.clear()  # their declarations name the weapons kept here
            self.forms[key] = found
        return found  # type: ignore[return-value]

    def target(self, state: FightState, side: str) -> str | None:
        """The default target of a combatant of `side` (:func:`referee.rules.targeting.choose_target`,
        option `finish_fallen` off)."""
        order = self.order
        return targeting.choose_target(
            [
                (c.name, c.hp, c.subdual, order[c.name])
                for c in state.combatants.values()
                if c.status == ACTIVE and c.side != side
            ]
        )


def _forget_choices_against(chosen: dict[str, str | None], side: str) -> None:
    """Forget the default target of every side but `side` (a combatant of `side` was damaged or fell): a
    side's choice (:func:`referee.rules.targeting.choose_target`) reads only its enemies' hit points,
    subdual damage and status."""
    if side not in chosen:
        chosen.clear()
        return
    kept = chosen[side]
    chosen.clear()
    chosen[side] = kept


def _context(
    state: FightState,
    attacker: CombatantState,
    defender: CombatantState,
    weapon: Weapon,
    form: AttackForm,
    distance: int,
) -> AttackContext:
    """The context :func:`attack_context` builds for the lane's attack (no situation, no charge, not free),
    without a frozen dataclass's per-field ``__setattr__``."""
    made = object.__new__(AttackContext)
    made.__dict__.update(
        state=state, attacker=attacker, defender=defender, weapon=weapon, form=form, situation=NO_SITUATION,
        charge=False, distance=distance, free_attack=False,
    )  # fmt: skip
    return made


_MISSING = object()
_GOES_ON = turns.goes_on
_ACTION, _ATTACK, _DAMAGE, _DEFEAT = EventType.ACTION, EventType.ATTACK, EventType.DAMAGE, EventType.DEFEAT


def _round_hooks(setup: Setup) -> tuple[tuple[RoundHook, ...], tuple[RoundHook, ...]]:
    """The start-of-round hooks that may answer in the lane's fights of `setup`, and the end-of-round ones
    while nobody has a condition: scripted charges answer only to a `tactic` (ODD-CHARGE-1; the lane's
    setups have none), segment delays only under `initiative = segments_with_delays` (GAP-SEGMENTS), a
    garrotte's count (HR-GARROTE-2) and a hold without its holder (ODD-GRAP-3) only to those conditions."""
    segments = setup.ruleset.initiative is InitiativeOption.SEGMENTS_WITH_DELAYS
    start = tuple(
        hook
        for hook in registry.START_OF_ROUND
        if hook is not odd_tactics.declare_scripted_charges
        and (segments or hook is not conditions.segment_delays)
    )
    end = tuple(
        hook
        for hook in registry.END_OF_ROUND
        if hook is not house.garrotte_end_of_round and hook is not odd_hooks.holds_without_holder
    )
    return start, end


class _Probe:
    """A dice source that notes what is drawn (sides, purpose) and shows a 1 (:meth:`Lane.hit_dice`)."""

    def __init__(self) -> None:
        self.asked: list[tuple[int, str]] | None = []

    def roll(self, sides: int, purpose: str) -> int:
        if self.asked is not None:
            self.asked.append((sides, purpose))
        return 1


_ROLL_HP = hit_points.roll_hit_points
_SETUP_WAYS = 64  # the set-up's hit dice faces come up at most this many ways: kept by faces


def _initiative_unreplaced(setup: Setup) -> bool:
    """Individual initiative with the procedures as imported and no segment delays: one d10 per active
    combatant, in file order, is all :func:`referee.rules.initiative.roll_initiative` draws."""
    i = initiative
    return (
        not i.DELAY_RULES
        and setup.ruleset.initiative is not InitiativeOption.D10_GROUP
        and i.roll_initiative is _INITIATIVE[0]
        and i.roll_unit is _INITIATIVE[1]
        and i.order_from_rolls is _INITIATIVE[2]
        and i.apply_first_strike is _INITIATIVE[3]
        and i.explain_order is _INITIATIVE[4]
    )


_INITIATIVE = (
    initiative.roll_initiative,
    initiative.roll_unit,
    initiative.order_from_rolls,
    initiative.apply_first_strike,
    initiative.explain_order,
)
_FEW = 2  # active combatants at most for the initiative by faces (three already come up too many ways)
_FIRST, _LATER = "first round", "a later round"  # the round-free events' keys (not a round number)


def _quiet(state: FightState) -> bool:
    """No combatant has a condition or a grid position: nothing for the skipped rules to answer to."""
    for c in state.combatants.values():  # noqa: SIM110 (a loop: no generator's cost each step)
        if c.conditions or c.position is not None:
            return False
    return True


# id(setup) -> (the setup, its lane or None): the setup is kept so that its id stays its own
_LANES: dict[int, tuple[Setup, Lane | None]] = {}
_LIMIT = 64


def lane_for(setup: Setup, choose: Callable[[FightState, str], Action] | None) -> Lane | None:
    """The lane of `setup` when it may play its fights' plain steps, else None (decided once per setup)."""
    if choose is not None and choose is not tactics.choose_action:
        return None
    found = _LANES.get(id(setup))
    if found is None or found[0] is not setup:
        if len(_LANES) >= _LIMIT:
            _LANES.clear()
        found = _LANES[id(setup)] = (setup, Lane(setup) if _plain(setup) else None)
    if not _unchanged():
        return None
    return found[1]


def _unchanged() -> bool:
    """The engine's lists are the ones the lane's reasons were checked against."""
    checked = _CHECKED  # asked once a fight: identities compared one by one, no tuple made
    return (
        unreplaced()
        and registry.OVERRIDES is checked[0]
        and registry.AFTER_ATTACK is checked[1]
        and registry.AFTER_ACTION is checked[2]
        and registry.RETARGET_RULES is checked[3]
        and registry.FORM_RULES is checked[4]
        and registry.START_OF_ROUND is checked[5]
        and registry.END_OF_ROUND is checked[6]
        and _resolver() is resolve_attack
        and turns.goes_on is _GOES_ON  # what Lane.play's skipped end checks would answer
    )


def _resolver() -> Any:
    # asked through `resolver`, which answers an attack before RESOLVERS is made: reading RESOLVERS
    # would import every other action's module (~7 ms) inside the first timed fight
    return registry.resolver(Attack)


def _plain(setup: Setup) -> bool:
    """A setup whose plain steps the lane may take: no `tactic`, no grid, the default targets (option
    `finish_fallen` off)."""
    if setup.ruleset.finish_fallen is not FinishFallen.OFF:
        return False
    return all(c.tactic is None and c.position is None for c in setup.combatants)
