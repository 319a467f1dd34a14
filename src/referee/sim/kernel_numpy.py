"""The array kernel: all fights of a batch advance together, a few array operations per position in
the order. It holds no rule: every decision is a lookup in the compiled tables (:class:`Compiled`),
a draw from one of them, a sort of initiative keys or a minimum of target keys. It is the reference
for the numba kernel (:mod:`referee.sim.kernel_numba`) and the path without numba."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from referee.rules import hit_points
from referee.sim.compile import Compiled
from referee.sim.first_strike import strike_first
from referee.sim.procedures import NOBODY
from referee.sim.result import Tally
from referee.sim.tables import IntArray, Packed

PAIRWISE_LIMIT = 12  # up to this many combatants, pairwise comparisons beat a sort (measured)


def sample(table: Packed, which: Any, u: npt.NDArray[np.float64]) -> Any:
    """One draw from each chosen table: entry floor(u * size) of table `which`."""
    return table.values[table.off[which] + (u * table.size[which]).astype(np.int64)]


@dataclass
class _Fights:
    """The fights of a batch still going on, one row per combatant (C, m): contiguous per combatant."""

    hp: npt.NDArray[np.int32]
    code: npt.NDArray[np.int8]  # status code; 0 = active
    keyed: npt.NDArray[np.int64]  # the tactics' preference for each as a target (Compiled.target_key)
    wear: npt.NDArray[np.int32]  # armour state (HR-ARMDMG-1..4): an index into the attacks' tables
    sub: npt.NDArray[np.int32]  # subdual damage taken (GAP-SUBDUAL)

    @property
    def size(self) -> int:
        return int(self.hp.shape[1])

    def keep(self, mask: npt.NDArray[np.bool_]) -> None:
        self.hp = np.ascontiguousarray(self.hp[:, mask])
        self.code = np.ascontiguousarray(self.code[:, mask])
        self.keyed = np.ascontiguousarray(self.keyed[:, mask])
        self.wear = np.ascontiguousarray(self.wear[:, mask])
        self.sub = np.ascontiguousarray(self.sub[:, mask])


def simulate_batch(c: Compiled, n: int, rng: np.random.Generator) -> Tally:
    """Play `n` fights to the end and count the results (all fights of a batch advance together)."""
    count = c.count
    hp = np.empty((count, n), dtype=np.int32)
    for j in range(count):
        hp[j] = sample(c.hp, j, rng.random(n))
    at = c.status_base[:, None] + hp * c.sub_size[:, None]
    zeros = np.zeros((count, n), np.int32)
    fights = _Fights(hp, c.status_values[at], c.target_key[at], zeros, zeros.copy())
    tally = Tally.empty(len(c.sides), count, c.max_rounds)
    tally.fights = n
    round_no = 0
    if c.free_round is not None:  # ODD-SURP-1..5: who is surprised, drawn from the rule's own table
        free = c.free_round
        verdict_code = sample(free.table, np.zeros(n, np.int64), rng.random(n))
        _play_round(c, fights, rng, 0, (free.acts[verdict_code].T, free.surprised[verdict_code].T))
        _round_end(c, fights, rng, 0, free.played[verdict_code])
        _finish(c, fights, tally, 0, free.played[verdict_code])
    while fights.size:
        round_no += 1
        _play_round(c, fights, rng, round_no)
        _round_end(c, fights, rng, round_no)
        _finish(c, fights, tally, round_no)
    return tally


def _round_end(
    c: Compiled, fights: _Fights, rng: np.random.Generator, round_no: int,
    played: npt.NDArray[np.bool_] | None = None,
) -> None:  # fmt: skip
    """Each combatant's state after the round (Compiled.round_end: conditions that end with it; or
    drawn from Compiled.end_draw's tables, MF-DROWN-2/3); `played`: the fights that played this round
    (the free round is not played in every fight)."""
    if c.end_draw is not None:
        _drawn_round_end(c, fights, rng, round_no)
        return
    if c.round_end is None:
        return
    after = c.round_end[np.arange(c.count)[:, None], fights.wear]
    fights.wear = np.ascontiguousarray(after if played is None else np.where(played, after, fights.wear))


def _drawn_round_end(c: Compiled, fights: _Fights, rng: np.random.Generator, round_no: int) -> None:
    """MF-DROWN-2/3: each combatant's end of round drawn from its table for the round, its state and
    standing, in the fights where more than one side stands (the engine ends the others at the action)."""
    active = fights.code == 0
    going = np.stack([active[lo:hi].any(axis=0) for lo, hi in c.side_rows]).sum(axis=0) > 1
    which = c.end_draw[round_no, np.arange(c.count)[:, None], fights.wear, active.astype(np.int64)]  # type: ignore[index]
    drawn = sample(c.end_table, which, rng.random(which.shape))
    fights.wear = np.ascontiguousarray(np.where(going, c.end_state[drawn], fights.wear))
    status = c.end_status[drawn]
    falls = going & (status >= 0)
    fights.code[falls] = status[falls]
    fights.keyed[falls] = NOBODY


def _finish(
    c: Compiled, fights: _Fights, tally: Tally, round_no: int, checked: npt.NDArray[np.bool_] | None = None
) -> None:
    """The end of round `round_no` (turns.fight_end, tabulated): count the fights that end, drop them.
    `checked`: which fights played this round (the free round is not played in every fight)."""
    bits = (np.int64(1) << np.arange(len(c.sides), dtype=np.int64))[:, None]
    active = fights.code == 0
    standing = np.stack([active[lo:hi].any(axis=0) for lo, hi in c.side_rows])
    verdict = c.end_code[round_no, (standing * bits).sum(axis=0)]
    done = verdict >= 0 if checked is None else (verdict >= 0) & checked
    if done.any():
        _count_finished(tally, c, fights.hp[:, done], fights.code[:, done], verdict[done], round_no)
        fights.keep(~done)


def _play_round(
    c: Compiled, fights: _Fights, rng: np.random.Generator, round_no: int, free: tuple[Any, Any] | None = None
) -> None:
    """One round: initiative, then everyone in order whose turn the tables allow attacks its target.

    `free`: the free round of surprise (ODD-SURP-4), per (combatant, fight) who acts and who is
    surprised: each acting combatant alone in its slot, in file order, with the free round's plans."""
    count, m = c.count, fights.size
    flat_code = fights.code.reshape(-1)
    rows = np.arange(m, dtype=np.int32)
    if free is None:
        actor_at, slot_first = _initiative(c, fights.code == 0, rng, round_no, fights.wear)
        first = c.first_plan_index if round_no == 1 else None  # a scripted first action
        plans, caught = (first if first is not None else c.plan_index), None
        if c.round_plans is not None and c.plan_round is not None:  # tactics that apply in some rounds
            plans = c.round_plans[c.plan_round[round_no]]
    else:
        actor_at = slot_first = np.repeat(np.arange(count, dtype=np.int32)[:, None], m, axis=1)
        assert c.free_plan_index is not None
        plans, caught = c.free_plan_index, free[1].reshape(-1)
    downed = np.full(count * m, -1, dtype=np.int32)  # position in the order at which it went down
    k_top = c.plan_index.shape[2] - 1
    spent = np.zeros(count * m, dtype=np.int32) if c.plan_index.shape[3] > 1 else None  # DAC-DEFL-3
    round_ = _Round(c, m, rng, _Attackers.empty(count * m), downed, spent)
    tracks = bool(k_top) or c.own_count > 1
    flat_plans = plans.reshape(-1)
    for p in range(count):
        a = actor_at[p]
        at = a * m + rows
        down_in_slot = (downed[at] >= slot_first[p]).astype(np.intp)
        acts = c.may_act[flat_code[at], down_in_slot]  # ODD-INIT-3, from turns.next_actor
        if free is not None:
            acts &= free[0][p]  # the surprised do not act in the free round
        chosen = _preferred_target(c, fights.keyed).reshape(-1)[c.side_of[a] * m + rows]
        if c.scripted_target is not None:  # the target a tactic names, while it stands
            named = c.scripted_target[a]
            some = np.flatnonzero(named >= 0)
            some = some[flat_code[named[some] * m + some] == 0]
            chosen[some] = named[some]
        f = np.flatnonzero(acts & (chosen < NOBODY))
        if not f.size:
            continue
        af, tf = a[f], (chosen[f] & 255).astype(np.int64)
        start = flat_code[af * m + f]  # a routine stops where its attacker falls (ODD-ATK-3)
        tt = tf * m + f
        pair = af * count + tf
        if caught is not None:  # the free round's plans: the target surprised or not
            pair = pair + caught[tt].astype(np.int64) * (count * count)
        # the plan may depend on the attacker's place among the target's attackers this round, or their
        # count (ODD-AC-SHIELD)
        place = round_.attackers.place(tt, af) if tracks else np.zeros(f.size, np.int64)
        earlier = np.minimum(place, k_top)
        plan = flat_plans[round_.cell(fights, pair, earlier, tt, af * m + f)]
        if c.may_wait:  # no legal attack on that target: the tactics wait
            go = plan >= 0
            f, af, tf, tt, plan, earlier, start, place = (
                x[go] for x in (f, af, tf, tt, plan, earlier, start, place)
            )
        if tracks:
            round_.attackers.add(tt, af, place)
        round_.strike(fights, f, af, tf, tt, plan, p)
        for step in range(1, int(c.routine_len.max())):  # a routine's later attacks (sim/routine_steps.py)
            assert c.step_plans is not None
            go = (c.routine_len[af] > step) & (flat_code[af * m + f] == start)
            f, af, tf, tt, earlier, start = (x[go] for x in (f, af, tf, tt, earlier, start))
            # as routines.step_action: on to the default target when the target has fallen
            moved = flat_code[tt] != 0
            chosen = _preferred_target(c, fights.keyed).reshape(-1)[c.side_of[af] * m + f]
            go = ~moved | (chosen < NOBODY)
            f, af, tf, tt, earlier, start, moved, chosen = (
                x[go] for x in (f, af, tf, tt, earlier, start, moved, chosen)
            )
            tf = np.where(moved, chosen & 255, tf).astype(np.int64)
            tt = tf * m + f
            place = round_.attackers.place(tt, af) if tracks else np.zeros(f.size, np.int64)
            if k_top:  # on a new target, its place among that one's attackers (one of them from now on)
                earlier = np.where(moved, np.minimum(place, k_top), earlier)
            pair = (step - 1) * 2 * count * count + moved * (count * count) + af * count + tf
            plan = c.step_plans.reshape(-1)[round_.cell(fights, pair, earlier, tt, af * m + f)]
            go = plan >= 0  # else this attack is lost
            if tracks:
                new = go & moved
                round_.attackers.add(tt[new], af[new], place[new])
            round_.strike(fights, f[go], af[go], tf[go], tt[go], plan[go], p)


@dataclass
class _Attackers:
    """Each combatant's first distinct attackers this round (as a shield counts them, ODD-AC-SHIELD), in
    the order they first attacked it, per flat (combatant, fight) spot: the engine's attackers_this_round."""

    who: npt.NDArray[np.int64]  # (C * m, 3)
    count: npt.NDArray[np.int64]  # (C * m,): how many of them (at most 3)

    @classmethod
    def empty(cls, spots: int) -> _Attackers:
        return cls(np.full((spots, 3), -1, np.int64), np.zeros(spots, np.int64))

    def place(self, spot: Any, attacker: Any) -> Any:
        """`attacker`'s place among the attackers at `spot`, or their count where it is not one of them."""
        out = self.count[spot].copy()
        for q in range(2, -1, -1):
            out = np.where(self.who[spot, q] == attacker, q, out)
        return out

    def add(self, spot: Any, attacker: Any, place: Any) -> None:
        """`attacker` among them from now on (`place`: its place now, the count where it is not one)."""
        new = (place == self.count[spot]) & (place < 3)
        self.who[spot[new], place[new]] = attacker[new]
        self.count[spot[new]] += 1


@dataclass
class _Round:
    """What one round's attacks read and change besides the fights: attacks and deflections spent on
    each combatant this round, who went down where."""

    c: Compiled
    m: int
    rng: np.random.Generator
    attackers: _Attackers
    downed: npt.NDArray[np.int32]
    spent: npt.NDArray[np.int32] | None

    def cell(self, fights: _Fights, pair: Any, earlier: Any, tt: Any, aa: Any) -> Any:
        """The flat index into a plans array of (pair, earlier attackers, deflections spent, states)."""
        c = self.c
        k_top = c.plan_index.shape[2] - 1
        u_count, w_count = c.plan_index.shape[3], c.plan_index.shape[4]
        cell = pair * (k_top + 1) + earlier
        # and on the deflections it has spent this round (DAC-DEFL-3), and the attacker (a blow back)
        back, own = c.back_spent, c.own_count
        used: Any = 0
        if self.spent is not None and u_count > own:
            used = np.minimum(self.spent[tt], u_count // (back * own) - 1) * back
            if back > 1:
                used = used + np.minimum(self.spent[aa], back - 1)
        if own > 1:  # J: the target's place among the attacker's attackers (sim/blow_backs.py)
            used = used * own + np.minimum(self.attackers.place(aa, tt // self.m), own - 1)
        cell = cell * u_count + used
        if w_count > 1:  # and on its state (armour, HR-ARMDMG-1; conditions), and maybe the attacker's
            flat_wear = fights.wear.reshape(-1)
            state = flat_wear[tt].astype(np.int64)
            if c.attacker_states > 1:
                state = state * c.attacker_states + flat_wear[aa]
            cell = cell * w_count + state
        return cell

    def strike(self, fights: _Fights, f: Any, af: Any, tf: Any, tt: Any, plan: Any, p: int) -> None:
        """Draw each attack's outcome from its table and apply it to the fights (rows `f`)."""
        c, m, downed, spent = self.c, self.m, self.downed, self.spent
        outcome = sample(c.dmg, plan, self.rng.random(f.size))
        subdues = bool((c.sub_size > 1).any())  # some attack deals subdual damage (GAP-SUBDUAL)
        subdual = c.out_subdual[outcome] if subdues else None
        knocked_out = c.out_knockout[outcome] > 0 if (c.out_knockout > 0).any() else None  # MF-KO-1
        _wound(c, fights, tt, tf, c.out_target[outcome], downed, p, subdual, knocked_out)
        flat_wear = fights.wear.reshape(-1)
        if c.plan_index.shape[4] > 1:  # a critical damaged the target's armour or destroyed its shield
            worn = c.out_wear[outcome]
            changed = worn >= 0
            flat_wear[tt[changed]] = worn[changed]
        aa = af * m + f
        if (c.out_wear_back >= 0).any():  # the attack changed its attacker's state (a blow back's critical)
            worn = c.out_wear_back[outcome]
            changed = worn >= 0
            flat_wear[aa[changed]] = worn[changed]
        if spent is not None:
            spent[tt] += c.out_spent[outcome]
            spent[aa] += c.out_spent_back[outcome]
        if c.hits_back:  # MF-FUMBLE-2: a fumble gives the target a free attack on the attacker
            if c.plan_index.shape[2] > 1 or c.own_count > 1:  # struck back: an attacker of it too
                back_at = np.flatnonzero(c.out_back[outcome] > 0)
                self.attackers.add(aa[back_at], tf[back_at], self.attackers.place(aa[back_at], tf[back_at]))
            back = c.out_subdual_back[outcome] if subdues else np.zeros_like(outcome)
            struck = np.flatnonzero(c.out_attacker[outcome] | back)
            knocked = back[struck] if subdues else None
            _wound(c, fights, aa[struck], af[struck], c.out_attacker[outcome[struck]], downed, p, knocked)


def _wound(
    c: Compiled, fights: _Fights, spot: Any, who: Any, damage: Any, downed: Any, p: int, subdual: Any = None,
    knockout: Any = None,
) -> None:  # fmt: skip
    """Take `damage` (and `subdual` damage) off the combatants at flat `spot` (combatant index `who`);
    look up their status. `knockout`: which blows are knock-outs (MF-KO-1: one that brings its target to
    0 or below leaves it at 0 with its knock-out status)."""
    left = fights.hp.reshape(-1)[spot] - damage
    fights.hp.reshape(-1)[spot] = left
    size = c.sub_size[who]
    at = c.status_base[who] + left * size
    if subdual is not None or (size > 1).any():
        flat_sub = fights.sub.reshape(-1)
        if subdual is not None:
            flat_sub[spot] += subdual
        at = at + np.minimum(flat_sub[spot], size - 1)
    status = c.status_values[at]
    keyed = c.target_key[at]
    if knockout is not None:
        out = np.flatnonzero(knockout & (left <= 0))
        fights.hp.reshape(-1)[spot[out]] = 0
        status[out] = c.knockout_code[who[out]]
        keyed[out] = NOBODY
    fights.code.reshape(-1)[spot] = status
    fights.keyed.reshape(-1)[spot] = keyed
    downed[spot[status != 0]] = p


def _preferred_target(c: Compiled, keyed: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """For each side (S, m), the lowest target key among the other sides' combatants (NOBODY: none)."""
    side_best = [keyed[lo:hi].min(axis=0) for lo, hi in c.side_rows]
    if len(side_best) == 2:
        return np.stack([side_best[1], side_best[0]])
    out = np.full((len(side_best), keyed.shape[1]), NOBODY, dtype=np.int64)
    for s in range(len(side_best)):
        for other, best in enumerate(side_best):
            if other != s:
                np.minimum(out[s], best, out=out[s])
    return out


def unit_keys(
    c: Compiled, round_no: int, rng: np.random.Generator, m: int, wear: npt.NDArray[np.int32] | None = None
) -> npt.NDArray[np.int32]:
    """Each initiative unit's key rank (U, m), drawn from its table for this round (GAP-SEGMENTS: and for
    its state, `wear`, where segment delays act: the units are the combatants then)."""
    tables = c.init_index[c.init_round[round_no]]
    out = np.empty((c.units, m), dtype=np.int32)
    for u in range(c.units):
        which = (
            tables[u]
            if c.init_state is None or wear is None
            else c.init_state[c.init_round[round_no], u][wear[u]]
        )
        out[u] = sample(c.init, which, rng.random(m))
    return out


def _initiative(
    c: Compiled, active: npt.NDArray[np.bool_], rng: np.random.Generator, round_no: int,
    wear: npt.NDArray[np.int32] | None = None,
) -> tuple[Any, Any]:  # fmt: skip
    """Order of action: the highest key first, equal keys in one slot, file order inside a slot.

    Returns, per position (C, m), the combatant acting there and the first position of its slot. In
    round 1 those with first strike then move before the enemies they strike first (ODD-INIT-5/6)."""
    count, m = active.shape
    drawn = unit_keys(c, round_no, rng, m, wear)
    keys = drawn[c.unit_of]
    keys[~active] = 0  # below every rank: those down act in no slot
    order = order_by_sorting(keys) if count > PAIRWISE_LIMIT else order_pairwise(keys)
    if round_no == 1 and c.first_strike is not None:  # ODD-INIT-5/6: the walk of apply_first_strike
        return strike_first(order[0], order[1], c.first_strike)
    return order


def order_pairwise(keys: Any) -> tuple[Any, Any]:
    """Per fight (columns of `keys`): who acts at each position, and the first position of its slot."""
    count, m = keys.shape
    above = np.zeros((count, m), dtype=np.int32)  # how many have a higher key: the slot's first position
    position = np.zeros((count, m), dtype=np.int32)
    for i in range(count):
        for j in range(count):
            if i != j:
                above[i] += keys[j] > keys[i]
                if j < i:
                    position[i] += keys[j] == keys[i]
    position += above  # and how many act before it (file order inside a slot)
    actor_at = np.empty((count, m), dtype=np.int32)
    first = np.empty((count, m), dtype=np.int32)
    rows = np.arange(m, dtype=np.int32)
    flat_actor, flat_first = actor_at.reshape(-1), first.reshape(-1)
    for i in range(count):
        spot = position[i] * m + rows
        flat_actor[spot] = i
        flat_first[spot] = above[i]
    return actor_at, first


def order_by_sorting(keys: Any) -> tuple[Any, Any]:
    """The same order as the pairwise count, by a stable sort of each fight's keys (many combatants)."""
    count, m = keys.shape
    by_fight = np.ascontiguousarray(keys.T)
    perm = np.argsort(-by_fight, axis=1, kind="stable")
    ranked = np.take_along_axis(by_fight, perm, axis=1)
    first = np.zeros((m, count), dtype=np.int64)
    starts = np.where(ranked[:, 1:] != ranked[:, :-1], np.arange(1, count), 0)
    first[:, 1:] = np.maximum.accumulate(starts, axis=1)
    return np.ascontiguousarray(perm.T), np.ascontiguousarray(first.T)


def dead_code(c: Compiled) -> int:
    """The status code of the dead (-1: nobody can die here), for the survival count."""
    return c.status_names.index(hit_points.DEAD) if hit_points.DEAD in c.status_names else -1


def _count_finished(tally: Tally, c: Compiled, hp: Any, code: Any, verdict: IntArray, round_no: int) -> None:
    """Add finished fights (columns) to the tally; `verdict` as in :func:`procedures.end_table`."""
    sides = len(c.sides)
    tally.rounds[round_no] += hp.shape[1]
    tally.wins += np.bincount(verdict[verdict < sides], minlength=sides)
    tally.draws += int((verdict == sides).sum())
    tally.round_limit += int((verdict == sides + 1).sum())
    tally.alive += (code != dead_code(c)).sum(axis=1)
    tally.standing += (code == 0).sum(axis=1)
    tally.hp_left += np.maximum(hp, 0).sum(axis=1)
