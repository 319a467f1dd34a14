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
    on_flail = compiled.plan_index[foe, flail, 0]
    on_dagger = compiled.plan_index[foe, dagger, 0]
    assert on_flail != on_dagger

    def struck_back(plan: int) -> set[int]:
        start, size = int(compiled.dmg.off[plan]), int(compiled.dmg.size[plan])
        return {int(compiled.out_attacker[o]) for o in compiled.dmg.values[start : start + size]}

    assert struck_back(on_dagger) == {0, 1}  # 1d4 - 4 Str, at least 1 (GAP-MIN-DAMAGE)
    assert max(struck_back(on_flail)) > 1
