"""Bad input never crashes or hangs: dice expressions, encounter and ruleset files, command lines.

Every refusal is one of the project's errors with a one-line message (docs/errors.md).
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from referee.dice import RandomDice, ScriptedDice, parse_dice, parse_script, roll
from referee.errors import DiceError, EncounterFileError
from referee.files import load_encounter, load_ruleset_file, parse_yaml_bytes, setup_from_data

from .strategies import dice_expression, encounter, examples

REFEREE = Path(sys.executable).parent / "referee"


def one_line(message: str) -> None:
    assert message and "\n" not in message, f"not one line: {message!r}"


# --- dice expressions -------------------------------------------------------------------------------


def roll_or_refuse(text: str) -> int | None:
    """A value, or a DiceError with a one-line message; any other exception fails the test."""
    try:
        expr = parse_dice(text)
    except DiceError as exc:
        one_line(str(exc))
        return None
    try:
        total = roll(expr, RandomDice(0)).total
    except DiceError as exc:
        one_line(str(exc))
        return None
    assert expr.minimum <= total <= expr.maximum
    return total


@settings(max_examples=examples(300))
@given(dice_expression())
@example("1d0")
@example("-1d6")
@example("2d20kh5")
@example("0d6")
@example("1d%")
@example("1d6/(1d3-2)")
@example("1d6/(1d2-1)")
@example("((((((((((((((((((((((1))))))))))))))))))))))")
@example("-" * 150 + "1")
@example("1d6e6")
@example("1d6 [fire] + 2")
@example("1000d1000")
@example("1001d6")
@example("1d1001")
@example("9" * 199)
@example("1.5d6")
@example("d")
@example("\x00")
def test_dice_expressions_roll_or_raise_dice_error(text: str) -> None:
    roll_or_refuse(text)


@settings(max_examples=examples(200))
@given(st.text(max_size=300))
@example("1d6\n+1")
@example("１d６")
@example("1d6 # comment")
@example("x" * 100_000)
def test_any_string_rolls_or_raises_dice_error(text: str) -> None:
    roll_or_refuse(text)


def test_a_range_that_may_divide_by_zero_is_refused_before_rolling() -> None:
    # `1d6/(1d3-2)` divides by zero on a 2: refused when parsed, not in the middle of a fight.
    with pytest.raises(DiceError, match="may divide by zero"):
        parse_dice("1d6/(1d3-2)")
    assert roll("7/(1d2+1)", ScriptedDice([1])).total == 3


@settings(max_examples=examples(100))
@given(st.text(max_size=200))
@example("1,2,,3")
@example("0")
@example("-4")
@example("1e3")
def test_dice_lists_parse_or_raise_dice_error(text: str) -> None:
    try:
        values = parse_script(text)
    except DiceError as exc:
        one_line(str(exc))
        return
    assert all(v >= 1 for v in values)


# --- encounter and ruleset files --------------------------------------------------------------------

BASE: dict[str, Any] = {
    "name": "base",
    "sides": [
        {
            "name": "A",
            "combatants": [{"name": "Ann", "hp": 5, "weapons": ["long sword"], "armour": "chain mail"}],
        },
        {
            "name": "B",
            "combatants": [
                {"name": "Bob", "hit_dice": "1d8", "weapons": [{"name": "claw", "damage": "1d4"}]}
            ],
        },
    ],
}

junk = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.integers(min_value=-(10**40), max_value=10**40),
        st.floats(allow_nan=True),
        st.text(max_size=20),
        st.sampled_from(["1d6", "d10", "chain mail", "odd", "on", "huge", "", "-1", "3+1"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=8,
)

PATHS = [
    (),
    ("name",),
    ("ruleset",),
    ("options",),
    ("max_rounds",),
    ("distance",),
    ("surprise",),
    ("environment",),
    ("sides",),
    ("sides", 0),
    ("sides", 0, "name"),
    ("sides", 0, "combatants"),
    ("sides", 0, "combatants", 0),
    ("sides", 0, "combatants", 0, "name"),
    ("sides", 0, "combatants", 0, "count"),
    ("sides", 0, "combatants", 0, "hp"),
    ("sides", 0, "combatants", 0, "level"),
    ("sides", 0, "combatants", 0, "hit_die"),
    ("sides", 1, "combatants", 0, "hit_dice"),
    ("sides", 0, "combatants", 0, "abilities"),
    ("sides", 0, "combatants", 0, "abilities", "str"),
    ("sides", 0, "combatants", 0, "weapons"),
    ("sides", 0, "combatants", 0, "weapons", 0),
    ("sides", 1, "combatants", 0, "weapons", 0, "damage"),
    ("sides", 0, "combatants", 0, "armour"),
    ("sides", 0, "combatants", 0, "shield"),
    ("sides", 0, "combatants", 0, "ac"),
    ("sides", 0, "combatants", 0, "size"),
    ("sides", 0, "combatants", 0, "position"),
    ("sides", 0, "combatants", 0, "protection"),
    ("sides", 0, "combatants", 0, "conditions"),
    ("sides", 0, "combatants", 0, "unknown_field"),
]


def put(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    *head, last = path
    node = data
    for key in head:
        node = node.setdefault(key, {}) if isinstance(node, dict) else node[key]
    node[last] = value
    return data


def setup_or_refuse(data: Any) -> None:
    try:
        setup_from_data(data, "fuzz.yaml")
    except EncounterFileError as exc:
        # every problem at once (issue 15): one line each, each naming the file
        for problem in str(exc).split("\n"):
            one_line(problem)
            assert problem.startswith("fuzz.yaml")


@settings(max_examples=examples(300))
@given(path=st.sampled_from(PATHS), value=junk)
@example(path=("sides", 0, "combatants", 0, "armour"), value={"name": "x", "ac_bonus": -10})
@example(path=("sides", 0, "combatants", 0, "armour"), value={"name": "x", "ac": -30})
@example(path=("sides", 0, "combatants", 0, "shield"), value={"name": "buckler"})
@example(path=("sides", 1, "combatants", 0, "weapons", 0), value={"name": "x", "damage": "1d6/(1d3-2)"})
@example(path=("sides", 0, "combatants", 0, "weapons"), value=[""])
@example(path=("sides", 0, "combatants", 0, "armour"), value="")
@example(path=("sides", 0, "combatants", 0, "shield"), value="s" * 81)
@example(path=("surprise",), value={"\n": None})
@example(path=("options",), value={"critical_hits": ["a"]})
@example(path=("options",), value={"nonsense": "on"})
@example(path=("ruleset",), value="no/such/file.yaml")
@example(path=("sides", 0, "combatants", 0, "weapons", 0), value="a\rb")  # the advice repeats the name
def test_wrong_values_anywhere_give_one_line_file_errors(path: tuple[Any, ...], value: Any) -> None:
    setup_or_refuse(put(copy.deepcopy(BASE), path, value))


@settings(max_examples=examples(60))
@given(data=encounter(), name=st.sampled_from(["C00", "C10", "Side 1"]))
def test_duplicated_names_are_refused(data: dict[str, Any], name: str) -> None:
    side = data["sides"][0]
    if name.startswith("Side"):
        side["name"] = name
        data["sides"][1]["name"] = name
    else:
        for side in data["sides"][:2]:
            side["combatants"][0]["name"] = name
            side["combatants"][0].pop("count", None)
    with pytest.raises(EncounterFileError, match=r"two (sides|combatants) are called") as info:
        setup_from_data(data, "fuzz.yaml")
    one_line(str(info.value))


def test_count_expansion_clashing_with_a_name_is_refused() -> None:
    data = copy.deepcopy(BASE)
    data["sides"][0]["combatants"] = [{"name": "Orc", "count": 2, "hp": 3}, {"name": "Orc 2", "hp": 3}]
    with pytest.raises(EncounterFileError, match="two combatants are called 'Orc 2'"):
        setup_from_data(data)


@settings(max_examples=examples(80))
@given(st.binary(max_size=400))
@example(b"\xff\xfe\x00a")
@example(b"\xef\xbb\xbfname: x")
@example(b"a: !!python/object/apply:os.system ['true']")
@example(b"[" * 5000)
@example(b"{a: " * 3000)
@example(b"&a [*a]")
@example(b"a: &a [*a, *a]\nb: *a")
@example(b"--- 1\n--- 2\n")
def test_any_bytes_load_or_raise_a_file_error(raw: bytes) -> None:
    try:
        data = parse_yaml_bytes(raw, "fuzz.yaml")
    except EncounterFileError as exc:
        one_line(str(exc))
        return
    setup_or_refuse(data)


@settings(max_examples=examples(150))
@given(st.text(alphabet=st.sampled_from(list("{}[]:,-&*!|>'\" \n\tab1")), max_size=200))
def test_yaml_like_text_loads_or_raises_a_file_error(text: str) -> None:
    try:
        data = parse_yaml_bytes(text.encode(), "fuzz.yaml")
    except EncounterFileError as exc:
        one_line(str(exc))
        return
    setup_or_refuse(data)


def test_alias_bomb_is_refused_before_it_expands() -> None:
    # nine levels of ten references: ninety aliases (under the alias limit) that expand to 10**9 items
    lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 10):
        refs = ", ".join([f"*l{i - 1}"] * 10)
        lines.append(f"l{i}: &l{i} [{refs}]")
    raw = ("\n".join(lines) + "\nname: bomb\nenvironment: {boom: *l9}\n").encode()
    with pytest.raises(EncounterFileError, match="expands to more than") as info:
        parse_yaml_bytes(raw, "bomb.yaml")
    one_line(str(info.value))


def test_a_cyclic_structure_is_refused() -> None:
    raw = b"environment: &a {inner: *a}\nsides: []\n"
    with pytest.raises(EncounterFileError, match="refers to itself"):
        parse_yaml_bytes(raw, "cycle.yaml")
    cyclic: dict[str, Any] = copy.deepcopy(BASE)
    cyclic["environment"] = {"self": cyclic}
    with pytest.raises(EncounterFileError, match="refers to itself"):
        setup_from_data(cyclic, "cycle")


def test_files_that_are_not_files(tmp_path: Path) -> None:
    with pytest.raises(EncounterFileError, match="no such file"):
        load_encounter(tmp_path / "missing.yaml")
    with pytest.raises(EncounterFileError, match="is a directory"):
        load_encounter(tmp_path)
    if os.path.exists("/dev/zero"):  # a device (an endless stream) is not read at all
        with pytest.raises(EncounterFileError, match="not a regular file"):
            load_encounter("/dev/zero")


@settings(max_examples=examples(150))
@given(key=st.sampled_from([None, "preset", "options", "name", "junk"]), value=junk)
@example(key="options", value={"critical_hits": "sometimes"})
@example(key="preset", value="nonesuch")
@example(key="options", value=[1, 2])
@example(key=None, value=[])
def test_ruleset_files_load_or_raise_a_file_error(tmp_path_factory: Any, key: str | None, value: Any) -> None:
    path = tmp_path_factory.mktemp("rs") / "house.yaml"
    content: Any = {"preset": "odd", "options": {"critical_hits": "confirm_16_20"}}
    if key is None:
        content = value
    else:
        content[key] = value
    path.write_text(yaml.safe_dump(content, allow_unicode=True))
    try:
        load_ruleset_file(path)
    except EncounterFileError as exc:
        one_line(str(exc))


# --- the command line -------------------------------------------------------------------------------


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(REFEREE), *args], capture_output=True, text=True, timeout=120, cwd=cwd,
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"},
    )  # fmt: skip


def assert_refused(result: subprocess.CompletedProcess[str]) -> None:
    """Exit status 2 and one line `error: ...` on stderr (usage errors too), never a traceback."""
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr


@pytest.fixture(scope="module")
def encounter_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "fight.yaml"
    path.write_text(yaml.safe_dump(BASE))
    return path


@pytest.mark.parametrize(
    "content",
    [
        b"sides: [",
        b"a: !!python/object/apply:os.system ['echo hacked']",
        b"x: &a [*a]",
    ],
    ids=["bad-yaml", "python-tag", "cycle"],
)
def test_cli_bad_files(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "bad.yaml"
    path.write_bytes(content)
    result = run_cli("fight", str(path))
    assert_refused(result)
    assert "hacked" not in result.stdout


def test_cli_bad_dice(encounter_file: Path) -> None:
    assert_refused(run_cli("fight", str(encounter_file), "--dice", "7,x,3"))
    assert_refused(run_cli("fight", str(encounter_file), "--dice", "25"))  # not a face of the first die


def test_cli_usage_errors(encounter_file: Path) -> None:
    assert_refused(run_cli("fight", str(encounter_file), "--seed", "abc"))
    assert_refused(run_cli("fight", str(encounter_file), "--no-such-option"))


def test_cli_huge_seed_and_good_dice_still_work(encounter_file: Path) -> None:
    result = run_cli("fight", str(encounter_file), "--seed", str(10**30), "--json", "--max-rounds", "2")
    assert result.returncode == 0, result.stderr
    assert '"winner"' in result.stdout


@pytest.mark.parametrize("command", ["sim", "odds", "rules"])
def test_every_command_reading_a_file_refuses_a_bad_one_in_one_line(tmp_path: Path, command: str) -> None:
    path = tmp_path / "cycle.yaml"
    path.write_bytes(b"environment: &a {inner: *a}\nsides: []\n")
    result = run_cli(command, str(path))
    assert_refused(result)
    assert str(path) in result.stderr
