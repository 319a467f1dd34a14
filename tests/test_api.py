"""The public face (`referee.Fight`): steps with plain dice, undo, legal actions, dice asked, odds.

Rules seen here: ODD-HD-2 (hit points at set-up), ODD-INIT-1 (initiative), ODD-BTH-1, ODD-MELEE-1,
ODD-MELEE-2 (to hit and damage), ODD-ATK-2, ODD-HP-1 (damage and death), ODD-ROUND-1.
"""

from __future__ import annotations

import importlib.util
import io
import os
import subprocess
import sys

import pytest
from tests.conftest import ROOT

import referee
from referee.api import Fight, Step, describe
from referee.chance import DieRequest
from referee.dice import DiceSource, RandomDice, ScriptedDice
from referee.engine.actions import Attack, Wait
from referee.errors import DiceError, IllegalActionError
from referee.odds import action_odds

DUEL = ROOT / "examples" / "duel.yaml"
AXE = Attack("Angthar", target="Goblin")


def duel(seed: int = 3) -> Fight:
    return Fight.from_file(DUEL, seed=seed)


def first_action(fight: Fight) -> Fight:
    """Begin, and start round 1 unless surprise gave a free round first (ODD-SURP-4)."""
    fight.begin()
    if fight.needs == "round":
        fight.start_round()
    return fight


def at_first_action(seed: int = 3) -> Fight:
    """The duel in round 1, Angthar first (goblin 2 hp with seed 3, ODD-HD-2; d10 8 against 3, ODD-INIT-1)."""
    fight = duel(seed)
    fight.begin()
    fight.start_round(dice=[8, 3])
    return fight


class Recording:
    """A dice source that writes down what it was asked (for comparing with `dice_needed`)."""

    def __init__(self, source: DiceSource) -> None:
        self.source = source
        self.asked: list[tuple[int, str]] = []

    def roll(self, sides: int, purpose: str) -> int:
        self.asked.append((sides, purpose))
        return self.source.roll(sides, purpose)


# --- steps ---------------------------------------------------------------------------------------------


def test_a_whole_duel_step_by_step_with_scripted_dice() -> None:
    fight = duel()
    assert fight.needs == "begin" and fight.current is None
    begun = fight.begin(dice=[4])
    assert begun.kind == "begin" and [d.value for d in begun.dice] == [4]
    assert fight.combatant("Goblin").hp == 4  # ODD-HD-2: 1d6 hit points
    rounded = fight.start_round(dice=[8, 3])
    assert rounded.kind == "round" and [d.value for d in rounded.dice] == [8, 3]
    assert fight.current == "Angthar" and fight.round == 1
    step = fight.act(AXE, dice=[12, 6])
    assert step.kind == "action" and step.action == AXE
    assert [(d.sides, d.value) for d in step.dice] == [(20, 12), (8, 6)]
    goblin = fight.combatant("Goblin")
    assert goblin.hp == -3 and goblin.status == "dead" and not goblin.is_active
    assert fight.is_over and fight.winner == "Village" and fight.needs == "over"
    assert [s.kind for s in fight.steps] == ["begin", "round", "action"]
    assert fight.events == tuple(e for s in fight.steps for e in s.events)


def test_rounds_go_on_until_the_end_of_the_round() -> None:
    fight = at_first_action()
    fight.act(AXE, dice=[2])  # a miss
    assert fight.current == "Goblin"
    fight.act(Attack("Goblin", target="Angthar"), dice=[3])
    assert fight.current is None and fight.needs == "end_round"
    ended = fight.end_round()
    assert ended.kind == "end_round" and ended.round == 1 and fight.needs == "round"
    assert fight.take("round", [1, 9]).kind == "round" and fight.current == "Goblin"


def test_the_same_seed_gives_the_same_fight() -> None:
    a, b = at_first_action(seed=11), at_first_action(seed=11)
    assert a.act(AXE).text() == b.act(AXE).text()


def test_none_in_a_dice_list_rolls_that_die_from_the_seeded_dice() -> None:
    scripted, rolled = at_first_action(), at_first_action()
    mixed = scripted.act(AXE, dice=[None, 6])
    seeded = rolled.act(AXE, dice=None)
    assert mixed.dice[0].value == seeded.dice[0].value


def test_dice_may_be_text_or_any_dice_source() -> None:
    fight = at_first_action()
    assert [d.value for d in fight.act(AXE, dice="12, 6").dice] == [12, 6]
    fight.undo()
    assert [d.value for d in fight.act(AXE, dice=ScriptedDice([12, 6])).dice] == [12, 6]
    other = Fight.from_file(DUEL, seed=None)
    assert other.begin(dice=RandomDice(3)).text() == duel(seed=3).begin().text()
    own = Fight(referee.load_encounter(DUEL), dice=ScriptedDice([2, 8, 3]))
    own.begin()
    assert own.start_round().dice[0].value == 8


def test_a_die_outside_its_faces_is_refused_and_the_fight_left_as_it_was() -> None:
    fight = duel()
    fight.begin()
    before = fight.events
    with pytest.raises(DiceError, match="not a face of a d10"):
        fight.start_round(dice=[11, 3])  # the round-start event was made before the bad die
    assert fight.events == before and fight.needs == "round" and len(fight.steps) == 1
    with pytest.raises(DiceError, match="whole number"):
        fight.start_round(dice=["8"])  # type: ignore[list-item]
    with pytest.raises(DiceError):
        fight.start_round(dice=8)  # type: ignore[arg-type]


def test_dice_left_over_are_refused_and_the_step_not_taken() -> None:
    fight = at_first_action()
    before = fight.events
    with pytest.raises(DiceError, match="this step used 1 of the 2 dice given"):
        fight.act(AXE, dice=[3, 6])  # a miss asks for no damage die
    with pytest.raises(DiceError, match="this step used 1 of the 3 dice given"):
        fight.act(AXE, dice="3 6 1")
    assert fight.events == before and fight.current == "Angthar"
    assert [d.value for d in fight.act(AXE, dice=[3]).dice] == [3]
    fight.undo()
    extra = ScriptedDice([3, 6])  # a dice source of one's own is used as it is
    fight.act(AXE, dice=extra)
    assert extra.remaining == 1


def test_the_wrong_turn_and_unknown_names_are_one_line_errors() -> None:
    fight = at_first_action()
    with pytest.raises(IllegalActionError, match="it is Angthar's turn, not Goblin's"):
        fight.act(Attack("Goblin", target="Angthar"))
    for call in (
        lambda: fight.act(Attack("Nobody", target="Goblin")),
        lambda: fight.act(Attack("Angthar", target="Nobody")),
        lambda: fight.combatant("Nobody"),
        lambda: fight.legal_actions("Nobody"),
        lambda: fight.odds(Attack("Nobody", target="Goblin")),
    ):
        with pytest.raises(IllegalActionError, match="no combatant called 'Nobody'") as caught:
            call()
        assert "\n" not in str(caught.value)
    with pytest.raises(IllegalActionError):
        fight.begin()  # already begun
    assert referee.IllegalActionError is IllegalActionError and issubclass(referee.DiceError, ValueError)


# --- undo ---------------------------------------------------------------------------------------------


def test_undo_takes_back_the_whole_step_and_restores_the_state() -> None:
    fight = at_first_action()
    before = fight.state.snapshot()
    step = fight.act(AXE, dice=[12, 6])
    assert len(step.events) > 2  # action, attack, damage, defeat, fight end: one step
    taken = fight.undo()
    assert taken is step and taken.events == step.events
    assert fight.state.snapshot() == before and fight.current == "Angthar" and not fight.is_over
    assert [s.kind for s in fight.steps] == ["begin", "round"]
    fight.undo()
    fight.undo()
    assert fight.needs == "begin" and fight.events == ()
    with pytest.raises(IllegalActionError, match="nothing to undo"):
        fight.undo()


# --- legal actions --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "example", ["duel", "skirmish", "charge", "grapple", "ranged_volley", "pummel", "preset_full"]
)
def test_every_legal_action_is_accepted_by_act(example: str) -> None:
    fight = first_action(Fight.from_file(ROOT / "examples" / f"{example}.yaml", seed=5))
    actor = fight.current
    assert actor is not None
    legal = fight.legal_actions(actor)
    assert legal and all(a.actor == actor for a in legal)
    assert Wait(actor) in legal
    for action in legal:
        assert fight.is_legal(action)
        fight.act(action, dice=RandomDice(1))
        fight.undo()
    texts = [describe(a) for a in legal]
    assert len(texts) == len(set(texts))


def test_legal_actions_of_the_duel() -> None:
    fight = at_first_action()
    legal = fight.legal_actions("Angthar")
    assert legal == fight.legal_actions()  # default: whoever's turn it is
    assert Attack("Angthar", target="Goblin", weapon="battle axe") in legal
    assert Wait("Angthar") in legal
    assert fight.legal_actions("Goblin") == []  # not its turn
    kinds = fight.legal_actions("Angthar", kinds={"attack"})
    assert kinds and {a.kind for a in kinds} == {"attack"}
    assert not fight.is_legal(Attack("Angthar", target="Goblin", weapon="bow"))
    assert not fight.is_legal(Attack("Goblin", target="Angthar"))


def test_no_actions_are_legal_outside_an_action_step() -> None:
    fight = duel()
    assert fight.legal_actions("Angthar") == []
    fight.begin()
    assert fight.legal_actions("Angthar") == []


def test_legal_actions_leave_the_fight_untouched() -> None:
    fight = at_first_action()
    before, events = fight.state.snapshot(), fight.events
    fight.legal_actions("Angthar")
    fight.dice_needed(AXE)
    fight.odds(AXE)
    assert fight.state.snapshot() == before and fight.events == events


# --- dice needed ----------------------------------------------------------------------------------------


def test_dice_needed_for_an_attack_in_order_with_purposes() -> None:
    fight = at_first_action()
    assert fight.dice_needed(AXE) == [
        DieRequest(0, 20, "attack", True),
        DieRequest(1, 8, "damage", False),  # only after a hit
    ]


def test_a_finished_fight_needs_no_dice_and_a_bad_step_name_is_refused() -> None:
    fight = at_first_action()
    with pytest.raises(IllegalActionError, match="unknown step 'lunch'"):
        fight.take("lunch")
    fight.act(AXE, dice=[12, 6])
    assert fight.is_over and fight.dice_needed() == [] and fight.legal_actions("Angthar") == []


def test_dice_needed_for_the_other_steps() -> None:
    fight = duel()
    assert fight.dice_needed() == [DieRequest(0, 6, "hit points Goblin", True)]
    fight.begin()
    assert [(r.sides, r.purpose, r.always) for r in fight.dice_needed()] == [
        (10, "initiative Angthar", True),
        (10, "initiative Goblin", True),
    ]
    fight.start_round(dice=[8, 3])
    with pytest.raises(IllegalActionError, match="Angthar's action"):
        fight.dice_needed()
    with pytest.raises(IllegalActionError):
        fight.dice_needed(Attack("Goblin", target="Angthar"))  # not its turn


@pytest.mark.parametrize("example", ["duel", "preset_hr", "preset_mf", "grapple", "charge"])
def test_dice_needed_matches_the_dice_act_asks_for(example: str) -> None:
    fight = first_action(Fight.from_file(ROOT / "examples" / f"{example}.yaml", seed=2))
    for action in fight.legal_actions(kinds={"attack", "checked_attack", "charge", "move_attack"})[:4]:
        needed = fight.dice_needed(action)
        offered = {(r.index, r.sides, r.purpose) for r in needed}
        for seed in range(4):
            recording = Recording(RandomDice(seed))
            step = fight.act(action, dice=recording)
            fight.undo()
            asked = [(d.sides, d.purpose) for d in step.dice]
            assert asked == recording.asked  # the step's events carry every die it asked for
            assert all((i, s, p) in offered for i, (s, p) in enumerate(asked)), (action, asked, needed)
            assert all(r.index < len(asked) for r in needed if r.always), (action, asked, needed)


def test_a_round_too_long_to_walk_still_lists_its_dice() -> None:
    fight = Fight.from_file(ROOT / "examples" / "skirmish.yaml", seed=1)
    fight.begin()
    needed = fight.dice_needed()
    step = fight.start_round()
    assert [(r.sides, r.purpose) for r in needed if r.always] == [(d.sides, d.purpose) for d in step.dice]


def test_the_lowest_and_highest_rolls_stand_in_for_a_walk_too_long() -> None:
    from referee.api import _extremes

    def attack(dice: DiceSource) -> int:
        face = dice.roll(20, "attack")
        return face + (dice.roll(8, "damage") if face == 20 else 0)

    assert _extremes(attack) == [DieRequest(0, 20, "attack", True), DieRequest(1, 8, "damage", False)]


# --- odds, accounts ------------------------------------------------------------------------------------


def test_odds_are_the_exact_odds_of_the_attack_now() -> None:
    fight = at_first_action()
    odds = fight.odds(AXE)
    assert odds == action_odds(fight.state, AXE)
    assert odds is not None and (odds.hit, odds.drop) == (odds.hit, odds.drop)
    assert 0 < odds.hit <= 1 and odds.expected_damage > 0 and 0 <= odds.critical <= odds.hit
    assert fight.odds(Wait("Angthar")) is None


def test_the_account_cites_the_rules() -> None:
    fight = at_first_action()
    step = fight.act(AXE, dice=[12, 6])
    text = str(step)
    assert text == step.text()
    for rule in ("ODD-BTH-1", "ODD-MELEE-1", "ODD-MELEE-2", "ODD-ATK-2", "ODD-HP-1"):
        assert rule in text and rule in step.markdown() and rule in step.rich().plain
        assert rule in step.rules
    assert "Goblin is dead [ODD-HP-1]" in text.splitlines()
    assert "- **Goblin is dead** `ODD-HP-1`" in step.markdown().splitlines()
    assert step.rich().plain.splitlines() == text.splitlines()
    assert repr(step) == "<Step action by Angthar, round 1: 5 events>"
    assert step.to_dict()["action"]["target"] == "Goblin" and len(step.to_dict()["events"]) == 5


def test_a_step_prints_through_rich() -> None:
    from rich.console import Console

    console = Console(record=True, width=200, color_system=None)
    step = at_first_action().steps[-1]
    console.print(step)
    assert "initiative: Angthar > Goblin [ODD-INIT-1] (d10=8, d10=3)" in console.export_text()


def test_a_fight_says_where_it_stands() -> None:
    fight = duel()
    assert repr(fight) == "<Fight 'Angthar and one goblin', round 0, next: begin>"
    fight.begin()
    fight.start_round(dice=[8, 3])
    assert repr(fight) == "<Fight 'Angthar and one goblin', round 1, next: Angthar's action>"
    assert fight.setup.name == "Angthar and one goblin" and fight.state.round == 1


def test_a_snapshot_does_not_follow_the_fight() -> None:
    fight = at_first_action()
    goblin = fight.combatant("Goblin")
    fight.act(AXE, dice=[12, 6])
    assert goblin.hp == 2 and fight.combatant("Goblin").hp == -5
    assert fight.names == ("Angthar", "Goblin")


def test_describe_names_what_differs_from_the_defaults() -> None:
    assert describe(AXE) == "attack Angthar → Goblin"
    assert (
        describe(Attack("Angthar", target="Goblin", weapon="unarmed"))
        == "attack Angthar → Goblin weapon=unarmed"
    )
    assert describe(Wait("Angthar")) == "wait Angthar"


def test_the_module_examples_run() -> None:
    import doctest

    import referee.api

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        assert doctest.testmod(referee.api).failed == 0
    finally:
        os.chdir(cwd)


# --- the package ---------------------------------------------------------------------------------------


def test_the_package_offers_the_public_names() -> None:
    assert referee.Fight is Fight and referee.Step is Step
    assert referee.Attack is Attack and referee.Wait is Wait
    assert referee.RandomDice is RandomDice and referee.ScriptedDice is ScriptedDice
    from referee.engine.registry import ACTION_TYPES
    from referee.rules.ruleset import Ruleset

    assert referee.Ruleset is Ruleset
    for cls in ACTION_TYPES.values():  # every registered action, by its class name
        assert getattr(referee, cls.__name__) is cls
    assert "Charge" in dir(referee)
    with pytest.raises(AttributeError):
        _ = referee.NoSuchThing
    assert referee.__version__


def test_importing_the_package_is_cheap() -> None:
    code = (
        "import sys, referee; heavy = {'numpy', 'pydantic', 'rich', 'yaml', 'referee.engine'} & set(sys.modules);"
        " print(sorted(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def run_bot(args: list[str], stdin: str = "") -> str:
    """Run examples/bot.py's `main` in this process (it imports nothing but `referee`)."""
    spec = importlib.util.spec_from_file_location("bot", ROOT / "examples" / "bot.py")
    assert spec is not None and spec.loader is not None
    bot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bot)
    out, stdin_was, stdout_was = io.StringIO(), sys.stdin, sys.stdout
    sys.stdin, sys.stdout = io.StringIO(stdin), out
    try:
        assert bot.main([str(DUEL), "--seed", "3", *args]) == 0
    finally:
        sys.stdin, sys.stdout = stdin_was, stdout_was
    return out.getvalue()


def test_the_bot_plays_the_duel() -> None:
    out = run_bot(
        [
            "begin",
            "roll rolling 8 3",
            "legal",
            "odds Goblin",
            "dice Goblin",
            "Goblin attacks Angthar",
            "attack Goblin as headbutt",
            "attack Goblin with battle axe rolling 12 6",
            "status",
            "undo",
            "attack Goblin as pummel rolling 20 2",
            "attack Goblin rolling x",
            "fly",
        ]
    )
    assert "hit points: Angthar 30, Goblin 2 [ODD-HD-2] (d6=2)" in out
    assert "initiative: Angthar > Goblin [ODD-INIT-1] (d10=8, d10=3)" in out
    assert "attack Angthar → Goblin weapon=battle axe" in out
    assert "Angthar → Goblin: hit 70%" in out
    assert "d20 attack, d8 damage (maybe)" in out
    assert "error: it is Angthar's turn, not Goblin's" in out
    assert "Goblin is dead [ODD-HP-1]" in out and "Goblin (Goblins): -5/2 hp, dead" in out
    assert "took back:" in out and "subdual" in out and "[ODD-PUMMEL-1]" in out
    assert "error: 'x' is not a die's face" in out
    assert "error: unknown attack form 'headbutt'; forms: melee, ranged" in out
    assert "unknown command 'fly'" in out


def test_the_bot_reads_commands_from_stdin_and_answers_in_markdown() -> None:
    out = run_bot(["--markdown"], stdin="begin\nroll rolling 8 3\nattack Goblin rolling 12 6\n")
    assert "- **Goblin is dead** `ODD-HP-1`" in out


def test_the_bot_runs_as_a_script() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "bot.py"), str(DUEL), "--seed", "3", "begin"],
        capture_output=True, text=True, check=True, cwd=ROOT, env=env,
    ).stdout  # fmt: skip
    assert out.startswith("hit points: Angthar 30, Goblin 2 [ODD-HD-2]")
