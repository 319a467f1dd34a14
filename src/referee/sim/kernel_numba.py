"""The compiled kernel (numba): the same fights as :func:`kernel_numpy.simulate_batch`, played one
fight at a time in machine code. It reads the same tables and follows the same steps (the array
kernel stays as the reference and the fallback when numba is missing; ``tests/test_sim.py`` checks
that the two agree). Like it, it holds no rule: lookups, draws, a sort of keys, a minimum of keys."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from referee.sim.compile import Compiled
from referee.sim.kernel_numpy import dead_code
from referee.sim.result import Tally
from referee.sim.tables import Packed, to_table

NUMBA = "numba"  # the compiled kernel (needs the numba package)
NUMPY = "numpy"  # the array kernel (the reference; used without numba or when asked for)

_NUMBA_PLAY: Callable[..., Any] | None = None

# SplitMix64 (Steele, Lea and Flood 2014): the kernel's random numbers. Its state steps by GAMMA before
# each draw and the draw is MIX(state): a batch's draws are a fixed function of its seed, in order.
GAMMA = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)


def numba_play() -> Callable[..., Any] | None:
    """The numba kernel, compiled on first use (and cached on disk), or None without numba."""
    global _NUMBA_PLAY
    if _NUMBA_PLAY is not None:
        return _NUMBA_PLAY
    from referee.user_cache import numba_cache_ready

    cache = numba_cache_ready()  # the user's cache folder, set before numba is imported, or no cache
    try:
        import numba  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        return None
    numba.extending.register_jitable(inline="always")(_pick)  # compiled into the kernel
    _NUMBA_PLAY = numba.njit(cache=cache, nogil=True)(_play_fights)
    return _NUMBA_PLAY


def compiled_batch(c: Compiled, n: int, rng: np.random.Generator) -> Tally | None:
    """`simulate_batch` in the numba kernel (seeded from `rng`), or None when numba is missing."""
    play = numba_play()
    if play is None:
        return None
    tally = Tally.empty(len(c.sides), c.count, c.max_rounds)
    tally.fights = n
    pairs = c.first_strike if c.first_strike is not None else np.zeros((c.count, c.count), np.bool_)
    free = c.free_round
    if free is None or c.free_plan_index is None:  # no free round: placeholders of the right types
        surprise, played = Packed.of([to_table({0: Fraction(1)})]), np.zeros(1, np.bool_)
        acts = caught = np.zeros((1, c.count), np.bool_)
        free_plans = np.full((2, *c.plan_index.shape), -1, np.int32)
    else:
        surprise, played, acts, caught = free.table, free.played, free.acts, free.surprised
        free_plans = c.free_plan_index
    has_first_plans = c.first_plan_index is not None
    first_plans = c.first_plan_index if c.first_plan_index is not None else c.plan_index
    tally.draws, tally.round_limit = play(
        rng.integers(0, 2**64, dtype=np.uint64), n, c.side_of, c.unit_of, c.init.values, c.init.off,
        c.init.size, c.init_index, c.init_round, c.hp.values, c.hp.off, c.hp.size, c.plan_index, c.dmg.values,
        c.dmg.off, c.dmg.size, c.out_target, c.out_attacker, c.out_back, c.status_values, c.status_base,
        c.target_key, c.may_act, c.end_code, pairs, c.first_strike is not None, len(c.sides),
        dead_code(c), free is not None, surprise.values, surprise.size[0], played, acts, caught, free_plans,
        c.out_spent, c.out_spent_back, c.out_wear, c.out_subdual, c.out_subdual_back, c.sub_size,
        has_first_plans, first_plans, c.out_wear_back, c.attacker_states, c.round_end is not None,
        c.round_end if c.round_end is not None else np.zeros((1, 1), np.int32),
        c.scripted_target if c.scripted_target is not None else np.full(c.count, -1, np.int64),
        c.out_knockout, c.knockout_code, c.round_plans is not None,
        c.round_plans if c.round_plans is not None else np.full((1, *c.plan_index.shape), -1, np.int32),
        c.plan_round if c.plan_round is not None else np.zeros(c.max_rounds + 1, np.int64),
        c.routine_len, c.step_plans,  # None: no routine (numba prunes the steps' branches away)
        c.back_spent, c.own_count,
        c.end_draw,  # None: no end of round rolls dice (numba prunes its branch away)
        c.end_table.values, c.end_table.off, c.end_table.size, c.end_state, c.end_status,
        c.init_state,  # None: no segment delays (GAP-SEGMENTS; numba prunes its branch away)
        tally.wins, tally.rounds, tally.alive, tally.standing, tally.hp_left,
    )  # fmt: skip
    return tally


def _pick(state: Any, size: Any) -> Any:
    """An entry of a table of `size` equally likely entries: floor(u * size), u the SplitMix64 output
    for `state` read as a fraction in [0, 1) with 32 bits (a value's chance is off by < 2**-32)."""
    z = (state ^ (state >> np.uint64(30))) * MIX1
    z = (z ^ (z >> np.uint64(27))) * MIX2
    z = z ^ (z >> np.uint64(31))
    return np.int64(((z >> np.uint64(32)) * np.uint64(size)) >> np.uint64(32))


def _play_fights(  # one loop nest, kept together for the compiler
    seed: Any, n: int, side_of: Any, unit_of: Any, init_values: Any, init_off: Any, init_size: Any,
    init_index: Any, init_round: Any, hp_values: Any, hp_off: Any, hp_size: Any, plan_index: Any,
    dmg_values: Any, dmg_off: Any, dmg_size: Any, out_target: Any, out_attacker: Any, out_back: Any,
    status_values: Any, status_base: Any, target_key: Any, may_act: Any, end_code: Any,
    pairs: Any, has_first: bool, sides: int, dead: int,
    has_free: bool, free_codes: Any, free_size: int, free_played: Any, free_acts: Any, free_caught: Any,
    free_plans: Any, out_spent: Any, out_spent_back: Any, out_wear: Any, out_subdual: Any,
    out_subdual_back: Any, sub_size: Any,
    has_first_plans: bool, first_plans: Any, out_wear_back: Any, attacker_states: int, ticks: bool,
    round_end: Any, scripted: Any, out_knockout: Any, knockout_code: Any, has_round_plans: bool,
    round_plans: Any, plan_round: Any, routine_len: Any, step_plans: Any, back_spent: int, own_count: int,
    end_draw: Any, end_values: Any, end_off: Any, end_size: Any, end_state: Any, end_status: Any,
    init_state: Any, wins: Any, rounds: Any, survived: Any, standing: Any, hp_left: Any,
) -> tuple[int, int]:  # fmt: skip
    """Play `n` fights and add them to the tally arrays; returns (draws, round-limit fights).

    With `has_free`, each fight first draws who is surprised (ODD-SURP-1..5) and, if the draw gives a
    free round, plays it as round 0: those acting each alone in a slot in file order, with the free
    round's plans (the target surprised or not)."""
    state = seed  # the random stream: each draw steps it by GAMMA (SplitMix64, _pick)
    count = side_of.size
    units = init_index.shape[1]
    k_top = plan_index.shape[2] - 1
    u_top = plan_index.shape[3] // (back_spent * own_count) - 1  # the target's deflections spent, up to
    counts_back = back_spent > 1  # and the attacker's (a blow back meets them, MF-FUMBLE-2)
    j_top = own_count - 1  # J: the target's place among the attacker's attackers (sim/blow_backs.py)
    tracks = k_top > 0 or j_top > 0  # each one's distinct attackers this round (ODD-AC-SHIELD)
    wears = plan_index.shape[4] > 1
    wear = np.zeros(count, np.int64)  # state: armour (HR-ARMDMG-1..4), conditions that come and go
    wears_back = out_wear_back.max() >= 0  # some attack changes its attacker's state
    knocks = out_knockout.max() > 0  # some attack is a knock-out blow (MF-KO-1)
    attacker_axis = attacker_states > 1  # the plans read the attacker's state too
    has_scripted = scripted.max() >= 0  # some tactic names its target
    spent = np.zeros(count, np.int64)  # deflections spent this round (DAC-DEFL-3)
    sub = np.zeros(count, np.int64)  # subdual damage taken (GAP-SUBDUAL)
    # flags: work skipped where these tables cannot need it
    subdues = sub_size.max() > 1
    counts_spent = plan_index.shape[3] > 1
    hits_back = out_back.max() > 0 or out_attacker.max() > 0 or out_subdual_back.max() > 0
    nobody = np.int64(1) << 62
    side_lo = np.full(sides, count, np.int64)  # each side's rows: side_lo to side_hi - 1 (file order)
    side_hi = np.zeros(sides, np.int64)
    best_of = np.zeros(sides, np.int64)  # each side's lowest target key: the one its enemies choose
    for j in range(count):
        side_lo[side_of[j]] = min(side_lo[side_of[j]], j)
        side_hi[side_of[j]] = j + 1
    hp = np.zeros(count, np.int64)
    code = np.zeros(count, np.int64)
    tkey = np.zeros(count, np.int64)  # each one's target key, kept with its status
    keys = np.zeros(count, np.int64)  # by place in `live`
    live = np.zeros(count, np.int64)  # who is in this round's order, in file order
    rolled = np.zeros(units, np.int64)  # the round (`serial`) each unit last rolled its key in
    serial = 0
    drawn = np.zeros(units, np.int64)
    order = np.zeros(count, np.int64)
    first = np.zeros(count, np.int64)
    walk = np.zeros(count, np.int64)
    starts = np.zeros(count, np.bool_)
    attackers = np.zeros((count, 3), np.int64)  # the first distinct attackers this round, as a shield counts
    received = np.zeros(count, np.int64)  # how many of them (at most 3)
    downed = np.zeros(count, np.int64)
    draws = 0
    limit = 0
    for _ in range(n):
        for s in range(sides):
            best_of[s] = nobody
        for j in range(count):
            state += GAMMA
            hp[j] = hp_values[np.uint64(hp_off[j] + _pick(state, hp_size[j]))]
            at = status_base[j] + hp[j] * sub_size[j]
            code[j] = status_values[np.uint64(at)]
            tkey[j] = target_key[np.uint64(at)]
            wear[j] = 0
            sub[j] = 0
            side = np.uint64(side_of[j])
            best_of[side] = min(best_of[side], tkey[j])
        round_no = 0
        verdict_code = 0
        if has_free:  # the surprise checks' outcome, from the rule's own table
            state += GAMMA
            verdict_code = free_codes[_pick(state, free_size)]
            if free_played[verdict_code]:
                round_no = -1  # the free round is round 0
        while True:
            round_no += 1
            present = count  # the order's length: who may act this round
            if round_no == 0:  # the free round: file order, one to a slot
                for p in range(count):
                    order[p] = p
                    first[p] = p
            else:
                # in the order: the active, and the down whom the turn table lets act (nobody under
                # the rules today); the others cannot act this round, so they are left out
                present = 0
                variant = init_round[round_no]
                serial += 1  # this round, among all the batch's rounds
                for j in range(count):
                    if code[j] == 0:  # each unit's key rank, from its table for this round
                        unit = np.uint64(unit_of[j])
                        if rolled[unit] != serial:  # a unit rolls when its first active member is met
                            rolled[unit] = serial
                            t = np.uint64(init_index[variant, unit])
                            if init_state is not None:  # GAP-SEGMENTS: its key as its state delays it
                                t = np.uint64(init_state[variant, unit, wear[j]])
                            state += GAMMA
                            drawn[unit] = init_values[np.uint64(init_off[t] + _pick(state, init_size[t]))]
                        keys[present] = drawn[unit]
                    elif may_act[code[j], 0]:
                        keys[present] = 0  # below every rank
                    else:
                        continue
                    live[present] = j
                    present += 1
                for i in range(present):  # higher key first, equal keys in one slot, file order inside it
                    key = keys[i]
                    above = 0  # counted without branches: random keys would mispredict them
                    before = 0
                    for j in range(i):
                        above += keys[j] > key
                        before += keys[j] == key
                    for j in range(i + 1, present):
                        above += keys[j] > key
                    order[np.uint64(above + before)] = live[i]
                    first[np.uint64(above + before)] = above
            if round_no == 1 and has_first:  # ODD-INIT-5/6: first_strike.strike_first, one fight
                for p in range(present):
                    walk[p] = order[p]
                    starts[p] = first[p] == p
                for step in range(present):
                    who = walk[step]
                    at = 0
                    while order[at] != who:
                        at += 1
                    begin = at
                    while not starts[begin]:
                        begin -= 1
                    dest = -1
                    for q in range(begin):  # the first earlier slot with an enemy it strikes first
                        if pairs[who, order[q]]:
                            dest = q
                            break
                    if dest < 0:
                        continue
                    while not starts[dest]:
                        dest -= 1
                    if starts[at] and at + 1 < present and not starts[at + 1]:
                        starts[at + 1] = True  # the next in its old slot now begins it
                    for q in range(at, dest, -1):
                        order[q] = order[q - 1]
                        starts[q] = starts[q - 1]
                    order[dest] = who
                    starts[dest] = True
                begin = 0
                for p in range(present):
                    if starts[p]:
                        begin = p
                    first[p] = begin
            for j in range(count):
                received[j] = 0
                downed[j] = -1
                spent[j] = 0
            # unsigned indices from here on: numba checks a signed index for a negative one each time
            for p in range(present):
                a = np.uint64(order[p])
                if not may_act[np.uint64(code[a]), 1 if downed[a] >= first[p] else 0]:
                    continue
                if round_no == 0 and not free_acts[verdict_code, a]:
                    continue  # surprised: no action in the free round (ODD-SURP-4)
                best = nobody
                if has_scripted and scripted[a] >= 0 and code[scripted[a]] == 0:
                    target = np.uint64(scripted[a])  # the target its tactic names, while it stands
                else:
                    mine = side_of[a]
                    for s in range(sides):  # the lowest target key among the enemies
                        best = min(best, best_of[s] if s != mine else nobody)
                    if best == nobody:
                        continue
                    target = np.uint64(best & 255)  # a key is rank << 8 | file index (procedures.target_keys)
                start = code[a]
                k = np.uint64(0)
                steps = 1
                if step_plans is not None:
                    steps = routine_len[a]
                for step in range(steps):  # one attack, or each of a routine's (ODD-ATK-3)
                    moved = 0
                    if (
                        step > 0
                    ):  # as routines.routine_step: stop if the attacker fell, move on if the target did
                        if code[a] != start:
                            break
                        if code[target] != 0:
                            best = nobody
                            mine = side_of[a]
                            for s in range(sides):
                                best = min(best, best_of[s] if s != mine else nobody)
                            if best == nobody:
                                break
                            target = np.uint64(best & 255)
                            moved = 1
                    place = 0
                    if tracks and (
                        step == 0 or moved
                    ):  # its place among the target's attackers, or their count
                        while place < received[target] and attackers[target, place] != np.int64(a):
                            place += 1
                        k = np.uint64(min(place, k_top))
                    u = np.uint64(min(spent[target], u_top))
                    if counts_back:
                        u = u * np.uint64(back_spent) + np.uint64(min(spent[a], back_spent - 1))
                    if j_top > 0:  # J: the target's place among the attacker's attackers, or their count
                        j = 0
                        while j < received[a] and attackers[a, j] != np.int64(target):
                            j += 1
                        u = u * np.uint64(own_count) + np.uint64(min(j, j_top))
                    w = np.uint64(0)
                    if wears:
                        w = np.uint64(wear[target] * attacker_states + (wear[a] if attacker_axis else 0))
                    if step > 0:
                        plan = -1
                        if step_plans is not None:
                            plan = step_plans[step - 1, moved, a, target, k, u, w]
                    elif round_no == 0:
                        caught = 1 if free_caught[verdict_code, target] else 0
                        plan = free_plans[caught, a, target, k, u, w]
                    elif has_round_plans:  # tactics that apply in some rounds: that round's plans
                        plan = round_plans[plan_round[round_no], a, target, k, u, w]
                    elif round_no == 1 and has_first_plans:  # a scripted first action
                        plan = first_plans[a, target, k, u, w]
                    else:
                        plan = plan_index[a, target, k, u, w]
                    if plan < 0:
                        if step == 0:
                            break  # no legal attack: the tactics wait
                        continue  # this attack of the routine is lost
                    if tracks and (step == 0 or moved) and place == received[target] and place < 3:
                        attackers[target, place] = np.int64(a)  # one of its attackers from now on
                        received[target] += 1
                    state += GAMMA
                    row = np.uint64(plan)
                    outcome = np.uint64(dmg_values[np.uint64(dmg_off[row] + _pick(state, dmg_size[row]))])
                    hp[target] -= out_target[outcome]
                    if subdues:
                        sub[target] += out_subdual[outcome]
                        at = status_base[target] + hp[target] * sub_size[target]
                        at += min(sub[target], sub_size[target] - 1)
                    else:
                        at = status_base[target] + hp[target]
                    code[target] = status_values[np.uint64(at)]
                    tkey[target] = target_key[np.uint64(at)]
                    if knocks and out_knockout[outcome] > 0 and hp[target] <= 0:  # MF-KO-1: left at 0
                        hp[target] = 0
                        code[target] = knockout_code[target]
                        tkey[target] = nobody
                    side = np.uint64(side_of[target])  # keep its side's lowest key true: rescan if it rose
                    if tkey[target] <= best_of[side]:
                        best_of[side] = tkey[target]
                    elif best_of[side] & 255 == target:
                        best_of[side] = nobody
                        for j in range(side_lo[side], side_hi[side]):
                            if side_of[j] == side:
                                best_of[side] = min(best_of[side], tkey[j])
                    if code[target] != 0 and downed[target] < 0:
                        downed[target] = p
                    if counts_spent:
                        spent[target] += out_spent[outcome]
                        spent[a] += out_spent_back[outcome]
                    if wears and out_wear[outcome] >= 0:
                        wear[target] = out_wear[outcome]
                    if wears_back and out_wear_back[outcome] >= 0:
                        wear[a] = out_wear_back[outcome]
                    if not hits_back:
                        continue
                    if tracks and out_back[outcome] > 0 and received[a] < 3:  # struck back: an attacker too
                        j = 0
                        while j < received[a] and attackers[a, j] != np.int64(target):
                            j += 1
                        if j == received[a]:
                            attackers[a, j] = np.int64(target)
                            received[a] += 1
                    if (
                        out_attacker[outcome] > 0 or out_subdual_back[outcome] > 0
                    ):  # struck back by a free attack
                        hp[a] -= out_attacker[outcome]
                        sub[a] += out_subdual_back[outcome]
                        at = status_base[a] + hp[a] * sub_size[a] + min(sub[a], sub_size[a] - 1)
                        code[a] = status_values[np.uint64(at)]
                        tkey[a] = target_key[np.uint64(at)]
                        side = np.uint64(side_of[a])
                        if tkey[a] <= best_of[side]:
                            best_of[side] = tkey[a]
                        elif best_of[side] & 255 == a:
                            best_of[side] = nobody
                            for j in range(side_lo[side], side_hi[side]):
                                if side_of[j] == side:
                                    best_of[side] = min(best_of[side], tkey[j])
                        if code[a] != 0 and downed[a] < 0:
                            downed[a] = p
            if end_draw is not None:  # an end of round that rolls dice (MF-DROWN-2/3), per round
                left = 0
                for s in range(sides):
                    left += best_of[s] < nobody
                if left > 1:  # the engine ends a fight at the action that leaves one side: no end of round
                    for j in range(count):
                        t = np.uint64(end_draw[round_no, j, wear[j], 1 if code[j] == 0 else 0])
                        o = end_values[np.uint64(end_off[t])]
                        if end_size[t] > 1:
                            state += GAMMA
                            o = end_values[np.uint64(end_off[t] + _pick(state, end_size[t]))]
                        wear[j] = end_state[np.uint64(o)]
                        if end_status[np.uint64(o)] >= 0:  # MF-DROWN-3: drowned
                            code[j] = end_status[np.uint64(o)]
                            tkey[j] = nobody
                            side = np.uint64(side_of[j])
                            best_of[side] = nobody
                            for q in range(side_lo[side], side_hi[side]):
                                if side_of[q] == side:
                                    best_of[side] = min(best_of[side], tkey[q])
            if ticks:  # conditions that end with the round
                for j in range(count):
                    wear[j] = round_end[j, wear[j]]
            mask = 0  # the sides with someone standing: a standing combatant has a key below NOBODY
            for s in range(sides):
                mask |= (best_of[s] < nobody) << s
            verdict = end_code[round_no, mask]
            if verdict >= 0:
                rounds[round_no] += 1
                if verdict < sides:
                    wins[verdict] += 1
                elif verdict == sides:
                    draws += 1
                else:
                    limit += 1
                for j in range(count):
                    survived[j] += code[j] != dead
                    standing[j] += code[j] == 0
                    hp_left[j] += max(hp[j], 0)
                break
    return draws, limit
