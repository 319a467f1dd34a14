"""Attack tables: one table per kind of attacker and target, not per plan (MF-FUMBLE-2)."""

from __future__ import annotations

from tests.agreement.test_known_cases import two_heroes_and_a_strong_foe
from tests.conftest import make_setup

from referee.sim import compile_setup


def test_attacks_with_equal_plans_keep_their_own_free_attacks_back() -> None:
    # rule: MF-FUMBLE-2: on the foe's fumble the *target* strikes back, so the foe's attacks on two
    # heroes at the same AC resolve differently (flail 1d6+1 back, or a Str 3 dagger's 1 point)
    compiled = compile_setup(make_setup(two_heroes_and_a_strong_foe()))
    names = list(compiled.names)
    foe, flail, dagger = names.index("Foes 0"), names.index("Heroes 0"), names.index("Heroes 1")
    on_flail = compiled.plan_index[foe, flail, 0, 0, 0]
    on_dagger = compiled.plan_index[foe, dagger, 0, 0, 0]
    assert on_flail != on_dagger

    def struck_back(plan: int) -> set[int]:
        start, size = int(compiled.dmg.off[plan]), int(compiled.dmg.size[plan])
        return {int(compiled.out_attacker[o]) for o in compiled.dmg.values[start : start + size]}

    assert struck_back(on_dagger) == {0, 1}  # 1d4 - 4 Str, at least 1 (GAP-MIN-DAMAGE)
    assert max(struck_back(on_flail)) > 1


def test_criticals_damage_armour_state_by_state() -> None:
    # rule: HR-ARMDMG-1 (a critical makes leather DAC 8 → 9), HR-ARMDMG-3 (at DAC 10 it is destroyed),
    # HR-CRIT-1 (a natural 20 confirmed on 16-20: 1 in 80)
    from fractions import Fraction

    from tests.sim.cases import under

    compiled = compile_setup(under("duel.yaml", "hr"))
    names = list(compiled.names)
    angthar, goblin = names.index("Angthar"), names.index("Goblin")
    states = [int(p) for p in compiled.plan_index[goblin, angthar, 0, 0]]
    assert len(states) == 3 and len(set(states)) == 3  # leather, leather DAC 9, destroyed

    def table(plan: int) -> tuple[list[int], list[int]]:
        entries = compiled.dmg.table(plan)
        return compiled.out_target[entries].tolist(), compiled.out_wear[entries].tolist()

    hit_rates = []
    for w, plan in enumerate(states):
        damage, after = table(plan)
        worse = [a for a in after if a >= 0]
        if w < 2:  # a confirmed critical moves the armour on by one state, 1 time in 80
            assert set(worse) == {w + 1}
            assert Fraction(len(worse), len(after)) == Fraction(1, 80)
        else:
            assert not worse  # destroyed armour takes no more damage
        hit_rates.append(sum(d > 0 for d in damage) / len(damage))
    assert hit_rates[0] < hit_rates[1] < hit_rates[2]  # each state is easier to hit
