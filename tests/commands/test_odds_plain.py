"""One attack's odds on a pipe are written without rich (commands/odds_text.plain_action_odds): byte for
byte what rich prints there (commands/consoles.plain_text), for every example's attacks and for made-up
answers with awkward names; a name rich could read otherwise (markup, an emoji code) is left to rich."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.conftest import EXAMPLES

from referee.commands.consoles import plain_text
from referee.commands.odds_text import plain_action_odds, print_action_odds
from referee.engine.actions import Attack
from referee.errors import RefereeError
from referee.files import load_encounter
from referee.odds import ActionOdds, encounter_action_odds


def rich_text(odds: ActionOdds) -> str:
    return plain_text(lambda out: print_action_odds(odds, out))


def first_attacks(path: str) -> list[ActionOdds]:
    """Each combatant's first attack on each foe at the start of the encounter (those the odds answer)."""
    setup = load_encounter(path)
    found = []
    for attacker in setup.combatants:
        for target in setup.combatants:
            if target.side == attacker.side:
                continue
            try:
                found.append(encounter_action_odds(setup, Attack(attacker.name, target=target.name)))
            except RefereeError:
                continue  # refused (out of reach, too many dice ...): not printed at all
            break
    return found


ENCOUNTERS = sorted(str(p) for p in EXAMPLES.glob("*.yaml") if "sides:" in p.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", ENCOUNTERS, ids=lambda p: p.split("/")[-1])
def test_every_example_attack_is_written_as_rich_writes_it(path: str) -> None:
    attacks = first_attacks(path)
    if not attacks:
        pytest.skip("no attack is answered at the start of this encounter (out of reach)")
    for odds in attacks:
        assert plain_action_odds(odds) == rich_text(odds)


PIECES = [*"aZ9 -'.,()→[]:\\/", "é", "ß", "中", "😀", "\u0301", "\t", "\u200b", ":smile:", "[bold]", "  "]
PLAIN_PIECES = [p for p in PIECES if p.isprintable() and not set(p) & set("[\\:")]
NAMES = st.one_of(  # names rich prints as they are, and names with anything in them
    st.lists(st.sampled_from(PLAIN_PIECES), min_size=1, max_size=8).map("".join),
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=8).map("".join),
)
CHANCES = st.fractions(min_value=0, max_value=1, max_denominator=400)


@st.composite
def answers(draw: st.DrawFn) -> ActionOdds:
    amounts = draw(st.lists(st.integers(min_value=0, max_value=10**6), min_size=0, max_size=12, unique=True))
    damage = {a: draw(CHANCES) for a in sorted(amounts)}
    on_hit = {a: draw(CHANCES) for a in amounts if a and draw(st.booleans())}
    return ActionOdds(
        attacker=draw(NAMES), target=draw(NAMES), weapon=draw(NAMES), form=draw(NAMES),
        needed=draw(st.none() | st.integers(min_value=-5, max_value=30)),
        hit=draw(CHANCES), critical=draw(CHANCES), fumble=draw(CHANCES), missed_by_chance=draw(CHANCES),
        damage_on_hit=on_hit, damage=damage, expected_damage=draw(st.fractions(min_value=0, max_value=10**4)),
        drop=draw(CHANCES), subdual=draw(st.booleans()),
    )  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(answers())
def test_made_up_answers_are_written_as_rich_writes_them_or_left_to_rich(odds: ActionOdds) -> None:
    plain = plain_action_odds(odds)
    if plain is not None:
        assert plain == rich_text(odds)
    first = f"{odds.attacker} → {odds.target} ({odds.weapon}, {odds.form})"
    if first.isprintable() and not set(first) & set("[\\:"):
        assert plain is not None  # the plain writer answers every name rich prints as it is


@pytest.mark.parametrize(("attacker", "target"), [("Gob[lin]", "x"), ("a", "b\\"), ("a:smile:", "b")])
def test_a_name_rich_reads_as_markup_is_left_to_rich(attacker: str, target: str) -> None:
    # rich reads `[lin]` as a tag, a trailing backslash as escaping the bold's closing tag, `:smile:` as 😄
    odds = ActionOdds(
        attacker=attacker, target=target, weapon="claw", form="melee", needed=10, hit=Fraction(1, 2),
        critical=Fraction(0), fumble=Fraction(0), missed_by_chance=Fraction(0), damage_on_hit={1: Fraction(1)},
        damage={0: Fraction(1, 2), 1: Fraction(1, 2)}, expected_damage=Fraction(1, 2), drop=Fraction(0),
    )  # fmt: skip
    assert plain_action_odds(odds) is None
    assert not rich_text(odds).startswith(f"{attacker} → {target} (")  # rich's own reading, kept
