"""A plain sum's exact distribution without icepool (src/referee/odds/sums.py): icepool's, in its order."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.budget import OverBudget
from referee.odds.dice import dice_die, die_fractions
from referee.odds.sums import plain_sum

PLAIN = [
    "1d8",
    "2d6+1",
    "d10",
    "3",
    "10d10-5",
    "1d4+1d6",
    "1d100",
    "(1d6+2)",
    "+1d6",
    "2d20+1d4-3",
    "1d1",
    "7d3",
]
OTHERS = ["4d6kh3", "4d6kl3", "1d6*2", "1d6/2", "1d6-1d4", "-1d4+5", "(1d6+2)*3"]


@pytest.mark.parametrize("text", PLAIN)
def test_a_plain_sum_is_icepools_distribution_in_its_order(text: str) -> None:
    # rule: ODD-ATK-2: the damage sum the odds read is the one icepool computes, outcome for outcome
    summed = plain_sum(text)
    assert summed is not None
    assert list(summed.items()) == list(die_fractions(dice_die(text)).items())


@pytest.mark.parametrize("text", OTHERS)
def test_anything_but_a_plain_sum_is_left_to_icepool(text: str) -> None:
    assert plain_sum(text) is None


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 6), st.sampled_from([2, 3, 4, 6, 8, 10, 12, 20])), min_size=1, max_size=3
    ),
    st.integers(-5, 5),
)
def test_made_up_sums_agree_with_icepool(groups: list[tuple[int, int]], constant: int) -> None:
    text = "+".join(f"{n}d{s}" for n, s in groups) + (f"{constant:+d}" if constant else "")
    summed = plain_sum(text)
    assert summed is not None
    assert list(summed.items()) == list(die_fractions(dice_die(text)).items())


@pytest.mark.parametrize("text", ["200d100", "50d1000"])  # too many steps; too many outcomes
def test_a_sum_past_the_budget_is_refused_as_icepool_refuses_it(text: str) -> None:
    with pytest.raises(OverBudget) as ours:
        plain_sum(text)
    with pytest.raises(OverBudget) as theirs:
        dice_die(text)
    assert str(ours.value) == str(theirs.value)
