"""Random encounters under every preset (odd, mod, hr, mf, dac, full) on every path that accepts them.

Small encounters (two or three combatants with 1-4 hit points, one or two rounds) are walked exactly
through the event engine (referee.exact_engine) and compared with the exact odds (equal to 1e-9) and
the fast simulator (4.5 standard errors, fights for a 2-point difference). Larger ones (up to four
combatants, up to 12 hit points and 8 rounds) compare the fast simulator with the exact odds.

DETERMINISTIC: hypothesis runs a small fixed number of examples per preset with `derandomize=True` and
no example database, so every CI run sees the same encounters (HYPOTHESIS_PROFILE does not change
them). A path that refuses an encounter records why (hypothesis `event`, shown with
`--hypothesis-show-statistics`)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st
from tests.agreement.paths import (
    Record,
    assert_exact_paths_agree,
    compare_simulator,
    exact_odds,
    exact_walk,
    vectorised,
)
from tests.conftest import make_setup

from referee.rules.ruleset import PRESETS

MELEE = ["dagger", "short sword", "long sword", "mace", "club", "spear", "hand axe", "scimitar",
         "battle axe", "flail", "staff", "war hammer", "two-handed sword", "claw", "bite"]  # fmt: skip
ARMOURS = ["leather", "padded", "studded leather", "ring mail", "chain mail", "scale mail", "plate mail"]
SHIELDS = ["small shield", "medium shield", "large shield"]
WALK_WORK = 10_000  # dice sequences one small encounter's exact walk may run (a few seconds)

DETERMINISTIC = settings(
    derandomize=True,  # the same encounters on every run: CI is deterministic
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: a failure prints its encounter at once
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


@st.composite
def fighter(draw: st.DrawFn, name: str, hp: st.SearchStrategy[int] | None) -> dict[str, Any]:
    """A character or a monster with catalog gear; `hp` fixes its hit points, None rolls its hit dice."""
    data: dict[str, Any] = {"name": name, "weapons": [draw(st.sampled_from(MELEE))]}
    if draw(st.booleans()):
        data["level"] = draw(st.integers(1, 6))
        data["hit_die"] = draw(st.sampled_from(["d4", "d6", "d8"]))
        data["abilities"] = {k: draw(st.integers(3, 18)) for k in ("str", "dex", "con")}
    else:
        data["hit_dice"] = draw(st.sampled_from(["1", "1d6", "1d8", "2d8", "1+1"]))
    if hp is not None:
        data["hp"] = draw(hp)
    if draw(st.booleans()):
        data["armour"] = draw(st.sampled_from(ARMOURS))
    if draw(st.integers(0, 2)) == 0:
        data["shield"] = draw(st.sampled_from(SHIELDS))
    if draw(st.integers(0, 3)) == 0:
        data["ac"] = draw(st.integers(9, 18))
    return data


@st.composite
def small_encounter(draw: st.DrawFn, preset: str) -> dict[str, Any]:
    """One against one (up to two rounds) or one against two (one round), 1-4 hit points each."""
    two = draw(st.booleans())
    hp = st.integers(1, 4)
    heroes = [draw(fighter("Hero", hp))]
    foes = [draw(fighter(f"Foe {i}", hp)) for i in range(2 if two else 1)]
    return {
        "name": "small random encounter",
        "ruleset": preset,
        "max_rounds": 1 if two else draw(st.integers(1, 2)),
        "sides": [{"name": "Heroes", "combatants": heroes}, {"name": "Foes", "combatants": foes}],
    }


@st.composite
def larger_encounter(draw: st.DrawFn, preset: str) -> dict[str, Any]:
    """Two sides of one or two; fixed (3-12) or rolled hit points; up to 8 rounds."""
    hp = draw(st.one_of(st.none(), st.just(st.integers(3, 12))))
    sides = [
        {
            "name": side,
            "combatants": [draw(fighter(f"{side} {i}", hp)) for i in range(draw(st.integers(1, 2)))],
        }
        for side in ("Heroes", "Foes")
    ]
    return {"name": "larger random encounter", "ruleset": preset, "max_rounds": draw(st.integers(3, 8)),
            "sides": sides}  # fmt: skip


def skip_draws(data: st.DataObject, preset: str) -> None:
    """Derandomized runs of one test start from the same seed for every preset: a few throw-away draws
    (one more per preset) give each preset encounters of its own."""
    for _ in range(list(PRESETS).index(preset)):
        data.draw(st.integers(0, 255), label="skipped")


def _note(record: Record) -> None:
    for path, reason in record.refusals.items():
        event(f"{path} refuses: {reason.split(':')[0]}")
    event("compared: " + (", ".join(c.split(" (")[0] for c in record.compared) or "nothing"))


@pytest.mark.parametrize("preset", list(PRESETS))
@settings(DETERMINISTIC, max_examples=5)
@given(data=st.data())
def test_small_encounters_agree_with_the_exact_walk_of_the_engine(preset: str, data: st.DataObject) -> None:
    # rule: ODD-INIT-1..4, ODD-ATK-1, ODD-ATK-2, ODD-AC-SHIELD and each preset's options (whole fights)
    skip_draws(data, preset)
    setup = make_setup(data.draw(small_encounter(preset), label="encounter"))
    record = Record(setup.name)
    walked = exact_walk(setup, record, WALK_WORK)
    if walked is not None:
        chain = exact_odds(setup, record)
        if chain is not None:
            assert_exact_paths_agree(walked, chain, "exact engine walk vs exact odds")
            record.compared.append("exact engine walk vs exact odds")
        if vectorised(setup, record):
            compare_simulator(setup, walked, record, "exact engine walk")
    _note(record)


@pytest.mark.parametrize("preset", list(PRESETS))
@settings(DETERMINISTIC, max_examples=3)
@given(data=st.data())
def test_larger_encounters_agree_between_the_simulator_and_the_exact_odds(
    preset: str, data: st.DataObject
) -> None:
    # rule: ODD-INIT-1..4, ODD-ATK-1, ODD-ATK-2, ODD-HD-1, ODD-HD-2 and each preset's options (whole fights)
    skip_draws(data, preset)
    setup = make_setup(data.draw(larger_encounter(preset), label="encounter"))
    record = Record(setup.name)
    chain = exact_odds(setup, record)
    fast = vectorised(setup, record)
    if chain is not None and fast:
        compare_simulator(setup, chain, record, "exact odds")
    elif fast:
        event(f"the simulator accepts what the exact odds refuse: {record.refusals['exact odds']}")
    _note(record)
