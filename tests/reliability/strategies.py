"""Hypothesis strategies shared by the reliability tests: encounters, dice expressions, junk."""

from __future__ import annotations

import os
from typing import Any

from hypothesis import strategies as st

from referee import catalog
from referee.rules.ruleset import OPTIONS, PRESETS

LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"


def examples(fast: int) -> int:
    """Examples per test: `fast` for `make test`, fifty times more under HYPOTHESIS_PROFILE=long."""
    return fast * 50 if LONG else fast


WEAPONS = sorted(catalog.weapons())
ARMOURS = sorted(catalog.armours())
SHIELDS = sorted(catalog.shields())
SIZES = ["tiny", "small", "medium", "large", "huge", "gargantuan"]

ability = st.integers(min_value=3, max_value=18)
abilities = st.fixed_dictionaries(
    {},
    optional={k: ability for k in ("str", "dex", "con", "int", "wis", "cha")},
)


@st.composite
def combatant(draw: st.DrawFn, name: str) -> dict[str, Any]:
    """A character or monster with random numbers and catalog gear."""
    data: dict[str, Any] = {"name": name, "abilities": draw(abilities)}
    if draw(st.booleans()):
        data["level"] = draw(st.integers(1, 12))
        data["hit_die"] = draw(st.sampled_from(["d4", "d6", "d8", "d10"]))
    else:
        data["hit_dice"] = draw(st.sampled_from(["1d6", "1d8", "2d8", "3+1", "5d8", "1", "4"]))
    if draw(st.booleans()):
        data["hp"] = draw(st.integers(1, 40))
    if draw(st.integers(0, 3)) == 0:
        data["count"] = 2
    data["weapons"] = draw(st.lists(st.sampled_from(WEAPONS), max_size=2, unique=True))
    if draw(st.booleans()):
        data["armour"] = draw(st.sampled_from(ARMOURS))
    if draw(st.integers(0, 2)) == 0:
        data["shield"] = draw(st.sampled_from(SHIELDS))
    if draw(st.integers(0, 3)) == 0:
        data["ac"] = draw(st.integers(-5, 22))
    if draw(st.integers(0, 3)) == 0:
        data["size"] = draw(st.sampled_from(SIZES))
    if draw(st.integers(0, 4)) == 0:
        data["protection"] = [{"name": "ring of protection", "enhancement": draw(st.integers(-2, 3))}]
    return data


@st.composite
def ruleset_options(draw: st.DrawFn) -> dict[str, str]:
    """A few random option overrides: any variant of any option."""
    names = draw(st.lists(st.sampled_from(sorted(OPTIONS)), max_size=4, unique=True))
    return {n: draw(st.sampled_from(OPTIONS[n].names)) for n in names}


@st.composite
def encounter(draw: st.DrawFn, preset: str | None = None) -> dict[str, Any]:
    """Encounter data: 2-3 sides of 1-4 combatants, random gear, options, surprise and round limit."""
    side_count = draw(st.integers(2, 3))
    sides = []
    for s in range(side_count):
        members = draw(st.integers(1, 4))
        sides.append(
            {"name": f"Side {s}", "combatants": [draw(combatant(f"C{s}{m}")) for m in range(members)]}
        )
    data: dict[str, Any] = {
        "name": "fuzz",
        "ruleset": preset if preset is not None else draw(st.sampled_from(sorted(PRESETS))),
        "options": draw(ruleset_options()),
        "sides": sides,
        "max_rounds": draw(st.integers(1, 12)),
        "distance": draw(st.sampled_from([5, 5, 10, 30, 60])),
    }
    if draw(st.integers(0, 3)) == 0:
        data["surprise"] = {
            "sides": draw(st.lists(st.sampled_from([s["name"] for s in sides]), max_size=2, unique=True)),
            "check": draw(st.sampled_from(["per_side", "per_combatant"])),
        }
    return data


# --- dice expressions mirroring d20's grammar -------------------------------------------------------

_numbers = st.one_of(st.integers(-5, 30), st.integers(0, 10**6), st.integers(0, 10**30)).map(str)


@st.composite
def dice_term(draw: st.DrawFn) -> str:
    count = draw(st.one_of(st.just(""), _numbers))
    faces = draw(st.one_of(_numbers, st.just("%"), st.just("0"), st.just("-1"), st.just("")))
    suffix = draw(
        st.one_of(
            st.just(""),
            st.builds(
                lambda op, n: op + n,
                st.sampled_from(["kh", "kl", "ph", "pl", "k", "e", "rr", "ro", "mi", "ma", "ra"]),
                _numbers,
            ),
        )
    )
    return f"{count}d{faces}{suffix}"


def dice_expression(max_leaves: int = 12) -> st.SearchStrategy[str]:
    """Random expressions from the grammar: terms, literals, + - * / (and some it does not have)."""
    leaf = st.one_of(dice_term(), _numbers)
    return st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.builds(
                lambda a, op, b: f"{a}{op}{b}",
                inner,
                st.sampled_from(["+", "-", "*", "/", "%", "^", "//", " "]),
                inner,
            ),
            inner.map(lambda e: f"({e})"),
            inner.map(lambda e: f"-{e}"),
            inner.map(lambda e: f"{e} [fire]"),
        ),
        max_leaves=max_leaves,
    )
